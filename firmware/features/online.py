"""Online play through a USB bridge (a feature on demand: loaded while an online game runs).

A host program (online/bridge.py, docs/online.md) talks to Lichess and drives the board with
console lines `online ...` (features/console.py hands them to `command`). The board never
sees the account's token: only moves, clocks and the game's id pass the serial line.

Lines the bridge sends (each answered "ok", or "error: ..." with nothing changed):

    online start <w|b> <game id> [FEN]   a new online game, the player has that colour (the
                                         game id again: the running game goes on, "ok resume <ply>")
    online add <from ply> <uci> ...      the server's moves from that ply on (more lines follow)
    online moves <from ply> <uci> ...    the same, and the server's game ends there: a board
                                         game that goes further is taken back (the LEDs guide
                                         the pieces); one new opponent's move lights like the
                                         computer's, several are set up with the LEDs
    online clock <wtime ms> <btime ms> <w|b|->   the server's clocks, the one that runs
    online offer <draw|takeback|none>    the opponent offers a draw / asks for a take back
    online say <text>                    a message on the display (chat, errors)
    online end <1-0|0-1|1/2-1/2|*> <status>   the server ended the game (status: Lichess's
                                         name: mate, resign, outoftime, draw, aborted, ...)
    online stop                          leave online play (a running game is dropped)
    online status                        "online <id> <w|b> ply <n> <phase>" or "online off"

The board's own client (Wi-Fi; features/online_net.py, loaded for these lines only):

    online wifi <ssid> [<password>]      the Wi-Fi network (stored on the board's flash)
    online token <token | file>          the Lichess token (stored on flash, never printed)
    online server <url>                  another Board API server (default https://lichess.org)
    online net seek <min>+<inc> | challenge <user> <min>+<inc> | accept | game <id>
                                         play online through the board's own network client:
                                         it drives this module with the same calls as the
                                         bridge's lines, and sends the board's lines below

Lines the board prints by itself (the bridge acts on them):

    online played <uci> <ply>   the player made a move on the board (ply: the game's plies after it)
    online draw                 the player offers (or accepts) a draw        (hint)
    online takeback <ply>       the player asks for (or accepts) a take back (takeback, or a
                                move taken back by hand; ply: the board's plies now)
    online decline              the player declines the opponent's offer     (new)
    online resign               the player resigns (the bridge aborts a game that allows it) (new, long)
    online left                 the player left online play after the game  (new, after the end)

While online (controller.online is an Online): the opponent's side is the computer's
(settings.computer_side), so the engine does no search for it (flow.engine_work) and its
moves are shown like the computer's (flow.show_computer_move); the buttons above replace
the usual ones (actions.on_button asks `Online.button` first: no hints, no level menu, no
two-player toggle); a move made with the opponent's pieces is taken back (the LEDs guide it);
a game that ends is not counted in the statistics against the computer (game_end.count_end);
the display (ui.compose_text asks `Online.lines`) says "Opponent's move" instead of
"Thinking...", its second line the server's clocks ("W 4:59 B 5:00") and an offer ("Draw?",
"Back?"). A file beside the journal (`online.run`) marks a running online game, so a board
that restarts (a power cut) resumes it waiting for the server instead of letting the engine
play the opponent's side (`resume`, called from actions.boot); a game of the board's own
client ("net" in that file) reconnects by itself (the server and the token are in online.cfg).

The options' chess clock (features/clock.py) stays off while online: the server's clocks
count, the local one would run and let a flag fall on its own (`poll` drops it; it comes
back afterwards as it was).

The local game in progress when an online game starts is kept (`online.keep` beside the
journal, not archived; features/online_keep.py, loaded for that and for bringing it back):
when online play is left (*new* after the game, `online stop`, an aborted game) it comes
back with its level, sides and clock, the LEDs guiding the pieces to its position; the
online game goes to the archive. A restart finds it too: an online game still running goes
on (the local game stays kept), one that is over gives way to the local game.
"""
import sys

from firmware.compat import const, ticks_diff
from firmware.controller import ui as _ui
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.loader import call, drop_unused, release

