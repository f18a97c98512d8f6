"""The search: iterative deepening PVS alpha-beta with a quiescence search.

    searcher = Searcher(tt_entries=4096, poll_nodes=256)
    for info in searcher.iterate(position, Limits(movetime_ms=1000), poll=None):
        print(info.depth, info.score_cp, info.mate_in, info.nodes, info.pv)
    result = searcher.search(position, Limits(depth=6))      # runs iterate() to the end
    result.best_move, result.ponder_move, result.score, result.depth, result.nodes

Contracts
- Every table (transposition table, killers, history, move stack, PV) is
  allocated in the constructor; a search allocates nothing (proved under MicroPython's
  heap_lock by tests/test_search_mpy.py). The Info object yielded is reused: copy what you
  need before the next step; `info.pv` builds a new list when read.
- The position is left exactly as it was (make/unmake only; its score_mg/score_eg are
  recomputed once with rehash() so they use the evaluation's piece-square tables).
- `poll(searcher)` is called every `poll_nodes` nodes; returning True stops the search at
  once. `stop()` (e.g. from inside poll) does the same; `ponderhit()` turns a ponder search
  into a timed one, the clock starting then. `clock_ms()` is the only clock read.
- Once a search has started it always ends with a legal move (if there is one): the best
  move of the last finished iteration, or of the current one if it already found a better
  one, or the first root move in ordering when stopped during depth 1.
- Scores are centipawns from the side to move's view; |score| >= MATE_BOUND is a mate:
  MATE - plies for the side giving mate. Draws (repetition within the search or against
  the game history, 50-move rule, insufficient material) score 0.
- Same limits and position -> same result and node count on CPython and MicroPython
  (no dependence on dict order or floats), unless a time limit or poll stops the search.

Features: aspiration windows, transposition table (tt.py), check extension, mate-distance
pruning, reverse futility and null-move pruning (not with king and pawns only; the null
move's reduction grows with depth and with the margin above beta), futility pruning of quiet
moves at depth 1-2, late-move pruning at depth 1-7 (from depth 4 a quiet move that gives check
is still searched), SEE pruning of losing captures and of late quiet moves that lose material,
by margins growing with depth (to depth 6), late-move reductions, killer, countermove and history
ordering (quiet moves that make a threat ordered just below the countermove, so spared),
quiescence search with MVV-LVA, delta pruning and a cheap exchange test (a capture by a more
valuable piece of a defended piece is skipped), check evasions in quiescence so mates at the
horizon are seen. Numbers live in tunables.py.
"""
from array import array

from firmware.compat import const, fill_heap_holes, micropython, ptr8, ptr16, ptr32, stack_use, ticks_diff
from firmware.engine.tunables import (  # module globals: cheaper than T.X on MicroPython
    ASPIRATION,
    DELTA_MARGIN,
    FUTILITY_MARGIN,
    HISTORY_MAX,
    LAZY_MARGIN,
    LMP_COUNT,
    LMP_MAX_DEPTH,
    LMR_FIRST,
    LMR_MIN_DEPTH,
    LMR_SECOND,
    LMR_THIRD,
    LMR_THIRD_DEPTH,
    NULL_EXTRA_MARGIN,
    NULL_MIN_DEPTH,
    NULL_R,
    RAZOR_MARGIN,
    ORDER_VALUE,
    RFP_MARGIN,
    RFP_MAX_DEPTH,
    SEE_CAPTURE_MARGIN,
    SEE_QUIET_MARGIN,
)
from firmware.engine.evaluate import _terms, evaluate
from firmware.engine.timeman import SOFT_NEXT_PERCENT, Limits, budget  # noqa: F401  (Limits is part of this API)
from firmware.engine.constants import KING_STEPS, KNIGHT_STEPS, ROOK_STEPS
from firmware.engine.see import see
from firmware.engine.position import PST_EG, PST_MG
from firmware.engine.zobrist import PIECE_BASE, TABLE_SIZE

_TYPE_CHECKING = const(0)  # the names the field declarations use, for the type checker only
if _TYPE_CHECKING:
    from typing import Callable

    from firmware.engine.position import Position
    from firmware.engine.tt import TranspositionTable

MATE = const(30000)
MATE_BOUND = const(29000)  # |score| >= MATE_BOUND: a forced mate
_INF = const(32000)
MAX_PLY = const(64)
_STACK_MARGIN_PLIES = const(3)  # after running out of C stack, search this much shallower
STACK_RESERVE = const(2560)  # C stack bytes kept free for the poll function's own calls
_MAX_DEPTH = const(60)
_PV_PLY = const(18)  # longest PV kept (a Pico's C stack ends its lines at ~14 plies anyway)
_MAX_MOVES = const(220)  # legal moves in a position: at most 218
MOVE_STACK = const(2048)  # moves of all plies on the current path (each ply <= 218)
_TT_MOVE = const(1 << 29)
_CAPTURE = const(1 << 26)
# MVV-LVA, as the three move orderings (_score_moves, _root_moves, _qsearch) score a capture:
# victim's value * _MVV - attacker's kind + promoted kind * _PROMO_ORDER
_MVV = const(16)
_PROMO_ORDER = const(100)
_PHASE_TOTAL = const(24)  # copy of firmware.engine.evaluate._PHASE_TOTAL
_BAD_CAPTURE = const(1 << 24)  # below killers
_KILLER1 = const((1 << 25) + (3 << 17))
_KILLER2 = const((1 << 25) + (2 << 17))
# The countermove: the lowest of the refutations (killers, countermove), which the pruning and
# the reductions spare
_COUNTER = const((1 << 25) + (1 << 17))
# The quiet moves that make a threat: spared too, below the countermove, among themselves by
# their quiet score (history + table gain, < 2^17): _SPARED + it. Every other quiet move
# scores below _SPARED, and the pruning and reductions spare every score from it up.
_SPARED = const(1 << 25)
# The table's format (tt.py), decoded inline: a const folds only inside its module
_TT_MOVE_BITS = const(0x7FFFF)  # copy of firmware.engine.tt.MOVE_MASK
_TT_BOUND = const(19)  # copy of firmware.engine.tt.BOUND_SHIFT
_TT_DEPTH = const(21)  # copy of firmware.engine.tt.DEPTH_SHIFT
_TT_AGE = const(27)  # copy of firmware.engine.tt.AGE_SHIFT
_EXACT = const(3)  # copy of firmware.engine.tt.BOUND_EXACT
_LOWER = const(2)  # copy of firmware.engine.tt.BOUND_LOWER
_UPPER = const(1)  # copy of firmware.engine.tt.BOUND_UPPER
_HISTORY_BONUS_MAX = const(400)  # a cutoff's history bonus: depth squared, at most this
# A quiet move's ordering score is its history cell + _HISTORY_ZERO (history stays within
# +-HISTORY_MAX = 16,000), so every score in mscore is >= 0: see _score_moves. Underpromotions
# score 0, below every quiet move.
_HISTORY_ZERO = const(32768)
# _score_moves' arguments beyond the pointers (an array: viper code reads it without a call)
_ORDER_START = const(0)
_ORDER_END = const(1)
_ORDER_TT = const(2)  # the hash move (0: none)
_ORDER_K1 = const(3)  # the killers of this ply
_ORDER_K2 = const(4)
_ORDER_CM = const(5)  # the countermove of the move before this node, its low 16 bits (0: none)
_ORDER_ARGS = array("i", bytes(4 * 6))
# For viper code (a tuple is an object to it): the pieces' values by kind, then from
# _ORDER_STEPS the steps of a knight, a white pawn and a black pawn to the squares they attack,
# then a rook's (a bishop's are the two pawns' four), + 33 (the array is unsigned): for the
# threats a quiet move makes
_ORDER_STEPS = const(7)
_ORDER_VALUE = array("H", ORDER_VALUE + tuple(d + 33 for d in KNIGHT_STEPS + (15, 17, -17, -15) + ROOK_STEPS))
# _qsearch: its loop's steps, and each ply's state in Searcher.qstack (_Q_CELLS cells a ply:
# beta, best, stand pat, start of the move list, next move; scores + _Q_BIAS)
_Q_ENTER = const(0)
_Q_NEXT = const(1)
_Q_RETURN = const(2)
_Q_CELLS = const(5)
_Q_LEVELS = const(32)  # a line of captures and evasions this long below its first ply ends in the evaluation
_Q_BIAS = const(32768)
_NO_STAND = const(-32700)  # no stand-pat score yet (no evaluation comes near it)
_NO_TERMS = const(32767)  # copy of firmware.engine.evaluate._NONE: evaluate._terms asks for evaluate()


