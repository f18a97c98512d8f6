"""Static exchange evaluation (SEE): what a capture wins or loses once both sides have taken
on its square with every piece that attacks it, cheapest first, each side free to stop.

    see(position, move) -> centipawns for the side making `move` (0 = an even trade)

The search asks only about captures by a piece worth more than its victim (the others cannot
lose material): such a capture goes behind the killer moves in ordering, and quiescence skips
it, when SEE says it loses. Pins are ignored; a piece that moves off a line lets the slider
behind it join (x-rays), because pieces are taken off the board as they capture. A king
captures only when the other side has nothing left to take back with.

The board is changed during the exchange and restored before returning; the scratch arrays
are module-level, so nothing is allocated (the search calls this at every node). The next
capturer comes from position.least_attacker, the engine's one attack function (viper).

Viper machine code: as bytecode one call took ~310 us on the RP2040, 6 % of a node
(bench/pico_profile.py). Its 32-bit gains are kept with a bias (_BIAS + gain >= 0): the 64-bit
unix port reads a 32-bit cell zero-extended where the chips sign-extend, and non-negative
cells read the same on both.
"""
from array import array

from firmware.compat import const, micropython, ptr8, ptr16, ptr32
from firmware.engine.position import least_attacker

# by piece kind: none, pawn, knight, bishop, rook, queen, king (a king "lost" = an illegal move)
SEE_VALUE = (0, 100, 320, 330, 500, 950, 2000)

_EP = const(2)
_KING = const(6)
_MAX_STEPS = const(34)  # at most 32 pieces take part, plus the e.p. victim
_BIAS = const(65536)  # a gain g is stored as _BIAS + g (|g| <= 2 * 2000)

_value = array("H", SEE_VALUE)  # for viper code (a tuple is an object to it)
_gain = array("i", bytes(4 * _MAX_STEPS))
_saved_sq = bytearray(_MAX_STEPS)
_saved_piece = bytearray(_MAX_STEPS)


@micropython.viper
def see(position, move: int) -> int:
    """Material the side making capture `move` ends up with after the exchange on its
    to-square (both sides choosing best, cheapest attacker first); see the module docstring."""
    board = position.board
    b = ptr8(board)
    value = ptr16(_value)
    gain = ptr32(_gain)
    saved_sq = ptr8(_saved_sq)
    saved_piece = ptr8(_saved_piece)
    fr = move & 127
    to = (move >> 7) & 127
    piece = int(b[fr])
    n = 0
    if move >> 17 == _EP:
        victim_sq = to - 16 if piece == 1 else to + 16
        gain[0] = _BIAS + int(value[1])
        saved_sq[n] = victim_sq
        saved_piece[n] = b[victim_sq]
        n += 1
        b[victim_sq] = 0
    else:
        gain[0] = _BIAS + int(value[int(b[to]) & 7])
    saved_sq[n] = fr
    saved_piece[n] = piece
    n += 1
    b[fr] = 0
    on_square = int(value[piece & 7])  # what the next capture on `to` takes
    side = (piece & 8) ^ 8
    depth = 0
    while True:
        s = int(least_attacker(board, to, side))
        if s < 0:
            break
        p = int(b[s])
        if p & 7 == _KING:
            b[s] = 0
            defended = int(least_attacker(board, to, side ^ 8)) >= 0
            b[s] = p
            if defended:
                break
        depth += 1
        # gain[depth] = on_square - gain[depth - 1], both biased
        gain[depth] = 2 * _BIAS + on_square - int(gain[depth - 1])
        on_square = int(value[p & 7])
        saved_sq[n] = s
        saved_piece[n] = p
        n += 1
        b[s] = 0
        side ^= 8
    # each side may stop instead of taking: fold the sequence back from its end
    # (if gain[depth] > -gain[depth - 1]: gain[depth - 1] = -gain[depth], both biased)
    while depth > 0:
        if int(gain[depth]) + int(gain[depth - 1]) > 2 * _BIAS:
            gain[depth - 1] = 2 * _BIAS - int(gain[depth])
        depth -= 1
    while n > 0:
        n -= 1
        b[int(saved_sq[n])] = saved_piece[n]
    return int(gain[0]) - _BIAS
