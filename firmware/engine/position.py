"""The position: a 0x88 board with make/unmake, move generation and attack detection.

Everything a search touches per node lives here and allocates nothing:
- `board` is a bytearray(128) of piece codes (see constants.py);
- move lists are caller-owned `array("i")` buffers: `end = pos.gen_moves(moves, start)`;
- `make(move)` pushes the irreversible state onto preallocated history arrays and `unmake()`
  pops it, restoring board, hash halves, clocks, rights and the incremental scores exactly;
- the hash is two 30-bit halves (`hash_lo`, `hash_hi`), see zobrist.py;
- `score_mg` / `score_eg` are the incremental material + piece-square sums (White's view),
  read from `PST_MG` / `PST_EG` (filled with plain material values until the evaluation
  installs its tables with `pesto.install()`).

Generation is pseudo-legal; `make_legal(move, in_check)` makes a move and reports whether it
left the mover's king safe, skipping the attack test when the move cannot expose the king
(the common case, and worth it: the test is the most expensive step of a node on the chip).

History capacity bounds the game length plus search depth (`capacity`, default 640 plies);
`make` raises PositionFullError past it rather than corrupting memory.
"""
from array import array

from firmware.compat import const, micropython, ptr8, ptr16, ptr32
from firmware.engine import zobrist
from firmware.engine.constants import (  # noqa: F401  (FenError: part of this module's API)
    BISHOP_STEPS,
    KING_STEPS,
    KNIGHT_STEPS,
    ROOK_STEPS,
    SQUARES,
    FenError,
)

_FEN = "firmware.engine.fen"  # FEN parsing and writing, loaded for each use
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
# without branches. Each cell holds its value + _PST_BIAS, unsigned: viper code reads 16-bit
# cells unsigned, and with the bias a move's (to - from) difference needs no correction.
PIECE_BASE = zobrist.PIECE_BASE
_PST_BIAS = const(0x8000)
PST_MG = array("H", bytes(2 * zobrist.TABLE_SIZE))
PST_EG = array("H", bytes(2 * zobrist.TABLE_SIZE))


# Plain material values until evaluate.init() installs PeSTO's tables (pesto.install()): that
# code runs once, so it lives in pesto.py, which is dropped after it. This loop is module-level
# code, freed after the import.
def _put_material():
    for kind in range(1, 7):
        for sq in range(120):
            if not sq & 0x88:
                PST_MG[PIECE_BASE[kind] + sq] = PST_EG[PIECE_BASE[kind] + sq] = _PST_BIAS + MATERIAL[kind]
                PST_MG[PIECE_BASE[kind | 8] + sq] = PST_EG[PIECE_BASE[kind | 8] + sq] = _PST_BIAS - MATERIAL[kind]


_put_material()
del _put_material


