"""The playing levels of the chess computer: a named table and the Limits for each.

    level = LEVELS[index]                      # name, kind, parameters
    limits = limits_for_level(index, clock)    # a search.Limits for this move
    apply_level(searcher, index)               # sets the level's evaluation noise

Kinds (KIND_*):
- fun:      a depth limit plus seeded evaluation noise (`noise_cp`); weak in a human way
            (plans go astray) but a depth-1 search with quiescence still takes a hanging
            queen, since the noise is far smaller than a queen;
- movetime: a fixed time per move (`value` ms), hard stop;
- clock:    a game clock (`value` ms for the game, `inc_ms` per move, `moves` per control
            for classical "40 moves in 2 hours"), the time manager spreads it;
- depth:    a fixed depth (`value` plies), whatever it costs;
- nodes:    a fixed node budget (`value`): the same strength on every board and host;
- mate:     mate search: looks for a mate in `value` moves, stops when found;
- infinite: analysis until stopped (the controller shows the line and stops on a key).

`book_plies` is how deep the level may play from the opening book (0 = no book): fun levels
leave the book early, like the beginner levels of the old machines.

`clock` for limits_for_level (clock levels only; others ignore it) is a dict or an object
with wtime_ms, btime_ms and optionally winc_ms, binc_ms, movestogo: the clocks now. Without
it a clock level assumes a fresh clock (the time of the whole game left).
"""
from firmware.engine.timeman import Limits

FUN = "fun"
MOVETIME = "movetime"
CLOCK = "clock"
DEPTH = "depth"
NODES = "nodes"
MATE = "mate"
INFINITE = "infinite"
KINDS = (FUN, MOVETIME, CLOCK, DEPTH, NODES, MATE, INFINITE)


class LevelError(ValueError):
    """An unknown level index or a bad clock state."""


class Level:
    def __init__(self, name, kind, value=0, inc_ms=0, moves=0, noise_cp=0, book_plies=16):
        if kind not in KINDS:
            raise LevelError("unknown level kind %r" % (kind,))
        self.name = name
        self.kind = kind
        self.value = value
        self.inc_ms = inc_ms
        self.moves = moves
        self.noise_cp = noise_cp
        self.book_plies = book_plies

    def __repr__(self):
        return "Level(%r, %r, %d)" % (self.name, self.kind, self.value)


LEVELS = (
    Level("Fun 1", FUN, 1, noise_cp=300, book_plies=2),
    Level("Fun 2", FUN, 1, noise_cp=150, book_plies=4),
    Level("Fun 3", FUN, 2, noise_cp=100, book_plies=6),
    Level("Fun 4", FUN, 3, noise_cp=60, book_plies=8),
    Level("1 s/move", MOVETIME, 1000),
    Level("3 s/move", MOVETIME, 3000),
    Level("5 s/move", MOVETIME, 5000),
    Level("10 s/move", MOVETIME, 10000),
    Level("15 s/move", MOVETIME, 15000),
    Level("30 s/move", MOVETIME, 30000),
    Level("1 min/move", MOVETIME, 60000),
    Level("2 min/move", MOVETIME, 120000),
    Level("3 min/move", MOVETIME, 180000),
    Level("Blitz 5 min", CLOCK, 300000),
    Level("Blitz 3+2", CLOCK, 180000, inc_ms=2000),
    Level("Rapid 15+10", CLOCK, 900000, inc_ms=10000),
    Level("Tournament 40/2h", CLOCK, 7200000, moves=40),
    Level("Depth 2", DEPTH, 2),
    Level("Depth 4", DEPTH, 4),
    Level("Depth 6", DEPTH, 6),
    Level("1000 nodes", NODES, 1000),
    Level("10000 nodes", NODES, 10000),
    Level("Mate in 2", MATE, 2, book_plies=0),
    Level("Mate in 3", MATE, 3, book_plies=0),
    Level("Mate in 5", MATE, 5, book_plies=0),
    Level("Analysis", INFINITE, 0, book_plies=0),
)
# The level a new unit starts on.
DEFAULT_LEVEL = 4

# Fun levels cap their nodes too, so a slow board answers quickly even in wild positions.
FUN_NODE_CAP = 3000


def level(index):
    """LEVELS[index], with a LevelError naming the valid range."""
    if not isinstance(index, int) or isinstance(index, bool) or index < 0 or index >= len(LEVELS):
        raise LevelError("level must be 0..%d, got %r" % (len(LEVELS) - 1, index))
    return LEVELS[index]


def find_level(name):
    """Index of the level called `name` (case-insensitive)."""
    wanted = name.lower()
    for i, entry in enumerate(LEVELS):
        if entry.name.lower() == wanted:
            return i
    raise LevelError("no level named %r" % (name,))


def _clock_value(clock, name, default):
    if isinstance(clock, dict):
        value = clock.get(name, default)
    else:
        value = getattr(clock, name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise LevelError("clock %s must be a non-negative int (ms), got %r" % (name, value))
    return value


def limits_for_level(index, clock_state=None):
    """The Limits for one move at level `index` (see the module docstring)."""
    entry = level(index)
    kind = entry.kind
    if kind == FUN:
        return Limits(depth=entry.value, nodes=FUN_NODE_CAP)
    if kind == MOVETIME:
        return Limits(movetime_ms=entry.value)
    if kind == DEPTH:
        return Limits(depth=entry.value)
    if kind == NODES:
        return Limits(nodes=entry.value)
    if kind == MATE:
        return Limits(mate=entry.value)
    if kind == INFINITE:
        return Limits(infinite=True)
    # clock
    if clock_state is None:
        wtime = btime = entry.value
        winc = binc = entry.inc_ms
        mtg = entry.moves
    else:
        wtime = _clock_value(clock_state, "wtime_ms", entry.value)
        btime = _clock_value(clock_state, "btime_ms", entry.value)
        winc = _clock_value(clock_state, "winc_ms", entry.inc_ms)
        binc = _clock_value(clock_state, "binc_ms", entry.inc_ms)
        mtg = _clock_value(clock_state, "movestogo", entry.moves)
    return Limits(wtime_ms=wtime, btime_ms=btime, winc_ms=winc, binc_ms=binc, movestogo=mtg)


def apply_level(searcher, index, seed=None):
    """Configure `searcher` for the level (its evaluation noise); returns the Level."""
    entry = level(index)
    searcher.set_noise(entry.noise_cp, seed)
    return entry
