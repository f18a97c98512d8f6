"""The position: a 0x88 board with make/unmake, move generation and attack detection.

Everything a search touches per node lives here and allocates nothing:
- `board` is a bytearray(128) of piece codes (see constants.py);
- move lists are caller-owned `array("i")` buffers: `end = pos.gen_moves(moves, start)`;
- `make(move)` pushes the irreversible state onto preallocated history arrays and `unmake()`
  pops it, restoring board, hash halves, clocks, rights and the incremental scores exactly;
- the hash is two 30-bit halves (`hash_lo`, `hash_hi`), see zobrist.py;
- `score_mg` / `score_eg` are the incremental material + piece-square sums (White's view),
  read from `PST_MG` / `PST_EG` (filled with plain material values until the evaluation
  installs its tables with `set_piece_square_tables`).

Generation is pseudo-legal; `make_legal(move, in_check)` makes a move and reports whether it
left the mover's king safe, skipping the attack test when the move cannot expose the king
(the common case, and worth it: the test is the most expensive step of a node on the chip).

History capacity bounds the game length plus search depth (`capacity`, default 640 plies);
`make` raises PositionFullError past it rather than corrupting memory.
"""
from array import array

from firmware.compat import const, micropython, ptr8, ptr32
from firmware.engine import zobrist
from firmware.engine.constants import (
    BISHOP_STEPS,
    KING_STEPS,
    KNIGHT_STEPS,
    ROOK_STEPS,
    SQUARES,
)

_WHITE = const(0)
_BLACK = const(8)
_PAWN = const(1)
_KNIGHT = const(2)
_BISHOP = const(3)
_ROOK = const(4)
_QUEEN = const(5)
_KING = const(6)
_DOUBLE = const(1)
_EP = const(2)
_CASTLE = const(3)

DEFAULT_CAPACITY = const(640)
MATERIAL = (0, 100, 320, 330, 500, 900, 0)

# Castling rights kept when a move touches a square (king and rook home squares clear rights).
_CASTLE_KEEP = bytearray(b"\x0f" * 128)
_CASTLE_KEEP[0] = 0x0F & ~2  # a1: white queen-side
_CASTLE_KEEP[7] = 0x0F & ~1  # h1: white king-side
_CASTLE_KEEP[4] = 0x0F & ~3  # e1: both white rights
_CASTLE_KEEP[112] = 0x0F & ~8  # a8
_CASTLE_KEEP[119] = 0x0F & ~4  # h8
_CASTLE_KEEP[116] = 0x0F & ~12  # e8

# The steps of least_attacker(), _generate() and the evaluation's mobility, as unsigned bytes (256 + d
# for a negative d): knight 0..7, king 8..15, rook 16..19, bishop 20..23.
ATTACK_STEPS = bytearray(d & 255 for d in KNIGHT_STEPS + KING_STEPS + ROOK_STEPS + BISHOP_STEPS)

# _ALIGNED[to - from + 119] is 1 when two squares share a rank, file or diagonal: a move whose
# from-square is not aligned with its own king cannot uncover a check (used by make_legal).
_ALIGNED = bytearray(239)
for _step in KING_STEPS:
    for _n in range(1, 8):
        _ALIGNED[_step * _n + 119] = 1

# Incremental score tables, indexed like the hash keys: `PIECE_BASE[piece] + sq` (zobrist.py);
# Black's entries are negated, so one addition per change keeps White's point of view
# without branches.
PIECE_BASE = zobrist.PIECE_BASE
PST_MG = array("h", bytes(2 * zobrist.TABLE_SIZE))
PST_EG = array("h", bytes(2 * zobrist.TABLE_SIZE))


def set_piece_square_tables(mg_by_kind, eg_by_kind):
    """Install piece-square tables: `mg_by_kind[kind]` is a 64-entry sequence (a1..h8, White's
    view, material included). Black's entries are mirrored and negated here. Positions made
    afterwards (or re-set with `set_fen`) score with them."""
    for kind in range(1, 7):
        for sq64 in range(64):
            rank, file = sq64 >> 3, sq64 & 7
            sq = rank * 16 + file
            mirrored = (7 - rank) * 16 + file
            PST_MG[PIECE_BASE[kind] + sq] = mg_by_kind[kind][sq64]
            PST_EG[PIECE_BASE[kind] + sq] = eg_by_kind[kind][sq64]
            PST_MG[PIECE_BASE[kind | 8] + mirrored] = -mg_by_kind[kind][sq64]
            PST_EG[PIECE_BASE[kind | 8] + mirrored] = -eg_by_kind[kind][sq64]


