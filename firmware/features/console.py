"""The USB serial console's commands (a feature on demand: the App keeps only a non-blocking
line reader and loads this module for each line, dropping it after).

    handle(app, "pgn", now_ms)     # every archived game and the current one, as PGN

One answer line per command (pgn and help print several); unknown or malformed commands
answer "error: ..." and change nothing.

    help                 the commands
    pgn                  all saved games and the current one as PGN
    fen | moves          the current position / its moves (UCI)
    status               what the computer is doing ("player ply 3 *")
    settings             level, sides and options
    new [FEN]            new game (from FEN: set the board up as lit)
    level N              level N (1-based)
    stats                results per level and of the mate trainer
    clock                the chess clocks (White, Black), or "no clock"
    feed [<16 hex>]      the sensors now come from the console: a board with the start position
                         (or that occupancy, bit n = square n, a1 = 0, b1 = 1 .. h8 = 63) -> ok
    lift SQ | place SQ   take a piece off / put one on the fed board -> ok
    press NAME [long]    a button event, as if pressed (the names of the board's buttons) -> ok
    computer             the move the computer shows and waits to see made (UCI), or "-"
    lit                  "lit e2:on e4:blink ..." every lit square, a1..h8 order, or "lit -"
    mem                  "mem free=<bytes> max_block=<bytes> used=<bytes>" (0 on CPython)
    nodes N              every search stops after N nodes (0: no cap) -> ok
    online ...           online play through a USB bridge (features/online.py, docs/online.md)

Fed sensor changes go through the same path as the pins: the debouncer and the board sync
see them (a fed game is a real game, with the debounce and settle times).
"""
from firmware.compat import const
from firmware.controller.ui import PHASE_NAMES

_PATTERNS = ("off", "on", "blink", "blink-fast")
_FILES = "abcdefgh"
_HEX = "0123456789abcdefABCDEF"
_LONG = const(2)
_SHORT = const(1)
_HELP = (
    "commands:",
    "  pgn            all saved games and the current one as PGN",
    "  fen | moves    the current position / moves (UCI)",
    "  status         what the computer is doing",
    "  settings       level, sides and options",
    "  new [FEN]      new game (from FEN: set the board up as lit)",
    "  level N        choose level N (1..%d)",
    "  stats          results per level and of the mate trainer",
    "  clock          the chess clocks (White, Black)",
    "  feed [HEX16]   sensors from the console (start position or this occupancy)",
    "  lift SQ | place SQ   change the fed board",
    "  press NAME [long]    a button (%s)",
    "  computer       the move the computer shows, or -",
    "  lit            the lit squares",
    "  mem            free heap, largest free block, heap used",
    "  nodes N        cap every search at N nodes (0: off)",
    "  online ...     online play over USB (docs/online.md)",
)


class ConsoleError(ValueError):
    """A console command that cannot be carried out."""


def handle(app, line, now_ms=0):
    """Carry out one console line; returns True when the App is to answer `mem` itself after
    dropping this module, else None."""
    words = line.split()
    if not words:
        return
    cmd = words[0].lower()
    try:
        fn = _COMMANDS.get(cmd)
        if fn is None:
            raise ConsoleError("unknown command %r (try help)" % cmd)
        return fn(app, words[1:], now_ms)
    except (ValueError, OSError) as exc:
        app.write("error: %s" % (exc,))


def _no_args(args):
    if args:
        raise ConsoleError("no arguments expected, got %r" % " ".join(args))


def _help(app, args, now_ms):
    for text in _HELP:
        if "%d" in text:
            text = text % len(app.controller.level_names)
        elif "%s" in text:
            text = text % ", ".join(app.button_names)
        app.write(text)


def _fen(app, args, now_ms):
    from firmware.engine.fen import fen

    _no_args(args)
    app.write(fen(app.game.position))


def _moves(app, args, now_ms):
    _no_args(args)
    app.write(" ".join(app.game.uci_moves()))


def _status(app, args, now_ms):
    _no_args(args)
    c = app.controller
    app.write("%s ply %d %s" % (PHASE_NAMES[c.phase], c.game.ply, c.game.result))


def _settings(app, args, now_ms):
    from firmware.controller.settings import OPTION_NAMES
    from firmware.features.clock import preset_name

    _no_args(args)
    s = app.controller.settings
    side = ("computer White", "computer Black", "two players")[s.computer_side >> 3]
    opts = ", ".join("%s %s" % (OPTION_NAMES[i], "on" if s.option(i) else "off") for i in range(len(OPTION_NAMES)))
    app.write("level %d, %s, %s, clock %s, trainer %d" % (s.level + 1, side, opts, preset_name(s.clock), s.trainer))


def _stats(app, args, now_ms):
    _no_args(args)
    for text in app.controller.stats_lines():
        app.write(text)


def _clock(app, args, now_ms):
    _no_args(args)
    clock = app.controller.clock
    if clock is None:
        app.write("no clock")
    else:
        app.write(clock.text(now_ms) + (" paused" if clock.paused else ""))


def _pgn(app, args, now_ms):
    from firmware.features.pgn import texts

    _no_args(args)
    for text in texts(app):
        app.write(text)


