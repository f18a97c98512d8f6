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
inference.py for how moves are recognised and disambiguated. All time values are ticks_ms
values compared with ticks_diff. The caller's Position is copied (board, rights, the last
two game moves), never modified; later changes to it are seen only through set_position.

Allocation: event(), update(), set_position() and expect_move() allocate nothing, settling
on a move included; only WRONG / ILLEGAL / UNEXPLAINED reports build their cell lists.
"""
from array import array

from firmware.compat import const, ticks_diff
from firmware.controller import inference
from firmware.controller.inference import Inference
from firmware.controller.occupancy import (
    NO_CELL,
    START_OCCUPANCY,
    diff_cells,
    flip_cells,
    move_cells,
    occupancy_of,
    same,
)
from firmware.engine.position import Position

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
    def __init__(self, stable_ms=400, unexplained_ms=3000):
        if not isinstance(stable_ms, int) or stable_ms < 1 or stable_ms > 60000:
            raise SyncError("stable_ms must be 1..60000, got %r" % (stable_ms,))
        if not isinstance(unexplained_ms, int) or unexplained_ms < stable_ms or unexplained_ms > 600000:
            raise SyncError("unexplained_ms must be stable_ms..600000, got %r" % (unexplained_ms,))
        self.stable_ms = stable_ms
        self.unexplained_ms = unexplained_ms
        # Results, valid after the code that sets them.
        self.move = 0
        self.promotion = False
        self.lifted_cell = -1
        self.wrong_cells = []
        self.to_clear = []
        self.to_fill = []
        self.expected = bytearray(8)  # occupancy the board should show (after the expected move)
        self._inf = Inference()
        self._pos = Position(None, 2 * _HISTORY + 4)
        self._have_pos = False
        self._have_occ = False
        self._hist = 0  # game moves available in _pos's history (0.._HISTORY)
        self._base = bytearray(8)  # occupancy of the position
        self._prev1 = bytearray(8)  # ... before the last game move
        self._prev2 = bytearray(8)  # ... before the last two
        self._tcells = bytearray(5)  # squares of the last game move
        self._tn = 0
        self._expect = 0
        self._mcells = bytearray(5)  # squares of the expected move
        self._mn = 0
        self._board = bytearray(8)  # the board as the events (and update's occupancy) say
        self._ref = bytearray(8)  # the board returning to this clears the touch history
        self._nadd = 0  # cells occupied on the board but not in _ref
        self._nrem = 0  # cells empty on the board but occupied in _ref
        self._dirty = False  # changed since the last settle
        self._stamp = False  # take the next update's now_ms as the last change
        self._last_ms = 0
        self._armed = False  # UNEXPLAINED timer running
        self._err = _OK
        self._suspended = False  # waiting for set_position after a report
        self._lift_cand = -1
        self._lift_shown = -1
        self._qn = 0
        self._qcode = bytearray(_QUEUE)
        self._qmove = array("i", [0] * _QUEUE)
        self._qpromo = bytearray(_QUEUE)
        self._qocc = bytearray(8 * _QUEUE)
        self._tmp = bytearray(8)

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
            and self._qn == 0
            and same(tmp, self._base)
            and position.hash_lo == pos.hash_lo
            and position.hash_hi == pos.hash_hi
        )
        self._copy_position(position)
        had_expect = self._expect
        self._expect = 0
        self._mn = 0
        self._have_pos = True
        self._suspended = False
        for r in range(8):
            self.expected[r] = self._base[r]
        if identical:
            if had_expect:  # judge the board again without the expected move
                self._dirty = self._nadd + self._nrem != 0
            return
        if anticipated:  # the report was accepted: keep the history of a reply under way
            self._set_ref(self._base)
            self._err = _OK
            self._armed = False
            self._dirty = self._nadd + self._nrem != 0
            return
        self._qn = 0
        if self._have_occ:
            self._rebase()

    def expect_move(self, move):
        """Wait for the engine `move` (legal in the position) to be executed on the board;
        `expected` becomes the occupancy after it. 0 cancels."""
        if move == 0:  # (allowed at any time)
            if self._expect:
                self._expect = 0
                self._mn = 0
                for r in range(8):
                    self.expected[r] = self._base[r]
                self._dirty = self._nadd + self._nrem != 0
                self._armed = False
            return
        if not self._have_pos:
            raise SyncError("expect_move before set_position")
        if self._suspended or self._qn:
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
        self._mn = move_cells(legal, pos.board[(legal >> 7) & 127] != 0, self._mcells)
        for r in range(8):
            self.expected[r] = self._base[r]
        flip_cells(self.expected, self._mcells, self._mn)
        self._lift_cand = self._lift_shown = -1
        self._dirty = self._nadd + self._nrem != 0
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
                    self._nrem -= 1
                else:
                    self._nadd += 1
            if cell == self._lift_cand:
                self._lift_cand = -1
        elif had:
            board[r] ^= bit
            if self._ref[r] & bit:
                self._nrem += 1
            else:
                self._nadd -= 1
            if self._lift_cand < 0 and self._nadd == 0 and self._may_show_lift(cell):
                self._lift_cand = cell
        if not self._dirty or ticks_diff(time_ms, self._last_ms) > 0:
            self._last_ms = time_ms
        self._dirty = True
        self._stamp = False
        if self._nadd == 0 and self._nrem == 0:
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
        if self._qn:
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
            p.hist_captured[i] = src.hist_captured[j + i]
            p.hist_castling[i] = src.hist_castling[j + i]
            p.hist_ep[i] = src.hist_ep[j + i]
            p.hist_halfmove[i] = src.hist_halfmove[j + i]
            p.hist_lo[i] = src.hist_lo[j + i]
            p.hist_hi[i] = src.hist_hi[j + i]
        p.ply = h
        self._hist = h
        occupancy_of(p, self._base)
        cells = self._tcells
        self._tn = 0
        if h >= 1:
            m = p.hist_move[h - 1]
            self._tn = move_cells(m, p.hist_captured[h - 1] != 0, cells)
            for r in range(8):
                self._prev1[r] = self._base[r]
            flip_cells(self._prev1, cells, self._tn)
        if h >= 2:
            m = p.hist_move[h - 2]
            k = move_cells(m, p.hist_captured[h - 2] != 0, self._inf.cells)
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
        self._nadd = nadd
        self._nrem = nrem
        if nadd + nrem == 0:
            self._inf.clear_history(board)

    def _rebase(self):
        """Judge the board afresh against the position: no history but its differences."""
        self._inf.clear_history(self._base)
        self._inf.mark_changes(self._base, self._board)
        self._set_ref(self._base)
        differs = self._nadd + self._nrem != 0
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
        i = self._qn
        self._qcode[i] = code
        self._qmove[i] = move
        self._qpromo[i] = 1 if promo else 0
        for r in range(8):
            self._qocc[i * 8 + r] = occ[r]
        self._qn = i + 1

    def _pop(self):
        """Return the oldest queued code; the board is now expected to reach its occupancy."""
        code = self._qcode[0]
        self.move = self._qmove[0]
        self.promotion = self._qpromo[0] == 1
        self.lifted_cell = -1
        self._set_ref(self._qocc)
        n = self._qn - 1
        for i in range(n):
            self._qcode[i] = self._qcode[i + 1]
            self._qmove[i] = self._qmove[i + 1]
            self._qpromo[i] = self._qpromo[i + 1]
            for r in range(8):
                self._qocc[i * 8 + r] = self._qocc[i * 8 + 8 + r]
        self._qn = n
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
        if r == inference.SAME:
            return self._back_home()
        if r == inference.ONE:
            self._push(MOVE, inf.found, inf.found_promo, board)
            inf.floor = inf.found_dep
            return self._resolved()
        n = inf.dn
        code = self._takeback_or_start()
        if code:
            return code
        if r == inference.NONE and 2 <= n <= 8 and inf.two_moves(board, self._base, pos):
            self._push(MOVE, inf.first, inf.first_promo, inf.after_first)
            inf.floor = inf.first_dep
            if inf.second:
                self._push(MOVE, inf.second, inf.second_promo, board)
                inf.floor = inf.second_dep
            return self._resolved()
        inf.diff(board, self._base)
        in_progress = r == inference.PARTIAL or (self._tn and inf.diff_within(self._tcells, self._tn))
        if not in_progress and (self._err == _MISMATCH or inf.dn > _MAX_ILLEGAL_CELLS):
            return self._unresolved(False, 0)
        return self._unresolved(in_progress, ILLEGAL)

    def _settle_expected(self):
        inf = self._inf
        pos = self._pos
        board = self._board
        mcells = self._mcells
        if inf.diff(board, self._base) == 0:
            return self._back_home()
        m = self._expect
        if inf.landed(m, mcells, False, True):
            dep = inf.departure(m, mcells)
            pos.make(m)
            r = inf.classify(board, self.expected, pos, dep)
            pos.unmake()
            if r != inference.NONE:
                self._push(EXECUTED, m, False, self.expected)
                if r == inference.ONE:
                    self._push(MOVE, inf.found, inf.found_promo, board)
                    dep = inf.found_dep
                inf.floor = dep
                return self._resolved()
        code = self._takeback_or_start()
        if code:
            return code
        r = inf.classify(board, self._base, pos)
        if r == inference.ONE or r == inference.MANY:
            # A whole move was made: fine only if it is a step of the expected one (the rook
            # of a castling moved first), else it is the wrong piece or the wrong square.
            other = inf.found
            k = move_cells(other, pos.board[(other >> 7) & 127] != 0, inf.cells)
            for i in range(k):
                if not self._in_expected(inf.cells[i]):
                    return self._wrong(inf.cells[4])
            if inf.cells[4] != NO_CELL and not self._in_expected(inf.cells[4]):
                return self._wrong(inf.cells[4])
        if inf.diff_within(mcells, self._mn) or (self._tn and inf.diff_within(self._tcells, self._tn)):
            return self._unresolved(True, WRONG)
        return self._wrong(NO_CELL)

    def _in_expected(self, cell):
        mcells = self._mcells
        if cell == mcells[4]:
            return True
        for i in range(self._mn):
            if mcells[i] == cell:
                return True
        return False

    def _wrong(self, extra):
        """WRONG with the changed cells that are not squares of the expected move (plus
        `extra`, the target of a wrong capture), or all changed cells if none are."""
        inf = self._inf
        inf.diff(self._board, self._base)
        cells = []
        for j in range(inf.dn):
            c = inf.dcells[j]
            if not self._in_expected(c):
                cells.append(c)
        if 0 <= extra < 64 and extra not in cells and not self._in_expected(extra):
            cells.append(extra)
        if not cells:
            cells = [inf.dcells[j] for j in range(inf.dn)]
        cells.sort()
        return self._unresolved(False, WRONG, cells)

    def _unresolved(self, in_progress, flag, cells=None):
        """The board is not explained (yet). Pieces in hand wait silently; anything else
        starts the UNEXPLAINED timer, and a settled wrong state is flagged at once."""
        inf = self._inf
        if self._err == _SHOWN:
            return self._unexplained()
        self._armed = not (in_progress and inf.dadd == 0 and inf.dn <= 2 and self._err == _OK)
        if in_progress or not flag:
            return IDLE
        self._err = _FLAGGED
        if cells is None:
            cells = [inf.dcells[j] for j in range(inf.dn)]
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
            if r == inference.ONE and self._replaces(last, inf.found):
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
        if not self._pos.hist_captured[i]:
            return True
        to = (self._pos.hist_move[i] >> 7) & 127
        cell = (to >> 4) * 8 + (to & 7)
        inf = self._inf
        return inf.place_seq[cell] > inf.lift_seq[cell]