@micropython.viper
def _score_moves(b: ptr8, moves: ptr32, ms: ptr32, hist: ptr16, pos):  # pyright: ignore[reportGeneralTypeIssues]  (ptr8/ptr32: viper's pointer types, compat.pyi)
    """Give every move in moves[start:end] its ordering score for the main search in ms
    (the other arguments are in _ORDER_ARGS): the hash move, captures by MVV-LVA (below the
    killers when a bigger piece takes a smaller one and SEE says it loses), queen
    promotions, en passant, the killers, the countermove, the quiet moves that make a threat
    (a pawn attacking a piece, a knight or bishop a rook, queen or king, a rook a queen or
    king) by their quiet score, then the other quiet moves by that score: history plus the
    piece-square gain and the enemy pawns' attacks; underpromotions last.
    Machine code: it runs for every generated move of every node of the main search, where it
    took a fifth of the chip's time as bytecode. (The quiescence search scores its few
    captures in bytecode: as a second branch here it was 0.4 KB of machine code.)

    Every score is >= 0 and < 2^30, so the 32-bit reads of the 64-bit unix port (which
    zero-extend) compare like the chips' (which sign-extend)."""
    args = ptr32(_ORDER_ARGS)
    value = ptr16(_ORDER_VALUE)
    k = args[_ORDER_START]
    end = args[_ORDER_END]
    tt_move = args[_ORDER_TT]
    k1 = args[_ORDER_K1]
    k2 = args[_ORDER_K2]
    cm = args[_ORDER_CM]
    # the game phase (as evaluate.py's), for the quiet moves' piece-square gain
    c = ptr8(pos.counts)
    phase = int(c[2]) + int(c[3]) + int(c[10]) + int(c[11]) + 2 * (int(c[4]) + int(c[12])) + 4 * (
        int(c[5]) + int(c[13]))
    if phase > _PHASE_TOTAL:
        phase = _PHASE_TOTAL
    # ... but not where endgame.py's knowledge decides (a side without pawns, or little
    # material: evaluate._terms' test), whose scores the tables do not lead toward
    tables = 1
    if int(c[1]) == 0 or int(c[9]) == 0 or phase <= 2:
        tables = 0
    mg = ptr16(PST_MG)
    eg = ptr16(PST_EG)
    while k < end:
        m = moves[k]
        if m == tt_move:
            ms[k] = _TT_MOVE
        else:
            victim = b[(m >> 7) & 127]
            promo = (m >> 14) & 7
            if victim:
                attacker = b[m & 127] & 7
                v = value[victim & 7]
                score = v * _MVV - attacker + promo * _PROMO_ORDER
                if value[attacker] > v + 50 and int(see(pos, m)) < 0:
                    ms[k] = _BAD_CAPTURE + score
                else:
                    ms[k] = _CAPTURE + score
            elif promo == 5:
                ms[k] = _CAPTURE + 8000
            elif m >> 17 == 2:
                ms[k] = _CAPTURE + 1600 - 1
            elif m == k1:
                ms[k] = _KILLER1
            elif m == k2:
                ms[k] = _KILLER2
            elif (m & 0xFFFF) == cm:  # from and to tell quiet moves apart (see _search)
                ms[k] = _COUNTER
            elif promo:
                ms[k] = 0  # underpromotions last
            else:
                # the history cell + _HISTORY_ZERO: viper reads the signed 16-bit cell as
                # unsigned, CPython as signed, and + 0x8000 & 0xFFFF is the same on both;
                # the index is zobrist.PIECE_BASE[piece] + the to-square, computed
                # Plus what the move gains on the piece-square tables (tapered, x 3/4): the
                # order of quiet moves that history does not know yet (few nodes, a new game)
                piece = b[m & 127]
                fr = (((piece & 7) - 1) << 7 | (piece & 8)) + (m & 127)
                to = fr - (m & 127) + ((m >> 7) & 127)
                gain = 0
                if tables:
                    gain = (int(mg[to]) - int(mg[fr])) * phase + (int(eg[to]) - int(eg[fr])) * (_PHASE_TOTAL - phase)
                if piece & 8:
                    gain = 0 - gain  # Black's entries are negated
                gain = gain >> 5
                # A knight, bishop, rook or queen moved where an enemy pawn takes it goes down
                # the order by half its value, one moved out of an enemy pawn's reach up by as
                # much: the threats a 1,000-node search's history has not seen yet (+12 Elo,
                # docs/engine.md). The enemy pawns that would attack a square
                # stand on it + d and + d + 2: d = 15 for a white mover, -17 for a black one.
                kind = piece & 7
                if kind > 1 and kind < 6:
                    pawn = (piece & 8) ^ 9  # the enemy's pawn
                    d = 15 - ((piece & 8) << 2)
                    t = ((m >> 7) & 127) + d
                    f = (m & 127) + d
                    if (not (t & 0x88) and int(b[t]) == pawn) or (not ((t + 2) & 0x88) and int(b[t + 2]) == pawn):
                        gain -= int(value[kind]) >> 1
                    elif (not (f & 0x88) and int(b[f]) == pawn) or (not ((f + 2) & 0x88) and int(b[f + 2]) == pawn):
                        gain += int(value[kind]) >> 1
                quiet = ((hist[to] + 0x8000) & 0xFFFF) + gain
                ms[k] = quiet
                # A quiet move that makes a threat is ordered just below the countermove (among
                # the threats by its quiet score: docs/engine.md), so the
                # pruning and the reductions spare it: a pawn that then attacks a knight,
                # bishop, rook, queen or the king, a knight that then attacks a rook, queen or
                # the king (the quiet refutations a 1,000-node search pruned or reduced away;
                # +11 Elo, docs/engine.md); a bishop that then attacks a rook,
                # queen or the king, a rook a queen or the king, along a line that the square
                # the piece leaves still blocks (what lies beyond it there, it attacked
                # already; +15 Elo more, docs/engine.md). The kind attacked must be at least twice a
                # pawn's or knight's (2, 4), above a bishop's or rook's (4, 5).
                j = _ORDER_STEPS  # the steps of _ORDER_VALUE to try: j up to n
                n = j
                least = kind << 1  # the least kind attacked that is a threat
                if kind == 2:
                    n = j + 8
                elif kind == 1:
                    j += 8 + ((piece & 8) >> 2)
                    n = j + 2
                elif kind == 3 or kind == 4:  # a bishop's diagonals, a rook's lines
                    j += 8 + ((kind - 3) << 2)
                    n = j + 4
                    least = kind + 1
                while j < n:
                    step = int(value[j]) - 33
                    d = ((m >> 7) & 127) + step
                    j += 1
                    while not (d & 0x88):
                        p = int(b[d])
                        if p:
                            if (p ^ piece) & 8 and (p & 7) >= least:
                                ms[k] = _SPARED + quiet
                            break
                        if kind < 3:  # a pawn or knight: one step
                            break
                        d += step
        k += 1


