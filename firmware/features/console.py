"""The USB serial console's commands (a feature on demand: the App keeps only a non-blocking
line reader; for each line it loads features/feed.py, the small test protocol, and only for
the lines that one does not know this module, dropping each after).

    handle(app, "pgn", now_ms)     # every archived game and the current one, as PGN

One answer line per command (pgn and help print several); unknown or malformed commands
answer "error: ..." and change nothing.

    help                 the commands (these and feed.py's)
    pgn                  all saved games and the current one as PGN
    fen                  the current position
    settings             level, sides and options
    new [FEN]            new game (from FEN: set the board up as lit)
    level N              level N (1-based)
    stats                results per level and of the mate trainer
    clock                the chess clocks (White, Black), or "no clock"
    online ...           online play through a USB bridge (features/online.py, docs/online.md)

features/feed.py: feed, lift, place, press, computer, lit, status, moves, mem, nodes.
"""
from firmware.loader import borrow, call, release

_CLOCK = "firmware.features.clock"

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


_NEW_GAME = 3  # handle(): the App is to start a new game (app.py)


class ConsoleError(ValueError):
    """A console command that cannot be carried out."""


def handle(app, line, now_ms=0):
    """Carry out one console line; returns what the App is to do itself after dropping this
    module (`new`: _NEW_GAME), else None."""
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
            text = text % app.controller.level_count
        elif "%s" in text:
            text = text % ", ".join(app.button_names)
        app.write(text)


def _fen(app, args, now_ms):
    from firmware.engine.fen import fen

    _no_args(args)
    app.write(fen(app.game.position))


def _settings(app, args, now_ms):
    from firmware.controller.settings import OPTION_NAMES

    _no_args(args)
    s = app.controller.settings
    side = ("computer White", "computer Black", "two players")[s.computer_side >> 3]
    opts = ", ".join("%s %s" % (OPTION_NAMES[i], "on" if s.option(i) else "off") for i in range(len(OPTION_NAMES)))
    app.write("level %d, %s, %s, clock %s, trainer %d" % (s.level + 1, side, opts, call(_CLOCK, "preset_name", s.clock),
                                                                     s.trainer))


def _stats(app, args, now_ms):
    _no_args(args)
    from firmware.controller.settings import SETS

    c = app.controller
    lines = c.stats_call("lines", c.computer.level_names() if c.computer is not None else ("default",), SETS)
    for text in lines if lines is not None else ["no statistics"]:
        app.write(text)


def _clock(app, args, now_ms):
    _no_args(args)
    clock = app.controller.clock
    if clock is None:
        app.write("no clock")
    else:
        app.write(clock.text(now_ms) + (" paused" if clock.paused else ""))


def _pgn(app, args, now_ms):
    _no_args(args)
    pgn = borrow("firmware.features.pgn")
    try:
        for text in pgn.texts(app):
            app.write(text)
    finally:
        pgn = None
        release("firmware.features.pgn")


def _new(app, args, now_ms):
    """Nothing here: the App checks the FEN and starts the game once this module is dropped,
    so the FEN parser, the button actions and the journal's archive code it loads find the
    console's 6.5 KB free."""
    return _NEW_GAME


def _number(args, what):
    if len(args) != 1 or not args[0].isdigit() or len(args[0]) > 9:
        raise ConsoleError("usage: %s" % what)
    return int(args[0])


def _level(app, args, now_ms):
    c = app.controller
    usage = "level N with N in 1..%d" % c.level_count
    n = _number(args, usage)
    if not 1 <= n <= c.level_count:
        raise ConsoleError("usage: " + usage)
    c.settings.level = n - 1
    c.to_journal("record_settings", c.settings.to_bytes())
    c.dirty = True
    app.write("level %d: %s" % (n, c.level_name(n - 1)))


def _online(app, args, now_ms):
    """online ...: the online-play protocol (features/online.py, held by the controller while
    an online game runs)."""
    app.controller.hold("online").command(app, args, now_ms)


_COMMANDS = {
    "help": _help, "pgn": _pgn, "fen": _fen, "settings": _settings, "new": _new, "level": _level,
    "stats": _stats, "clock": _clock, "online": _online,
}