def _material_tables():
    return [[MATERIAL[kind]] * 64 for kind in range(7)]


set_piece_square_tables(_material_tables(), _material_tables())


_NOISY_ONLY = const(16)  # _generate(): captures and promotions only


@micropython.viper
def least_attacker(board, sq: int, by: int) -> int:
    """The 0x88 square of the cheapest piece of side `by` (0 White, 8 Black) attacking `sq`
    on `board`, or -1. Order: pawn, knight, bishop, rook, queen (the last found), king.

    The attack test of every legality and check test (Position.attacked, in_check,
    make_legal) and the static exchange evaluation's next capturer (see.py): the hottest
    function of the search. Viper: machine integers and a raw pointer into the board, no
    Python object per step; on the RP2040 it runs several times faster than as
    @micropython.native. One function for both uses: a second one was 1.2 KB more heap."""
    b = ptr8(board)
    steps = ptr8(ATTACK_STEPS)  # knight 0..7, king 8..15, rook 16..19, bishop 20..23
    if by == 0:
        s = sq - 15
        if not (s & 0x88) and int(b[s]) == 1:
            return s
        s = sq - 17
        if not (s & 0x88) and int(b[s]) == 1:
            return s
    else:
        s = sq + 15
        if not (s & 0x88) and int(b[s]) == 9:
            return s
        s = sq + 17
        if not (s & 0x88) and int(b[s]) == 9:
            return s
    piece = by | 2
    i = 0
    while i < 8:  # knights
        d = int(steps[i])
        if d > 127:
            d -= 256
        s = sq + d
        if not (s & 0x88) and int(b[s]) == piece:
            return s
        i += 1
    queen = by | 5
    queen_sq = -1
    piece = by | 3
    n = 0
    while n < 8:  # the bishop directions (steps 20..23), then the rook directions (16..19)
        if n < 4:
            i = 20 + n
        else:
            i = 12 + n
            piece = by | 4
        d = int(steps[i])
        if d > 127:
            d -= 256
        s = sq + d
        while not (s & 0x88):
            p = int(b[s])
            if p:
                if p == piece:
                    return s
                if p == queen:
                    queen_sq = s
                break
            s += d
        n += 1
    if queen_sq >= 0:
        return queen_sq
    piece = by | _KING
    i = 8
    while i < 16:  # king
        d = int(steps[i])
        if d > 127:
            d -= 256
        s = sq + d
        if not (s & 0x88) and int(b[s]) == piece:
            return s
        i += 1
    return -1