_NOBODY = const(16)  # copy of firmware.controller.settings.NOBODY
_LONG = const(2)  # copy of firmware.io.buttons.LONG
_ADJUDICATED = const(9)  # copy of firmware.controller.game.ADJUDICATED
_TICK_MS = const(1000)  # the clock text is renewed this often
_OFFER_DRAW = const(1)
_OFFER_BACK = const(2)
_STATUS_WORDS = ("mate", "stalemate", "resign", "outoftime", "timeout")
_STATUS_REASONS = b"\x01\x02\x08\x0a\x0a"  # rules.CHECKMATE, STALEMATE, RESIGNATION, TIMEOUT
_NET_WORDS = ("wifi", "token", "server", "net")
RUN_FILE = "online.run"  # beside the journal while an online game runs: "<side> <saved side> <id> [net]"
KEEP_FILE = "online.keep"  # the local game kept while online: features/online_keep.py


class OnlineError(ValueError):
    """An online console line that cannot be carried out (the answer names why)."""


_NET = "firmware.features.online_net"  # the board's own client (Wi-Fi boards)


def command(app, args, now_ms):
    """Carry out `online <args...>` (args: the words after `online`) and print the answer."""
    app.write(run(app, args, now_ms))


def run(app, args, now_ms):
    """Carry out `online <args...>`; returns the answer ("ok", ...), raises OnlineError. The
    board's own network client (features/online_net.py) calls this as the bridge's lines do."""
    c = app.controller
    o = c.online
    word = args[0].lower() if args else ""
    if o is not None:
        o.write = app.write  # a game resumed at boot had no App yet
    if word in _NET_WORDS:
        return call(_NET, "command", app, word, args[1:], now_ms)
    if word == "start":
        return _start(app, c, args[1:], now_ms)
    if word == "status":
        if o is None:
            return "online off"
        if o.game_id is None:
            return "online waiting " + o.net.state_text()
        return "online %s %s ply %d %s" % (o.game_id, "wb"[o.side >> 3], c.game.ply, _ui.PHASE_NAMES[c.phase])
    if o is not None and word == "stop":
        o.leave(c, now_ms)
        return "ok"
    if o is None or o.game_id is None:
        raise OnlineError("no online game (online start <w|b> <game id> first)")
    if word == "moves" or word == "add":
        if len(args) < 2 or not args[1].isdigit():
            raise OnlineError("usage: online %s <from ply> <uci> ..." % word)
        o.sync(c, int(args[1]), args[2:], word == "moves", now_ms)
    elif word == "clock":
        if len(args) != 4 or not args[1].isdigit() or not args[2].isdigit() or args[3] not in ("w", "b", "-"):
            raise OnlineError("usage: online clock <wtime ms> <btime ms> <w|b|->")
        o.set_clock(c, int(args[1]), int(args[2]), "wb-".index(args[3]) * 8, now_ms)
    elif word == "offer":
        if len(args) != 2 or args[1] not in ("draw", "takeback", "none"):
            raise OnlineError("usage: online offer draw|takeback|none")
        o.offer = ("none", "draw", "takeback").index(args[1])
        if o.offer:
            c.ui.beep("alert")
            c.message = ""  # the offer is the news: the line shows it now
        c.dirty = True
    elif word == "say":
        c.say(" ".join(args[1:]), now_ms)
    elif word == "end":
        if len(args) != 3:
            raise OnlineError("usage: online end <result> <status>")
        o.end(c, args[1], args[2], now_ms)
    else:
        raise OnlineError("usage: online start|add|moves|clock|offer|say|end|stop|status|wifi|token|server|net")
    return "ok"


def _start(app, c, args, now_ms):
    if len(args) < 2 or args[0] not in ("w", "b"):
        raise OnlineError("usage: online start <w|b> <game id> [FEN]")
    side = 0 if args[0] == "w" else 8
    o = c.online
    if o is not None and o.game_id == args[1] and o.side == side:
        c.dirty = True
        return "ok resume %d" % c.game.ply
    fen = " ".join(args[2:]) or None
    if fen is not None:
        from firmware.engine.position import Position

        Position(fen, 2)  # a bad FEN raises here, before anything changes
    net = None
    kept = None
    if o is not None:
        net = o.net  # the board's own client goes on with the new game
        o.net = None
        kept = o.kept  # a second online game: the local game stays kept
        o.leave(c, now_ms, False)
    local = o is None or o.game_id is None  # the local game is on the board (the client was waiting)
    if local:
        kept = call("firmware.features.online_keep", "keep", c, now_ms)
    c.leave_trainer(now_ms)
    o = Online(c, app.write, side, args[1])
    o.net = net
    o.kept = kept
    c.settings.computer_side = side ^ 8  # the opponent plays the computer's part
    c.online = o
    if local and kept is not None and c.journal is not None and c.journal_ok:
        # journal.start_game archives the game it replaces; the kept one comes back instead
        # (and is archived when it is over): the journal's mirror of game.jnl says it has no
        # moves to archive (a cut before start_game's rewrite: game.jnl still holds it)
        c.journal._ensure_loaded()
        c.journal._state.moves = []
    c.new_game(now_ms, fen)
    o.ply = c.game.ply
    o.mark(c)
    return "ok"


