"""Board sync: turning reed-switch events into moves, without ever losing the game.

    sync = BoardSync(stable_ms=400, unexplained_ms=3000)
    sync.set_position(position)          # what the board should show now
    sync.expect_move(move)               # the computer's move shown on the LEDs (0 cancels)
    sync.event(cell, kind, time_ms)      # debounced LIFT (0) / PLACE (1) events, in order
    code = sync.update(occupancy, now_ms)  # every main-loop pass; one code per call

Codes (see docs/board-sync.md for the full contract):
    IDLE            nothing to report
    LIFTED          a piece of the side to move was lifted from `lifted_cell`
    PUT_BACK        ... and put back unmoved (`lifted_cell`)
    MOVE            the player made the legal move `move` (a promotion is reported as the
                    queen promotion with `promotion` True: offer the choice)
    EXECUTED        the expected computer move is on the board (`move`); a reply already
                    made follows as MOVE on the next call
    WRONG           a computer move is expected but the board settled in another state:
                    blink `wrong_cells`
    ILLEGAL         (addition to the original API) no move is expected and the board settled
                    in a state that no legal move explains (an illegal move, wrong side...):
                    blink `wrong_cells` (the changed cells) and buzz; may be ignored, the
                    board then turns UNEXPLAINED after unexplained_ms
    TAKEBACK        the board shows the position before the last game move (`move` is the
                    move to take back); it may be followed by a second TAKEBACK (two moves
                    reversed at once) or by MOVE (the player replaced their last move)
    UNEXPLAINED     the board has been stable but unexplained for unexplained_ms:
                    `to_clear` / `to_fill` relative to `expected`
    RESTORED        after WRONG / ILLEGAL / UNEXPLAINED (or a set_position the board did not
                    match) the board matches the position again
    START_POSITION  the board shows the initial setup while the game is elsewhere

After MOVE, EXECUTED, TAKEBACK and START_POSITION the controller answers with set_position
(the position after the move / the move taken back / a new game); until then update() only
returns queued codes. A set_position with the position the report leads to keeps the touch
history, so a reply already under way is not lost. Any other position resets the history and
the board is judged against it from then on.

A move counts only when the board has been stable (no event) for stable_ms; see
the Inference section below for how moves are recognised and disambiguated. All time values are ticks_ms
values compared with ticks_diff. The caller's Position is copied (board, rights, the last
two game moves), never modified; later changes to it are seen only through set_position.

Allocation: event(), update(), set_position() and expect_move() allocate nothing, settling
on a move included; only WRONG / ILLEGAL / UNEXPLAINED reports build their cell lists.
"""

from array import array

from firmware.compat import const, ticks_diff
from firmware.engine.position import Position

# ---- occupancy -----------------------------------------------------------------------------
# Occupancy bitmaps and the cells a move changes: the vocabulary of board sync.
#
# An occupancy is a bytearray(8): byte r is rank r (rank 1 = byte 0), bit f is file f (a = bit
# 0). A cell is `rank * 8 + file` (a1 = 0, h1 = 7, h8 = 63), the io layer's cell index and the
# engine's sq64 (`constants.to_sq64` / `from_sq64` convert to and from 0x88 squares).
#
# A reed switch only sees whether a square holds a piece, so what board sync can observe of a
# move is the set of cells whose occupancy it flips:
#
#     normal move, promotion      from, to              (2 cells)
#     capture                     from                  (1 cell: the target stays occupied)
#     en passant                  from, to, victim      (3 cells)
#     castling                    king from/to, rook from/to (4 cells)
#
# `move_cells` writes them into a caller-owned bytearray(5) and allocates nothing.

_CASTLE = const(3)
_EP = const(2)
NO_CELL = const(255)

# The initial setup: 32 pieces on ranks 1, 2, 7 and 8.
START_OCCUPANCY = b"\xff\xff\x00\x00\x00\x00\xff\xff"


def occupancy_of(position, out=None):
    """Fill `out` (a bytearray(8); a new one when None) with the occupancy of an engine
    Position's board and return it."""
    if out is None:
        out = bytearray(8)
    b = position.board
    for r in range(8):
        base = r << 4
        bits = 0
        for f in range(8):
            if b[base + f]:
                bits |= 1 << f
        out[r] = bits
    return out


def occupied(occ, cell):
    """True when `cell` is occupied in the occupancy `occ`."""
    return (occ[cell >> 3] >> (cell & 7)) & 1 == 1


def same(a, b):
    """True when the two occupancies are equal (any 8-byte sequences; allocates nothing)."""
    for r in range(8):
        if a[r] != b[r]:
            return False
    return True


def diff_cells(a, b):
    """A new ascending list of the cells whose occupancy differs between `a` and `b`."""
    out = []
    for r in range(8):
        x = a[r] ^ b[r]
        for f in range(8):
            if x >> f & 1:
                out.append(r * 8 + f)
    return out


def cells_of(occ):
    """A new ascending list of the occupied cells of `occ`."""
    out = []
    for r in range(8):
        x = occ[r]
        for f in range(8):
            if x >> f & 1:
                out.append(r * 8 + f)
    return out


