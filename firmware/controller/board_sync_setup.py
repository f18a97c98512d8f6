"""Builds a BoardSync (board_sync.py): checks its arguments and sets its state. Loaded only
for BoardSync.__init__ and dropped after it (a board builds its board sync once, at boot), so
this code does not stay in a board's heap."""
from array import array


def setup(s, stable_ms, unexplained_ms, inference, position, queue, ok):
    """BoardSync.__init__'s work on `s` (its arguments as documented there); `inference` and
    `position` are its private Inference and Position, `queue` and `ok` board_sync.py's
    private queue length and "no error" code."""
    from firmware.controller.board_sync import SyncError

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
    s._tcells = bytearray(5)  # squares of the last game move
    s._tn = 0
    s._expect = 0
    s._mcells = bytearray(5)  # squares of the expected move
    s._mn = 0
    s._board = bytearray(8)  # the board as the events (and update's occupancy) say
    s._ref = bytearray(8)  # the board returning to this clears the touch history
    s._nadd = 0  # cells occupied on the board but not in _ref
    s._nrem = 0  # cells empty on the board but occupied in _ref
    s._dirty = False  # changed since the last settle
    s._stamp = False  # take the next update's now_ms as the last change
    s._last_ms = 0
    s._armed = False  # UNEXPLAINED timer running
    s._err = ok
    s._suspended = False  # waiting for set_position after a report
    s._lift_cand = -1
    s._lift_shown = -1
    s._qn = 0
    s._qcode = bytearray(queue)
    s._qmove = array("i", [0] * queue)
    s._qpromo = bytearray(queue)
    s._qocc = bytearray(8 * queue)
    s._tmp = bytearray(8)