def _new(app, args, now_ms):
    c = app.controller
    if args:
        from firmware.engine.position import Position

        Position(" ".join(args), 2)  # a bad FEN raises here, before the trainer is left
    c.leave_trainer(now_ms)
    c.new_game(now_ms, " ".join(args) if args else None)
    app.write("ok")


def _number(args, what):
    if len(args) != 1 or not args[0].isdigit() or len(args[0]) > 9:
        raise ConsoleError("usage: %s" % what)
    return int(args[0])


def _level(app, args, now_ms):
    c = app.controller
    usage = "level N with N in 1..%d" % len(c.level_names)
    n = _number(args, usage)
    if not 1 <= n <= len(c.level_names):
        raise ConsoleError("usage: " + usage)
    c.settings.level = n - 1
    c._journal("record_settings", c.settings.to_bytes())
    c.dirty = True
    app.write("level %d: %s" % (n, c.level_name(n - 1)))


def _cell(args):
    """The cell (a1 = 0 .. h8 = 63) of the one square name in `args`."""
    if len(args) != 1:
        raise ConsoleError("usage: lift|place SQUARE (a1..h8)")
    sq = args[0].lower()
    if len(sq) != 2 or sq[0] not in _FILES or sq[1] not in "12345678":
        raise ConsoleError("not a square: %r (a1..h8)" % args[0])
    return (ord(sq[1]) - 49) * 8 + _FILES.index(sq[0])


def _feed(app, args, now_ms):
    if not args:
        occ = b"\xff\xff\x00\x00\x00\x00\xff\xff"  # the start position
    else:
        text = args[0]
        if len(args) != 1 or len(text) != 16 or any(ch not in _HEX for ch in text):
            raise ConsoleError("usage: feed [16 hex digits: bit n = square n, a1 = 0 .. h8 = 63]")
        occ = bytearray(8)
        for r in range(8):
            occ[r] = int(text[14 - 2 * r:16 - 2 * r], 16)

    app.fed = Fed(occ)
    app.write("ok")


def _fed_board(app):
    if app.fed is None:
        raise ConsoleError("not in feed mode (send feed first)")
    return app.fed.occ


def _lift(app, args, now_ms):
    cell = _cell(args)
    occ = _fed_board(app)
    bit = 1 << (cell & 7)
    if not occ[cell >> 3] & bit:
        raise ConsoleError("no piece on %s" % args[0].lower())
    occ[cell >> 3] &= ~bit & 0xFF
    app.write("ok")


def _place(app, args, now_ms):
    cell = _cell(args)
    occ = _fed_board(app)
    bit = 1 << (cell & 7)
    if occ[cell >> 3] & bit:
        raise ConsoleError("%s is occupied" % args[0].lower())
    occ[cell >> 3] |= bit
    app.write("ok")


def _press(app, args, now_ms):
    names = app.button_names
    if not 1 <= len(args) <= 2 or (len(args) == 2 and args[1].lower() != "long"):
        raise ConsoleError("usage: press NAME [long] with NAME one of %s" % ", ".join(names))
    name = args[0].lower()
    if name not in names:
        raise ConsoleError("no button %r (buttons: %s)" % (args[0], ", ".join(names)))
    kind = _LONG if len(args) == 2 else _SHORT
    if app.sensor_log is not None:
        app.sensor_log.button(name, kind, now_ms)
    app.controller.on_button(name, kind, now_ms)
    app.write("ok")


def _computer(app, args, now_ms):
    from firmware.engine.notation import uci

    _no_args(args)
    c = app.controller
    app.write(uci(c.shown_move) if c.phase == 2 and c.shown_move else "-")  # SHOWING


def _lit(app, args, now_ms):
    _no_args(args)
    leds = app.hw.leds
    words = ["lit"]
    for cell in range(64):
        p = leds.pattern(cell) & 3  # leds.MODE_MASK
        if p:
            words.append("%s%d:%s" % (_FILES[cell & 7], (cell >> 3) + 1, _PATTERNS[p]))
    app.write(" ".join(words) if len(words) > 1 else "lit -")


def _mem(app, args, now_ms):
    """Answered by the App once this module is dropped (App.command): the figures are then
    those of the unit at work, not of the unit with its console code loaded."""
    _no_args(args)
    return True


def _online(app, args, now_ms):
    """online ...: the online-play protocol (features/online.py, loaded for it)."""
    from firmware.features import load

    load("online").command(app, args, now_ms)


def _nodes(app, args, now_ms):
    app.node_cap = _number(args, "nodes N (N >= 0; 0 = no cap)")
    app.write("ok")


_COMMANDS = {
    "help": _help, "pgn": _pgn, "fen": _fen, "moves": _moves, "status": _status, "settings": _settings,
    "new": _new, "level": _level, "stats": _stats, "clock": _clock, "feed": _feed, "lift": _lift,
    "place": _place, "press": _press, "computer": _computer, "lit": _lit, "mem": _mem, "nodes": _nodes,
    "online": _online,
}


class Fed:
    """The console-fed board (console "feed"): an occupancy the console changes, read like
    the reed switches (scan_into), so the debouncer and the board sync see its changes."""

    def __init__(self, occ):
        self.occ = bytearray(occ)

    def scan_into(self, bitmap):
        occ = self.occ
        for i in range(8):
            bitmap[i] = occ[i]