@micropython.viper
def _pick(ms: ptr32, moves: ptr32, k: int, end: int):  # pyright: ignore[reportGeneralTypeIssues]  (ptr8/ptr32: viper's pointer types, compat.pyi)
    """Selection: bring the best-scored move of moves[k:end] (the first of equals) to k.
    Machine code: a node picks its moves one by one from the shared stack."""
    best = k
    score = ms[k]
    j = k + 1
    while j < end:
        if ms[j] > score:
            score = ms[j]
            best = j
        j += 1
    if best != k:
        m = moves[best]
        moves[best] = moves[k]
        moves[k] = m
        ms[best] = ms[k]
        ms[k] = score



class SearchError(ValueError):
    """Bad arguments to the searcher (sizes, limits)."""


class Info:
    """Progress of a search, reused between yields. score_cp is None for a mate score;
    mate_in is then the number of moves to mate (negative: being mated), else None."""

    def __init__(self, searcher):
        self._searcher = searcher
        self.depth = 0
        self.seldepth = 0
        self.score = 0
        self.score_cp = 0  # type: int | None
        self.mate_in = None  # type: int | None
        self.nodes = 0
        self.time_ms = 0
        self.best_move = 0
        self.bound = 0  # 0 exact, 1 upper (failed low), 2 lower (failed high)

    @property
    def pv(self):
        s = self._searcher
        return [s.pv[i] for i in range(s.pv_len[0])]