def move_cells(move, capture, out):
    """Write the cells whose occupancy the engine `move` flips into `out[0:n]` and return n.

    `capture` tells whether the target square holds a piece before the move (en passant and
    castling are recognised from the move's special bits). `out` is a caller-owned
    bytearray(5): `out[4]` is set to the cell of an ordinary capture's target (occupied before
    and after, so not among the flipped cells) or NO_CELL. The flipped cells plus `out[4]` are
    all the squares a hand touches to make the move."""
    fr = move & 127
    to = (move >> 7) & 127
    special = move >> 17
    out[0] = (fr >> 4) * 8 + (fr & 7)
    out[4] = NO_CELL
    if special == _CASTLE:
        if to > fr:
            rook_from = fr + 3
            rook_to = fr + 1
        else:
            rook_from = fr - 4
            rook_to = fr - 1
        out[1] = (to >> 4) * 8 + (to & 7)
        out[2] = (rook_from >> 4) * 8 + (rook_from & 7)
        out[3] = (rook_to >> 4) * 8 + (rook_to & 7)
        return 4
    if special == _EP:
        out[1] = (to >> 4) * 8 + (to & 7)
        out[2] = (fr >> 4) * 8 + (to & 7)  # the victim stands beside the mover: from's rank, to's file
        return 3
    if capture:
        out[4] = (to >> 4) * 8 + (to & 7)
        return 1
    out[1] = (to >> 4) * 8 + (to & 7)
    return 2


def flip_cells(occ, cells, n):
    """Toggle the first `n` cells of `cells` in the occupancy `occ` (in place)."""
    for i in range(n):
        c = cells[i]
        occ[c >> 3] ^= 1 << (c & 7)


# ---- inference -----------------------------------------------------------------------------
# Which legal moves explain a board? Occupancy plus touch history against an engine position.
#
# `Inference` is the pure half of board sync (board_sync.py decides *when* to ask and *what*
# to report). It owns the touch history since the board last matched its reference position
# (`start`): every event gets a sequence number; per cell the numbers of its last LIFT and last
# PLACE are kept (0 = none), and a ring of the last _LOG events answers "was this cell empty
# just before that event?" (older events fall back to `start`).
#
# `classify(board, base, pos)` compares the occupancy `board` with `base` (the occupancy of
# `pos`) and answers one of
#
#     SAME     the board equals base
#     ONE      exactly one legal move explains it (`found`, `found_promo`)
#     MANY     several legal moves do and the history cannot tell them apart
#     PARTIAL  a move is under way: the changed cells are part of a legal move's squares, or
#              only one or two pieces have been lifted (pieces in hand)
#     NONE     none of these
#
# A legal move explains the board when the cells it flips (occupancy.move_cells) are exactly
# the changed cells and the history agrees with the physical order it needs:
# - every piece arrives after it left: when the last PLACE on the target happened, the origin
#   was empty (king and rook separately for castling), unless neither cell was touched since
#   the reference (the part was already on the board, e.g. when correcting a move). Later
#   events on the origin (a reply sliding over it) do not matter;
# - a capture target (occupied before and after) was really emptied and re-occupied: it was
#   lifted, and its last event is a PLACE made while the mover's origin was empty. This is
#   what tells a rook capture on a5 from one on e1 (same occupancy) and keeps a lifted piece
#   from reading as a capture.
# Promotions differing only in the piece count as one move, reported as the queen promotion.
#
# Allocation: everything is preallocated in the constructor; classify uses the position's
# make_legal/unmake and leaves it exactly as it found it.

_SAME = const(0)
_ONE = const(1)
_MANY = const(2)
_PARTIAL = const(3)
_NONE = const(4)

_QUEEN = const(5)
_MAX_FIRST = const(16)
_LOG = const(128)  # events remembered in order (a power of two)
_SETUP = "firmware.controller.board_sync_setup"  # the constructor's work, loaded for it