@micropython.viper
def _generate(b: ptr8, m: ptr32, start: int, packed: int) -> int:
    """The move generator behind gen_moves and gen_captures (castling aside): writes the side
    to move's pseudo-legal moves into moves[start:] and returns the end index. `packed`: the
    side to move (0 or 8) | _NOISY_ONLY | en-passant square << 5.

    Viper: machine integers and raw pointers into the board, the step table and the move
    list. Generating runs at every node; as viper it is both faster and smaller than the
    @micropython.native code it replaced (machine code loaded from .mpy lives in the heap on
    a stock Pico). The order of the moves is part of the search's behaviour (node counts):
    squares a1..h8, a pawn's pushes (promotions queen, knight, rook, bishop) then its captures
    toward the a-file side first, a piece's steps in ATTACK_STEPS order."""
    steps = ptr8(ATTACK_STEPS)  # knight 0..7, king 8..15, rook 16..19, bishop 20..23
    stm = packed & 8
    noisy = packed & _NOISY_ONLY
    ep = packed >> 5
    them = stm ^ 8
    if stm == 0:
        fwd = 16
        start_rank = 1
        last_rank = 7
    else:
        fwd = -16
        start_rank = 6
        last_rank = 0
    n = start
    sq = 0
    while sq < 120:
        if sq & 8:
            sq += 8
            continue
        p = int(b[sq])
        if p == 0 or (p & 8) != stm:
            sq += 1
            continue
        kind = p & 7
        if kind == _PAWN:
            to = sq + fwd
            promoting = 0
            if (to >> 4) == last_rank:
                promoting = 1
            if not b[to]:
                if promoting:
                    base = sq | to << 7
                    m[n] = base | _QUEEN << 14
                    m[n + 1] = base | _KNIGHT << 14
                    m[n + 2] = base | _ROOK << 14
                    m[n + 3] = base | _BISHOP << 14
                    n += 4
                elif not noisy:
                    m[n] = sq | to << 7
                    n += 1
                    if (sq >> 4) == start_rank:
                        to2 = to + fwd
                        if not b[to2]:
                            m[n] = sq | to2 << 7 | _DOUBLE << 17
                            n += 1
            to = sq + fwd - 1
            while to <= sq + fwd + 1:
                if not (to & 0x88):
                    q = int(b[to])
                    if q and (q & 8) == them:
                        base = sq | to << 7
                        if promoting:
                            m[n] = base | _QUEEN << 14
                            m[n + 1] = base | _KNIGHT << 14
                            m[n + 2] = base | _ROOK << 14
                            m[n + 3] = base | _BISHOP << 14
                            n += 4
                        else:
                            m[n] = base
                            n += 1
                    elif to == ep and ep:
                        m[n] = sq | to << 7 | _EP << 17
                        n += 1
                to += 2
        else:
            slide = 1
            if kind == _KNIGHT:
                j = 0
                slide = 0
            elif kind == _ROOK:
                j = 16
            elif kind == _BISHOP:
                j = 20
            else:  # king (one step) and queen (sliding) share the eight directions
                j = 8
                if kind == _KING:
                    slide = 0
            last = j + (4 if j >= 16 else 8)
            while j < last:
                d = int(steps[j])
                if d > 127:
                    d -= 256
                to = sq + d
                while not (to & 0x88):
                    q = int(b[to])
                    if q:
                        if (q & 8) == them:
                            m[n] = sq | to << 7
                            n += 1
                        break
                    if not noisy:
                        m[n] = sq | to << 7
                        n += 1
                    if not slide:
                        break
                    to += d
                j += 1
        sq += 1
    return n


class PositionFullError(ValueError):
    """More plies were made than the history arrays hold."""


