"""Builds a BoardSync (board_sync.py): checks its arguments and sets its state and its
Inference's. Loaded only for BoardSync.__init__ and dropped after it (a board builds its board
sync once, at boot), so this code does not stay in a board's heap."""
from array import array


def inference(inf, log_len, max_first):
    """board_sync.Inference's state on `inf`; `log_len` and `max_first` are board_sync.py's
    private sizes of the event log and of two_moves' list of first moves."""
    from firmware.engine.rules import SCRATCH_MOVES

    inf.lift_seq = array("i", [0] * 64)
    inf.place_seq = array("i", [0] * 64)
    inf.seq = 0
    inf.floor = 0  # a move reported from now on must have left after this event
    inf.start = bytearray(8)  # occupancy when the history began
    inf._log = bytearray(log_len)  # event seq s is _log[(s - 1) % log_len] = cell | kind << 6
    # Results of the last classify/diff.
    inf.found = 0
    inf.found_promo = False
    inf.found_dep = 0  # event number with which the found move's piece left
    inf.changed_count = 0  # number of changed cells
    inf.gained_count = 0  # how many of them gained a piece
    inf.changed_cells = bytearray(64)
    inf.changed_map = bytearray(8)
    # Results of the last two_moves.
    inf.first = 0
    inf.first_promo = False
    inf.first_dep = 0
    inf.second = 0
    inf.second_promo = False
    inf.second_dep = 0
    inf.after_first = bytearray(8)
    # Scratch buffers (board_sync.py borrows them between calls). The move buffer is the
    # one engine.rules shares between legal_moves and has_legal_move (1 KB less heap): the
    # board sync fills and reads it within one call that calls none of those two, and
    # they fill and read it within theirs, which call nothing that reaches the board sync.
    inf.moves = SCRATCH_MOVES
    inf._firsts = array("i", [0] * max_first)
    inf.cells = bytearray(5)
    inf.cells2 = bytearray(5)


def setup(s, stable_ms, unexplained_ms, inference, position, queue, ok, SyncError):
    """BoardSync.__init__'s work on `s` (its arguments as documented there); `inference` and
    `position` are its private Inference and Position, `queue` and `ok` board_sync.py's
    private queue length and "no error" code, SyncError its error class (passed in: this
    module never imports board_sync.py)."""

    if not isinstance(stable_ms, int) or stable_ms < 1 or stable_ms > 60000:
        raise SyncError("stable_ms must be 1..60000, got %r" % (stable_ms,))
    if not isinstance(unexplained_ms, int) or unexplained_ms < stable_ms or unexplained_ms > 600000:
        raise SyncError("unexplained_ms must be stable_ms..600000, got %r" % (unexplained_ms,))
    s.stable_ms = stable_ms
    s.unexplained_ms = unexplained_ms
    # Results, valid after the code that sets them.
    s.move = 0
    s.promotion = False
    s.lifted_cell = -1
    s.wrong_cells = []
    s.to_clear = []
    s.to_fill = []
    s.expected = bytearray(8)  # occupancy the board should show (after the expected move)
    s._inf = inference
    s._pos = position
    s._have_pos = False
    s._have_occ = False
    s._hist = 0  # game moves available in _pos's history (0.._HISTORY)
    s._base = bytearray(8)  # occupancy of the position
    s._prev1 = bytearray(8)  # ... before the last game move
    s._prev2 = bytearray(8)  # ... before the last two
    s._last_cells = bytearray(5)  # squares of the last game move
    s._last_count = 0
    s._expect = 0
    s._expected_cells = bytearray(5)  # squares of the expected move
    s._expected_count = 0
    s._board = bytearray(8)  # the board as the events (and update's occupancy) say
    s._ref = bytearray(8)  # the board returning to this clears the touch history
    s._extra_count = 0  # cells occupied on the board but not in _ref
    s._missing_count = 0  # cells empty on the board but occupied in _ref
    s._dirty = False  # changed since the last settle
    s._stamp = False  # take the next update's now_ms as the last change
    s._last_ms = 0
    s._armed = False  # UNEXPLAINED timer running
    s._err = ok
    s._suspended = False  # waiting for set_position after a report
    s._lift_cand = -1
    s._lift_shown = -1
    s._queued = 0
    s._queue_code = bytearray(queue)
    s._queue_move = array("i", [0] * queue)
    s._queue_promo = bytearray(queue)
    s._queue_occ = bytearray(8 * queue)
    s._tmp = bytearray(8)
