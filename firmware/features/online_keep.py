"""The local game kept while online play is used (a feature on demand: loaded by
features/online.py when an online game starts and when online play is left, and by
actions.boot when `online.keep` is found at a restart; dropped after each).

    text = keep(c, now_ms)           # before an online game replaces the local game in progress:
                                     # online.keep beside the journal (and the text, kept in RAM)
    restore(c, text, now_ms)         # online play left: the kept game on the board again
    saved = restore_at_boot(c, saved, now_ms)   # actions.boot: unless an online game still
                                     # runs, the kept game comes back instead of the journal's

online.keep holds three lines: "<settings> <clock record|->" (hex), the start FEN, the moves
(UCI). The kept game is not archived when the online game replaces it (the journal's
start_game would archive it unfinished; it is archived once, when it is over); the online
game is archived when the kept game comes back. The steps are ordered so a power cut at any
moment loses neither game (`_journal_back`).

It uses the journal's mirror of game.jnl (`Journal._state`, `_ensure_loaded`) instead of
reading game.jnl again: that would replay the game into a second Position (the game's room:
KBs on a stock Pico, while online.py and the actions are loaded).
"""
from firmware.controller.journal import GAME_FILE
from firmware.engine.constants import START_FEN
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.loader import borrow, call, release

KEEP_FILE = "online.keep"
RUN_FILE = "online.run"  # features/online.py's


def restore_at_boot(c, saved, now_ms):
    """At boot (actions.boot, before the journal's game is set up), `online.keep` beside the
    journal: unless an online game still runs, the kept local game comes back into the journal
    and the settings (the online game, over, goes to the archive). Returns the SavedGame to
    resume (the kept game's, or `saved` as it was)."""
    files = c.journal.files
    if not c.journal_ok or (saved is not None and saved.found and saved.result == "*"
                            and files.exists(files.name(RUN_FILE))):
        return saved  # the online game goes on (resume); the local game stays kept
    try:
        f = files.open(files.name(KEEP_FILE), "rb")
        try:
            text = f.read().decode()
        finally:
            f.close()
        if files.exists(files.name(RUN_FILE)):
            files.fs.remove(files.name(RUN_FILE))  # (an online game that is over)
        game = _kept_game(c, text)
        _journal_back(c, text, game)
        c.journal._ensure_loaded()
        saved = c.journal._state
    except (OSError, ValueError) as exc:
        if c.log:
            c.log("online: the kept game cannot come back: %s" % (exc,))
        return saved
    c.say("Back to your game", now_ms)
    return saved


def keep(c, now_ms):
    """The local game in progress, saved before an online game replaces it (KEEP_FILE beside
    the journal, and in RAM); None: nothing to keep (no moves, over, the mate trainer)."""
    game = c.game
    if game.over or not game.ply or c.trainer is not None:
        return None
    clock = c.clock.to_bytes(now_ms) if c.clock is not None else c.clock_restore
    text = "%s %s\n%s\n%s\n" % (_hex(c.settings.to_bytes()), _hex(clock) if clock else "-", game.start_fen,
                                 " ".join(uci(game.move_at(i)) for i in range(game.ply)))
    j = c.journal
    if j is not None and c.journal_ok:
        try:
            j.files.rewrite(j.files.name(KEEP_FILE), text.encode())
        except OSError:
            pass
    return text


def _kept_game(c, text):
    """Set up the kept game's settings and moves on the controller (ValueError if malformed)."""
    from firmware.controller.settings import Settings

    head, fen, moves = (text.split("\n") + ["", ""])[:3]
    words = head.split()
    c.settings.assign(Settings.from_bytes(_unhex(words[0])))
    game = c.game
    game.new(None if fen == START_FEN else fen)
    for word in moves.split():
        game.push(parse_uci(game.position, word))
    c.clock_restore = _unhex(words[1]) if words[1] != "-" else None
    return game


def _journal_back(c, text, game):
    """The kept game (already set up on `game`) into the journal again, then KEEP_FILE goes.
    A power cut at any step loses nothing: the online game is archived first (the archive
    skips a game it ends with already, so a second try does not add it twice), then game.jnl
    is rewritten atomically with the kept game (a new id), KEEP_FILE is removed last. A try
    that finds the kept game in game.jnl (a cut after that rewrite, or before the online game
    replaced it) only removes KEEP_FILE."""
    j = c.journal
    if j is None or not c.journal_ok:
        return
    files = j.files
    fen, moves = text.split("\n")[1:3]
    settings = c.settings.to_bytes()
    j._ensure_loaded()
    saved = j._state  # the online game, as game.jnl holds it (the journal's mirror: no replay)
    if (saved.found and saved.result == "*" and saved.start_fen == fen
            and " ".join(uci(m) for m in saved.moves) == moves):
        if saved.settings != settings:
            j.record_settings(settings)
    else:
        rare = borrow("firmware.features.journal_rare")
        if saved.found and saved.moves:
            rare.archive(j, saved)
        state = rare.SavedGame()
        state.settings = settings
        state.start_fen = fen
        state.found = True
        state.game_id = (saved.game_id + 1) & 0xFFFF
        state.clock = c.clock_restore
        for i in range(game.ply):
            state.moves.append(game.move_at(i))
        data = rare.game_bytes(j, state)
        rare = None
        release("firmware.features.journal_rare")
        files.rewrite(files.name(GAME_FILE), data)
        j._state = state  # the mirror of game.jnl, as load() would make it (no replay)
        j.game_id = state.game_id
    files.fs.remove(files.name(KEEP_FILE))


def restore(c, text, now_ms):
    """After online play: the kept local game on the board again (journal, settings, clock,
    the LEDs guiding the pieces)."""
    try:
        game = _kept_game(c, text)
    except ValueError as exc:
        if c.log:
            c.log("online: the kept game cannot come back: %s" % (exc,))
        c.new_game(now_ms)
        return
    try:
        _journal_back(c, text, game)
    except OSError as exc:
        c.journal_ok = False
        if c.log:
            c.log("journal disabled: %s" % (exc,))
    call("firmware.features.new_game", "fresh_play", c)
    c.want_touch()
    c.ui.beep("confirm")
    c.enter_play(now_ms)  # VERIFY: the LEDs guide the pieces to the kept game's position
    c.say("Back to your game", now_ms)


def _hex(data):
    return "".join("%02x" % b for b in data)


def _unhex(text):
    return bytes(int(text[i:i + 2], 16) for i in range(0, len(text), 2))
