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
- nodes:    a fixed node budget (`value`): the same strength on every board and host; the
            rated levels "Elo 1000" .. "Elo 2000" are node levels too, the lowest of them
            with bounded evaluation noise (`noise_cp`, as the fun levels), each calibrated
            against Stockfish's UCI_Elo (bench/calibrate_levels.py, docs/levels.md);
- mate:     mate search: looks for a mate in `value` moves, stops when found;
- infinite: analysis until stopped (the controller shows the line and stops on a key).

`book_plies` is how deep the level may play from the opening book (0 = no book): fun levels
leave the book early, like the beginner levels of the old machines.

`clock` for limits_for_level (clock levels only; others ignore it) is a dict or an object
with wtime_ms, btime_ms and optionally winc_ms, binc_ms, movestogo: the clocks now. Without
it a clock level assumes a fresh clock (the time of the whole game left).
"""
from firmware.compat import const
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


# The table, packed (26 Level objects would hold about 4 KB of a Pico's heap while loaded; the
# controller loads this module only for the calls that need it, controller/computer.py):
# the names, and per level six ints: kind (index into KINDS), value, inc_ms, moves, noise_cp,
# book_plies. LEVELS builds a Level when one is asked for.
_NAMES = ("Fun 1|Fun 2|Fun 3|Fun 4|1 s/move|3 s/move|5 s/move|10 s/move|15 s/move|30 s/move|1 min/move|"
          "2 min/move|3 min/move|Blitz 5 min|Blitz 3+2|Rapid 15+10|Tournament 40/2h|Depth 2|Depth 4|Depth 6|"
          "1000 nodes|10000 nodes|Mate in 2|Mate in 3|Mate in 5|Analysis")
_TABLE = (
    0, 1, 0, 0, 300, 2,  # fun: depth, noise
    0, 1, 0, 0, 150, 4,
    0, 2, 0, 0, 100, 6,
    0, 3, 0, 0, 60, 8,
    1, 1000, 0, 0, 0, 16,  # movetime (ms)
    1, 3000, 0, 0, 0, 16,
    1, 5000, 0, 0, 0, 16,
    1, 10000, 0, 0, 0, 16,
    1, 15000, 0, 0, 0, 16,
    1, 30000, 0, 0, 0, 16,
    1, 60000, 0, 0, 0, 16,
    1, 120000, 0, 0, 0, 16,
    1, 180000, 0, 0, 0, 16,
    2, 300000, 0, 0, 0, 16,  # clock: ms for the game, increment, moves per control
    2, 180000, 2000, 0, 0, 16,
    2, 900000, 10000, 0, 0, 16,
    2, 7200000, 0, 40, 0, 16,
    3, 2, 0, 0, 0, 16,  # depth
    3, 4, 0, 0, 0, 16,
    3, 6, 0, 0, 0, 16,
    4, 1000, 0, 0, 0, 16,  # nodes
    4, 10000, 0, 0, 0, 16,
    5, 2, 0, 0, 0, 0,  # mate
    5, 3, 0, 0, 0, 0,
    5, 5, 0, 0, 0, 0,
    6, 0, 0, 0, 0, 0,  # infinite
)
_FIXED = const(26)  # levels in _TABLE; the rated levels follow them
# The rated levels "Elo 1000", "Elo 1100", ... "Elo 2000", after the others so that a level
# index saved in the settings or the statistics keeps its meaning. Their names are made from
# the index; per level 3 bytes: the node budget in tens of nodes (2 bytes, high first) and
# the evaluation noise in cp (only up to Elo 1200: no noise where blunders would show).
# Calibration: docs/levels.md (measured and interpolated figures), bench/calibrate_levels.py.
# (The ratings' range and step live in firmware/uci.py, the one user of "the level nearest an
# Elo": kept out of this module, which a board loads whenever a level is read.)
_RATED_COUNT = const(11)
_RATED = (b"\x00\x0a\x96"  # Elo 1000: 100 nodes, noise 150
          b"\x00\x0a\x64"  # Elo 1100: 100 nodes, noise 100
          b"\x00\x0a\x28"  # Elo 1200: 100 nodes, noise 40
          b"\x00\x0c\x00"  # Elo 1300: 120 nodes
          b"\x00\x17\x00"  # Elo 1400: 230 nodes
          b"\x00\x23\x00"  # Elo 1500: 350 nodes
          b"\x00\x36\x00"  # Elo 1600: 540 nodes
          b"\x00\x5a\x00"  # Elo 1700: 900 nodes
          b"\x01\x02\x00"  # Elo 1800: 2580 nodes
          b"\x03\x4f\x00"  # Elo 1900: 8470 nodes
          b"\x0a\xdf\x00")  # Elo 2000: 27830 nodes
# What a smaller transposition table costs a rated level. The anchors were played with a 4 MB
# hash (262,144 slots, at most a seventh full at the top budget); a board's table fills up and
# loses what it kept from the moves before. By the load (budget / slots), _TABLE_COST[i] is
# the factor on the budget that makes up for it, in 64ths, at a load of 2^(i - 2): 1/4, 1/2,
# 1, 2, ... 64; linear between, the last one beyond. Its shape is bench/tt_size.py's count of
# the nodes to the same depths (loads up to 49), its size what self-play showed: the square
# root of that count (docs/levels.md, "Per board"). table_nodes() gives a rated level that
# many more nodes, so that "Elo 1900" plays as labelled on a Pico's 2,048 slots too.
_CALIBRATION_SLOTS = const(262144)
_TABLE_COST = b"\x40\x41\x44\x45\x49\x4c\x4e\x54\x5b"
# Rated levels leave the book at this ply (the noisy ones earlier, like the fun levels).
_RATED_BOOK = const(16)
_RATED_BOOK_NOISY = const(8)
_COUNT = const(37)  # _FIXED + _RATED_COUNT


class _Levels:
    """The read-only sequence of Levels (indexing, len, iteration), built from _TABLE."""

    def __len__(self):
        return _COUNT

    def __getitem__(self, index):
        if index < 0:
            index += _COUNT
        if not 0 <= index < _COUNT:
            raise IndexError("level index out of range")
        if index >= _FIXED:
            k = index - _FIXED
            r = _RATED
            noise = r[3 * k + 2]
            return Level("Elo %d" % (1000 + k * 100), NODES, (r[3 * k] << 8 | r[3 * k + 1]) * 10,
                         0, 0, noise, _RATED_BOOK_NOISY if noise else _RATED_BOOK)
        t = _TABLE
        i = index * 6
        return Level(_name(index), KINDS[t[i]], t[i + 1], t[i + 2], t[i + 3], t[i + 4], t[i + 5])


def _name(index):
    """The name of fixed level `index` in _NAMES (one slice: a split would build every name)."""
    start = 0
    for _ in range(index):
        start = _NAMES.find("|", start) + 1
    end = _NAMES.find("|", start)
    return _NAMES[start:] if end < 0 else _NAMES[start:end]


LEVELS = _Levels()
# The level a new unit starts on.
DEFAULT_LEVEL = 4

# Fun levels cap their nodes too, so a slow board answers quickly even in wild positions.
FUN_NODE_CAP = 3000


def kinds_and_book_plies():
    """(kinds, book plies) of every level as two bytes objects: kind 1 a clock level, 2 the
    analysis (infinite) level, 0 any other. For the controller, which keeps them instead of this
    module: its main loop asks every pass and must not allocate. Read from the packed tables
    (LEVELS would build a Level per index: at boot on a Pico that cost 0.5 s)."""
    kinds = bytearray(_COUNT)
    books = bytearray(_COUNT)
    clock = KINDS.index(CLOCK)
    infinite = KINDS.index(INFINITE)
    for index in range(_FIXED):
        kind = _TABLE[6 * index]
        kinds[index] = 1 if kind == clock else 2 if kind == infinite else 0
        books[index] = _TABLE[6 * index + 5]
    for k in range(_RATED_COUNT):
        books[_FIXED + k] = _RATED_BOOK_NOISY if _RATED[3 * k + 2] else _RATED_BOOK
    return bytes(kinds), bytes(books)


def level(index):
    """LEVELS[index], with a LevelError naming the valid range."""
    if not isinstance(index, int) or isinstance(index, bool) or index < 0 or index >= _COUNT:
        raise LevelError("level must be 0..%d, got %r" % (_COUNT - 1, index))
    return LEVELS[index]


def find_level(name):
    """Index of the level called `name` (case-insensitive)."""
    wanted = name.lower()
    for i in range(_COUNT):
        if LEVELS[i].name.lower() == wanted:
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


def table_nodes(nodes, slots):
    """The node budget that plays with a transposition table of `slots` slots as `nodes` did
    with the calibration's 262,144 (more for a smaller table, see _TABLE_COST; `slots` 0:
    unknown, `nodes` unchanged)."""
    if slots <= 0 or slots >= _CALIBRATION_SLOTS:
        return nodes
    cost = _TABLE_COST
    load = 4 * nodes  # 4 x the load, in slots: load == slots at a quarter full (cost[0])
    if load < slots:
        return nodes
    low = slots  # the load where the step from cost[i] to cost[i + 1] starts
    i = 0
    while i < len(cost) - 1 and load >= 2 * low:
        low *= 2
        i += 1
    factor = cost[i]
    if i < len(cost) - 1:
        factor += (cost[i + 1] - factor) * (load - low) // low
    return nodes * factor // 64


def limits_for_level(index, clock_state=None, slots=0):
    """The Limits for one move at level `index` (see the module docstring). `slots`: the
    searcher's transposition table size, for the rated levels' budgets (table_nodes)."""
    entry = level(index)
    kind = entry.kind
    if kind == FUN:
        return Limits(depth=entry.value, nodes=FUN_NODE_CAP)
    if kind == MOVETIME:
        return Limits(movetime_ms=entry.value)
    if kind == DEPTH:
        return Limits(depth=entry.value)
    if kind == NODES:
        return Limits(nodes=table_nodes(entry.value, slots) if index >= _FIXED else entry.value)
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