class Inference:
    """The touch history and the move inference over it. Its state (the touch history, the
    results of the last classify/diff and two_moves, the scratch buffers), declared here, is
    set by board_sync_setup.inference(), which BoardSync.__init__ calls: that code runs once,
    so it does not stay in a board's heap."""

    # -- the touch history
    lift_seq: array  # by cell: the event number of its last lift (0: none since the history began)
    place_seq: array  # by cell: the event number of its last placing
    seq: int  # events so far
    floor: int  # a move reported from now on must have left after this event
    start: bytearray  # occupancy when the history began
    _log: bytearray  # event number s is _log[(s - 1) % _LOG] = cell | kind << 6
    # -- the last classify / diff
    found: int  # the move found (0: none)
    found_promo: bool
    found_dep: int  # event number with which the found move's piece left
    changed_count: int  # cells where the board differs from the base
    gained_count: int  # how many of them gained a piece
    changed_cells: bytearray  # those cells, changed_count of them
    changed_map: bytearray  # the same as 8 rank bytes
    # -- the last two_moves
    first: int
    first_promo: bool
    first_dep: int
    second: int
    second_promo: bool
    second_dep: int
    after_first: bytearray  # occupancy after the first move
    # -- scratch
    moves: array  # engine.rules' shared move buffer (board_sync_setup.py says why it may be shared)
    _firsts: array  # two_moves' candidate first moves
    cells: bytearray  # a move's squares (move_cells), twice
    cells2: bytearray

    # ---- touch history ---------------------------------------------------------------
    def clear_history(self, start):
        """Forget all events; the board now shows the occupancy `start`."""
        lift = self.lift_seq
        place = self.place_seq
        for i in range(64):
            lift[i] = 0
            place[i] = 0
        for r in range(8):
            self.start[r] = start[r]
        self.seq = 0
        self.floor = 0

    def record(self, cell, kind):
        """Note a LIFT (0) or PLACE (1) on `cell`."""
        seq = self.seq + 1
        self.seq = seq
        self._log[(seq - 1) & (_LOG - 1)] = cell | kind << 6
        if kind:
            self.place_seq[cell] = seq
        else:
            self.lift_seq[cell] = seq

    def empty_before(self, cell, seq):
        """Was `cell` empty just before event number `seq`?"""
        log = self._log
        stop = self.seq - _LOG
        if stop < 0:
            stop = 0
        s = seq - 1
        while s > stop:
            ev = log[(s - 1) & (_LOG - 1)]
            if ev & 63 == cell:
                return ev >> 6 == 0
            s -= 1
        lift = self.lift_seq[cell]
        place = self.place_seq[cell]
        if (lift or place) and lift <= stop and place <= stop:  # its last event left the ring
            return lift > place
        return not (self.start[cell >> 3] >> (cell & 7)) & 1

    def mark_changes(self, old, new):
        """Invent history for cells that changed from `old` to `new` without events (lost
        events, a board found different after set_position): departures first, then
        arrivals, so a plain move still reads as one; captures never do (no real PLACE on an
        unchanged cell)."""
        for place in (0, 1):
            for r in range(8):
                cells = new[r] & (old[r] ^ 255) if place else old[r] & (new[r] ^ 255)
                for f in range(8):
                    if cells >> f & 1:
                        self.record(r * 8 + f, place)

    def lift_before(self, cell, seq):
        """Number of the last LIFT on `cell` before event `seq` (0 if none remembered)."""
        log = self._log
        stop = self.seq - _LOG
        if stop < 0:
            stop = 0
        s = seq - 1
        while s > stop:
            if log[(s - 1) & (_LOG - 1)] == cell:  # cell | LIFT << 6
                return s
            s -= 1
        return 0

    def departure(self, move, cells):
        """Number of the LIFT with which `move`'s piece left: the last LIFT on the origin
        before the piece's arrival, the first PLACE on the target made while the origin was
        empty. Later touches of either square (a reply sliding over the origin, recapturing
        on the target) do not count. 0 when the events are not remembered."""
        fr = cells[0]
        cap = cells[4]
        s = self.arrival(fr, cap if cap != NO_CELL else cells[1])
        return self.lift_before(fr, s) if s else 0

    def arrival(self, fr, to):
        """Number of the first PLACE on `to` made while `fr` was empty (0 if none
        remembered): when a piece from `fr` arrived."""
        place_ev = to | 64
        log = self._log
        s = self.seq - _LOG + 1
        if s < 1:
            s = 1
        while s <= self.seq:
            if log[(s - 1) & (_LOG - 1)] == place_ev and self.empty_before(fr, s):
                return s
            s += 1
        return 0

    def touched(self, cell):
        return self.lift_seq[cell] != 0 or self.place_seq[cell] != 0

    def _arrived(self, to, fr, fresh):
        lift = self.lift_seq
        place = self.place_seq
        p = place[to]
        if p:
            return self.empty_before(fr, p)
        return not fresh and lift[to] == 0 and lift[fr] == 0 and place[fr] == 0

    def landed(self, move, cells, strict, fresh):
        """Does the history agree with `move` having been made? `cells` from move_cells.
        `strict`: a capture target's last event must be the PLACE (not so when the move is
        followed by a reply that lifted the piece again, e.g. a recapture).
        `fresh`: every part must have moved since the reference (no part already in place)."""
        fr = cells[0]
        cap = cells[4]
        if cap != NO_CELL:
            # The victim was lifted (so a piece that merely arrived on the target in an
            # earlier move is not captured by the same PLACE) and the mover put down later.
            place = self.place_seq[cap]
            if not place or not self.lift_seq[cap] or not self.empty_before(fr, place):
                return False
            return not strict or place > self.lift_seq[cap]
        if not self._arrived(cells[1], fr, fresh):
            return False
        if move >> 17 == _CASTLE:
            return self._arrived(cells[3], cells[2], fresh)
        return True

    # ---- explaining a board ------------------------------------------------------------
    def diff(self, board, base):
        """Collect the cells where `board` differs from `base` (changed_cells[:changed_count],
        changed_map, gained_count)."""
        n = 0
        add = 0
        changed_map = self.changed_map
        changed_cells = self.changed_cells
        for r in range(8):
            x = board[r] ^ base[r]
            changed_map[r] = x
            if x:
                for f in range(8):
                    if x >> f & 1:
                        changed_cells[n] = r * 8 + f
                        n += 1
                        if board[r] >> f & 1:
                            add += 1
        self.changed_count = n
        self.gained_count = add
        return n

    def diff_within(self, cells, k):
        """True when every changed cell of the last diff is one of the move squares `cells`
        (k flipped cells plus cells[4], the capture target)."""
        changed_cells = self.changed_cells
        extra = cells[4]
        for j in range(self.changed_count):
            c = changed_cells[j]
            if c == extra:
                continue
            hit = False
            for i in range(k):
                if cells[i] == c:
                    hit = True
                    break
            if not hit:
                return False
        return True

    def classify(self, board, base, pos, after=0):
        """See the module docstring. `pos` must be the position whose occupancy is `base`.
        `after`: when judging a reply, the event number with which the previous move's piece
        left (`floor` when larger: the last reported move's). A reply whose piece left before
        that is not taken as complete: the lift was the previous move's victim, or the PLACE
        belongs to the previous move (with a bounce a square even looks lifted and re-placed).
        Safe side: a reply piece really lifted early is then judged unexplained, never wrong."""
        if self.floor > after:
            after = self.floor
        n = self.diff(board, base)
        if n == 0:
            return _SAME
        if n > 4:
            return _NONE
        moves = self.moves
        end = pos.gen_moves(moves, 0)
        check = pos.in_check()
        cells = self.cells
        changed_map = self.changed_map
        b = pos.board
        found = 0
        count = 0
        promo = False
        partial = False
        for i in range(end):
            m = moves[i]
            k = move_cells(m, b[(m >> 7) & 127] != 0, cells)
            full = k == n
            if full:
                for j in range(k):
                    c = cells[j]
                    if not (changed_map[c >> 3] >> (c & 7)) & 1:
                        full = False
                        break
            if not full and (partial or not self.diff_within(cells, k)):
                continue
            if not pos.make_legal(m, check):
                continue
            pos.unmake()
            if full and self.landed(m, cells, True, False) and (not after or self.departure(m, cells) > after):
                if count and (found & 0x3FFF) == (m & 0x3FFF):
                    # The same move with another promotion piece: keep the queen.
                    if (m >> 14) & 7 == _QUEEN:
                        found = m
                    continue
                count += 1
                found = m
                promo = (m >> 14) & 7 != 0
                self.found_dep = self.departure(m, cells)
            else:
                partial = True
        self.found = found
        self.found_promo = promo
        if count == 1:
            return _ONE
        if count > 1:
            return _MANY
        if partial or (self.gained_count == 0 and n <= 2):
            return _PARTIAL
        return _NONE

    def two_moves(self, board, base, pos):
        """Is the board `pos` + one legal move + a reply (complete or under way)? Tried when one
        move does not explain it, so a fast reply (the next move started before the board
        was stable) is not lost. On success returns True with `first`, `first_promo`,
        `after_first` (occupancy after the first move) and `second` (0 when the reply is still
        under way). The first move's piece must really have been lifted and landed."""
        moves = self.moves
        end = pos.gen_moves(moves, 0)
        check = pos.in_check()
        cells = self.cells
        b = pos.board
        firsts = self._firsts
        nf = 0
        for i in range(end):
            m = moves[i]
            k = move_cells(m, b[(m >> 7) & 127] != 0, cells)
            if self.lift_seq[cells[0]] == 0 or not self.landed(m, cells, False, True):
                continue
            if self.floor and self.departure(m, cells) <= self.floor:
                continue  # left before the last reported move: not a move after it
            if nf and (firsts[nf - 1] & 0x3FFF) == (m & 0x3FFF):
                continue  # another promotion piece: the queen came first
            if nf < _MAX_FIRST and pos.make_legal(m, check):
                pos.unmake()
                firsts[nf] = m
                nf += 1
        winner = 0
        second = 0
        second_promo = False
        second_dep = 0
        occ_after = self.after_first
        for i in range(nf):
            m = firsts[i]
            k = move_cells(m, b[(m >> 7) & 127] != 0, self.cells2)
            for r in range(8):
                occ_after[r] = base[r]
            flip_cells(occ_after, self.cells2, k)
            pos.make(m)
            r2 = self.classify(board, occ_after, pos, self.departure(m, self.cells2))
            pos.unmake()
            if r2 == _ONE or r2 == _MANY or r2 == _PARTIAL:
                if winner:
                    return False  # two different first moves fit: do not guess
                winner = m
                second = self.found if r2 == _ONE else 0
                second_promo = self.found_promo if r2 == _ONE else False
                second_dep = self.found_dep if r2 == _ONE else 0
        if not winner:
            return False
        k = move_cells(winner, b[(winner >> 7) & 127] != 0, self.cells2)
        for r in range(8):
            occ_after[r] = base[r]
        flip_cells(occ_after, self.cells2, k)
        self.first = winner
        self.first_promo = (winner >> 14) & 7 != 0
        self.first_dep = self.departure(winner, self.cells2)
        self.second = second
        self.second_promo = second_promo
        self.second_dep = second_dep
        return True


