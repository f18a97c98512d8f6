"""Transposition table: fixed-size arrays allocated once, never during search.

Layout: `entries` slots (rounded down to a power of two, at least 2) in buckets of two.
Slot 2k is depth-preferred, slot 2k+1 always-replace. Each slot is three array cells:

    keys[i]   array("i")  hash_hi of the position (30 bits; 0 = empty slot)
    data[i]   array("i")  move | bound << 19 | depth << 21 | age << 27   (< 2^30)
    scores[i] array("h")  score, mate scores stored relative to the node (ply-adjusted)

The bucket is chosen by `hash_lo & mask`, so an entry is verified by the other 30-bit
half: 60 bits of key in total. 10 bytes per slot (`BYTES_PER_ENTRY`), e.g. 4096 slots =
40 KB. Replacement: the depth-preferred slot is overwritten when empty, from an older
search (age differs), or when the new depth is at least the stored one; otherwise the
always-replace slot takes the entry. `new_search()` bumps the 3-bit age.
"""
from array import array

from firmware.compat import const

BOUND_UPPER = const(1)  # score <= stored (fail low)
BOUND_LOWER = const(2)  # score >= stored (fail high)
BOUND_EXACT = const(3)
BYTES_PER_ENTRY = const(10)
# data[i] = move | bound << BOUND_SHIFT | depth << DEPTH_SHIFT | age << AGE_SHIFT (the search
# decodes it inline with copies of these names: a const folds only inside its module)
MOVE_MASK = const(0x7FFFF)
BOUND_SHIFT = const(19)
DEPTH_SHIFT = const(21)
AGE_SHIFT = const(27)


class TTSizeError(ValueError):
    """A transposition table size that is not a positive number of entries."""


class TranspositionTable:
    def __init__(self, entries):
        if not isinstance(entries, int) or entries < 2:
            raise TTSizeError("tt_entries must be an int >= 2, got %r" % (entries,))
        size = 2
        while size * 2 <= entries:
            size *= 2
        self.size = size
        self.mask = (size - 1) & ~1  # bucket index: even slot numbers
        self.keys = array("i", bytes(4 * size))
        self.data = array("i", bytes(4 * size))
        self.scores = array("h", bytes(2 * size))
        self.age = 0

    def clear(self):
        keys = self.keys
        data = self.data
        scores = self.scores
        for i in range(self.size):
            keys[i] = 0
            data[i] = 0
            scores[i] = 0
        self.age = 0

    def new_search(self):
        self.age = (self.age + 1) & 7

    def probe(self, lo, hi):
        """Slot index holding (lo, hi), or -1. Read `data`/`scores` at that index."""
        i = lo & self.mask
        if self.keys[i] == hi:
            return i
        if self.keys[i + 1] == hi:
            return i + 1
        return -1

    def store(self, lo, hi, move, bound, depth, score):
        """Record a search result (depth 0..63; score already ply-adjusted by the caller).
        An existing entry without a move keeps its move when the new result has none."""
        i = lo & self.mask
        keys = self.keys
        data = self.data
        age = self.age
        if keys[i] == hi:
            slot = i
        elif keys[i + 1] == hi:
            slot = i + 1
        else:
            d = data[i]
            if not keys[i] or (d >> AGE_SHIFT) != age or depth >= (d >> DEPTH_SHIFT) & 63:
                slot = i
                # keep the displaced entry in the always-replace slot
                keys[i + 1] = keys[i]
                data[i + 1] = d
                self.scores[i + 1] = self.scores[i]
            else:
                slot = i + 1
        if not move and keys[slot] == hi:
            move = data[slot] & MOVE_MASK
        if depth > 63:
            depth = 63
        keys[slot] = hi
        data[slot] = move | bound << BOUND_SHIFT | depth << DEPTH_SHIFT | age << AGE_SHIFT
        self.scores[slot] = score