class Position:
    """A chess position with make/unmake. Start with `Position()` (the initial position) or
    `Position(fen)`; see fen.py for parsing and validation."""

    def __init__(self, fen=None, capacity=DEFAULT_CAPACITY):
        zobrist.init()
        self.board = bytearray(128)
        self.counts = bytearray(16)  # number of each piece code on the board
        self.kings = bytearray(9)  # kings[colour] = 0x88 king square (colour 0 or 8)
        self.stm = _WHITE
        self.castling = 0
        self.ep = 0  # en-passant target square, 0 = none (a1 can never be one)
        self.halfmove = 0
        self.fullmove = 1
        self.hash_lo = 0
        self.hash_hi = 0
        self.score_mg = 0
        self.score_eg = 0
        self.capacity = capacity
        self.ply = 0  # plies made since the last set_fen (index into the history arrays)
        self.hist_move = array("i", bytes(4 * capacity))
        self.hist_captured = bytearray(capacity)
        self.hist_castling = bytearray(capacity)
        self.hist_ep = bytearray(capacity)
        self.hist_halfmove = array("H", bytes(2 * capacity))
        self.hist_lo = array("i", bytes(4 * capacity))
        self.hist_hi = array("i", bytes(4 * capacity))
        # Hashes of positions before set_fen that count for repetition (e.g. a game resumed
        # from the journal keeps its history here); (lo, hi) pairs, newest last.
        self.prior_lo = array("i")
        self.prior_hi = array("i")
        from firmware.engine import fen as _fen

        _fen.set_fen(self, fen if fen is not None else _fen.START_FEN)

    # ---- setting up -------------------------------------------------------------------
    def clear(self):
        """Empty board, White to move, no rights; history and prior hashes cleared."""
        b = self.board
        for i in range(128):
            b[i] = 0
        for i in range(16):
            self.counts[i] = 0
        self.kings[0] = self.kings[8] = 0
        self.stm = _WHITE
        self.castling = 0
        self.ep = 0
        self.halfmove = 0
        self.fullmove = 1
        self.ply = 0
        self.prior_lo = array("i")
        self.prior_hi = array("i")
        self.rehash()

    def put(self, sq, piece):
        """Place `piece` (0 to empty) on `sq` during set-up; call rehash() when done."""
        old = self.board[sq]
        if old:
            self.counts[old] -= 1
        self.board[sq] = piece
        if piece:
            self.counts[piece] += 1
            if piece & 7 == _KING:
                self.kings[piece & 8] = sq

    def rehash(self):
        """Recompute hash halves and incremental scores from scratch."""
        lo = hi = mg = eg = 0
        b = self.board
        for sq in SQUARES:
            p = b[sq]
            if p:
                i = PIECE_BASE[p] + sq
                lo ^= zobrist.PIECE_LO[i]
                hi ^= zobrist.PIECE_HI[i]
                mg += PST_MG[i]
                eg += PST_EG[i]
        lo ^= zobrist.CASTLE_LO[self.castling]
        hi ^= zobrist.CASTLE_HI[self.castling]
        if self.ep:
            lo ^= zobrist.EP_LO[self.ep & 7]
            hi ^= zobrist.EP_HI[self.ep & 7]
        if self.stm:
            lo ^= zobrist.SIDE_LO[0]
            hi ^= zobrist.SIDE_HI[0]
        self.hash_lo = lo
        self.hash_hi = hi
        self.score_mg = mg
        self.score_eg = eg

    def copy(self):
        """A new Position with the same board, state and repetition history (allocates)."""
        from firmware.engine import fen as _fen

        other = Position(_fen.fen(self), self.capacity)
        lo, hi = self.history_hashes()
        other.prior_lo = array("i", lo)
        other.prior_hi = array("i", hi)
        return other

    def history_hashes(self):
        """(lo list, hi list) of every earlier position that counts for repetition, oldest
        first: the prior hashes and the positions before each made ply (allocates)."""
        lo = list(self.prior_lo) + [self.hist_lo[i] for i in range(self.ply)]
        hi = list(self.prior_hi) + [self.hist_hi[i] for i in range(self.ply)]
        return lo, hi

    # ---- attacks ----------------------------------------------------------------------
    def attacked(self, sq, by):
        """True when side `by` (WHITE 0 or BLACK 8) attacks 0x88 square `sq`."""
        return least_attacker(self.board, sq, by) >= 0

    def in_check(self):
        """True when the side to move is in check."""
        return least_attacker(self.board, self.kings[self.stm], self.stm ^ 8) >= 0

    # ---- move generation ----------------------------------------------------------------
    def gen_moves(self, moves, start):
        """Write every pseudo-legal move of the side to move into `moves[start:]`; return the
        end index. `moves` is caller-owned (array("i")) and must have room for 218 moves."""
        n = _generate(self.board, moves, start, self.stm | self.ep << 5)
        return self._gen_castling(moves, n) if self.castling else n

    def gen_captures(self, moves, start):
        """Like gen_moves, but only captures (en passant included) and promotions: the moves a
        quiescence search looks at."""
        return _generate(self.board, moves, start, self.stm | _NOISY_ONLY | self.ep << 5)

    def _gen_castling(self, moves, n):
        rights = self.castling
        if not rights:
            return n
        b = self.board
        if self.stm == _WHITE:
            if rights & 1 and not b[5] and not b[6] and b[7] == _ROOK:
                if not self.attacked(4, _BLACK) and not self.attacked(5, _BLACK) and not self.attacked(6, _BLACK):
                    moves[n] = 4 | 6 << 7 | _CASTLE << 17
                    n += 1
            if rights & 2 and not b[3] and not b[2] and not b[1] and b[0] == _ROOK:
                # b1 may be attacked: only the king's path e1-d1-c1 matters.
                if not self.attacked(4, _BLACK) and not self.attacked(3, _BLACK) and not self.attacked(2, _BLACK):
                    moves[n] = 4 | 2 << 7 | _CASTLE << 17
                    n += 1
        else:
            if rights & 4 and not b[117] and not b[118] and b[119] == 12:
                if not self.attacked(116, _WHITE) and not self.attacked(117, _WHITE) and not self.attacked(118, _WHITE):
                    moves[n] = 116 | 118 << 7 | _CASTLE << 17
                    n += 1
            if rights & 8 and not b[115] and not b[114] and not b[113] and b[112] == 12:
                if not self.attacked(116, _WHITE) and not self.attacked(115, _WHITE) and not self.attacked(114, _WHITE):
                    moves[n] = 116 | 114 << 7 | _CASTLE << 17
                    n += 1
        return n

    # ---- make / unmake ----------------------------------------------------------------
    def make(self, move, test=0):
        """Play a pseudo-legal move. Allocates nothing. `test` 0: no legality test (returns
        True); 1 or 2 (the mover is not / is in check now): make_legal's test, so an illegal
        move is taken back and False returned. The search calls this with `test` directly:
        one call fewer per node than make_legal, and on a chip a call of a bytecode function
        with many locals takes its frame from the heap (see docs/engine.md)."""
        ply = self.ply
        if ply >= self.capacity:
            raise PositionFullError("position history full (%d plies)" % self.capacity)
        b = self.board
        PL = zobrist.PIECE_LO
        PH = zobrist.PIECE_HI
        PB = PIECE_BASE
        fr = move & 127
        to = (move >> 7) & 127
        special = move >> 17
        piece = b[fr]
        captured = b[to]
        lo = self.hash_lo
        hi = self.hash_hi
        rights = self.castling
        ep = self.ep
        self.hist_move[ply] = move
        self.hist_captured[ply] = captured
        self.hist_castling[ply] = rights
        self.hist_ep[ply] = ep
        self.hist_halfmove[ply] = self.halfmove
        self.hist_lo[ply] = lo
        self.hist_hi[ply] = hi
        self.ply = ply + 1

        if ep:
            lo ^= zobrist.EP_LO[ep & 7]
            hi ^= zobrist.EP_HI[ep & 7]
            self.ep = 0
        i = PB[piece] + fr
        lo ^= PL[i]
        hi ^= PH[i]
        mg = self.score_mg - PST_MG[i]
        eg = self.score_eg - PST_EG[i]
        if captured:
            i = PB[captured] + to
            lo ^= PL[i]
            hi ^= PH[i]
            mg -= PST_MG[i]
            eg -= PST_EG[i]
            self.counts[captured] -= 1
        if captured or piece & 7 == _PAWN:  # before a promotion changes the piece
            self.halfmove = 0
        else:
            self.halfmove += 1
        promo = (move >> 14) & 7
        if promo:
            self.counts[piece] -= 1
            piece = (piece & 8) | promo
            self.counts[piece] += 1
        b[fr] = 0
        b[to] = piece
        i = PB[piece] + to
        lo ^= PL[i]
        hi ^= PH[i]
        mg += PST_MG[i]
        eg += PST_EG[i]

        if special:
            if special == _EP:
                cap_sq = to - 16 if piece == _PAWN else to + 16
                victim = b[cap_sq]
                b[cap_sq] = 0
                i = PB[victim] + cap_sq
                lo ^= PL[i]
                hi ^= PH[i]
                mg -= PST_MG[i]
                eg -= PST_EG[i]
                self.counts[victim] -= 1
            elif special == _DOUBLE:
                # Record the e.p. square only when an enemy pawn stands beside the target,
                # so hashes (and repetition) match positions that only differ in a useless
                # e.p. square, as the rules require.
                enemy_pawn = piece ^ 8
                if (not (to + 1) & 0x88 and b[to + 1] == enemy_pawn) or (
                    not (to - 1) & 0x88 and b[to - 1] == enemy_pawn
                ):
                    ep = (fr + to) >> 1
                    self.ep = ep
                    lo ^= zobrist.EP_LO[ep & 7]
                    hi ^= zobrist.EP_HI[ep & 7]
            else:  # castling: move the rook too
                if to == fr + 2:
                    rfrom = fr + 3
                    rto = fr + 1
                else:
                    rfrom = fr - 4
                    rto = fr - 1
                rook = b[rfrom]
                b[rfrom] = 0
                b[rto] = rook
                i = PB[rook] + rfrom
                lo ^= PL[i]
                hi ^= PH[i]
                mg -= PST_MG[i]
                eg -= PST_EG[i]
                i = PB[rook] + rto
                lo ^= PL[i]
                hi ^= PH[i]
                mg += PST_MG[i]
                eg += PST_EG[i]

        if piece & 7 == _KING:
            self.kings[piece & 8] = to
        if rights:
            new_rights = rights & _CASTLE_KEEP[fr] & _CASTLE_KEEP[to]
            if new_rights != rights:
                lo ^= zobrist.CASTLE_LO[rights] ^ zobrist.CASTLE_LO[new_rights]
                hi ^= zobrist.CASTLE_HI[rights] ^ zobrist.CASTLE_HI[new_rights]
                self.castling = new_rights
        if self.stm:
            self.fullmove += 1
        self.stm ^= 8
        self.hash_lo = lo ^ zobrist.SIDE_LO[0]
        self.hash_hi = hi ^ zobrist.SIDE_HI[0]
        self.score_mg = mg
        self.score_eg = eg
        if test:
            # The attack test is skipped when the move cannot expose the king: the mover was
            # not in check, did not move the king, did not capture en passant, and its
            # from-square shares no line with its king (no pin possible).
            side = piece & 8  # the mover (a promoted piece keeps its colour)
            king = self.kings[side]
            if (test == 2 or piece & 7 == _KING or special == _EP or _ALIGNED[king - fr + 119]) and least_attacker(
                b, king, side ^ 8
            ) >= 0:
                self.unmake()
                return False
        return True

    def unmake(self):
        """Take back the last made move (or null move) exactly."""
        ply = self.ply - 1
        self.ply = ply
        move = self.hist_move[ply]
        self.stm ^= 8
        if self.stm:
            self.fullmove -= 1
        self.castling = self.hist_castling[ply]
        self.ep = self.hist_ep[ply]
        self.halfmove = self.hist_halfmove[ply]
        self.hash_lo = self.hist_lo[ply]
        self.hash_hi = self.hist_hi[ply]
        if not move:  # null move
            return
        b = self.board
        PB = PIECE_BASE
        fr = move & 127
        to = (move >> 7) & 127
        special = move >> 17
        piece = b[to]
        captured = self.hist_captured[ply]
        mg = self.score_mg - PST_MG[PB[piece] + to]
        eg = self.score_eg - PST_EG[PB[piece] + to]
        if (move >> 14) & 7:
            self.counts[piece] -= 1
            piece = (piece & 8) | _PAWN
            self.counts[piece] += 1
        b[fr] = piece
        b[to] = captured
        mg += PST_MG[PB[piece] + fr]
        eg += PST_EG[PB[piece] + fr]
        if captured:
            self.counts[captured] += 1
            mg += PST_MG[PB[captured] + to]
            eg += PST_EG[PB[captured] + to]
        if special:
            if special == _EP:
                cap_sq = to - 16 if piece == _PAWN else to + 16
                victim = piece ^ 8
                b[cap_sq] = victim
                self.counts[victim] += 1
                mg += PST_MG[PB[victim] + cap_sq]
                eg += PST_EG[PB[victim] + cap_sq]
            elif special == _CASTLE:
                if to == fr + 2:
                    rfrom = fr + 3
                    rto = fr + 1
                else:
                    rfrom = fr - 4
                    rto = fr - 1
                rook = b[rto]
                b[rto] = 0
                b[rfrom] = rook
                mg += PST_MG[PB[rook] + rfrom] - PST_MG[PB[rook] + rto]
                eg += PST_EG[PB[rook] + rfrom] - PST_EG[PB[rook] + rto]
        if piece & 7 == _KING:
            self.kings[piece & 8] = fr
        self.score_mg = mg
        self.score_eg = eg

    def make_legal(self, move, in_check):
        """Make a pseudo-legal move if it is legal and return True; otherwise leave the position
        unchanged and return False. `in_check`: whether the side to move is in check now."""
        return self.make(move, 2 if in_check else 1)

    def make_null(self):
        """Pass the move (for null-move pruning). Undo with unmake()."""
        ply = self.ply
        if ply >= self.capacity:
            raise PositionFullError("position history full (%d plies)" % self.capacity)
        self.hist_move[ply] = 0
        self.hist_castling[ply] = self.castling
        self.hist_ep[ply] = self.ep
        self.hist_halfmove[ply] = self.halfmove
        self.hist_lo[ply] = self.hash_lo
        self.hist_hi[ply] = self.hash_hi
        self.ply = ply + 1
        lo = self.hash_lo
        hi = self.hash_hi
        if self.ep:
            lo ^= zobrist.EP_LO[self.ep & 7]
            hi ^= zobrist.EP_HI[self.ep & 7]
            self.ep = 0
        self.halfmove += 1
        if self.stm:
            self.fullmove += 1
        self.stm ^= 8
        self.hash_lo = lo ^ zobrist.SIDE_LO[0]
        self.hash_hi = hi ^ zobrist.SIDE_HI[0]
