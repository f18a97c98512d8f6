"""The simulator's command layer (`Table`) and its terminal front ends.

    sim = Simulator(seed=0)
    table = Table(sim)                 # the person sitting at the board
    table.execute("e2e4")              # lift e2, place e4 with a hand's timing; then wait
                                       # until the computer has answered (settle)
    table.execute("lift e2")           # fine control; "place e4", "hint", "hold level", ...
    print(table.screen())              # board with pieces and LEDs, display, moves, thinking

`Table` knows nothing about terminals, so tests and the web page drive it directly.
It keeps the *physical* board (which piece stands where, what is in the hand, what is off
the board): the firmware only ever sees occupancy through its reed-switch scan, exactly as
on the real board, and its own idea of the game is shown apart (`fen`, move list).

Front ends: `run_lines(table, infile, outfile)` reads commands line by line and prints the
screen after each (pipes, scripts, dumb terminals); `run_curses(table)` is the full-screen
terminal: simulated time runs with the wall clock, LEDs really blink, commands are typed on
the bottom line. Every command is listed by `help` (COMMANDS below).
"""
import os
import sys
import time

from firmware.features.pgn import game_pgn
from firmware.engine.fen import START_FEN
from firmware.engine.notation import san
from firmware.engine.uci_parse import parse_uci
from firmware.engine.san_parse import parse_san
from firmware.engine.position import Position

FILES = "abcdefgh"
HAND_MS = 300  # a hand's pause between two touches of one move
MIN_TOUCH_GAP_MS = 120  # no hand touches two squares faster (clicks in the web page can)
SETTLE_STEP_MS = 100
SETTLE_MAX_MS = 10 * 60 * 1000
LED_MARKS = {"on": "[]", "blink": "()", "blink_fast": "<>", "blink-fast": "<>"}
BUTTON_HELP = {
    "new": "new game (or set up the start position); hold: sides swapped",
    "level": "level menu (level n lights square n: a1 = 1); hold: options",
    "takeback": "take back a move, LEDs guide the pieces; hold: verify board",
    "hint": "show a suggested move (blinking); hold: claim a draw",
    "move": "computer moves now / switch sides; hold: two-player mode",
    "ok": "confirm (menus, promotion choice)",
    "setup": "verify the board: light the differences",
    "mode": "two-player mode on/off; hold: options menu",
    "clock": "clock display",
}

COMMANDS = (
    ("e2e4, e7e8n, Nf3", "make a move: lift and place with a hand's timing"),
    ("do", "make the move the computer shows on its LEDs"),
    ("lift e2", "take the piece off e2 (one reed switch opens)"),
    ("place e4 [Q]", "put a piece on e4: the one in hand, or the named one"),
    ("<button>", "press a button: %s"),
    ("hold <button>", "long press (e.g. hold new: new game, sides swapped)"),
    ("wait [ms|2s]", "let time pass (default 1 s)"),
    ("auto on|off", "make the computer's moves on the board for you"),
    ("arrange <FEN|start>", "rearrange the pieces by hand (start: a new game)"),
    ("sync", "put the pieces where the firmware believes they are"),
    ("fen, moves, pgn", "the firmware's position, move list, PGN"),
    ("save <file>", "write the game as a PGN file"),
    ("flip", "turn the board around on screen"),
    ("help", "this list"),
    ("quit", "leave (also q, exit, Ctrl-D)"),
)


class CommandError(ValueError):
    """A command the table cannot carry out; the message says why and what to type."""


def square_index(name):
    """'e4' -> cell 0..63 (rank * 8 + file); CommandError for anything else."""
    if not isinstance(name, str) or len(name) != 2 or name[0] not in FILES or name[1] not in "12345678":
        raise CommandError("%r is not a square (a1 .. h8)" % (name,))
    return (int(name[1]) - 1) * 8 + FILES.index(name[0])


def square_name(cell):
    return FILES[cell & 7] + str((cell >> 3) + 1)


def fen_pieces(fen):
    """{cell: letter} of the board field of a FEN."""
    out = {}
    rows = fen.split()[0].split("/")
    for i, row in enumerate(rows):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                out[(7 - i) * 8 + f] = ch
                f += 1
    return out


def parse_ms(text):
    """'1500' -> 1500, '2s' / '2.5s' -> ms, '1m' -> 60000; CommandError otherwise."""
    t = text.strip().lower()
    try:
        if t.endswith("ms"):
            v = float(t[:-2])
        elif t.endswith("s"):
            v = float(t[:-1]) * 1000
        elif t.endswith("m"):
            v = float(t[:-1]) * 60000
        else:
            v = float(t)
    except ValueError:
        raise CommandError("%r is not a time (e.g. 500, 2s, 1m)" % (text,)) from None
    if not 0 <= v <= 24 * 3600 * 1000:
        raise CommandError("time %r out of range (0 .. 24 h)" % (text,))
    return int(v)


class Quit(Exception):
    """Raised by Table.execute('quit')."""