def mate_in_moves(score):
    """Moves to mate for a mate score (negative when the side to move is mated), else None."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score) // 2)
    return None


class Searcher:
    """See the module docstring. `tt_entries`: transposition table slots (10 bytes each);
    `move_stack`: move-buffer cells shared by all plies (8 bytes each; a ply that would not
    fit 256 more is searched as a leaf);
    `poll_nodes`: nodes between calls of poll and clock checks; `clock_ms`: zero-argument
    callable returning milliseconds (default compat.ticks_ms); `seed`: mixes into the
    evaluation noise of fun levels (set_noise); `stack_bytes`: the board's C stack size
    (0 = unknown; see docs/engine.md, "Machine code and the C stack").

    Its fields, declared here (a bare annotation compiles to nothing) and set by
    search_setup.setup (the constructor's work, loaded for it and dropped after)."""

    # -- the tables, allocated once
    tt: "TranspositionTable"
    moves: array  # the move stack shared by all plies; mscore: their ordering scores
    mscore: array
    move_stack: int  # cells in moves / mscore
    sp: int  # first free cell of the move stack
    killers: array  # two a ply
    counters: array  # countermoves by the refuted move's to-square
    qstack: array  # _qsearch's plies: _Q_CELLS cells each
    evals: array  # static evaluation by ply (-_INF: in check)
    history: array  # by piece and to-square, as zobrist.py indexes
    pv: array  # triangular PV table (search_setup.py); pv_len: each ply's line length
    pv_len: bytearray
    root_moves: array  # the root's legal moves and the nodes each took
    root_nodes: array
    root_count: int
    root_best: int  # index in root_moves of the best move so far, and its score
    root_best_score: int
    evade: bytearray  # scratch for _filter_evasions, all zero between calls
    info: "Info"  # what iterate() yields, reused
    fillers: object  # what holds the heap's holes filled during a search (iterate), or None
    # -- set by the constructor's arguments
    poll_nodes: int
    clock_ms: "Callable[[], int]"  # milliseconds
    seed: int
    noise_cp: int  # fun levels: +-evaluation noise (0: off) and its seed
    noise_seed: int
    stack_limit: int  # C stack bytes in use above which poll is skipped and the ply limit drops (0: unknown)
    # -- one search's state
    pos: "Position | None"  # the position searched (None between games, to free its room)
    limits: "Limits"
    poll: "Callable[[Searcher], bool] | None"  # True: stop
    root_ply: int
    max_ply: int  # deepest ply searched now; stack_ply: the C stack's limit for the Searcher's life
    stack_ply: int
    stack_retry: bool  # a search that ran out of C stack is being repeated shallower
    nodes: int
    next_check: int  # the node count of the next _check
    node_limit: int
    stopped: bool
    pondering: bool
    waiting: bool  # a finished ponder/infinite search waits for stop
    exhaustive: bool  # a mate search: no forward pruning (search_setup.py says why)
    start_ms: int
    soft_ms: int
    hard_ms: int
    seldepth: int
    # -- the answer
    best_move: int
    ponder_move: int
    best_score: int
    done_depth: int

    def __init__(self, tt_entries=4096, poll_nodes=256, clock_ms=None, seed=0, move_stack=MOVE_STACK, stack_bytes=0):
        # The arguments' checks and the tables' allocation live in search_setup.py, loaded
        # for this call and dropped after it: it runs once, so its code does not stay in a
        # board's heap (the sizes below are this module's private constants)
        from firmware.loader import call  # (here: no global entry in this big module)

        call("firmware.engine.search_setup", "setup", self, tt_entries, poll_nodes, clock_ms, seed, move_stack,
             stack_bytes, (_Q_CELLS * _Q_LEVELS, _PV_PLY, _MAX_MOVES, MAX_PLY, STACK_RESERVE), Info, SearchError)

    # ---- control ------------------------------------------------------------------------
    def stop(self):
        """Ask the running search to stop as soon as possible (safe to call from poll)."""
        self.stopped = True

    def ponderhit(self):
        """The opponent played the expected move: the ponder search becomes a normal one
        with the clock of its Limits, counted from now."""
        if self.pondering:
            self.pondering = False
            self.start_ms = self.clock_ms()
            self.soft_ms, self.hard_ms = budget(self.limits, self.pos.stm)

    def set_noise(self, noise_cp, seed=None):
        """Fun levels: add a pseudo-random +-noise_cp to every evaluation (the same for the
        same position and seed, so the search stays consistent). 0 turns it off."""
        self.noise_cp = noise_cp if noise_cp > 0 else 0
        self.noise_seed = (self.seed if seed is None else seed) * 7919 & 0x3FFFFFFF

    def new_game(self):
        """Forget everything learnt (TT, history)."""
        self.tt.clear()
        for i in range(TABLE_SIZE):
            self.history[i] = 0
        for i in range(64):
            self.counters[i] = 0

    def elapsed_ms(self):
        return ticks_diff(self.clock_ms(), self.start_ms)

    def _check(self):
        """Every poll_nodes nodes: node budget, poll callback, hard time limit."""
        nxt = self.nodes + self.poll_nodes
        limit = self.node_limit
        if limit:
            if self.nodes >= limit:
                self.stopped = True
                return
            if nxt > limit:
                nxt = limit
        self.next_check = nxt
        poll = self.poll
        if self.stack_limit and stack_use() > self.stack_limit:
            limit = self.pos.ply - self.root_ply - 1
            if limit < 2:
                limit = 2
            if limit < self.max_ply:
                self.max_ply = limit
                self.stack_ply = limit
            poll = None  # the next poll comes when the line is shallower again
        if poll is not None and poll(self):
            self.stopped = True
            return
        if self.hard_ms and not self.pondering:
            if ticks_diff(self.clock_ms(), self.start_ms) >= self.hard_ms:
                self.stopped = True

    # ---- public search ------------------------------------------------------------------
    def search(self, position, limits, poll=None):
        """Run iterate() to the end; return a Result (best_move is 0 only when there is no
        legal move; then score is -MATE if checkmated, else 0)."""
        for _ in self.iterate(position, limits, poll):
            pass
        from firmware.engine.search_result import Result  # (not on a board's heap: see there)

        return Result(self.best_move, self.ponder_move, self.best_score, self.done_depth, self.nodes,
                      self.elapsed_ms(), mate_in_moves(self.best_score))

    def iterate(self, position, limits, poll=None):
        """Set up a search and return a generator that yields the shared Info after each
        finished depth (see the module docstring). All allocation happens here, before the
        first step; stepping the generator allocates nothing. When it ends, best_move,
        ponder_move, best_score and done_depth hold the answer."""
        if not isinstance(limits, Limits):
            raise SearchError("limits must be a Limits, got %r" % (limits,))
        self.pos = position
        self.root_ply = position.ply
        self.limits = limits
        self.exhaustive = bool(limits.mate)
        self.poll = poll
        self.stopped = False
        self.stack_retry = False
        self.pondering = limits.ponder
        self.start_ms = self.clock_ms()
        self.soft_ms, self.hard_ms = budget(limits, position.stm)
        self.nodes = 0
        self.seldepth = 0
        self.node_limit = limits.nodes
        self.next_check = self.poll_nodes
        if self.node_limit and self.node_limit < self.next_check:
            self.next_check = self.node_limit
        self.sp = 0
        # plies the search may add: MAX_PLY, or less when the position's history is nearly full
        room = position.capacity - position.ply - 2
        self.max_ply = self.stack_ply if room > self.stack_ply else room
        self.tt.new_search()
        position.rehash()  # scores with the evaluation's tables
        hist = self.history
        for i in range(TABLE_SIZE):
            hist[i] >>= 3
        killers = self.killers
        for i in range(2 * MAX_PLY):
            killers[i] = 0
        self.info.__init__(self)  # every field as at its start
        self.pv_len[0] = 0
        self.best_move = 0
        self.ponder_move = 0
        self.best_score = 0
        self.done_depth = 0
        n = self._root_moves()
        if n == 0:
            self.best_score = -MATE if position.in_check() else 0
        # On a chip: the heap's small holes filled for the search's heap frames (see
        # compat.fill_heap_holes; 36 % more nodes a second on the emulated Pico), released
        # when the search ends. The last search's fillers go first, so they are collected.
        self.fillers = None
        if n:
            self.fillers = fill_heap_holes()
        return self._deepen(n)

    def _deepen(self, n):
        """The iterative deepening loop behind iterate()."""
        if n == 0:
            return
        limits = self.limits
        info = self.info
        poll = self.poll
        max_depth = limits.depth if limits.depth else _MAX_DEPTH
        if limits.mate and (not limits.depth or 2 * limits.mate < max_depth):
            max_depth = 2 * limits.mate
        if max_depth > _MAX_DEPTH:
            max_depth = _MAX_DEPTH
        best_move = self.root_moves[0]
        self.best_move = best_move
        if self.max_ply < 2:
            self.fillers = None
            return  # no room in the position's history to search: the first ordered move
        best_score = 0
        timed = not limits.infinite and not limits.depth and not limits.nodes and not limits.mate
        depth = 1
        while depth <= max_depth:
            alpha = -_INF
            beta = _INF
            delta = ASPIRATION
            if depth >= 3 and best_score > -MATE_BOUND and best_score < MATE_BOUND:
                alpha = best_score - delta
                beta = best_score + delta
            self.root_best = 0
            while True:
                score = self._root(alpha, beta, depth)
                if self.stack_retry:  # ran out of C stack: again, with the lower ply limit
                    self.stack_retry = False
                    self.stopped = False
                    continue
                if self.stopped:
                    break
                if score <= alpha:
                    alpha = score - delta
                    if alpha < -_INF or delta > 500:
                        alpha = -_INF
                    delta *= 4
                elif score >= beta:
                    beta = score + delta
                    if beta > _INF or delta > 500:
                        beta = _INF
                    delta *= 4
                else:
                    break
            if self.stopped:
                if self.root_best:
                    best_move = self.root_best  # beat the old best during this depth
                    best_score = self.root_best_score
                    self.best_move = best_move
                    self.best_score = best_score
                break
            best_move = self.root_moves[0]
            best_score = score
            self.best_move = best_move
            self.best_score = score
            self.done_depth = depth
            self.ponder_move = self.pv[1] if self.pv_len[0] > 1 and self.pv[0] == best_move else 0
            info.depth = depth
            info.seldepth = self.seldepth
            info.score = score
            info.mate_in = mate_in_moves(score)
            info.score_cp = None if info.mate_in is not None else score
            info.nodes = self.nodes
            info.time_ms = ticks_diff(self.clock_ms(), self.start_ms)
            info.best_move = best_move
            yield info
            if self.stopped:
                break
            if limits.mate and info.mate_in is not None and 0 < info.mate_in <= limits.mate:
                break
            if not self.pondering and self.soft_ms:
                if timed and n == 1:
                    break  # the only move: no need to think
                if info.time_ms * 100 >= self.soft_ms * SOFT_NEXT_PERCENT:
                    break
                if score >= MATE_BOUND and depth >= 2 * ((MATE - score + 1) // 2) + 2:
                    break  # a mate in (MATE - score + 1) // 2 moves is proven: nothing to gain
            depth += 1
        self.fillers = None  # the search's frames are gone: the holes are the heap's again
        # the expected reply: the PV's second move, if the PV still starts with our move
        # (a move that beat the old best in an unfinished depth has its own PV)
        self.ponder_move = self.pv[1] if self.pv_len[0] > 1 and self.pv[0] == self.best_move else 0
        # A ponder or infinite search must not answer before it is told to (only a poll
        # function can tell it, so without one it ends at its depth limit).
        if poll is not None:
            self.waiting = True
            while not self.stopped and (self.pondering or limits.infinite):
                if poll(self):
                    self.stopped = True
            self.waiting = False

    # ---- root ---------------------------------------------------------------------------
    def _root_moves(self):
        """Legal root moves into root_moves, ordered TT move, captures (MVV-LVA), quiet."""
        pos = self.pos
        moves = self.moves
        end = pos.gen_moves(moves, 0)
        check = pos.in_check()
        n = 0
        rm = self.root_moves
        rn = self.root_nodes
        b = pos.board
        i = self.tt.probe(pos.hash_lo, pos.hash_hi)
        tt_move = self.tt.data[i] & _TT_MOVE_BITS if i >= 0 else 0
        for k in range(end):
            m = moves[k]
            if pos.make_legal(m, check):
                pos.unmake()
                rm[n] = m
                victim = b[(m >> 7) & 127]
                if m == tt_move:
                    rn[n] = _TT_MOVE
                elif victim or (m >> 14) & 7 == 5:
                    rn[n] = (_CAPTURE + ORDER_VALUE[victim & 7] * _MVV - (b[m & 127] & 7)
                             + ((m >> 14) & 7) * _PROMO_ORDER)
                else:
                    rn[n] = 0
                n += 1
        # insertion sort by the ordering score (stable, allocation-free)
        for k in range(1, n):
            m = rm[k]
            s = rn[k]
            j = k - 1
            while j >= 0 and rn[j] < s:
                rm[j + 1] = rm[j]
                rn[j + 1] = rn[j]
                j -= 1
            rm[j + 1] = m
            rn[j + 1] = s
        self.root_count = n
        return n

    def _root(self, alpha, beta, depth):
        pos = self.pos
        rm = self.root_moves
        rn = self.root_nodes
        n = self.root_count
        best = -_INF
        orig_alpha = alpha
        root_ply = pos.ply
        for k in range(n):
            m = rm[k]
            pos.make(m)
            chk = pos.in_check()
            before = self.nodes
            try:
                if k == 0:
                    s = -self._search(-beta, -alpha, depth - 1, 1, chk, True)
                else:
                    s = -self._search(-alpha - 1, -alpha, depth - 1, 1, chk, True)
                    if s > alpha and s < beta and not self.stopped:
                        s = -self._search(-beta, -alpha, depth - 1, 1, chk, True)
            except RuntimeError as err:
                s = self._out_of_stack(err, root_ply)
            pos.unmake()
            if self.stopped:
                break
            rn[k] = self.nodes - before
            if s > best:
                best = s
            if s > alpha:
                alpha = s
                self.root_best = m
                self.root_best_score = s
                self._extend_pv(0, m)  # PV: this move, then the child's line
                # move it to the front, keeping the others' order
                j = k
                while j > 0:
                    rm[j] = rm[j - 1]
                    rn[j] = rn[j - 1]
                    j -= 1
                rm[0] = m
                if s >= beta:
                    break
        if not self.stopped:
            bound = _LOWER if best >= beta else (_EXACT if best > orig_alpha else _UPPER)
            self.tt.store(pos.hash_lo, pos.hash_hi, rm[0], bound, depth, best)
        return best

    def _out_of_stack(self, err, root_ply):
        """The search recursed deeper than the C stack allows ("maximum recursion depth
        exceeded": MicroPython checks the stack on every call; a Pico has a few KB of it,
        and machine-code frames are bigger than bytecode ones). Take the line back to the
        root move, stop this search as if told to (the answer is the last finished depth's),
        and keep every later search of this Searcher a few plies short of that depth.
        _deepen then searches the same depth again, so the move still gets its time."""
        if "recursion" not in str(err):
            raise err
        pos = self.pos
        reached = pos.ply - root_ply  # the ply whose call overflowed
        while pos.ply > root_ply + 1:
            pos.unmake()
        self.sp = 0
        self.stopped = True
        limit = reached - _STACK_MARGIN_PLIES
        if limit < 2:
            limit = 2
        if limit < self.max_ply:  # else it cannot get shallower: stay stopped
            self.stack_ply = limit
            self.max_ply = limit
            self.stack_retry = True
        return 0

    # ---- check evasions ----------------------------------------------------------------
    def _filter_evasions(self, start, end):
        """In check: drop the generated moves in moves[start:end] that cannot answer it (a
        non-king move must capture a single checker or block its line; e.p. is left to the
        legality test). Returns the new end. Saves a make/attack test/unmake per dropped move."""
        pos = self.pos
        b = pos.board
        stm = pos.stm
        them = stm ^ 8
        k = pos.kings[stm]
        ev = self.evade
        checkers = 0
        first = 0
        if stm == 0:
            if not (k + 15) & 0x88 and b[k + 15] == 9:
                checkers += 1
                first = k + 15
            if not (k + 17) & 0x88 and b[k + 17] == 9:
                checkers += 1
                first = k + 17
        else:
            if not (k - 15) & 0x88 and b[k - 15] == 1:
                checkers += 1
                first = k - 15
            if not (k - 17) & 0x88 and b[k - 17] == 1:
                checkers += 1
                first = k - 17
        knight = them | 2
        for d in KNIGHT_STEPS:
            t = k + d
            if not t & 0x88 and b[t] == knight:
                checkers += 1
                first = t
        line_dir = 0
        for d in KING_STEPS:
            t = k + d
            while not t & 0x88:
                p = b[t]
                if p:
                    if p & 8 == them:
                        kind = p & 7
                        if kind == 5 or (kind == 4 and (d == 16 or d == -16 or d == 1 or d == -1)) or (
                            kind == 3 and (d == 17 or d == -17 or d == 15 or d == -15)
                        ):
                            checkers += 1
                            first = t
                            line_dir = d
                    break
                t += d
        if checkers == 0:
            return end
        moves = self.moves
        if checkers == 1:
            ev[first] = 1
            if line_dir:
                t = k + line_dir
                while t != first:
                    ev[t] = 1
                    t += line_dir
        n = start
        i = start
        while i < end:
            m = moves[i]
            if (m & 127) == k or ev[(m >> 7) & 127] or (m >> 17) == 2:
                moves[n] = m
                n += 1
            i += 1
        if checkers == 1:
            ev[first] = 0
            if line_dir:
                t = k + line_dir
                while t != first:
                    ev[t] = 0
                    t += line_dir
        return n

    def _hopeless(self, stand, alpha):
        """Quiescence: True when winning the opponent's most valuable piece would still leave
        the score at or below alpha and the side to move has no pawn about to promote."""
        pos = self.pos
        c = pos.counts
        them = pos.stm ^ 8
        if c[them | 5]:
            big = 950
        elif c[them | 4]:
            big = 500
        elif c[them | 3] or c[them | 2]:
            big = 330
        else:
            big = 100
        if stand + big + DELTA_MARGIN > alpha:
            return False
        b = pos.board
        if pos.stm == 0:
            pawn = 1
            sq = 96  # a7
        else:
            pawn = 9
            sq = 16  # a2
        end = sq + 8
        while sq < end:
            if b[sq] == pawn:
                return False
            sq += 1
        return True

    # ---- evaluation with noise -------------------------------------------------------------
    def _static(self):
        pos = self.pos
        v = evaluate(pos)
        noise = self.noise_cp
        if noise:
            v += (pos.hash_lo ^ self.noise_seed) % (2 * noise + 1) - noise
        return v

    # ---- main search ----------------------------------------------------------------------
    def _search(self, alpha, beta, depth, ply, in_check, null_ok):
        if ply < _PV_PLY:
            self.pv_len[ply] = 0
        if depth <= 0 and not in_check:
            return self._qsearch(alpha, beta, ply, False)
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check()
        if self.stopped:
            return 0
        pos = self.pos
        # draws: 50-move rule, repetition (one repeat is enough, of the game's positions
        # before the root too: Stockfish's rule, which waits for those to come twice, lost
        # 53 Elo here, docs/engine.md), bare minors
        if pos.halfmove >= 100:
            return 0
        hl = pos.hist_lo
        hh = pos.hist_hi
        lo = pos.hash_lo
        hi = pos.hash_hi
        i = pos.ply - 4
        stop = pos.ply - pos.halfmove
        while i >= stop and i >= 0:
            if hl[i] == lo and hh[i] == hi:
                return 0
            i -= 2
        if i >= stop and len(pos.prior_lo):
            j = len(pos.prior_lo) + i
            while j >= 0 and i >= stop:
                if pos.prior_lo[j] == lo and pos.prior_hi[j] == hi:
                    return 0
                j -= 2
                i -= 2
        counts = pos.counts
        if (not (counts[1] or counts[9] or counts[4] or counts[12] or counts[5] or counts[13])
                and counts[2] + counts[3] <= 1 and counts[10] + counts[11] <= 1):
            return 0
        # mate distance pruning
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
        if ply >= self.max_ply - 1:
            return self._static()
        pvnode = beta - alpha > 1
        # transposition table
        tt = self.tt
        tt_move = 0
        slot = lo & tt.mask
        keys = tt.keys
        if keys[slot] != hi:
            slot += 1
            if keys[slot] != hi:
                slot = -1
        if slot >= 0:
            entry = tt.data[slot]
            tt_move = entry & _TT_MOVE_BITS
            # a deep enough entry answers: off the PV any bound that settles the window, in
            # PV nodes too an exact score (+13 Elo at 1,000 nodes, docs/engine.md; the PV then
            # ends at this node)
            if (entry >> _TT_DEPTH) & 63 >= depth:
                s = tt.scores[slot]
                if s >= MATE_BOUND:
                    s -= ply
                elif s <= -MATE_BOUND:
                    s += ply
                bound = (entry >> _TT_BOUND) & 3
                if bound == _EXACT or (not pvnode and ((bound == _LOWER and s >= beta)
                                                       or (bound == _UPPER and s <= alpha))):
                    return s
        improving = 1
        if in_check:
            depth += 1
            static = -_INF
            self.evals[ply] = -_INF
        else:
            static = self._static()
            self.evals[ply] = static
            # improving: better than two plies ago (our last turn); prune less when so
            if ply >= 2 and static <= self.evals[ply - 2]:
                improving = 0
            # the table's score, when its bound says the true score lies beyond the static
            # evaluation, is the better guess for the pruning below (evals[] keeps the static)
            if slot >= 0:
                s = tt.scores[slot]
                if -MATE_BOUND < s < MATE_BOUND:
                    bound = (tt.data[slot] >> _TT_BOUND) & 3
                    if bound == _EXACT or (bound == _LOWER and s > static) or (bound == _UPPER and s < static):
                        static = s
            if not pvnode and not self.exhaustive:
                # reverse futility pruning: far above beta with little depth left
                margin = RFP_MARGIN * (depth - improving)
                if depth <= RFP_MAX_DEPTH and static - margin >= beta and -MATE_BOUND < beta < MATE_BOUND:
                    return static
                # razoring: far below alpha near the leaves, only a capture could help
                if depth <= 2 and static + RAZOR_MARGIN * depth <= alpha and alpha > -MATE_BOUND:
                    s = self._qsearch(alpha, alpha + 1, ply, False)
                    if s <= alpha or self.stopped:  # (stopped: no null move after it, no node more)
                        return s
                # null move, not where zugzwang is common: king and pawns, or a single minor
                # piece (e.g. kbK5/pp6/RP6/8/8/8/8/8 b: any move loses, passing would not)
                stm = pos.stm
                pieces = counts[stm | 4] or counts[stm | 5] or counts[stm | 2] + counts[stm | 3] >= 2
                if null_ok and depth >= NULL_MIN_DEPTH and static >= beta and pieces:
                    # deeper, and further above beta, a shallower look is enough
                    reduction = (static - beta) // NULL_EXTRA_MARGIN
                    if reduction > 3:
                        reduction = 3
                    reduction += NULL_R + depth // 4
                    pos.make_null()
                    # no repetition reaches back across a null move (unmake restores the clock)
                    pos.halfmove = 0
                    s = -self._search(-beta, -beta + 1, depth - 1 - reduction, ply + 1, False, False)
                    pos.unmake()
                    if self.stopped:
                        return 0
                    if s >= beta:
                        return beta if s >= MATE_BOUND else s
        # generate and score moves
        start = self.sp
        if start + 256 > self.move_stack:
            return static if static > -_INF else 0
        moves = self.moves
        ms = self.mscore
        end = pos.gen_moves(moves, start)
        if in_check:
            end = self._filter_evasions(start, end)
        self.sp = end
        b = pos.board
        kil = self.killers
        k1 = kil[2 * ply]
        args = _ORDER_ARGS
        args[_ORDER_START] = start
        args[_ORDER_END] = end
        args[_ORDER_TT] = tt_move
        args[_ORDER_K1] = k1
        args[_ORDER_K2] = kil[2 * ply + 1]
        # the countermove: the quiet move that last refuted the move before this node, by that
        # move's to-square (8 x rank + file; -1 after a null move); low 16 bits, which tell
        # quiet moves apart (no promotion; a king moves two squares only to castle)
        counters = self.counters
        prev = pos.hist_move[pos.ply - 1] if pos.ply else 0
        if prev:
            prev = (prev >> 7) & 127
            prev = (prev + (prev & 7)) >> 1
            args[_ORDER_CM] = counters[prev]
        else:
            prev = -1
            args[_ORDER_CM] = 0
        hist = self.history
        _score_moves(b, moves, ms, hist, pos)
        orig_alpha = alpha
        best = -_INF
        best_move = 0
        legal = 0
        quiets = 0
        prune_ok = not in_check and not pvnode and depth <= LMP_MAX_DEPTH and not self.exhaustive
        # the table's move takes a piece (read before any move is made; en passant, whose
        # to-square is empty, does not count): late quiet moves are reduced a ply more below
        tt_capture = tt_move and b[(tt_move >> 7) & 127]
        fut = prune_ok and depth <= 2 and static + FUTILITY_MARGIN[depth] <= alpha
        lmp = LMP_COUNT[depth] if prune_ok else 1000
        if not improving:
            lmp -= lmp // 4  # a quarter fewer (docs/engine.md)
        late = 0  # from depth 4: past the count, only the quiet moves that give check are searched
        k = start
        while k < end:
            _pick(ms, moves, k, end)  # selection: the best remaining move to k
            m = moves[k]
            bs = ms[k]
            k += 1
            quiet = not b[(m >> 7) & 127] and not (m >> 14) & 7 and (m >> 17) != 2
            # SEE pruning to depth 6 (`depth < 7` here and below: a literal, where a tunables name
            # would be a global lookup for every move)
            if bs < _SPARED and bs >= _BAD_CAPTURE and prune_ok and legal and best > -MATE_BOUND and (
                    depth <= 2 or (depth < 7 and see(pos, m) < -SEE_CAPTURE_MARGIN * depth)):
                continue  # a capture that loses material by SEE: near the leaves any, deeper by more
            if quiet:
                # futility / late-move pruning before making the move (quiet checks at these
                # depths are left to the next iteration). Moves come best first, so every
                # move left is a quiet move scored by history (or an underpromotion): all of
                # them would be pruned too, and picking them one by one is the costliest part
                # of a node with many quiet moves. Stop here.
                if legal and (fut or quiets >= lmp) and best > -MATE_BOUND and bs < _SPARED:
                    if depth <= 3:
                        break
                    late = 1  # deeper, a quiet check can still matter: each is made, then judged
                quiets += 1
                # a late quiet move onto a square where it is lost (SEE), by more the deeper
                if (prune_ok and legal and depth < 7 and best > -MATE_BOUND and bs < _SPARED
                        and see(pos, m) < -SEE_QUIET_MARGIN * depth * depth):
                    continue
            chk = pos.play(m, in_check + 5)  # make_legal, and in_check() after it (Position.play)
            if not chk:
                continue
            chk -= 1  # 1: the move gives check
            if late and not chk:
                pos.unmake()
                continue
            legal += 1
            new_depth = depth - 1
            if legal == 1:
                s = -self._search(-beta, -alpha, new_depth, ply + 1, chk, True)
            else:
                reduction = 0
                if quiet and depth >= LMR_MIN_DEPTH and legal > LMR_FIRST and not in_check and not chk:
                    reduction = 1
                    if legal > LMR_SECOND:
                        reduction += 1
                    if depth >= LMR_THIRD_DEPTH and legal > LMR_THIRD:
                        reduction += 1
                    if pvnode or bs >= _SPARED:
                        reduction -= 1
                    elif bs < _HISTORY_ZERO:
                        reduction += 1  # a move that failed here before
                    if tt_capture:
                        reduction += 1  # the best move here is a capture: a quiet move is less likely to matter
                    if new_depth - reduction < 1:
                        reduction = new_depth - 1 if new_depth > 1 else 0
                s = -self._search(-alpha - 1, -alpha, new_depth - reduction, ply + 1, chk, True)
                if s > alpha and reduction and not self.stopped:
                    s = -self._search(-alpha - 1, -alpha, new_depth, ply + 1, chk, True)
                if s > alpha and s < beta and pvnode and not self.stopped:
                    s = -self._search(-beta, -alpha, new_depth, ply + 1, chk, True)
            pos.unmake()
            if self.stopped:
                self.sp = start
                return 0
            if s > best:
                best = s
                if s > alpha:
                    alpha = s
                    best_move = m
                    if ply < _PV_PLY - 1:
                        self._extend_pv(ply, m)
                    if s >= beta:
                        if quiet:
                            self._reward_quiet(m, ply, depth, start, k - 1, prev)
                        break
        self.sp = start
        if not legal:
            return -MATE + ply if in_check else 0
        if best >= beta:
            bound = _LOWER
        elif best > orig_alpha:
            bound = _EXACT
        else:
            bound = _UPPER
        s = best
        if s >= MATE_BOUND:
            s += ply
        elif s <= -MATE_BOUND:
            s -= ply
        tt.store(lo, hi, best_move, bound, depth, s)
        return best

    # The two cold parts of a node, out of _search: each runs only when a move raises alpha,
    # and their locals would otherwise enlarge every node's frame (on the chips a bytecode
    # function with many locals takes its frame from the heap: docs/engine.md, "Machine code
    # and the C stack").

    def _extend_pv(self, ply, move):
        """The principal variation at ply becomes move followed by the child's (ply + 1)."""
        pv = self.pv
        pv_len = self.pv_len
        row = ply * _PV_PLY - ((ply * (ply - 1)) >> 1)  # see __init__
        pv[row] = move
        child_len = pv_len[ply + 1]
        child_row = row + _PV_PLY - ply
        j = 0
        while j < child_len:
            pv[row + 1 + j] = pv[child_row + j]
            j += 1
        pv_len[ply] = child_len + 1

    def _reward_quiet(self, move, ply, depth, start, tried_end, prev):
        """A quiet move cut off at ply: it becomes the first killer and the countermove of the
        move before (by that move's square, prev; -1 after a null move), and gains history
        while every quiet move tried before it here (moves[start:tried_end]) loses the same.
        History with gravity: v * bonus // HISTORY_MAX keeps each cell within +-HISTORY_MAX
        without rescaling the table."""
        kil = self.killers
        if move != kil[2 * ply]:
            kil[2 * ply + 1] = kil[2 * ply]
            kil[2 * ply] = move
        if prev >= 0:
            self.counters[prev] = move & 0xFFFF
        bonus = depth * depth
        if bonus > _HISTORY_BONUS_MAX:
            bonus = _HISTORY_BONUS_MAX
        b = self.pos.board
        hist = self.history
        cell = PIECE_BASE[b[move & 127]] + ((move >> 7) & 127)
        v = hist[cell]
        hist[cell] = v + bonus - v * bonus // HISTORY_MAX
        moves = self.moves
        j = start
        while j < tried_end:
            tried = moves[j]
            if not b[(tried >> 7) & 127] and not (tried >> 14) & 7 and (tried >> 17) != 2:
                cell = PIECE_BASE[b[tried & 127]] + ((tried >> 7) & 127)
                v = hist[cell]
                hist[cell] = v - bonus - v * bonus // HISTORY_MAX
            j += 1

    # ---- quiescence ---------------------------------------------------------------------
    @micropython.viper
    def _qsearch(self, alpha: int, beta: int, ply: int, in_check: int) -> int:
        """The quiescence search: stand pat, then captures by MVV-LVA (queen promotions,
        e.p.), delta pruning and a cheap exchange test; all evasions when in check. The
        transposition table answers first when its entry settles the window, and every node
        that finishes stores its score there (depth 0): the next iteration searches the same
        capture lines again, and then the table answers them.

        Machine code, and a loop rather than a recursion: a line of captures goes down and
        back up inside one C frame, each ply's state kept in self.qstack (_Q_CELLS cells a
        ply, the scores + _Q_BIAS: viper reads 16-bit cells unsigned; a line longer than
        _Q_LEVELS plies ends in the evaluation, as one reaching max_ply does). Most nodes are
        quiescence nodes: as a bytecode recursion each took a heap frame and a call, and as a
        machine-code recursion each ply's frame took the Pico's 8 KB C stack (the search ran
        out of it at ply ~20). The Searcher's attributes are read once per call, not per node;
        self.nodes and self.seldepth are written back before every poll and at the end; self.sp
        is left as found. Every step, and so every node count, is the bytecode's of before
        (bench signature unchanged); the same function runs as plain Python on CPython and in
        bytecode builds (no chained comparisons; the only division is of a non-negative
        number). On the emulated Pico: 850 -> 1,110 nodes/s (docs/benchmarks.md)."""
        pos = self.pos
        board = pos.board
        b = ptr8(board)
        c = ptr8(pos.counts)
        moves_obj = self.moves
        moves = ptr32(moves_obj)
        ms_obj = self.mscore
        ms = ptr32(ms_obj)
        value = ptr16(_ORDER_VALUE)
        qs = ptr16(self.qstack)
        tt = self.tt
        keys = ptr32(tt.keys)
        data = ptr32(tt.data)
        scores = ptr16(tt.scores)
        mask = int(tt.mask)
        age = int(tt.age) << _TT_AGE
        nodes = int(self.nodes)
        next_check = int(self.next_check)
        stopped = int(self.stopped)
        seldepth = int(self.seldepth)
        max_ply = int(self.max_ply)
        stack_end = int(self.move_stack) - 256
        noise = int(self.noise_cp)
        delta = int(DELTA_MARGIN)
        lazy = int(LAZY_MARGIN)
        sp = int(self.sp)
        level = 0  # plies below this call's
        start = sp
        end = sp
        k = sp
        best = 0
        stand = 0
        v = 0  # the value being returned to the level above
        done = 0  # 1: the node's score is a search result, to be stored
        mode = _Q_ENTER
        while True:
            if mode == _Q_ENTER:  # a new node: alpha, beta, ply, in_check; its moves from sp on
                mode = _Q_RETURN
                start = sp
                done = 0
                nodes += 1
                if nodes >= next_check:
                    self.nodes = nodes
                    self.seldepth = seldepth
                    self._check()
                    next_check = int(self.next_check)
                    stopped = int(self.stopped)
                    max_ply = int(self.max_ply)
                if stopped:
                    v = 0
                    continue
                if ply > seldepth:
                    seldepth = ply
                if ply >= max_ply or start > stack_end or level >= _Q_LEVELS:
                    v = int(self._static())  # no room for another ply: the evaluation
                    continue
                # the transposition table (tt.probe and the ply adjustment, inline)
                slot = int(pos.hash_lo) & mask
                hi = int(pos.hash_hi)
                if keys[slot] != hi:
                    slot += 1
                    if keys[slot] != hi:
                        slot = -1
                if slot >= 0:
                    s = int(scores[slot])
                    if s >= 32768:
                        s -= 65536  # array("h") read unsigned
                    if s >= MATE_BOUND:
                        s -= ply
                    elif s <= -MATE_BOUND:
                        s += ply
                    bound = (data[slot] >> _TT_BOUND) & 3
                    if bound == _EXACT or (bound == _LOWER and s >= beta) or (bound == _UPPER and s <= alpha):
                        v = s
                        continue
                if in_check:
                    best = -MATE + ply
                    end = int(self._filter_evasions(start, pos.gen_moves(moves_obj, start)))
                    stand = -_INF
                else:
                    stand = _NO_STAND
                    if c[1] and c[9]:
                        # Lazy evaluation: material + piece-square tables only when that is
                        # already far outside the window (the positional terms rarely move a
                        # score this much); the middlegame and endgame sums averaged, not
                        # tapered by the phase: a rough figure is enough 350 cp out, and the
                        # phase's code made room for the table store below.
                        s = (int(pos.score_mg) + int(pos.score_eg)) >> 1
                        if int(pos.stm):
                            s = 0 - s
                        if s - lazy >= beta or s + lazy <= alpha:
                            stand = s
                    if stand == _NO_STAND:  # the evaluation (Searcher._static, inline)
                        if noise:
                            stand = int(self._static())
                        else:
                            stand = int(_terms(pos, 0))
                            if stand == _NO_TERMS:
                                stand = int(evaluate(pos))
                    done = 1
                    if stand >= beta:
                        v = stand
                        continue
                    if stand > alpha:
                        alpha = stand
                    elif stand + delta + 100 <= alpha and self._hopeless(stand, alpha):
                        v = stand  # no capture or promotion can reach alpha: skip generating
                        continue
                    best = stand
                    end = int(pos.gen_captures(moves_obj, start))
                sp = end
                # captures by MVV-LVA, queen promotions, e.p., then the rest (all >= 0)
                k = start
                while k < end:
                    m = moves[k]
                    victim = int(b[(m >> 7) & 127])
                    promo = (m >> 14) & 7
                    if victim:
                        ms[k] = int(value[victim & 7]) * _MVV - (int(b[m & 127]) & 7) + promo * _PROMO_ORDER
                    elif promo == 5:
                        ms[k] = 8000
                    elif m >> 17 == 2:
                        ms[k] = 1599
                    elif promo:
                        ms[k] = 1
                    else:
                        ms[k] = 0
                    k += 1
                k = start
                mode = _Q_NEXT
            if mode == _Q_NEXT:  # the next move of this node (k: the next to pick)
                mode = _Q_RETURN
                while k < end:
                    _pick(ms_obj, moves_obj, k, end)  # selection: the best remaining move to k
                    m = moves[k]
                    k += 1
                    if not in_check:
                        promo = (m >> 14) & 7
                        if promo:
                            if promo != 5:
                                continue  # underpromotions: the main search finds the rare good ones
                        else:
                            if m >> 17 == 2:
                                s = 100
                            else:
                                s = int(value[int(b[(m >> 7) & 127]) & 7])
                            if stand + s + delta <= alpha:
                                continue  # even winning the piece cannot reach alpha
                            if int(value[int(b[m & 127]) & 7]) > s + 50 and int(see(pos, m)) < 0:
                                continue  # a bigger piece takes a smaller one and loses the exchange
                    chk = int(pos.play(m, in_check + 5))  # make_legal, and in_check() after it
                    if not chk:
                        continue
                    # down one ply: keep this node's state, the child starts at sp = end
                    q = level * _Q_CELLS
                    qs[q] = beta + _Q_BIAS
                    qs[q + 1] = best + _Q_BIAS
                    qs[q + 2] = stand + _Q_BIAS
                    qs[q + 3] = start
                    qs[q + 4] = k
                    level += 1
                    s = alpha
                    alpha = 0 - beta
                    beta = 0 - s
                    ply += 1
                    in_check = chk - 1  # 1: the move gives check
                    mode = _Q_ENTER
                    break
                if mode == _Q_RETURN:  # every move tried
                    sp = start
                    v = best
                    done = 1
                continue
            # _Q_RETURN: v is the finished node's score. Stored in the table first (depth 0,
            # no move) when it is a result: always in the bucket's second slot, the
            # always-replace one, so the main search's results in the first stay; an upper
            # bound below beta, a lower one from it (the node's own alpha is not kept, so no
            # exact scores: an upper bound is true of an exact score too); mates not at all
            # (they would need the ply adjustment)
            if done:
                done = 0
                if v < MATE_BOUND and v > 0 - MATE_BOUND:
                    slot = (int(pos.hash_lo) & mask) + 1
                    keys[slot] = int(pos.hash_hi)
                    data[slot] = (_LOWER << _TT_BOUND if v >= beta else _UPPER << _TT_BOUND) | age
                    scores[slot] = v
            if level == 0:
                break
            level -= 1
            ply -= 1
            # What the cells do not hold: this node's moves ended where the child's began,
            # and the child's beta is this node's alpha (negated) as it was when it went down.
            end = start
            alpha = 0 - beta
            q = level * _Q_CELLS
            beta = int(qs[q]) - _Q_BIAS
            best = int(qs[q + 1]) - _Q_BIAS
            stand = int(qs[q + 2]) - _Q_BIAS
            start = int(qs[q + 3])
            k = int(qs[q + 4])
            in_check = 0
            if stand == -_INF:
                in_check = 1
            pos.unmake()
            if stopped:
                sp = start
                v = 0
                continue
            s = 0 - v
            if s > best:
                best = s
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        sp = start
                        v = best
                        done = 1
                        continue
            mode = _Q_NEXT
        self.nodes = nodes
        self.seldepth = seldepth
        return v