def resume(c, now_ms):
    """At boot (actions.boot), the journal's game unfinished and `online.run` beside it: the
    online game goes on, waiting for the server (the bridge's `online start` with the same
    id, or `online net game <id>`); the engine does not play the opponent's side meanwhile."""
    try:
        words = _read(c, RUN_FILE).split()
        o = Online(c, c.log or _quiet, int(words[0]), words[2])
        o.saved_side = int(words[1])
    except (OSError, ValueError, IndexError):
        return
    o.resume_net = words[3:4] == ["net"]  # the board's own client: it reconnects (poll)
    try:
        o.kept = _read(c, KEEP_FILE)
    except OSError:
        pass
    c.online = o
    o.ply = c.game.ply
    c.say("Online: reconnect", now_ms)


def _quiet(text):
    pass


def _unmark(c):
    j = c.journal
    if j is None:
        return
    name = j.files.name(RUN_FILE)
    try:
        if j.files.exists(name):
            j.files.fs.remove(name)
    except OSError:
        pass


def _read(c, name):
    files = c.journal.files
    f = files.open(files.name(name), "rb")
    try:
        return f.read().decode()
    finally:
        f.close()


class Online:
    def __init__(self, c, write, side, game_id):
        self.c = c
        self.write = write
        self.side = side  # the player's colour: 0 White, 8 Black
        self.game_id = game_id  # None: waiting for a game of the network client (the lobby)
        self.net = None  # features.online_net.NetClient when the board plays over its own network
        self.saved_side = c.settings.computer_side  # restored on leaving
        self.ply = 0  # the game's plies as last seen (a drop: a move taken back by hand)
        self.undo = False  # the player moved the opponent's piece: take it back next pass
        self.offer = 0  # the opponent's pending offer (_OFFER_DRAW / _OFFER_BACK)
        self.wtime = -1  # the server's clocks (ms) when they came, -1 none
        self.btime = -1
        self.running = _NOBODY  # whose clock runs (0, 8, or _NOBODY)
        self.clock_ms = 0  # when they came (ticks)
        self.shown_ms = 0
        self.now = 0
        self.kept = None  # type: str | None  # the local game kept while online (online_keep.keep's text)
        self.resume_net = False  # resumed at boot, the board's own client to start again (poll)

    def out(self, line):
        """A line of the board for the bridge (serial), and for the board's own client."""
        self.write(line)
        if self.net is not None:
            self.net.board_line(line)

    def mark(self, c):
        """online.run beside the journal: a restart resumes this game online (see resume)."""
        j = c.journal
        if j is None or not c.journal_ok:
            return
        text = "%d %d %s%s" % (self.side, self.saved_side, self.game_id, " net" if self.net is not None else "")
        try:
            j.files.rewrite(j.files.name(RUN_FILE), text.encode())
        except OSError:
            pass

    def unmark(self, c):
        _unmark(c)

    # ---- the controller's hooks ---------------------------------------------------------
    def after(self, c, by_computer):
        """After every move made on the board: report the player's own moves."""
        if self.game_id is None:
            return
        game = c.game
        move = game.last_move()
        if not by_computer and game.position.stm == self.side:
            self.undo = True  # the opponent's piece moved: never sent, taken back in poll
            return
        self.ply = game.ply
        if self.offer == _OFFER_BACK:
            self.offer = 0
        if not by_computer:
            self.out("online played %s %d" % (uci(move), game.ply))

    def poll(self, c, now_ms):
        """Every pass: the network client's turn; take back a move of the opponent's pieces,
        notice a move taken back by hand, renew the clock text once a second."""
        self.now = now_ms
        clock = c.clock
        if clock is not None:
            # the options' clock (flow._run_clock made it) is off while online: the server's
            # clocks count. Waiting for a game, the local game's clock is kept to go on after;
            # it is made again when online play is left (leave: clock_key)
            c.clock_restore = clock.to_bytes(now_ms) if self.game_id is None else None
            c.clock = None
            c.clock_text = ""
            c.tidy()
        if self.resume_net:
            self.resume_net = False
            self.net_again(c, now_ms)
        if self.net is not None:
            self.net.poll(now_ms)
            if c.online is not self:
                return  # the client left (401, the game gone)
        if self.game_id is None:
            return
        game = c.game
        if self.undo:
            self.undo = False
            game.pop()
            c.to_journal("record_undo")
            c.enter_play(now_ms)  # the LEDs guide the piece back
            c.say("Opponent's move", now_ms)
            self.ply = game.ply
        if game.ply < self.ply:
            self.ply = game.ply
            c.paused = False
            self.out("online takeback %d" % self.ply)
        if self.wtime >= 0 and ticks_diff(now_ms, self.shown_ms) >= _TICK_MS:
            self.shown_ms = now_ms
            c.dirty = True  # ui asks lines() for the clocks again

    def net_again(self, c, now_ms):
        """Resumed at boot, the game was the board's own client's: it connects again by
        itself (online.cfg has the server and the token) and the game's stream brings the
        server's state."""
        try:
            call(_NET, "resume", _Host(c, self), self.game_id, now_ms)
        except ValueError as exc:  # no token any more, no CA for https, ...
            self.write("online net: %s" % (exc,))
            c.say("Online: net failed", now_ms)

    def button(self, c, name, kind, now_ms):
        """actions.on_button asks this first: True when the press had its online meaning."""
        if self.game_id is None:  # waiting for a game of the network client
            if name != "new":
                return False
            self.leave(c, now_ms, False)
            c.say("Online: left", now_ms)
            return True
        over = c.game.over
        if name == "new" and over:
            self.out("online left")
            return self.leave(c, now_ms)  # the kept local game, else the next game as after any game
        if name == "setup" or name == "takeback" and kind == _LONG:
            return False  # check the board
        word = None
        if not over:
            if name == "hint" and kind != _LONG:
                word = "draw"
            elif name == "takeback":
                word = "takeback"
            elif name == "new":
                word = "resign" if kind == _LONG else ("decline" if self.offer else None)
        if word is None:
            c.ui.beep("error")
            c.say("new long: resign", now_ms)
            return True
        if word == "decline" or (word == "draw" and self.offer == _OFFER_DRAW) or (
                word == "takeback" and self.offer == _OFFER_BACK):
            self.offer = 0
        self.out("online %s %d" % (word, c.game.ply) if word == "takeback" else "online " + word)
        c.ui.beep("click")
        c.say({"draw": "Draw sent", "takeback": "Take back sent", "decline": "Declined",
                "resign": "Resigning"}[word], now_ms)
        return True

    def lines(self, c, phase, head, detail, level):
        """ui.compose_text asks this for the display's lines (head, detail, level) online."""
        if self.game_id is None:
            return "Online", self.net.state_text() if self.net is not None else "", level
        level = "Lichess " + self.game_id
        if phase == _ui.THINKING and not c.paused:
            head = "Opponent's move"
        text = self.clock_text(c, self.now)
        if self.offer:
            text += " Draw?" if self.offer == _OFFER_DRAW else " Back?"
        if text:
            if phase in (_ui.PLAYER, _ui.THINKING):
                detail = text
            elif phase == _ui.SHOWING:
                head = head + " " + detail
                detail = text
            else:
                level = text
        return head, detail, level

    def clock_text(self, c, now_ms):
        if self.wtime < 0:
            return ""
        w = self.wtime
        b = self.btime
        if not c.game.over:
            run = ticks_diff(now_ms, self.clock_ms)
            if self.running == 0:
                w = w - run if w > run else 0
            elif self.running == 8:
                b = b - run if b > run else 0
        return "W %s B %s" % (_mmss(w), _mmss(b))

    # ---- the bridge's lines -------------------------------------------------------------
    def sync(self, c, start, words, final, now_ms):
        """The server's moves from ply `start` on (see the module docstring)."""
        game = c.game
        if start > game.ply:
            raise OnlineError("the board has %d plies, not %d" % (game.ply, start))
        i = start
        k = 0
        n = len(words)
        while k < n and i < game.ply and uci(game.move_at(i)) == words[k]:
            i += 1
            k += 1
        shown = c.shown_move if c.phase == _ui.SHOWING else 0
        if final and shown and i == game.ply and n - k == 1 and uci(shown) == words[k]:
            return  # that move is lit already
        changed = False
        if game.ply > i and (final or k < n):
            while game.ply > i:
                game.pop()
                c.to_journal("record_undo")
            changed = True
        if shown:
            c.shown_move = 0
            c.sync.expect_move(0)
        c.paused = False
        self.offer = 0 if changed else self.offer
        pos = game.position
        if (final and n - k == 1 and not changed and not game.over and pos.stm != self.side
                and c.phase in (_ui.THINKING, _ui.PLAYER, _ui.SHOWING)):
            move = _parse(pos, words[k])
            c.clear_overlays()
            c.show_computer_move(move, now_ms)  # lit; made on the board, it is recorded
            self.ply = game.ply
            return
        while k < n:
            move = _parse(pos, words[k])
            game.push(move)
            c.to_journal("record_move", move)
            k += 1
            changed = True
        self.ply = game.ply
        if changed or shown:
            c.clear_overlays()
            if game.check_end():
                c.game_over(now_ms)
            else:
                c.enter_play(now_ms)  # VERIFY: the LEDs guide the board to the server's position

    def set_clock(self, c, wtime, btime, running, now_ms):
        self.wtime = wtime
        self.btime = btime
        self.running = running if running < 16 else _NOBODY
        self.clock_ms = now_ms
        self.shown_ms = now_ms
        self.now = now_ms
        c.dirty = True

    def end(self, c, result, status, now_ms):
        if result not in ("1-0", "0-1", "1/2-1/2", "*"):
            raise OnlineError("unknown result %r" % result)
        self.offer = 0
        self.unmark(c)
        if result == "*":  # aborted: the game is dropped (the kept local game comes back)
            c.say("Aborted: your game" if self.leave(c, now_ms) else "Game aborted", now_ms)
            return
        game = c.game
        shown = c.shown_move if c.phase == _ui.SHOWING else 0
        if shown:  # the last move (mate, say) is still lit: record it, the LEDs guide it after
            c.shown_move = 0
            c.sync.expect_move(0)
            game.push(shown)
            c.to_journal("record_move", shown)
            self.ply = game.ply
            game.check_end()
        if not game.over or shown:
            if not game.over:
                reason = _ADJUDICATED
                for i in range(len(_STATUS_WORDS)):
                    if _STATUS_WORDS[i] == status:
                        reason = _STATUS_REASONS[i]
                game.finish(result, reason)
            c.game_over(now_ms)
            if shown:
                c.enter_play(now_ms)  # VERIFY until the last move is on the board, then OVER
        c.say("%s %s" % (result, status)[:21], now_ms)

    def drop_net(self):
        """Close the board's own client and let its module go (online_net borrows itself for
        the client it starts); what that module imported goes with it."""
        if self.net is not None:
            self.net.close()
            self.net = None
            release(_NET)
            if _NET not in sys.modules:
                drop_unused("firmware.features.online_http")
                drop_unused("firmware.features.online_state")

    def leave(self, c, now_ms, new_game=True):
        """Normal play again: the computer's side as before; the network client (if any)
        closes. `new_game`: the kept local game comes back (True returned), else a running
        online game is dropped for a new game; without it (another online game follows, or
        none had started) the board's game stays."""
        s = c.settings
        s.computer_side = self.saved_side
        c.online = None
        self.drop_net()
        self.unmark(c)
        c.clock_key = -1  # the options' clock again (off while online: poll)
        c.dirty = True
        if new_game and self.kept is not None:
            call("firmware.features.online_keep", "restore", c, self.kept, now_ms)
            return True
        if new_game and not c.game.over and self.game_id is not None:
            c.new_game(now_ms)
        else:
            c.to_journal("record_settings", s.to_bytes())
            c.enter_play(now_ms)
        return False


class _Host:
    """What the board's own client needs of the App when it starts without one (at boot)."""

    def __init__(self, c, o):
        self.controller = c
        self.out = o.write  # (online.run sets o.write to this object's write)

    def write(self, text):
        self.out(text)


def _parse(pos, text):
    """A server's UCI move in `pos` (castling also as king takes rook, e1h1)."""
    try:
        return parse_uci(pos, text)
    except ValueError:
        if len(text) == 4 and text[0] == "e" and text[1] == text[3] and text[2] in "ah":
            return parse_uci(pos, text[:2] + ("c" if text[2] == "a" else "g") + text[3])
        raise


def _mmss(ms):
    s = (ms + 999) // 1000
    if s >= 3600:
        return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)
    return "%d:%02d" % (s // 60, s % 60)
