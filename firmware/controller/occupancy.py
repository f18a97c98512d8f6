"""Occupancy bitmaps and the cells a move changes: the vocabulary of board sync.

An occupancy is a bytearray(8): byte r is rank r (rank 1 = byte 0), bit f is file f (a = bit
0). A cell is `rank * 8 + file` (a1 = 0, h1 = 7, h8 = 63), the io layer's cell index and the
engine's sq64 (`constants.to_sq64` / `from_sq64` convert to and from 0x88 squares).

A reed switch only sees whether a square holds a piece, so what board sync can observe of a
move is the set of cells whose occupancy it flips:

    normal move, promotion      from, to              (2 cells)
    capture                     from                  (1 cell: the target stays occupied)
    en passant                  from, to, victim      (3 cells)
    castling                    king from/to, rook from/to (4 cells)

`move_cells` writes them into a caller-owned bytearray(5) and allocates nothing.
"""
from firmware.compat import const

_CASTLE = const(3)
_EP = const(2)
NO_CELL = const(255)

# The initial setup: 32 pieces on ranks 1, 2, 7 and 8.
START_OCCUPANCY = b"\xff\xff\x00\x00\x00\x00\xff\xff"


def cell_of(sq):
    """0x88 square -> cell (sq64)."""
    return (sq >> 4) * 8 + (sq & 7)


def square_of(cell):
    """cell (sq64) -> 0x88 square."""
    return (cell >> 3) * 16 + (cell & 7)


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
