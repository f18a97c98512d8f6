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
_SEED = 0x9E3779B9  # the generator's first state (KEY_SCHEME 1)


def init():
    """Fill the tables (idempotent; called by Position before first use, never at import).

    The keys are xorshift32's outputs (x ^= x << 13; x ^= x >> 17; x ^= x << 5, modulo 2^32)
    cut to 30 bits. The state is kept as two 16-bit halves: a 32-bit state is a heap-allocated
    big integer on a 32-bit board (small ints there hold 31 bits), and the 1,562 draws then
    allocated ~10,000 of them, which with the boot's collection threshold took 6.5 s of a
    stock Pico's boot. With halves every value is a small int and the draws allocate nothing."""
    global _ready
    if _ready:
        return
    state = [_SEED >> 16, _SEED & 0xFFFF]
    for piece in (1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14):
        for rank in range(8):
            for file in range(8):
                idx = PIECE_BASE[piece] + rank * 16 + file
                PIECE_LO[idx] = _next_key(state)
                PIECE_HI[idx] = _next_key(state)
    # Castling keys: XOR of one key per right, so updates need one lookup per change.
    right_lo = [_next_key(state) for _ in range(4)]
    right_hi = [_next_key(state) for _ in range(4)]
    for rights in range(16):
        lo = hi = 0
        for bit in range(4):
            if rights & (1 << bit):
                lo ^= right_lo[bit]
                hi ^= right_hi[bit]
        CASTLE_LO[rights] = lo
        CASTLE_HI[rights] = hi
    for file in range(8):
        EP_LO[file] = _next_key(state)
        EP_HI[file] = _next_key(state)
    SIDE_LO[0] = _next_key(state)
    SIDE_HI[0] = _next_key(state)
    _ready = True


def _next_key(state):
    """One xorshift32 step on `state` ([high 16 bits, low 16 bits], updated in place); returns
    the new state's low 30 bits."""
    high = state[0]
    low = state[1]
    # x ^= x << 13
    high ^= ((high << 13) | (low >> 3)) & 0xFFFF
    low ^= (low << 13) & 0xFFFF
    # x ^= x >> 17: the high half shifted by one lands in the low half
    low ^= high >> 1
    # x ^= x << 5
    high ^= ((high << 5) | (low >> 11)) & 0xFFFF
    low ^= (low << 5) & 0xFFFF
    state[0] = high
    state[1] = low
    return (high & 0x3FFF) << 16 | low