# ---- board sync -------------------------------------------------------------------------
IDLE = const(0)
LIFTED = const(1)
PUT_BACK = const(2)
MOVE = const(3)
EXECUTED = const(4)
WRONG = const(5)
TAKEBACK = const(6)
UNEXPLAINED = const(7)
RESTORED = const(8)
START_POSITION = const(9)
ILLEGAL = const(10)
CODE_NAMES = (
    "IDLE",
    "LIFTED",
    "PUT_BACK",
    "MOVE",
    "EXECUTED",
    "WRONG",
    "TAKEBACK",
    "UNEXPLAINED",
    "RESTORED",
    "START_POSITION",
    "ILLEGAL",
)

LIFT = const(0)
PLACE = const(1)

# How wrong the board is: error levels.
_OK = const(0)
_MISMATCH = const(1)  # set_position found the board different (RESTORED when it matches)
_FLAGGED = const(2)  # WRONG or ILLEGAL reported
_SHOWN = const(3)  # UNEXPLAINED reported: every later settle refreshes to_clear/to_fill

_HISTORY = const(2)  # game moves kept for take backs by hand
_QUEUE = const(3)
_MAX_ILLEGAL_CELLS = const(4)  # more changed cells than a move flips: a rebuild, not a move


class SyncError(ValueError):
    """A bad argument to BoardSync (configuration, cell, event kind, expected move)."""


