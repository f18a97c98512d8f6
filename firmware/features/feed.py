"""The console's test protocol (a feature on demand, much smaller than features/console.py:
the App tries this module first for every console line and loads the console only for the
commands this one does not know). A test or a unit without sensors plays through it:

    feed [<16 hex>]      the sensors now come from the console: a board with the start position
                         (or that occupancy, bit n = square n, a1 = 0, b1 = 1 .. h8 = 63) -> ok
    lift SQ | place SQ   take a piece off / put one on the fed board -> ok
    press NAME [long]    a button event, as if pressed (the names of the board's buttons) -> ok
    computer             the move the computer shows and waits to see made (UCI), or "-"
    lit                  "lit e2:on e4:blink ..." every lit square, a1..h8 order, or "lit -"
    status               what the computer is doing ("player ply 3 *")
    moves                the game's moves (UCI)
    mem                  "mem free=<bytes> max_block=<bytes> used=<bytes>" (0 on CPython)
    nodes N              every search stops after N nodes (0: no cap) -> ok

The fed board is `app.fed`, a bytearray(8) of occupancy the App reads instead of the reed
switches, so fed changes go through the same path as the pins: the debouncer and the board
sync see them (a fed game is a real game, with the debounce and settle times).
"""
from firmware.compat import const

NOT_MINE = const(2)  # handle(): not a command of this module (the console's, then)
HEAP = const(1)  # handle(): `mem`, answered by the App once this module is dropped
_PATTERNS = ("off", "on", "blink", "blink-fast")
_FILES = "abcdefgh"
_HEX = "0123456789abcdefABCDEF"
_LONG = const(2)
_SHORT = const(1)
_SHOWING = const(2)  # copy of firmware.controller.ui.SHOWING


def handle(app, line, now_ms=0):
    """Carry out one console line if it is one of this module's commands: None when done,
    HEAP for `mem`, NOT_MINE for any other line (the console's)."""
    words = line.split()
    if not words:
        return None
    cmd = words[0].lower()
    args = words[1:]
    try:
        if cmd == "lift" or cmd == "place":
            _lift_place(app, cmd == "place", args)
        elif cmd == "computer":
            _no_args(args)
            c = app.controller
            if c.phase == _SHOWING and c.shown_move:
                from firmware.engine.notation import uci

                app.write(uci(c.shown_move))
            else:
                app.write("-")
        elif cmd == "status":
            from firmware.controller.ui import PHASE_NAMES

            _no_args(args)
            c = app.controller
            app.write("%s ply %d %s" % (PHASE_NAMES[c.phase], c.game.ply, c.game.result))
        elif cmd == "lit":
            _lit(app, args)
        elif cmd == "press":
            _press(app, args, now_ms)
        elif cmd == "moves":
            _no_args(args)
            app.write(" ".join(app.game.uci_moves()))
        elif cmd == "mem":
            _no_args(args)
            return HEAP
        elif cmd == "nodes":
            if len(args) != 1 or not args[0].isdigit() or len(args[0]) > 9:
                raise ValueError("usage: nodes N (N >= 0; 0 = no cap)")
            app.node_cap = int(args[0])
            app.write("ok")
        elif cmd == "feed":
            _feed(app, args)
        else:
            return NOT_MINE
    except ValueError as exc:
        app.write("error: %s" % (exc,))
    return None


def _no_args(args):
    if args:
        raise ValueError("no arguments expected, got %r" % " ".join(args))


def _feed(app, args):
    if not args:
        occ = b"\xff\xff\x00\x00\x00\x00\xff\xff"  # the start position
    else:
        text = args[0]
        if len(args) != 1 or len(text) != 16 or any(ch not in _HEX for ch in text):
            raise ValueError("usage: feed [16 hex digits: bit n = square n, a1 = 0 .. h8 = 63]")
        occ = bytearray(8)
        for r in range(8):
            occ[r] = int(text[14 - 2 * r:16 - 2 * r], 16)
    app.fed = bytearray(occ)
    app.write("ok")


def _lift_place(app, place, args):
    if len(args) != 1:
        raise ValueError("usage: lift|place SQUARE (a1..h8)")
    sq = args[0].lower()
    if len(sq) != 2 or sq[0] not in _FILES or sq[1] not in "12345678":
        raise ValueError("not a square: %r (a1..h8)" % args[0])
    cell = (ord(sq[1]) - 49) * 8 + _FILES.index(sq[0])
    occ = app.fed
    if occ is None:
        raise ValueError("not in feed mode (send feed first)")
    bit = 1 << (cell & 7)
    if place:
        if occ[cell >> 3] & bit:
            raise ValueError("%s is occupied" % sq)
        occ[cell >> 3] |= bit
    else:
        if not occ[cell >> 3] & bit:
            raise ValueError("no piece on %s" % sq)
        occ[cell >> 3] &= ~bit & 0xFF
    app.write("ok")


def _press(app, args, now_ms):
    names = app.button_names
    if not 1 <= len(args) <= 2 or (len(args) == 2 and args[1].lower() != "long"):
        raise ValueError("usage: press NAME [long] with NAME one of %s" % ", ".join(names))
    name = args[0].lower()
    if name not in names:
        raise ValueError("no button %r (buttons: %s)" % (args[0], ", ".join(names)))
    kind = _LONG if len(args) == 2 else _SHORT
    if app.sensor_log is not None:
        app.sensor_log.button(name, kind, now_ms)
    app.controller.on_button(name, kind, now_ms)
    app.write("ok")


def _lit(app, args):
    _no_args(args)
    leds = app.hw.leds
    words = ["lit"]
    for cell in range(64):
        p = leds.pattern(cell) & 3  # leds.MODE_MASK
        if p:
            words.append("%s%d:%s" % (_FILES[cell & 7], (cell >> 3) + 1, _PATTERNS[p]))
    app.write(" ".join(words) if len(words) > 1 else "lit -")
