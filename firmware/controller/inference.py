"""Which legal moves explain a board? Occupancy plus touch history against an engine position.

`Inference` is the pure half of board sync (board_sync.py decides *when* to ask and *what*
to report). It owns the touch history since the board last matched its reference position
(`start`): every event gets a sequence number; per cell the numbers of its last LIFT and last
PLACE are kept (0 = none), and a ring of the last _LOG events answers "was this cell empty
just before that event?" (older events fall back to `start`).

`classify(board, base, pos)` compares the occupancy `board` with `base` (the occupancy of
`pos`) and answers one of

    SAME     the board equals base
    ONE      exactly one legal move explains it (`found`, `found_promo`)
    MANY     several legal moves do and the history cannot tell them apart
    PARTIAL  a move is under way: the changed cells are part of a legal move's squares, or
             only one or two pieces have been lifted (pieces in hand)
    NONE     none of these

A legal move explains the board when the cells it flips (occupancy.move_cells) are exactly
the changed cells and the history agrees with the physical order it needs:
- every piece arrives after it left: when the last PLACE on the target happened, the origin
  was empty (king and rook separately for castling), unless neither cell was touched since
  the reference (the part was already on the board, e.g. when correcting a move). Later
  events on the origin (a reply sliding over it) do not matter;
- a capture target (occupied before and after) was really emptied and re-occupied: it was
  lifted, and its last event is a PLACE made while the mover's origin was empty. This is
  what tells a rook capture on a5 from one on e1 (same occupancy) and keeps a lifted piece
  from reading as a capture.
Promotions differing only in the piece count as one move, reported as the queen promotion.

Allocation: everything is preallocated in the constructor; classify uses the position's
make_legal/unmake and leaves it exactly as it found it.
"""
from array import array

from firmware.compat import const
from firmware.controller.occupancy import NO_CELL, flip_cells, move_cells
from firmware.engine.rules import MAX_MOVES

SAME = const(0)
ONE = const(1)
MANY = const(2)
PARTIAL = const(3)
NONE = const(4)

_CASTLE = const(3)
_QUEEN = const(5)
_MAX_FIRST = const(16)
_LOG = const(128)  # events remembered in order (a power of two)


class Inference:
    def __init__(self):
        self.lift_seq = array("i", [0] * 64)
        self.place_seq = array("i", [0] * 64)
        self.seq = 0
        self.floor = 0  # a move reported from now on must have left after this event
        self.start = bytearray(8)  # occupancy when the history began
        self._log = bytearray(_LOG)  # event seq s is _log[(s - 1) % _LOG] = cell | kind << 6
        # Results of the last classify/diff.
        self.found = 0
        self.found_promo = False
        self.found_dep = 0  # event number with which the found move's piece left
        self.dn = 0  # number of changed cells
        self.dadd = 0  # how many of them gained a piece
        self.dcells = bytearray(64)
        self.dmap = bytearray(8)
        # Results of the last two_moves.
        self.first = 0
        self.first_promo = False
        self.first_dep = 0
        self.second = 0
        self.second_promo = False
        self.second_dep = 0
        self.after_first = bytearray(8)
        # Scratch buffers (board_sync.py borrows them between calls).
        self.moves = array("i", [0] * MAX_MOVES)
        self._firsts = array("i", [0] * _MAX_FIRST)
        self.cells = bytearray(5)
        self.cells2 = bytearray(5)

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
        for r in range(8):
            gone = old[r] & (new[r] ^ 255)
            for f in range(8):
                if gone >> f & 1:
                    self.record(r * 8 + f, 0)
        for r in range(8):
            came = new[r] & (old[r] ^ 255)
            for f in range(8):
                if came >> f & 1:
                    self.record(r * 8 + f, 1)

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

    def placed_last(self, cell):
        """True when the cell's last event was a PLACE."""
        return self.place_seq[cell] > self.lift_seq[cell]

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
        """Collect the cells where `board` differs from `base` (dcells[:dn], dmap, dadd)."""
        n = 0
        add = 0
        dmap = self.dmap
        dcells = self.dcells
        for r in range(8):
            x = board[r] ^ base[r]
            dmap[r] = x
            if x:
                for f in range(8):
                    if x >> f & 1:
                        dcells[n] = r * 8 + f
                        n += 1
                        if board[r] >> f & 1:
                            add += 1
        self.dn = n
        self.dadd = add
        return n

    def diff_within(self, cells, k):
        """True when every changed cell of the last diff is one of the move squares `cells`
        (k flipped cells plus cells[4], the capture target)."""
        dcells = self.dcells
        extra = cells[4]
        for j in range(self.dn):
            c = dcells[j]
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
            return SAME
        if n > 4:
            return NONE
        moves = self.moves
        end = pos.gen_moves(moves, 0)
        check = pos.in_check()
        cells = self.cells
        dmap = self.dmap
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
                    if not (dmap[c >> 3] >> (c & 7)) & 1:
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
            return ONE
        if count > 1:
            return MANY
        if partial or (self.dadd == 0 and n <= 2):
            return PARTIAL
        return NONE

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
            if r2 == ONE or r2 == MANY or r2 == PARTIAL:
                if winner:
                    return False  # two different first moves fit: do not guess
                winner = m
                second = self.found if r2 == ONE else 0
                second_promo = self.found_promo if r2 == ONE else False
                second_dep = self.found_dep if r2 == ONE else 0
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