class Table:
    """A person at the simulated chess computer. See the module docstring.

    `sim`: a host_sim.Simulator (or anything with its API); `config`: the board config
    (default: `sim.config`, else boards.pico); `recorder`: a host_sim.replay.Recorder that
    receives every lift/place/press/hold with its time."""

    def __init__(self, sim, config=None, recorder=None, human=None):
        self.sim = sim
        if config is None:
            config = getattr(sim, "config", None)
        if config is None:
            from boards.pico import CONFIG as config
        self.config = config
        self.recorder = recorder
        self.human = human or getattr(sim, "human", "white")
        if self.human not in ("white", "black", "both"):
            self.human = "white"
        self.flipped = self.human == "black"
        self.auto = False
        self._elapsed_ms = 0
        self.pieces = fen_pieces(sim.fen())  # cell -> letter standing there physically
        self.hand = []  # [(letter, from_cell or -1)], last lifted last
        self.box = []  # letters off the board (captured, or spare queens for promotions)
        self._rgb_seen = {}
        self._last_touch_ms = -1
        self.ui_error = None  # what failed while drawing the last picture (Table.snapshot)

    # ---- time ---------------------------------------------------------------------------
    @property
    def now_ms(self):
        """Simulated time in ms (the simulator's clock when it exposes one)."""
        for name in ("now_ms", "time_ms"):
            v = getattr(self.sim, name, None)
            if v is not None:
                return int(v() if callable(v) else v)
        return self._elapsed_ms

    def wait(self, ms):
        """Let `ms` of simulated time pass (the firmware runs meanwhile)."""
        ms = int(ms)
        if ms > 0:
            self.sim.run(ms)
            self._elapsed_ms += ms

    # ---- what the firmware shows ----------------------------------------------------------
    def lit(self):
        """{square: pattern} of the LEDs lit now ('on', 'blink', 'blink_fast')."""
        out = {}
        for sq, pattern in self.sim.lit().items():
            out[sq if isinstance(sq, str) else square_name(sq)] = str(pattern).replace("-", "_")
        return out

    def led_colours(self):
        """{square: "r, g, b"} of NeoPixels lit now (colour by role), {} on other LED kinds."""
        elec = getattr(self.sim, "electronics", None)
        if elec is None or getattr(elec, "led_kind", None) != "neopixel":
            return {}
        for cell, rgb in elec.led_cells().items():
            if isinstance(rgb, tuple):
                top = max(rgb) or 1  # show the hue at full brightness, as the eye sees it
                self._rgb_seen[square_name(cell)] = "%d, %d, %d" % tuple(v * 255 // top for v in rgb)
        # a blinking pixel is dark half the time: keep the colour it had when last lit
        return {sq: self._rgb_seen[sq] for sq in self.lit() if sq in self._rgb_seen}

    def state(self):
        st = getattr(self.sim, "state", None)
        if callable(st):
            try:
                return dict(st())
            except Exception:  # an optional extra must never take the UI down
                return {}
        return {}

    def display_lines(self):
        """The text on the board's display (list of lines; [] if the board has none)."""
        if self.config.get("display") is None:
            return []
        dt = getattr(self.sim, "display_text", None)
        if callable(dt):
            text = dt()
            lines = text.splitlines() if isinstance(text, str) else list(text)
        else:
            disp = getattr(getattr(self.sim, "electronics", None), "display", None)
            lines = disp.read_text() if disp is not None else []
        return [ln.rstrip() for ln in lines]

    def thinking(self):
        """The engine's current thinking line ('' when it is not thinking or not exposed)."""
        line = ""
        for name in ("thinking_line", "thinking", "info_line"):
            fn = getattr(self.sim, name, None)
            if callable(fn):
                line = str(fn() or "")
                break
        st = self.state()
        if st.get("pondering"):
            on = " on " + st["ponder_move"] if st.get("ponder_move") else ""
            return ("pondering%s %s" % (on, line)).rstrip()
        if line:
            return line
        if st.get("depth"):
            score = ("mate %d" % st["mate_in"]) if st.get("mate_in") else (
                "%+.2f" % (st["score_cp"] / 100.0) if st.get("score_cp") is not None else "")
            return ("last search: depth %d %s" % (st["depth"], score)).rstrip()
        for key in ("thinking", "info", "pv"):
            if st.get(key):
                return str(st[key])
        return ""

    def busy(self):
        """True while the firmware is working on something the player waits for (its move,
        a hint); used by settle()."""
        st = self.state()
        if "thinking" in st or "busy" in st:
            return bool(st.get("busy", st.get("thinking")))
        if self.result() != "*":
            return False
        to_move = "white" if self.sim.fen().split()[1] == "w" else "black"
        return to_move != self.human and self.sim.computer_move() is None

    def result(self):
        st = self.state()
        return str(st.get("result", "*"))

    def start_fen(self):
        return getattr(self.sim, "start_fen", None) or self.state().get("start_fen") or START_FEN

    def move_list(self):
        """The firmware's game as [(number_text, san)] e.g. [('1.', 'e4'), ('', 'e5')]."""
        out = []
        pos = Position(self.start_fen())
        for text in self.sim.game():
            try:
                move = parse_uci(pos, text)
                label = san(pos, move)
            except ValueError:
                out.append(("", text))
                continue
            number = ("%d." % pos.fullmove) if pos.stm == 0 else ("%d..." % pos.fullmove if not out else "")
            out.append((number, label))
            pos.make(move)
        return out

    def moves_text(self):
        return " ".join((n + " " + s) if n else s for n, s in self.move_list())

    def pgn(self):
        pos = Position(self.start_fen())
        moves = []
        for text in self.sim.game():
            try:
                m = parse_uci(pos, text)
            except ValueError:
                break
            moves.append(m)
            pos.make(m)
        tags = {"Event": "Reedchess simulator", "Site": "host_sim (%s)" % self.config.get("name", "?"),
                "White": "Player" if self.human == "white" else "Reedchess",
                "Black": "Player" if self.human == "black" else "Reedchess"}
        start = self.start_fen()
        return game_pgn(None if start == START_FEN else start, moves, self.result(), tags)

    # ---- physical actions -------------------------------------------------------------------
    def _record(self, action, arg):
        if self.recorder is not None:
            self.recorder.event(self.now_ms, action, arg)

    def _touch(self):
        """Called before each touch: a hand needs MIN_TOUCH_GAP_MS between two touches, so
        two quick clicks never reach the reed switches in the same instant."""
        gap = self.now_ms - self._last_touch_ms
        if self._last_touch_ms >= 0 and gap < MIN_TOUCH_GAP_MS:
            self.wait(MIN_TOUCH_GAP_MS - gap)
        self._last_touch_ms = self.now_ms

    def lift(self, sq):
        """Take the piece off square `sq` into the hand (the reed switch opens)."""
        cell = square_index(sq)
        if cell not in self.pieces:
            raise CommandError("there is no piece on %s to lift" % sq)
        self._touch()
        self.hand.append((self.pieces.pop(cell), cell))
        self._record("lift", sq)
        self.sim.lift(sq)

    def place(self, sq, piece=None):
        """Put a piece on the empty square `sq`: `piece` (a letter) from the hand or from off
        the board, else the piece in hand most recently lifted from another square (else the
        one lifted from `sq` itself). Pieces lifted from `sq` and still in hand are then
        captured: they go off the board."""
        cell = square_index(sq)
        if cell in self.pieces:
            raise CommandError("%s is occupied: lift the piece there first" % sq)
        letter = self._take(cell, piece)
        self._touch()
        self.pieces[cell] = letter
        for item in [h for h in self.hand if h[1] == cell]:
            self.hand.remove(item)
            self.box.append(item[0])
        self._record("place", sq + " " + letter)
        self.sim.place(sq, letter)  # the simulator keeps the same pieces (board_fen())

    def _take(self, cell, piece):
        if piece is not None:
            if len(piece) != 1 or piece.upper() not in "PNBRQK":
                raise CommandError("%r is not a piece letter (PNBRQK white, pnbrqk black)" % (piece,))
            for i in range(len(self.hand) - 1, -1, -1):
                if self.hand[i][0] == piece:
                    return self.hand.pop(i)[0]
            if piece in self.box:
                self.box.remove(piece)
            return piece  # a spare piece (e.g. a second queen) from the box
        if not self.hand:
            if self.box:
                return self.box.pop()
            raise CommandError("your hand is empty: lift a piece first (or name one, e.g. place %s Q)"
                               % square_name(cell))
        for i in range(len(self.hand) - 1, -1, -1):
            if self.hand[i][1] != cell:
                return self.hand.pop(i)[0]
        return self.hand.pop()[0]

    def press(self, name, long=False):
        buttons = self.config.get("buttons", {})
        if name not in buttons:
            raise CommandError("this board (%s) has no %r button; it has: %s"
                               % (self.config.get("name"), name, ", ".join(self.button_names())))
        self._record("hold" if long else "press", name)
        if long:
            self.sim.press(name, long=True)
        else:
            self.sim.press(name)

    def button_names(self):
        from firmware.io.buttons import ordered_names

        return list(ordered_names(self.config.get("buttons", {})))

    def play(self, uci):
        """Make a move physically the way a person does, with HAND_MS between touches:
        the mover is lifted first; a captured piece is taken off before the mover is put
        down; castling moves the king, then the rook; en passant removes the pawn last;
        a promoting pawn is exchanged for the new piece (queen unless named)."""
        uci = uci.strip().lower()
        fr, to = square_index(uci[0:2]), square_index(uci[2:4])
        promo = uci[4:5]
        if fr == to:
            raise CommandError("%s: from and to are the same square" % uci)
        mover = self.pieces.get(fr)
        if mover is None:
            raise CommandError("there is no piece on %s" % uci[0:2])
        white = mover.isupper()
        steps = [("lift", uci[0:2], None)]
        if to in self.pieces:
            steps.append(("lift", uci[2:4], None))
        if mover in "Pp" and (to >> 3) in (0, 7):
            letter = promo or "q"
            steps.append(("place", uci[2:4], letter.upper() if white else letter.lower()))
        else:
            steps.append(("place", uci[2:4], mover))
        if mover in "Kk" and abs((to & 7) - (fr & 7)) == 2:
            rank = fr & ~7
            rook_from, rook_to = (rank + 7, rank + 5) if (to & 7) == 6 else (rank, rank + 3)
            if rook_from in self.pieces:
                steps += [("lift", square_name(rook_from), None),
                          ("place", square_name(rook_to), self.pieces[rook_from])]
        if mover in "Pp" and (to & 7) != (fr & 7) and to not in self.pieces:
            victim = (fr & ~7) | (to & 7)
            if victim in self.pieces:
                steps.append(("lift", square_name(victim), None))
        for i, (action, sq, letter) in enumerate(steps):
            if i:
                self.wait(HAND_MS)
            if action == "lift":
                self.lift(sq)
            else:
                self.place(sq, letter)
        # whatever is still in hand (a captured pawn taken en passant, the promoted pawn)
        # is put aside
        while self.hand:
            self.box.append(self.hand.pop()[0])
        if mover in "Pp" and (to >> 3) in (0, 7):
            self._choose_promotion(promo or "q")

    def click(self, square=None, *rest):
        """A click on `square` in a web page, decided on this table's state when it runs: lift
        the piece there if the hand is empty, else put the piece down (on an occupied square:
        take the piece there off first, a capture). `rest`: an optional piece letter to put
        down (from the hand or off the board) and/or "lift" (shift-click: lift even while
        holding a piece). CommandError if the click can do nothing (an empty square and an
        empty hand). A page must not decide this itself: its copy of the state is always a
        little old, and a click judged on an old state is lost (host_sim/web.py)."""
        letters = [r for r in rest if r.lower() != "lift"]
        if square is None or len(letters) > 1 or len(rest) > 2:
            raise CommandError("usage: click e4 [piece letter] [lift]")
        sq = square.lower()
        lift_only = len(letters) < len(rest)
        letter = letters[0] if letters else None
        occupied = square_index(sq) in self.pieces
        holding = bool(self.hand) or letter is not None
        if occupied and (lift_only or not holding):
            self.lift(sq)
        elif occupied:  # a capture: the piece there comes off, then the one in hand goes down
            self.lift(sq)
            self.place(sq, letter)
        elif holding:
            self.place(sq, letter)
        else:
            raise CommandError("nothing in hand to put on %s: click a piece to lift it first" % sq)

    def _choose_promotion(self, letter):
        """The board cannot see which piece replaced the pawn: once the firmware asks
        (phase 'promote'), step its choice (queen, rook, bishop, knight) with the hint
        button to `letter` and confirm with ok (or move)."""
        waited = 0
        limit = self.config.get("stable_ms", 300) + 1000
        while self.state().get("phase") != "promote":
            if waited >= limit or "phase" not in self.state():
                return
            self.wait(SETTLE_STEP_MS)
            waited += SETTLE_STEP_MS
        for _ in range("qrbn".index(letter.lower())):
            self.press("hint")
        self.press("ok" if "ok" in self.config.get("buttons", {}) else "move")

    def arrange(self, fen):
        """Rearrange the physical board to the board field of `fen` by hand: lift every
        piece that is wrong, then place what is missing (HAND_MS apart)."""
        target = fen_pieces(fen)
        first = True
        for cell in sorted(self.pieces):
            if target.get(cell) != self.pieces[cell]:
                if not first:
                    self.wait(HAND_MS)
                first = False
                self.lift(square_name(cell))
        for cell in sorted(target):
            if cell not in self.pieces:
                if not first:
                    self.wait(HAND_MS)
                first = False
                self.place(square_name(cell), target[cell])
        self.box.extend(h[0] for h in self.hand)
        self.hand = []

    # ---- commands ---------------------------------------------------------------------------
    def settle(self, max_ms=SETTLE_MAX_MS):
        """Let time pass until the board has been read (stable_ms and a margin) and the
        firmware is no longer busy (its move is on the LEDs), at most `max_ms`."""
        minimum = self.config.get("stable_ms", 300) + self.config.get("debounce_ms", 30) + 200
        waited = 0
        quiet = 0  # steps in a row without work: the LEDs and display follow a pass later
        while waited < max_ms:
            self.wait(SETTLE_STEP_MS)
            waited += SETTLE_STEP_MS
            quiet = quiet + 1 if not self.busy() else 0
            if waited >= minimum and quiet >= 2:
                if self.auto and self.sim.computer_move():
                    self.play(self.sim.computer_move())
                    waited = quiet = 0
                    continue
                break
        return waited

    def execute(self, line, settle=True):
        """Carry out one command line; return the text to show the person (may be '').
        CommandError (a ValueError) for anything that cannot be done; Quit for quit.
        The commands are _COMMANDS (below the class); a word that is none of them nor a
        button of this board is a move."""
        words = line.strip().split()
        if not words:
            if settle:
                self.wait(SETTLE_STEP_MS)
            return ""
        cmd, args = words[0].lower(), words[1:]
        fn, acts = _COMMANDS.get(cmd, (None, True))
        if cmd in self.config.get("buttons", {}) and cmd not in _BEFORE_BUTTONS:
            fn, acts = Table._cmd_press, True
        if fn is None:
            reply = self._cmd_move(words[0], args)
        else:
            reply = fn(self, cmd, args)
        if acts and settle:
            self.settle()
        return reply

    # ---- the commands: (self, the command word in lower case, its arguments) -> reply -------
    def _cmd_quit(self, cmd, args):
        raise Quit()

    def _cmd_help(self, cmd, args):
        return self.help_text()

    def _cmd_lift(self, cmd, args):
        self._need(args, 1, "lift e2")
        self.lift(args[0].lower())
        return ""

    def _cmd_place(self, cmd, args):
        if len(args) not in (1, 2):
            raise CommandError("usage: place e4 [piece letter]")
        self.place(args[0].lower(), args[1] if len(args) == 2 else None)
        return ""

    def _cmd_press(self, cmd, args):
        """`press <button>`, `hold <button>`, or a button's own name (`hint`, `hint long`)."""
        long = cmd == "hold" or (len(args) == 1 and args[0].lower() == "long")
        name = cmd if cmd not in ("press", "hold") else (args[0].lower() if args else "")
        if cmd in ("press", "hold"):
            self._need(args, 1, "%s hint" % cmd)
        self.press(name, long=long)
        return ""

    def _cmd_click(self, cmd, args):  # the web pages' click on a square (see click)
        self.click(*args)
        return ""

    def _cmd_do(self, cmd, args):
        move = self.sim.computer_move()
        if not move:
            raise CommandError("the computer is not showing a move right now")
        self.play(move)
        return "made the computer's move %s" % move

    def _cmd_wait(self, cmd, args):
        self.wait(parse_ms(args[0]) if args else 1000)
        return ""

    def _cmd_auto(self, cmd, args):
        self.auto = not args or args[0].lower() in ("on", "1", "yes")
        return "auto %s: %s" % ("on" if self.auto else "off", "the computer's moves are made for you"
                                if self.auto else "you make the computer's moves")

    def _cmd_arrange(self, cmd, args):
        if not args:
            raise CommandError("usage: arrange <FEN> | arrange start")
        fen = START_FEN if args[0].lower() in ("start", "startpos") else " ".join(args)
        try:
            Position(fen if len(fen.split()) > 1 else fen + " w - - 0 1")
        except ValueError as e:
            raise CommandError("not a usable FEN: %s" % e) from None
        self.arrange(fen)
        return ""

    def _cmd_sync(self, cmd, args):
        self.arrange(self.sim.fen())
        return ""

    def _cmd_fen(self, cmd, args):
        return self.sim.fen()

    def _cmd_moves(self, cmd, args):
        return self.moves_text() or "(no moves yet)"

    def _cmd_pgn(self, cmd, args):
        return self.pgn().rstrip()

    def _cmd_save(self, cmd, args):
        self._need(args, 1, "save game.pgn")
        try:
            with open(args[0], "w") as f:
                f.write(self.pgn())
        except OSError as e:
            raise CommandError("cannot write %s: %s" % (args[0], e.strerror or e)) from None
        return "saved the game to %s" % args[0]

    def _cmd_flip(self, cmd, args):
        self.flipped = not self.flipped
        return ""

    def _cmd_show(self, cmd, args):
        return ""

    def _cmd_move(self, word, args):
        """Any other word: a move (UCI or SAN), made with a hand's timing."""
        move = self._as_move(word)
        if move is None:
            raise CommandError("unknown command %r: type help for the list" % word)
        if args:
            raise CommandError("a move takes no arguments (got %s)" % " ".join(args))
        self.play(move)
        return ""

    def _need(self, args, n, example):
        if len(args) != n:
            raise CommandError("usage: %s" % example)

    def _as_move(self, word):
        """UCI text (any piece, legal or not: the board cannot stop a hand) or SAN (read in
        the firmware's position) -> UCI text, or None if the word is neither."""
        w = word.strip()
        low = w.lower()
        if len(low) in (4, 5) and low[0] in FILES and low[2] in FILES and low[1] in "12345678" \
                and low[3] in "12345678" and (len(low) == 4 or low[4] in "qrbn"):
            return low
        try:
            pos = Position(self.sim.fen())
            move = parse_san(pos, w)
        except ValueError:
            return None
        from firmware.engine.notation import uci

        return uci(move)

    def help_text(self):
        lines = ["Commands (the firmware sees the pieces only through its reed switches):"]
        for name, text in COMMANDS:
            if "%s" in text:
                text = text % ", ".join(self.button_names())
            lines.append("  %-20s %s" % (name, text))
        lines.append("Buttons of this board (%s):" % self.config.get("name", "?"))
        for b in self.button_names():
            lines.append("  %-20s %s" % (b, BUTTON_HELP.get(b, "")))
        lines.append("LEDs: [x] lit  (x) blinking  <x> blinking fast.  Manual: docs/simulator.md, docs/playing.md")
        return "\n".join(lines)

    # ---- one picture of everything ----------------------------------------------------------
    def _part(self, name, fn, default):
        """fn() for one part of the picture; a bug in it is named in `ui_error` and `default`
        is shown instead, so one broken line never takes the board off the screen."""
        try:
            return fn()
        except Exception as e:  # the UI goes on; the message says what failed
            self.ui_error = "%s failed: %s: %s" % (name, type(e).__name__, e)
            return default

    def snapshot(self):
        """Everything a front end shows, as plain data (the web page gets this as JSON).
        `ui_error`: what failed while drawing this picture (None when all went well)."""
        self.ui_error = None
        st = self._part("state", self.state, {})
        part = self._part
        snap = {
            "board": self.config.get("name", "?"),
            "leds_kind": self.config.get("leds", {}).get("kind", "?"),
            "time_ms": self.now_ms,
            "pieces": {square_name(c): p for c, p in sorted(self.pieces.items())},
            "hand": [p for p, _ in self.hand],
            "box": list(self.box),
            "lit": part("LEDs", self.lit, {}),
            "led_rgb": part("LED colours", self.led_colours, {}),
            "has_display": self.config.get("display") is not None,
            "display": part("display", self.display_lines, []),
            "thinking": part("thinking line", self.thinking, ""),
            "computer_move": part("computer's move", self.sim.computer_move, None),
            "moves": part("move list", lambda: [[n, s] for n, s in self.move_list()], []),
            "game": part("game", lambda: list(self.sim.game()), []),
            "fen": part("FEN", self.sim.fen, ""),
            "result": part("result", self.result, "*"),
            "human": self.human,
            "flipped": self.flipped,
            "buttons": self.button_names(),
            "auto": self.auto,
            "state": {k: v for k, v in st.items() if isinstance(v, (str, int, float, bool)) or v is None},
        }
        snap["ui_error"] = self.ui_error
        return snap

    def screen(self, now_ms=None, width=80):
        """The whole screen as text lines of (text, style) segments; styles: None, 'title',
        'dim', 'led:on', 'led:blink', 'led:blink_fast' (front ends colour them)."""
        snap = self.snapshot()
        lit = snap["lit"]
        rows = []
        title = "Reedchess simulator - board %s (%s LEDs) - you play %s" % (
            snap["board"], snap["leds_kind"], snap["human"].capitalize())
        rows.append([(title, "title")])
        rows.append([("   +-------------------------+", None)])
        ranks = range(8) if self.flipped else range(7, -1, -1)
        files = range(7, -1, -1) if self.flipped else range(8)
        board_lines = []
        for r in ranks:
            seg = [(" %d |" % (r + 1), None)]
            for f in files:
                sq = square_name(r * 8 + f)
                letter = snap["pieces"].get(sq, "." if (r + f) % 2 else ":")
                pattern = lit.get(sq)
                if pattern:
                    left, right = LED_MARKS.get(pattern, "[]")
                    seg.append((left + letter + right, "led:" + pattern))
                else:
                    seg.append((" " + letter + " ", "dim" if letter in ".:" else None))
            seg.append((" |", None))
            board_lines.append(seg)
        board_lines.append([("   +-------------------------+", None)])
        board_lines.append([("     " + "  ".join(FILES[f] for f in files), None)])
        side = self._side_panel(snap)
        for i, seg in enumerate(board_lines):
            extra = side[i] if i < len(side) else ""
            rows.append(seg + [("   " + extra, None)] if extra else seg)
        for extra in side[len(board_lines):]:
            rows.append([(" " * 32 + extra, None)])
        rows.append([("LEDs: [x] lit  (x) blinking  <x> fast   time %.1f s   type help for commands"
                      % (snap["time_ms"] / 1000.0), "dim")])
        return rows

    def _side_panel(self, snap):
        out = []
        disp = snap["display"]
        if self.config.get("display") is None:
            out.append("Display: (none on this board)")
        else:
            out.append("Display: +" + "-" * 21 + "+")
            for ln in (disp or [""])[:4]:
                out.append("         |%-21s|" % ln[:21])
            out.append("         +" + "-" * 21 + "+")
        think = snap["thinking"]
        out.append("Thinking: " + (think[:34] if think else "-"))
        cm = snap["computer_move"]
        out.append("Computer: " + ("%s  (make it, or type do)" % cm if cm else "-"))
        if snap["result"] != "*":
            out.append("Result:   " + snap["result"])
        moves = snap["moves"]
        lines, cur = [], ""
        for n, s in moves:
            tok = (n + " " + s) if n else s
            if n.endswith(".") and not n.endswith("...") and cur:
                lines.append(cur)
                cur = ""
            cur = (cur + " " + tok).strip()
        if cur:
            lines.append(cur)
        out.append("Moves:    " + (lines[-5] if len(lines) >= 5 else (lines[0] if lines else "-")))
        tail = lines[-4:] if len(lines) >= 5 else lines[1:]
        for ln in tail:
            out.append("          " + ln)
        hand = " ".join(snap["hand"]) or "-"
        box = " ".join(snap["box"]) or "-"
        out.append("In hand:  %s   Off board: %s" % (hand, box))
        if snap.get("ui_error"):
            out.append("UI error: %s (the game goes on)" % snap["ui_error"][:60])
        if snap["auto"]:
            out.append("(auto: the computer's moves are made for you)")
        return out

    def screen_text(self):
        return "\n".join("".join(t for t, _ in row).rstrip() for row in self.screen())


# Table.execute's commands: word -> (Table method, whether the game then settles: the
# computer's answer is waited for). The words in _BEFORE_BUTTONS keep their meaning on a
# board with a button of that name; any other button name presses that button.
_COMMANDS = {word: (fn, acts) for words, fn, acts in (
    ("quit exit q bye", Table._cmd_quit, False),
    ("help ? h", Table._cmd_help, False),
    ("lift", Table._cmd_lift, True),
    ("place", Table._cmd_place, True),
    ("press hold", Table._cmd_press, True),
    ("click", Table._cmd_click, True),
    ("do", Table._cmd_do, True),
    ("wait run sleep", Table._cmd_wait, False),
    ("auto", Table._cmd_auto, True),
    ("arrange", Table._cmd_arrange, True),
    ("sync", Table._cmd_sync, True),
    ("fen", Table._cmd_fen, False),
    ("moves", Table._cmd_moves, False),
    ("pgn", Table._cmd_pgn, False),
    ("save", Table._cmd_save, False),
    ("flip", Table._cmd_flip, False),
    ("board show look", Table._cmd_show, False),
) for word in words.split()}
_BEFORE_BUTTONS = ("quit", "exit", "q", "bye", "help", "?", "h", "lift", "place", "press", "hold")


# ---- front ends ---------------------------------------------------------------------------
def run_lines(table, infile=None, outfile=None, prompt="> "):
    """Read commands from `infile` (default stdin) one line at a time; after each, print the
    reply and the screen. Ends at EOF or 'quit'. Returns 0."""
    infile = infile or sys.stdin
    outfile = outfile or sys.stdout
    outfile.write(table.screen_text() + "\n")
    while True:
        outfile.write(prompt)
        outfile.flush()
        line = infile.readline()
        if not line:
            outfile.write("\n")
            break
        try:
            reply = table.execute(line)
            if reply:
                outfile.write(reply + "\n")
            if line.split() and line.split()[0].lower() not in ("help", "?", "h", "fen", "moves", "pgn", "save"):
                outfile.write(table.screen_text() + "\n")
        except Quit:
            break
        except ValueError as e:
            outfile.write("error: %s\n" % e)
        except Exception as e:  # a bug in the simulator: say so, keep the game
            outfile.write("error: %s (the game goes on)\n" % internal_error(e))
    outfile.write("bye\n")
    outfile.flush()
    return 0


def internal_error(exc):
    """One line naming an unexpected exception and where it came from (for the front ends,
    which show it and go on instead of ending with a traceback)."""
    import traceback

    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = " at %s:%d" % (os.path.basename(where[0].filename), where[0].lineno) if where else ""
    return "internal error %s: %s%s" % (type(exc).__name__, exc, at)


def _lit_now(pattern, now_ms):
    """Is an LED with `pattern` lit at `now_ms`? (the firmware's blink phases)"""
    if pattern == "blink":
        return not now_ms & 512
    if pattern in ("blink_fast", "blink-fast"):
        return not now_ms & 128
    return True


def run_curses(table, speed=1.0, frame_s=0.05):  # pragma: no cover - driven through tmux in tests
    """Full-screen terminal UI: time runs at `speed` x the wall clock."""
    import curses

    return curses.wrapper(_curses_main, table, speed, frame_s)


def _curses_main(stdscr, table, speed, frame_s):  # pragma: no cover - see run_curses
    import curses

    curses.curs_set(1)
    stdscr.nodelay(True)
    stdscr.keypad(True)
    colours = {}
    if curses.has_colors():
        curses.start_color()
        try:
            curses.use_default_colors()
            bg = -1
        except curses.error:
            bg = curses.COLOR_BLACK
        curses.init_pair(1, curses.COLOR_BLACK, curses.COLOR_YELLOW)
        curses.init_pair(2, curses.COLOR_BLACK, curses.COLOR_GREEN)
        curses.init_pair(3, curses.COLOR_BLACK, curses.COLOR_RED)
        curses.init_pair(4, curses.COLOR_CYAN, bg)
        colours = {"led:on": curses.color_pair(1) | curses.A_BOLD, "led:blink": curses.color_pair(2) | curses.A_BOLD,
                   "led:blink_fast": curses.color_pair(3) | curses.A_BOLD,
                   "title": curses.color_pair(4) | curses.A_BOLD,
                   "dim": curses.A_DIM}
    else:
        colours = {"led:on": curses.A_REVERSE, "led:blink": curses.A_REVERSE, "led:blink_fast": curses.A_REVERSE,
                   "title": curses.A_BOLD, "dim": curses.A_DIM}
    buf = ""
    overlay = None  # lines shown instead of the board (help)
    history = []
    hpos = 0
    log = ["Type a move like e2e4, a button name (hint, level, ...) or help. Ctrl-D or quit leaves."]
    last = time.monotonic()
    carry = 0.0
    while True:
        now = time.monotonic()
        carry += (now - last) * 1000.0 * speed
        last = now
        step = int(carry)
        if step > 0:
            carry -= step
            try:
                table.wait(step)
                if table.auto and not table.busy() and table.sim.computer_move():
                    table.play(table.sim.computer_move())
            except Exception as e:  # shown on the log line; the game goes on
                log = ["error: %s (the game goes on)" % internal_error(e)]
        try:
            _draw(stdscr, table, colours, log, buf, overlay)
        except curses.error:
            pass
        except Exception as e:  # a bug in drawing: show it instead of the board
            _draw_lines(stdscr, ["error: %s (the game goes on)" % internal_error(e)] + log, buf)
        ch = stdscr.getch()
        while ch != -1:
            if overlay is not None and ch in (10, 13, 27, curses.KEY_ENTER):
                overlay = None
                ch = stdscr.getch()
                continue
            if ch in (4,):  # Ctrl-D
                return 0
            if ch in (10, 13, curses.KEY_ENTER):
                line, buf = buf, ""
                if line.strip():
                    history.append(line)
                    hpos = len(history)
                try:
                    reply = table.execute(line, settle=False)
                    if line.strip() and line.split()[0].lower() in ("help", "?", "h"):
                        overlay = reply.splitlines() + ["", "(press Enter to go back to the board)"]
                    elif reply:
                        log = [reply]
                    elif line.strip():
                        log = ["> " + line.strip()]
                except Quit:
                    return 0
                except ValueError as e:
                    log = ["error: %s" % e]
                except Exception as e:  # a bug in a command: say so, keep the game
                    log = ["error: %s (the game goes on)" % internal_error(e)]
                last = time.monotonic()  # the command's own time was simulated already
            elif ch in (curses.KEY_BACKSPACE, 127, 8):
                buf = buf[:-1]
            elif ch == curses.KEY_UP and history:
                hpos = max(0, hpos - 1)
                buf = history[hpos]
            elif ch == curses.KEY_DOWN and history:
                hpos = min(len(history), hpos + 1)
                buf = history[hpos] if hpos < len(history) else ""
            elif ch == 27:
                buf = ""
            elif 32 <= ch < 127:
                buf += chr(ch)
            ch = stdscr.getch()
        time.sleep(frame_s)


def _draw(stdscr, table, colours, log, buf, overlay=None):  # pragma: no cover - see run_curses
    import curses

    stdscr.erase()
    h, w = stdscr.getmaxyx()
    now_ms = table.now_ms
    y = 0
    rows = table.screen() if overlay is None else [[(ln, None)] for ln in overlay]
    if overlay is not None:
        log = []
    for row in rows:
        x = 0
        for text, style in row:
            attr = 0
            if style and style.startswith("led:"):
                if _lit_now(style[4:], now_ms):
                    attr = colours.get(style, curses.A_REVERSE)
                else:
                    text = " " + text[1:-1] + " "
            elif style:
                attr = colours.get(style, 0)
            if y < h - 1 and x < w - 1:
                try:
                    stdscr.addstr(y, x, text[: max(0, w - 1 - x)], attr)
                except curses.error:
                    pass
            x += len(text)
        y += 1
    for ln in log[: max(0, h - y - 2)]:
        try:
            stdscr.addstr(y, 0, ln[: w - 1])
        except curses.error:
            pass
        y += 1
    prompt = "> " + buf
    try:
        stdscr.addstr(h - 1, 0, prompt[-(w - 1):])
    except curses.error:
        pass
    stdscr.refresh()


def _draw_lines(stdscr, lines, buf):  # pragma: no cover - see run_curses
    """The fallback screen when the board cannot be drawn: the message lines and the prompt."""
    import curses

    stdscr.erase()
    h, w = stdscr.getmaxyx()
    for y, ln in enumerate(lines[: max(0, h - 1)]):
        try:
            stdscr.addstr(y, 0, ln[: w - 1])
        except curses.error:
            pass
    try:
        stdscr.addstr(h - 1, 0, ("> " + buf)[-(w - 1):])
    except curses.error:
        pass
    stdscr.refresh()


def run_terminal(table, speed=1.0):
    """The full-screen UI on a real terminal, the line UI otherwise (pipes, TERM=dumb)."""
    if sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM", "dumb") != "dumb":
        try:
            return run_curses(table, speed=speed)
        except ImportError:
            pass
    return run_lines(table)