_BACK_RANK = b"\x04\x02\x03\x05\x06\x03\x02\x04"  # R N B Q K B N R, a to h
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
def _generate(b: ptr8, m: ptr32, start: int, packed: int) -> int:  # pyright: ignore[reportGeneralTypeIssues]  (ptr8/ptr32: viper's pointer types, compat.pyi)
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
        # per ply, packed (one array: fewer attribute reads in play and unmake): the captured
        # piece (bits 0-3), castling rights (4-7), e.p. square (8-14), half-move clock (15-);
        # below 2^30, since FEN clocks stop at 9999. captured_at() reads the first.
        self.hist_state = array("i", bytes(4 * capacity))
        self.hist_lo = array("i", bytes(4 * capacity))
        self.hist_hi = array("i", bytes(4 * capacity))
        # Hashes of positions before set_fen that count for repetition (e.g. a game resumed
        # from the journal keeps its history here); (lo, hi) pairs, newest last.
        self.prior_lo = array("i")
        self.prior_hi = array("i")
        if fen is None:
            self.set_start()
        else:
            from firmware.loader import call  # (here: no global entry in this big module)

            call(_FEN, "set_fen", self, fen)

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
        if len(self.prior_lo):  # (arrays are replaced, never changed: an empty one is kept)
            self.prior_lo = array("i")
            self.prior_hi = array("i")
        self.rehash()

    def set_start(self):
        """The initial position, history cleared (as set_fen with START_FEN, without parsing:
        a game that never sees another FEN never loads fen.py)."""
        self.clear()
        for f in range(8):
            self.put(f, _BACK_RANK[f])
            self.put(16 + f, _PAWN)
            self.put(96 + f, _BLACK | _PAWN)
            self.put(112 + f, _BLACK | _BACK_RANK[f])
        self.castling = 15
        self.rehash()

    def load_fen(self, text):
        """set_fen(self, text) (FenError for a bad FEN, the position unchanged then), and the
        position's FEN back, with fen.py loaded for this call only unless it was loaded
        already: the firmware reads a FEN this way, as the parser is 4.7 KB of heap that a
        game from the initial position never needs."""
        from firmware.loader import borrow, release

        fen = borrow(_FEN)
        try:
            fen.set_fen(self, text)
            return fen.fen(self)
        finally:
            release(_FEN)

    def assign(self, other):
        """Take `other`'s board and state (side to move, castling, e.p., clocks), its history
        cleared: ply 0, no prior hashes (the computer copies the game this way before each
        search). The e.p. square is kept as `other` has it, so the hashes agree."""
        self.clear()
        src = other.board
        for sq in SQUARES:
            if src[sq]:
                self.put(sq, src[sq])
        self.stm = other.stm
        self.castling = other.castling
        self.ep = other.ep
        self.halfmove = other.halfmove
        self.fullmove = other.fullmove
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
                mg += PST_MG[i] - _PST_BIAS
                eg += PST_EG[i] - _PST_BIAS
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
        move is taken back and False returned. (The machine code is `play`, which the search
        calls directly: viper functions take no default arguments.)"""
        return self.play(move, test) > 0

    @micropython.viper
    def play(self, move: int, test: int) -> int:
        """make(move, test) as machine code, every argument given; returns 0 when the legality
        test took the move back, else 1. `test` + 4 (5 or 6, as the search calls it) also asks
        whether the move gives check: then 2 for a legal move that does. Viper: a make and
        unmake were 28 % of a node on the chip as bytecode (two heap frames, boxed integers
        for every table read); the check answer saves the search a bytecode in_check() call
        after every move. The piece-square cells carry _PST_BIAS (see there): a piece's move
        adds its to-square's cell and takes its from-square's, and the biases cancel; a piece
        taken off (or put back) corrects by it. The position's attributes stay objects."""
        ply = int(self.ply)
        if ply >= int(self.capacity):
            raise PositionFullError("position history full (%d plies)" % self.capacity)
        b = ptr8(self.board)
        counts = ptr8(self.counts)
        pl = ptr32(zobrist.PIECE_LO)
        ph = ptr32(zobrist.PIECE_HI)
        pmg = ptr16(PST_MG)
        peg = ptr16(PST_EG)
        base = ptr16(PIECE_BASE)
        fr = move & 127
        to = (move >> 7) & 127
        special = move >> 17
        piece = int(b[fr])
        captured = int(b[to])
        lo = int(self.hash_lo)
        hi = int(self.hash_hi)
        rights = int(self.castling)
        ep = int(self.ep)
        halfmove = int(self.halfmove)
        ptr32(self.hist_move)[ply] = move
        ptr32(self.hist_state)[ply] = captured | rights << 4 | ep << 8 | halfmove << 15
        ptr32(self.hist_lo)[ply] = lo
        ptr32(self.hist_hi)[ply] = hi
        self.ply = ply + 1
        if ep:
            lo ^= int(ptr32(zobrist.EP_LO)[ep & 7])
            hi ^= int(ptr32(zobrist.EP_HI)[ep & 7])
            ep = 0
        i = int(base[piece]) + fr
        lo ^= int(pl[i])
        hi ^= int(ph[i])
        mg = int(self.score_mg) - int(pmg[i])  # the bias cancels with the to-square's below
        eg = int(self.score_eg) - int(peg[i])
        if captured:
            i = int(base[captured]) + to
            lo ^= int(pl[i])
            hi ^= int(ph[i])
            mg += _PST_BIAS - int(pmg[i])
            eg += _PST_BIAS - int(peg[i])
            counts[captured] = int(counts[captured]) - 1
        if captured or piece & 7 == _PAWN:  # before a promotion changes the piece
            halfmove = 0
        else:
            halfmove += 1
        promo = (move >> 14) & 7
        if promo:
            counts[piece] = int(counts[piece]) - 1
            piece = (piece & 8) | promo
            counts[piece] = int(counts[piece]) + 1
        b[fr] = 0
        b[to] = piece
        i = int(base[piece]) + to
        lo ^= int(pl[i])
        hi ^= int(ph[i])
        mg += int(pmg[i])
        eg += int(peg[i])

        if special:
            if special == _EP:
                cap_sq = to - 16 if piece == _PAWN else to + 16
                victim = int(b[cap_sq])
                b[cap_sq] = 0
                i = int(base[victim]) + cap_sq
                lo ^= int(pl[i])
                hi ^= int(ph[i])
                mg += _PST_BIAS - int(pmg[i])
                eg += _PST_BIAS - int(peg[i])
                counts[victim] = int(counts[victim]) - 1
            elif special == _DOUBLE:
                # Record the e.p. square only when an enemy pawn stands beside the target,
                # so hashes (and repetition) match positions that only differ in a useless
                # e.p. square, as the rules require.
                enemy_pawn = piece ^ 8
                if (not (to + 1) & 0x88 and int(b[to + 1]) == enemy_pawn) or (
                    not (to - 1) & 0x88 and int(b[to - 1]) == enemy_pawn
                ):
                    ep = (fr + to) >> 1
                    lo ^= int(ptr32(zobrist.EP_LO)[ep & 7])
                    hi ^= int(ptr32(zobrist.EP_HI)[ep & 7])
            else:  # castling: move the rook too
                if to == fr + 2:
                    rfrom = fr + 3
                    rto = fr + 1
                else:
                    rfrom = fr - 4
                    rto = fr - 1
                rook = int(b[rfrom])
                b[rfrom] = 0
                b[rto] = rook
                i = int(base[rook]) + rfrom
                lo ^= int(pl[i])
                hi ^= int(ph[i])
                mg -= int(pmg[i])
                eg -= int(peg[i])
                i = int(base[rook]) + rto
                lo ^= int(pl[i])
                hi ^= int(ph[i])
                mg += int(pmg[i])
                eg += int(peg[i])

        kings = ptr8(self.kings)
        if piece & 7 == _KING:
            kings[piece & 8] = to
        if rights:
            keep = ptr8(_CASTLE_KEEP)
            i = rights & int(keep[fr]) & int(keep[to])  # the new rights
            if i != rights:
                keys = ptr32(zobrist.CASTLE_LO)
                lo ^= int(keys[rights]) ^ int(keys[i])
                keys = ptr32(zobrist.CASTLE_HI)
                hi ^= int(keys[rights]) ^ int(keys[i])
                self.castling = i
        stm = int(self.stm)
        if stm:
            self.fullmove = int(self.fullmove) + 1
        self.stm = stm ^ 8
        self.ep = ep
        self.halfmove = halfmove
        self.hash_lo = lo ^ int(ptr32(zobrist.SIDE_LO)[0])
        self.hash_hi = hi ^ int(ptr32(zobrist.SIDE_HI)[0])
        self.score_mg = mg
        self.score_eg = eg
        if test & 3:
            # The attack test is skipped when the move cannot expose the king: the mover was
            # not in check, did not move the king, did not capture en passant, and its
            # from-square shares no line with its king (no pin possible).
            king = int(kings[stm])  # the mover's side is stm (a promoted piece keeps it)
            if (test & 3) == 2 or piece & 7 == _KING or special == _EP or int(ptr8(_ALIGNED)[king - fr + 119]):
                if int(least_attacker(self.board, king, stm ^ 8)) >= 0:
                    self.unmake()
                    return 0
        if test & 4:
            if int(least_attacker(self.board, int(kings[stm ^ 8]), stm)) >= 0:
                return 2  # the opponent, now to move, is in check
        return 1

    @micropython.viper
    def unmake(self):
        """Take back the last made move (or null move) exactly. Viper, as play is: as bytecode
        a take-back costs about as much as the move (bench/pico_profile.py times both)."""
        ply = int(self.ply) - 1
        self.ply = ply
        move = int(ptr32(self.hist_move)[ply])
        stm = int(self.stm) ^ 8
        self.stm = stm
        if stm:
            self.fullmove = int(self.fullmove) - 1
        captured = int(ptr32(self.hist_state)[ply])
        self.castling = (captured >> 4) & 15
        self.ep = (captured >> 8) & 127
        self.halfmove = captured >> 15
        captured &= 15
        self.hash_lo = int(ptr32(self.hist_lo)[ply])
        self.hash_hi = int(ptr32(self.hist_hi)[ply])
        if not move:  # null move
            return
        b = ptr8(self.board)
        counts = ptr8(self.counts)
        pmg = ptr16(PST_MG)
        peg = ptr16(PST_EG)
        base = ptr16(PIECE_BASE)
        fr = move & 127
        to = (move >> 7) & 127
        special = move >> 17
        piece = int(b[to])
        # the biases of the to- and from-square cells cancel (see play)
        i = int(base[piece]) + to
        mg = int(self.score_mg) - int(pmg[i])
        eg = int(self.score_eg) - int(peg[i])
        if (move >> 14) & 7:
            counts[piece] = int(counts[piece]) - 1
            piece = (piece & 8) | _PAWN
            counts[piece] = int(counts[piece]) + 1
        b[fr] = piece
        b[to] = captured
        i = int(base[piece]) + fr
        mg += int(pmg[i])
        eg += int(peg[i])
        if captured:
            counts[captured] = int(counts[captured]) + 1
            i = int(base[captured]) + to
            mg += int(pmg[i]) - _PST_BIAS
            eg += int(peg[i]) - _PST_BIAS
        if special == _EP:
            i = to - 16 if piece == _PAWN else to + 16  # the captured pawn's square
            captured = piece ^ 8
            b[i] = captured
            counts[captured] = int(counts[captured]) + 1
            i += int(base[captured])
            mg += int(pmg[i]) - _PST_BIAS
            eg += int(peg[i]) - _PST_BIAS
        elif special == _CASTLE:
            if to == fr + 2:
                i = fr + 3  # the rook's square before castling
                fr += 1  # ... and after (fr is not needed again)
            else:
                i = fr - 4
                fr -= 1
            captured = int(b[fr])  # the rook
            b[fr] = 0
            b[i] = captured
            captured = int(base[captured])
            mg += int(pmg[captured + i]) - int(pmg[captured + fr])
            eg += int(peg[captured + i]) - int(peg[captured + fr])
        if piece & 7 == _KING:
            ptr8(self.kings)[piece & 8] = move & 127
        self.score_mg = mg
        self.score_eg = eg

    def captured_at(self, index):
        """The piece the move at history index `index` (0 .. ply - 1) took off, 0 for none."""
        return self.hist_state[index] & 15

    def make_legal(self, move, in_check):
        """Make a pseudo-legal move if it is legal and return True; otherwise leave the position
        unchanged and return False. `in_check`: whether the side to move is in check now."""
        return self.play(move, 2 if in_check else 1) > 0

    def make_null(self):
        """Pass the move (for null-move pruning). Undo with unmake()."""
        ply = self.ply
        if ply >= self.capacity:
            raise PositionFullError("position history full (%d plies)" % self.capacity)
        self.hist_move[ply] = 0
        self.hist_state[ply] = self.castling << 4 | self.ep << 8 | self.halfmove << 15
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
