"""Perft: the leaf nodes of the move tree to a depth, the move generator's proof
(`../shared/reference/perft.md`). For tests, benchmarks and UCI's `go perft`: the board's App
never imports it, so it costs the chip's heap nothing while a game runs.

    perft(position, depth) -> leaves        perft_divide(position, depth) -> [(move, leaves)]
"""
from array import array

from firmware.engine.rules import MAX_MOVES, legal_moves

# One scratch buffer per perft depth, allocated when first needed.
_perft_buffers = []


def perft(position, depth):
    """Count leaf nodes `depth` plies deep, making and unmaking every move (no bulk counting,
    so it measures make/unmake speed too). Allocation-free once the buffers for this depth
    exist (call once with the same depth to warm up before a heap_lock)."""
    while len(_perft_buffers) < depth + 1:
        _perft_buffers.append(array("i", bytes(4 * MAX_MOVES)))
    return _perft(position, depth)


def _perft(position, depth):
    if depth == 0:
        return 1
    buf = _perft_buffers[depth]
    end = position.gen_moves(buf, 0)
    check = position.in_check()
    total = 0
    for i in range(end):
        if position.make_legal(buf[i], check):
            total += 1 if depth == 1 else _perft(position, depth - 1)
            position.unmake()
    return total


def release_perft_buffers():
    """Let perft's buffers go (after a UCI `go perft` on a board: kept, they would split the
    free heap where a later search wants its tables in one piece). The next perft allocates
    them again."""
    del _perft_buffers[:]


def perft_divide(position, depth):
    """[(move, count)] for each legal root move (allocates)."""
    result = []
    for move in legal_moves(position):
        position.make(move)
        result.append((move, perft(position, depth - 1) if depth > 1 else 1))
        position.unmake()
    return result
