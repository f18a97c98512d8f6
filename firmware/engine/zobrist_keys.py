"""Draws the Zobrist keys into zobrist.py's tables (zobrist.init loads this once, at the first
Position, and drops it after: its code does not stay in a board's heap).

The keys are xorshift32's outputs (x ^= x << 13; x ^= x >> 17; x ^= x << 5, modulo 2^32) from
a fixed seed, cut to 30 bits: the same on every interpreter and every run (zobrist.KEY_SCHEME).
The state is kept as two 16-bit halves: a 32-bit state is a heap-allocated big integer on a
32-bit board (small ints there hold 31 bits), and the 1,562 draws then allocated ~10,000 of
them, which with the boot's collection threshold took 6.5 s of a stock Pico's boot. With
halves every value is a small int and the draws allocate nothing.
"""
from firmware.engine.zobrist import (CASTLE_HI, CASTLE_LO, EP_HI, EP_LO, PIECE_BASE, PIECE_HI, PIECE_LO, SIDE_HI,
                                     SIDE_LO)

SEED = 0x9E3779B9  # the generator's first state (zobrist.KEY_SCHEME 1)


def fill():
    """Every table of zobrist.py, in the scheme's order: pieces, castling rights, en-passant
    files, the side to move."""
    state = [SEED >> 16, SEED & 0xFFFF]
    for piece in (1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14):
        for rank in range(8):
            for file in range(8):
                idx = PIECE_BASE[piece] + rank * 16 + file
                PIECE_LO[idx] = next_key(state)
                PIECE_HI[idx] = next_key(state)
    # Castling keys: XOR of one key per right, so updates need one lookup per change.
    right_lo = [next_key(state) for _ in range(4)]
    right_hi = [next_key(state) for _ in range(4)]
    for rights in range(16):
        lo = hi = 0
        for bit in range(4):
            if rights & (1 << bit):
                lo ^= right_lo[bit]
                hi ^= right_hi[bit]
        CASTLE_LO[rights] = lo
        CASTLE_HI[rights] = hi
    for file in range(8):
        EP_LO[file] = next_key(state)
        EP_HI[file] = next_key(state)
    SIDE_LO[0] = next_key(state)
    SIDE_HI[0] = next_key(state)


def next_key(state):
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
