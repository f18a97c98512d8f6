"""Builds a Searcher (search.py): checks its arguments, allocates its tables and sets its
state. Loaded only for Searcher.__init__ and dropped after it (a board builds its searcher
once), so this code does not stay in a board's heap.

The tables are allocated in the order they always were: on a board whose heap is nearly full
the layout decides whether a game's later allocations find a block (docs/memory.md)."""
from array import array

from firmware.compat import ticks_ms
from firmware.engine.evaluate import init as init_evaluation
from firmware.engine.tt import TranspositionTable
from firmware.engine.zobrist import TABLE_SIZE


def setup(s, tt_entries, poll_nodes, clock_ms, seed, move_stack, stack_bytes, sizes, Info, SearchError):
    """Searcher.__init__'s work on the searcher `s` (its arguments as documented there).
    `sizes`: search.py's (qstack_cells, pv_ply, max_moves, MAX_PLY, STACK_RESERVE); Info and
    SearchError: its classes (passed in: this module never imports search.py)."""
    qstack_cells, pv_ply, max_moves, MAX_PLY, STACK_RESERVE = sizes

    if not isinstance(poll_nodes, int) or poll_nodes < 1:
        raise SearchError("poll_nodes must be a positive int, got %r" % (poll_nodes,))
    init_evaluation()
    s.tt = TranspositionTable(tt_entries)
    s.poll_nodes = poll_nodes
    s.clock_ms = clock_ms if clock_ms is not None else ticks_ms
    s.seed = seed
    s.noise_cp = 0
    s.noise_seed = 0
    if not isinstance(move_stack, int) or move_stack < 512 or move_stack > 0xFFFF:
        raise SearchError("move_stack must be an int from 512 to 65535, got %r" % (move_stack,))
    s.move_stack = move_stack
    s.moves = array("i", bytes(4 * move_stack))
    s.mscore = array("i", bytes(4 * move_stack))
    s.sp = 0
    s.killers = array("i", bytes(4 * 2 * MAX_PLY))
    s.counters = array("H", bytes(2 * 64))  # countermoves by the refuted move's to-square (search.py)
    s.qstack = array("H", bytes(2 * qstack_cells))  # _qsearch's plies
    s.evals = array("h", bytes(2 * MAX_PLY))  # static evaluation by ply (-_INF: in check)
    s.history = array("h", bytes(2 * TABLE_SIZE))  # by piece and to-square, as zobrist.py indexes
    # Triangular PV table: row `ply` (the line from that ply on) holds pv_ply - ply moves and
    # starts at ply * pv_ply - ply * (ply - 1) / 2 (0.8 KB where a square one takes 1.6).
    s.pv = array("i", bytes(4 * (pv_ply * (pv_ply + 1) // 2)))
    s.pv_len = bytearray(pv_ply + 1)
    s.root_moves = array("i", bytes(4 * max_moves))
    s.root_nodes = array("i", bytes(4 * max_moves))
    s.root_count = 0
    s.root_best = 0
    s.root_best_score = 0
    s.evade = bytearray(128)  # scratch for _filter_evasions, all zero between calls
    s.info = Info(s)
    s.pos = None
    s.max_ply = MAX_PLY - 1
    # Deepest ply the C stack allows: lowered (for the Searcher's life) when a search ran out
    # of stack; see Searcher._out_of_stack.
    s.stack_ply = MAX_PLY - 1
    s.stack_retry = False
    # The board's C stack size (0: unknown). When a poll finds less than STACK_RESERVE of it
    # left, the poll function is not called (its own calls could overflow it in the middle of
    # the controller's work) and the ply limit comes down to there.
    if not isinstance(stack_bytes, int) or stack_bytes < 0 or 0 < stack_bytes <= STACK_RESERVE:
        raise SearchError("stack_bytes must be 0 or an int above %d, got %r" % (STACK_RESERVE, stack_bytes))
    s.stack_limit = stack_bytes - STACK_RESERVE if stack_bytes else 0
    s.root_ply = 0
    s.poll = None
    s.nodes = 0
    s.next_check = 0
    s.node_limit = 0
    s.stopped = False
    s.pondering = False
    s.waiting = False  # True while a finished ponder/infinite search waits for stop
    s.limits = None
    # A mate search ("go mate N", the mate levels) must be exhaustive: forward pruning (reverse
    # futility, null move, futility, late-move pruning) drops quiet checks near the leaves,
    # which an ordinary search finds one iteration later but a mate search bounded at 2N plies
    # would miss for good.
    s.exhaustive = False
    s.start_ms = 0
    s.soft_ms = 0
    s.hard_ms = 0
    s.seldepth = 0
    s.best_move = 0
    s.ponder_move = 0
    s.best_score = 0
    s.done_depth = 0
    s.fillers = None  # what holds the heap's holes filled during a search (iterate)
