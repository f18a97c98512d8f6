"""Pieces, colours, squares and the move encoding: the engine's vocabulary.

Squares are 0x88 indices: `sq = rank * 16 + file`, a1 = 0, h1 = 7, a8 = 112, h8 = 119; a
square is off the board exactly when `sq & 0x88`. `sq64 = rank * 8 + file` is the compact
form used by the io layer's cells and by tables that want 64 entries.

A piece is one byte: `colour | kind`, with WHITE = 0, BLACK = 8 and kinds PAWN..KING = 1..6;
EMPTY = 0. So `piece & 8` is its colour and `piece & 7` its kind.

A move is one small int (< 2^20, never a heap object on a 32-bit board):

    bits 0-6   from square (0x88)
    bits 7-13  to square (0x88)
    bits 14-16 promotion kind (0, or KNIGHT..QUEEN)
    bits 17-18 special: 0 normal, 1 double pawn push, 2 en passant, 3 castling

A move of 0 (no move) can never be a real move (from == to). The engine reads the fields
inline (`move & 127`, `(move >> 7) & 127`, ...): helpers for them would be resident code no
hot path calls (tests/test_engine_core.py checks the layout on generated moves).
"""
from firmware.compat import const


class FenError(ValueError):
    """A malformed or illegal FEN; the message names the field (raised by fen.py, defined in
    this resident module so that it stays the same class when fen.py is loaded again after it
    was dropped, and so that fen.py and position.py need not import each other)."""


WHITE = const(0)
BLACK = const(8)

EMPTY = const(0)
PAWN = const(1)
KNIGHT = const(2)
BISHOP = const(3)
ROOK = const(4)
QUEEN = const(5)
KING = const(6)

# Castling-right bits and move kinds: private (inlined by MicroPython's compiler, no RAM),
# here to document the encoding; other modules write the numbers with a comment.
_CASTLE_WK = const(1)
_CASTLE_WQ = const(2)
_CASTLE_BK = const(4)
_CASTLE_BQ = const(8)

# Move special kinds (bits 17-18).
_MOVE_NORMAL = const(0)
_MOVE_DOUBLE = const(1)
_MOVE_EN_PASSANT = const(2)
_MOVE_CASTLE = const(3)
_NO_MOVE = const(0)

PIECE_LETTERS = ".PNBRQK..pnbrqk"  # index by piece code
# Here rather than in fen.py, so that code comparing with it does not load the FEN parser.
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"

# The 64 on-board 0x88 squares in a1..h8 order (rank by rank); bytes: 64 bytes of heap, where
# a tuple would hold 264 on a 32-bit board.
SQUARES = bytes(r * 16 + f for r in range(8) for f in range(8))

KNIGHT_STEPS = (33, 31, 18, 14, -14, -18, -31, -33)
KING_STEPS = (17, 16, 15, 1, -1, -15, -16, -17)
BISHOP_STEPS = (17, 15, -15, -17)
ROOK_STEPS = (16, 1, -1, -16)


def to_sq64(sq):
    return (sq >> 4) * 8 + (sq & 7)


def from_sq64(sq64):
    return (sq64 >> 3) * 16 + (sq64 & 7)


def square_name(sq):
    """0x88 square -> 'e4'. Raises ValueError for an off-board index."""
    if sq < 0 or sq > 119 or sq & 0x88:
        raise ValueError("not a board square: %r" % (sq,))
    return FILE_NAMES[sq & 7] + RANK_NAMES[sq >> 4]


def parse_square(name):
    """'e4' -> 0x88 square. Raises ValueError naming the bad text."""
    if not isinstance(name, str) or len(name) != 2 or name[0] not in FILE_NAMES or name[1] not in RANK_NAMES:
        raise ValueError("not a square name: %r" % (name,))
    return RANK_NAMES.index(name[1]) * 16 + FILE_NAMES.index(name[0])
