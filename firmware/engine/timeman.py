"""Search limits in, soft and hard time budgets out.

`Limits` says what the caller wants (all zero = search until stopped, like `infinite`).
`budget(limits, stm)` turns it into (soft_ms, hard_ms) for the side to move:

- the soft limit is checked between iterations: no new depth starts once it has passed
  (nor when more than SOFT_NEXT_PERCENT of it is used, since the next depth costs several
  times the last one);
- the hard limit is checked by the search every `poll_nodes` nodes and stops it at once.

For a game clock: `base = remaining / moves_to_go + 3/4 increment` is the soft limit and the
hard limit is min(4 x base, remaining / 3 + increment), less a safety overhead, and never
below 10 ms. `movetime` uses the full time as both (minus the overhead). 0 = no limit.
"""
from firmware.compat import const

_MOVES_TO_GO_DEFAULT = const(30)
_OVERHEAD_MS = const(30)  # reply latency and clock granularity
_MIN_MS = const(10)
SOFT_NEXT_PERCENT = const(55)


class LimitsError(ValueError):
    """A search limit that is negative or of the wrong type."""


class Limits:
    """What to search. Times in milliseconds; 0 means "not set".

    depth: maximum depth; nodes: node budget; movetime_ms: exact time per move;
    wtime_ms/btime_ms/winc_ms/binc_ms/movestogo: a game clock; infinite: until stop();
    ponder: a ponder search (no time limit until ponderhit(), then the clock applies);
    mate: look for a mate in this many moves (stops when found; depth <= 2 * mate).
    """

    def __init__(self, depth=0, nodes=0, movetime_ms=0, wtime_ms=0, btime_ms=0, winc_ms=0, binc_ms=0,
                 movestogo=0, infinite=False, ponder=False, mate=0):
        for name, value in (("depth", depth), ("nodes", nodes), ("movetime_ms", movetime_ms),
                            ("wtime_ms", wtime_ms), ("btime_ms", btime_ms), ("winc_ms", winc_ms),
                            ("binc_ms", binc_ms), ("movestogo", movestogo), ("mate", mate)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise LimitsError("%s must be a non-negative int, got %r" % (name, value))
        self.depth = depth
        self.nodes = nodes
        self.movetime_ms = movetime_ms
        self.wtime_ms = wtime_ms
        self.btime_ms = btime_ms
        self.winc_ms = winc_ms
        self.binc_ms = binc_ms
        self.movestogo = movestogo
        self.infinite = bool(infinite)
        self.ponder = bool(ponder)
        self.mate = mate


def budget(limits, stm):
    """(soft_ms, hard_ms) for side `stm` (0 White, 8 Black); (0, 0) = no time limit."""
    if limits.infinite:
        return 0, 0
    if limits.movetime_ms:
        t = limits.movetime_ms - _OVERHEAD_MS
        if t < _MIN_MS:
            t = _MIN_MS
        return t, t
    remaining = limits.btime_ms if stm else limits.wtime_ms
    inc = limits.binc_ms if stm else limits.winc_ms
    if not remaining:
        return 0, 0
    mtg = limits.movestogo if limits.movestogo else _MOVES_TO_GO_DEFAULT
    if mtg > _MOVES_TO_GO_DEFAULT:
        mtg = _MOVES_TO_GO_DEFAULT
    usable = remaining - _OVERHEAD_MS
    if usable < _MIN_MS:
        usable = _MIN_MS
    soft = usable // mtg + inc * 3 // 4
    hard = soft * 4
    cap = usable // 3 + inc
    if mtg == 1:
        cap = usable  # last move before the time control: all of it may go
    if hard > cap:
        hard = cap
    if hard > usable:
        hard = usable
    if soft > hard:
        soft = hard
    if soft < _MIN_MS:
        soft = _MIN_MS
    if hard < _MIN_MS:
        hard = _MIN_MS
    return soft, hard
