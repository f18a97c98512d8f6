"""Zobrist keys in two 30-bit halves.

A 64-bit key would be a heap object on every node of a 32-bit board (small ints there hold
31 bits), so every key here is below 2^30 and a position's hash is the pair (lo, hi). XOR of
30-bit values stays 30-bit, so no hash ever allocates. `lo` picks a transposition-table slot
and is the opening book's key; `hi` verifies it.

The keys come from a fixed-seed xorshift generator, so they are the same on every interpreter
and every run: the opening book and saved games depend on that (KEY_SCHEME names the scheme;
change it whenever the keys change).

Piece tables are indexed `PIECE_BASE[piece] + sq` (piece code 1..14, 0x88 square): one
lookup and one addition in make/unmake, like the `piece << 7 | sq` they replace. A 0x88
square never has bit 3 set, so Black's pieces use those off-board slots of White's row:
PIECE_BASE[kind] = (kind - 1) << 7, PIECE_BASE[kind | 8] = (kind - 1) << 7 | 8. That packs
12 pieces x 64 squares into TABLE_SIZE = 768 entries instead of 16 x 128 (saves 10 KB of RAM
in these two tables and 5 KB in the piece-square tables of position.py, which share the
index). Codes that are no piece (0, 7, 8, 15) map to 0.
"""
from array import array

KEY_SCHEME = 1
_MASK30 = 0x3FFFFFFF

TABLE_SIZE = 6 * 128
PIECE_BASE = array("H", [((piece & 7) - 1) << 7 | (piece & 8) if 0 < piece & 7 < 7 else 0 for piece in range(16)])
PIECE_LO = array("i", bytes(4 * TABLE_SIZE))
PIECE_HI = array("i", bytes(4 * TABLE_SIZE))
CASTLE_LO = array("i", bytes(4 * 16))  # by castling-rights nibble
CASTLE_HI = array("i", bytes(4 * 16))
EP_LO = array("i", bytes(4 * 8))  # by en-passant file
EP_HI = array("i", bytes(4 * 8))
# The side key (black to move) is element 0 of these 1-element arrays.
SIDE_LO = array("i", [0])
SIDE_HI = array("i", [0])

_ready = False


def init():
    """Fill the tables (idempotent; called by Position before first use, never at import). The
    keys are drawn by zobrist_keys.py, loaded for this once and dropped after: its code does
    not stay in a board's heap."""
    global _ready
    if _ready:
        return
    from firmware.loader import call  # (here: no global entry in this resident module)

    call("firmware.engine.zobrist_keys", "fill")
    _ready = True