class BoardSync:
    """See the module docstring. Its state is declared here and set by board_sync_setup.setup()
    (the constructor's work, loaded for it and dropped after)."""

    stable_ms: int
    unexplained_ms: int
    # -- results, valid after the call that sets them
    move: int  # the move of the last MOVE verdict
    promotion: bool  # it is a promotion still to be chosen
    lifted_cell: int  # the cell of the last LIFTED verdict (-1: none)
    wrong_cells: list  # the cells to put right (WRONG, ILLEGAL, UNEXPLAINED)
    to_clear: list  # of them: cells to empty, and cells to fill
    to_fill: list
    expected: bytearray  # occupancy the board should show (after the expected move)
    # -- the game
    _inf: Inference
    _pos: Position  # the position the board should show (a copy with the last game moves)
    _have_pos: bool
    _have_occ: bool
    _hist: int  # game moves available in _pos's history (0.._HISTORY)
    _base: bytearray  # occupancy of the position
    _prev1: bytearray  # ... before the last game move
    _prev2: bytearray  # ... before the last two
    _last_cells: bytearray  # the squares of the last game move (move_cells), _last_count of them
    _last_count: int
    _expect: int  # the move the board should see next (the computer's), 0: none
    _expected_cells: bytearray  # its squares, _expected_count of them
    _expected_count: int
    # -- the board as the touches say
    _board: bytearray  # the board as the events (and update's occupancy) say
    _ref: bytearray  # the board returning to this clears the touch history
    _extra_count: int  # cells occupied on the board but not in _ref
    _missing_count: int  # cells empty on the board but occupied in _ref
    _dirty: bool  # changed since the last settle
    _stamp: bool  # take the next update's now_ms as the last change
    _last_ms: int
    _armed: bool  # the UNEXPLAINED timer runs
    _err: int  # the error shown (_OK: none)
    _suspended: bool  # waiting for set_position after a report
    _lift_cand: int  # a lifted cell that may become LIFTED, and the one shown (-1: none)
    _lift_shown: int
    # -- verdicts waiting for update() to hand them out, _queued of them
    _queued: int
    _queue_code: bytearray
    _queue_move: array
    _queue_promo: bytearray
    _queue_occ: bytearray  # 8 bytes a verdict
    _tmp: bytearray

    def __init__(self, stable_ms=400, unexplained_ms=3000):
        # The checks and the state live in board_sync_setup.py, loaded for this call and
        # dropped after it: it runs once, so its code does not stay in a board's heap
        from firmware.loader import borrow, release  # (here: no global entry in this big module)

        setup = borrow(_SETUP)
        try:
            inference = Inference()
            setup.inference(inference, _LOG, _MAX_FIRST)
            setup.setup(self, stable_ms, unexplained_ms, inference, Position(None, 2 * _HISTORY + 4), _QUEUE, _OK,
                        SyncError)
        finally:
            setup = None
            release(_SETUP)

    # ---- the controller's side -----------------------------------------------------------
    def set_position(self, position):
        """The engine Position the board should show now (cancels any expected move)."""
        if not hasattr(position, "board") or not hasattr(position, "hist_move"):
            raise SyncError("set_position needs an engine Position, got %r" % (position,))
        tmp = occupancy_of(position, self._tmp)
        pos = self._pos
        anticipated = self._suspended and same(tmp, self._ref)
        identical = (
            self._have_pos
            and not self._suspended
            and self._queued == 0
            and same(tmp, self._base)
            and position.hash_lo == pos.hash_lo
            and position.hash_hi == pos.hash_hi
        )
        self._copy_position(position)
        had_expect = self._expect
        self._expect = 0
        self._expected_count = 0
        self._have_pos = True
        self._suspended = False
        for r in range(8):
            self.expected[r] = self._base[r]
        if identical:
            if had_expect:  # judge the board again without the expected move
                self._dirty = self._extra_count + self._missing_count != 0
            return
        if anticipated:  # the report was accepted: keep the history of a reply under way
            self._set_ref(self._base)
            self._err = _OK
            self._armed = False
            self._dirty = self._extra_count + self._missing_count != 0
            return
        self._queued = 0
        if self._have_occ:
            self._rebase()

    def expect_move(self, move):
        """Wait for the engine `move` (legal in the position) to be executed on the board;
        `expected` becomes the occupancy after it. 0 cancels."""
        if move == 0:  # (allowed at any time)
            if self._expect:
                self._expect = 0
                self._expected_count = 0
                for r in range(8):
                    self.expected[r] = self._base[r]
                self._dirty = self._extra_count + self._missing_count != 0
                self._armed = False
            return
        if not self._have_pos:
            raise SyncError("expect_move before set_position")
        if self._suspended or self._queued:
            raise SyncError("expect_move: answer the last report with set_position first")
        pos = self._pos
        legal = 0
        if isinstance(move, int):
            moves = self._inf.moves
            end = pos.gen_moves(moves, 0)
            check = pos.in_check()
            for i in range(end):
                m = moves[i]
                if m & 0x1FFFF == move & 0x1FFFF and pos.make_legal(m, check):
                    pos.unmake()
                    legal = m
                    break
        if not legal:
            raise SyncError("expected move %r is not legal in the position" % (move,))
        self._expect = legal
        self._expected_count = move_cells(legal, pos.board[(legal >> 7) & 127] != 0, self._expected_cells)
        for r in range(8):
            self.expected[r] = self._base[r]
        flip_cells(self.expected, self._expected_cells, self._expected_count)
        self._lift_cand = self._lift_shown = -1
        self._dirty = self._extra_count + self._missing_count != 0
        self._armed = False

    def event(self, cell, kind, time_ms):
        """A debounced LIFT (0) or PLACE (1) on `cell` (0..63) at `time_ms`, in the order they
        happened. Allocates nothing."""
        if cell < 0 or cell > 63:
            raise SyncError("event cell must be 0..63, got %r" % (cell,))
        if kind != LIFT and kind != PLACE:
            raise SyncError("event kind must be LIFT (0) or PLACE (1), got %r" % (kind,))
        self._inf.record(cell, kind)
        r = cell >> 3
        bit = 1 << (cell & 7)
        board = self._board
        had = board[r] & bit
        if kind == PLACE:
            if not had:
                board[r] |= bit
                if self._ref[r] & bit:
                    self._missing_count -= 1
                else:
                    self._extra_count += 1
            if cell == self._lift_cand:
                self._lift_cand = -1
        elif had:
            board[r] ^= bit
            if self._ref[r] & bit:
                self._missing_count += 1
            else:
                self._extra_count -= 1
            if self._lift_cand < 0 and self._extra_count == 0 and self._may_show_lift(cell):
                self._lift_cand = cell
        if not self._dirty or ticks_diff(time_ms, self._last_ms) > 0:
            self._last_ms = time_ms
        self._dirty = True
        self._stamp = False
        if self._extra_count == 0 and self._missing_count == 0:
            self._inf.clear_history(board)  # back where the gesture started: nothing to remember

    def update(self, occupancy, now_ms):
        """Called every main-loop pass with the debounced occupancy (bytearray(8)); returns
        one code (call again for queued ones). Allocates nothing when nothing happened."""
        board = self._board
        if not self._have_occ:
            self._have_occ = True
            for r in range(8):
                board[r] = occupancy[r]
            if self._have_pos:
                self._rebase()
        else:
            for r in range(8):
                if occupancy[r] != board[r]:
                    self._resync(occupancy)
                    break
        if self._stamp:
            self._stamp = False
            self._last_ms = now_ms
        if self._queued:
            return self._pop()
        if self._suspended or not self._have_pos:
            return IDLE
        if self._lift_cand != self._lift_shown:
            shown = self._lift_shown
            if shown >= 0:
                self._lift_shown = -1
                self.lifted_cell = shown
                return PUT_BACK
            self._lift_shown = self._lift_cand
            self.lifted_cell = self._lift_cand
            return LIFTED
        if self._dirty and ticks_diff(now_ms, self._last_ms) >= self.stable_ms:
            self._dirty = False
            code = self._settle_expected() if self._expect else self._settle_free()
            if code != IDLE:
                return code
        if self._armed and ticks_diff(now_ms, self._last_ms) >= self.unexplained_ms:
            self._armed = False
            return self._unexplained()
        return IDLE

    # ---- bookkeeping ---------------------------------------------------------------------
    def _copy_position(self, src):
        """Copy what move generation and take back need into the private position."""
        p = self._pos
        sb = src.board
        pb = p.board
        for i in range(128):
            pb[i] = sb[i]
        for i in range(16):
            p.counts[i] = src.counts[i]
        p.kings[0] = src.kings[0]
        p.kings[8] = src.kings[8]
        p.stm = src.stm
        p.castling = src.castling
        p.ep = src.ep
        p.halfmove = src.halfmove
        p.fullmove = src.fullmove
        p.hash_lo = src.hash_lo
        p.hash_hi = src.hash_hi
        p.score_mg = src.score_mg
        p.score_eg = src.score_eg
        h = src.ply if src.ply < _HISTORY else _HISTORY
        j = src.ply - h
        for i in range(h):
            p.hist_move[i] = src.hist_move[j + i]
            p.hist_state[i] = src.hist_state[j + i]
            p.hist_lo[i] = src.hist_lo[j + i]
            p.hist_hi[i] = src.hist_hi[j + i]
        p.ply = h
        self._hist = h
        occupancy_of(p, self._base)
        cells = self._last_cells
        self._last_count = 0
        if h >= 1:
            m = p.hist_move[h - 1]
            self._last_count = move_cells(m, p.captured_at(h - 1) != 0, cells)
            for r in range(8):
                self._prev1[r] = self._base[r]
            flip_cells(self._prev1, cells, self._last_count)
        if h >= 2:
            m = p.hist_move[h - 2]
            k = move_cells(m, p.captured_at(h - 2) != 0, self._inf.cells)
            for r in range(8):
                self._prev2[r] = self._prev1[r]
            flip_cells(self._prev2, self._inf.cells, k)

    def _set_ref(self, occ):
        ref = self._ref
        board = self._board
        nadd = nrem = 0
        for r in range(8):
            ref[r] = occ[r]
            x = board[r] ^ occ[r]
            if x:
                for f in range(8):
                    if x >> f & 1:
                        if board[r] >> f & 1:
                            nadd += 1
                        else:
                            nrem += 1
        self._extra_count = nadd
        self._missing_count = nrem
        if nadd + nrem == 0:
            self._inf.clear_history(board)

    def _rebase(self):
        """Judge the board afresh against the position: no history but its differences."""
        self._inf.clear_history(self._base)
        self._inf.mark_changes(self._base, self._board)
        self._set_ref(self._base)
        differs = self._extra_count + self._missing_count != 0
        self._err = _MISMATCH if differs else _OK
        self._armed = differs
        self._stamp = True
        self._dirty = False
        self._lift_cand = self._lift_shown = -1

    def _resync(self, occupancy):
        """update() saw an occupancy the events did not announce (lost events): trust it."""
        board = self._board
        self._inf.mark_changes(board, occupancy)
        for r in range(8):
            board[r] = occupancy[r]
        self._set_ref(self._ref)
        self._dirty = True
        self._stamp = True

    def _may_show_lift(self, cell):
        if self._suspended or self._expect or self._err or not self._have_pos:
            return False
        p = self._pos.board[(cell >> 3) * 16 + (cell & 7)]
        return p != 0 and (p & 8) == self._pos.stm

    # ---- the report queue ------------------------------------------------------------------
    def _push(self, code, move, promo, occ):
        i = self._queued
        self._queue_code[i] = code
        self._queue_move[i] = move
        self._queue_promo[i] = 1 if promo else 0
        for r in range(8):
            self._queue_occ[i * 8 + r] = occ[r]
        self._queued = i + 1

    def _pop(self):
        """Return the oldest queued code; the board is now expected to reach its occupancy."""
        code = self._queue_code[0]
        self.move = self._queue_move[0]
        self.promotion = self._queue_promo[0] == 1
        self.lifted_cell = -1
        self._set_ref(self._queue_occ)
        n = self._queued - 1
        for i in range(n):
            self._queue_code[i] = self._queue_code[i + 1]
            self._queue_move[i] = self._queue_move[i + 1]
            self._queue_promo[i] = self._queue_promo[i + 1]
            for r in range(8):
                self._queue_occ[i * 8 + r] = self._queue_occ[i * 8 + 8 + r]
        self._queued = n
        self._suspended = True
        return code

    def _resolved(self):
        self._err = _OK
        self._armed = False
        self._lift_cand = self._lift_shown = -1
        return self._pop()

    # ---- judging a settled board -----------------------------------------------------------
    def _back_home(self):
        self._inf.clear_history(self._board)
        self._armed = False
        if self._err:
            self._err = _OK
            return RESTORED
        return IDLE

    def _settle_free(self):
        inf = self._inf
        pos = self._pos
        board = self._board
        r = inf.classify(board, self._base, pos)
        if r == _SAME:
            return self._back_home()
        if r == _ONE:
            self._push(MOVE, inf.found, inf.found_promo, board)
            inf.floor = inf.found_dep
            return self._resolved()
        n = inf.changed_count
        code = self._takeback_or_start()
        if code:
            return code
        if r == _NONE and 2 <= n <= 8 and inf.two_moves(board, self._base, pos):
            self._push(MOVE, inf.first, inf.first_promo, inf.after_first)
            inf.floor = inf.first_dep
            if inf.second:
                self._push(MOVE, inf.second, inf.second_promo, board)
                inf.floor = inf.second_dep
            return self._resolved()
        inf.diff(board, self._base)
        in_progress = r == _PARTIAL or (self._last_count and inf.diff_within(self._last_cells, self._last_count))
        if not in_progress and (self._err == _MISMATCH or inf.changed_count > _MAX_ILLEGAL_CELLS):
            return self._unresolved(False, 0)
        return self._unresolved(in_progress, ILLEGAL)

    def _settle_expected(self):
        inf = self._inf
        pos = self._pos
        board = self._board
        expected_cells = self._expected_cells
        if inf.diff(board, self._base) == 0:
            return self._back_home()
        m = self._expect
        if inf.landed(m, expected_cells, False, True):
            dep = inf.departure(m, expected_cells)
            pos.make(m)
            r = inf.classify(board, self.expected, pos, dep)
            pos.unmake()
            if r != _NONE:
                self._push(EXECUTED, m, False, self.expected)
                if r == _ONE:
                    self._push(MOVE, inf.found, inf.found_promo, board)
                    dep = inf.found_dep
                inf.floor = dep
                return self._resolved()
        code = self._takeback_or_start()
        if code:
            return code
        r = inf.classify(board, self._base, pos)
        if r == _ONE or r == _MANY:
            # A whole move was made: fine only if it is a step of the expected one (the rook
            # of a castling moved first), else it is the wrong piece or the wrong square.
            other = inf.found
            k = move_cells(other, pos.board[(other >> 7) & 127] != 0, inf.cells)
            for i in range(k):
                if not self._in_expected(inf.cells[i]):
                    return self._wrong(inf.cells[4])
            if inf.cells[4] != NO_CELL and not self._in_expected(inf.cells[4]):
                return self._wrong(inf.cells[4])
        if inf.diff_within(expected_cells, self._expected_count) or (
                self._last_count and inf.diff_within(self._last_cells, self._last_count)):
            return self._unresolved(True, WRONG)
        return self._wrong(NO_CELL)

    def _in_expected(self, cell):
        expected_cells = self._expected_cells
        if cell == expected_cells[4]:
            return True
        for i in range(self._expected_count):
            if expected_cells[i] == cell:
                return True
        return False

    def _wrong(self, extra):
        """WRONG with the changed cells that are not squares of the expected move (plus
        `extra`, the target of a wrong capture), or all changed cells if none are."""
        inf = self._inf
        inf.diff(self._board, self._base)
        cells = []
        for j in range(inf.changed_count):
            c = inf.changed_cells[j]
            if not self._in_expected(c):
                cells.append(c)
        if 0 <= extra < 64 and extra not in cells and not self._in_expected(extra):
            cells.append(extra)
        if not cells:
            cells = [inf.changed_cells[j] for j in range(inf.changed_count)]
        cells.sort()
        return self._unresolved(False, WRONG, cells)

    def _unresolved(self, in_progress, flag, cells=None):
        """The board is not explained (yet). Pieces in hand wait silently; anything else
        starts the UNEXPLAINED timer, and a settled wrong state is flagged at once."""
        inf = self._inf
        if self._err == _SHOWN:
            return self._unexplained()
        self._armed = not (in_progress and inf.gained_count == 0 and inf.changed_count <= 2 and self._err == _OK)
        if in_progress or not flag:
            return IDLE
        self._err = _FLAGGED
        if cells is None:
            cells = [inf.changed_cells[j] for j in range(inf.changed_count)]
        self.wrong_cells = cells
        return flag

    def _unexplained(self):
        self.to_clear = diff_cells(self._board, self.expected)
        self.to_fill = []
        clear = []
        for c in self.to_clear:
            if self._board[c >> 3] >> (c & 7) & 1:
                clear.append(c)
            else:
                self.to_fill.append(c)
        self.to_clear = clear
        self._err = _SHOWN
        return UNEXPLAINED

    def _takeback_or_start(self):
        """TAKEBACK (one or two moves reversed, or the last move replaced by another) or
        START_POSITION, queued and the first returned; IDLE when none applies."""
        inf = self._inf
        pos = self._pos
        board = self._board
        h = self._hist
        if h >= 1 and same(board, self._prev1) and self._victim_back(h - 1):
            self._push(TAKEBACK, pos.hist_move[h - 1], False, self._prev1)
            return self._resolved()
        if h >= 2 and same(board, self._prev2) and self._victim_back(h - 1) and self._victim_back(h - 2):
            self._push(TAKEBACK, pos.hist_move[h - 1], False, self._prev1)
            self._push(TAKEBACK, pos.hist_move[h - 2], False, self._prev2)
            return self._resolved()
        if h >= 1:
            last = pos.hist_move[h - 1]
            floor = inf.floor
            inf.floor = 0  # the replacing move may reuse the replaced one's departure
            pos.unmake()
            r = inf.classify(board, self._prev1, pos)  # (overwrites history slot h - 1)
            pos.make(last)
            inf.floor = floor
            if r == _ONE and self._replaces(last, inf.found):
                self._push(TAKEBACK, last, False, self._prev1)
                self._push(MOVE, inf.found, inf.found_promo, board)
                inf.floor = inf.found_dep
                return self._resolved()
        if same(board, START_OCCUPANCY) and not same(self._base, START_OCCUPANCY):
            self._push(START_POSITION, 0, False, START_OCCUPANCY)
            return self._resolved()
        return IDLE

    def _replaces(self, last, other):
        """Can `other` physically replace the game's `last` move? When the same piece moves,
        it must have been lifted off last's target (after arriving there) before it arrived
        on other's: a square merely touched earlier (a piece adjusted, a victim lifted for a
        reply) is no new destination of the piece."""
        if last & 127 != other & 127:
            return True  # another piece: last's piece went back, in any order
        inf = self._inf
        cells = inf.cells
        move_cells(other, self._pos.board[(other >> 7) & 127] != 0, cells)
        target = cells[4] if cells[4] != NO_CELL else cells[1]
        fr = other & 127
        fr = (fr >> 4) * 8 + (fr & 7)
        to = (last >> 7) & 127
        old = (to >> 4) * 8 + (to & 7)
        start = inf.start
        if start[old >> 3] >> (old & 7) & 1 and not start[fr >> 3] >> (fr & 7) & 1:
            came = 0  # last was already on the board when the history began
        else:
            came = inf.arrival(fr, old)
        return inf.lift_before(old, inf.place_seq[target]) > came

    def _victim_back(self, i):
        """For a take back of history move i: a captured piece must really have been put
        back on the target (its last event a PLACE)."""
        if not self._pos.captured_at(i):
            return True
        to = (self._pos.hist_move[i] >> 7) & 127
        cell = (to >> 4) * 8 + (to & 7)
        inf = self._inf
        return inf.place_seq[cell] > inf.lift_seq[cell]
