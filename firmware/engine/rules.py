"""Game rules on top of Position: legal moves, game status, draw rules (perft: perft.py).

These are the questions a controller asks ("is this a legal move?", "is the game over, and
why?"). They may allocate (lists of moves) and are not meant for the search's inner loop,
except `repetitions`, which allocates nothing.

Status codes (`status(position)`), automatic game ends first:
    ONGOING, CHECKMATE, STALEMATE, INSUFFICIENT_MATERIAL, SEVENTYFIVE_MOVES, FIVEFOLD_REPETITION
Claimable draws (`claimable_draw(position)`): FIFTY_MOVES, THREEFOLD_REPETITION, or ONGOING.
"""
from array import array

from firmware.compat import const
from firmware.engine.constants import SQUARES

ONGOING = const(0)
CHECKMATE = const(1)
STALEMATE = const(2)
INSUFFICIENT_MATERIAL = const(3)
SEVENTYFIVE_MOVES = const(4)
FIVEFOLD_REPETITION = const(5)
FIFTY_MOVES = const(6)
THREEFOLD_REPETITION = const(7)

STATUS_NAMES = (
    "ongoing",
    "checkmate",
    "stalemate",
    "insufficient material",
    "75-move rule",
    "fivefold repetition",
    "50-move rule",
    "threefold repetition",
)

MAX_MOVES = const(256)  # room for any position's pseudo-legal moves (the record is 218)

class IllegalMoveError(ValueError):
    """A well-formed move that is not legal in the position."""


# Move buffer shared by legal_moves, has_legal_move and the board sync's inference: each fills
# and reads it within one call that reaches none of the others, and a fresh 1 KB array per call
# fragments a small heap (the controller asks after every move; board sync saves its own 1 KB).
SCRATCH_MOVES = array("i", bytes(4 * MAX_MOVES))


def legal_moves(position, from_sq=-1, to_sq=-1, piece=0):
    """A new list of the legal moves of the side to move; or only those from `from_sq`, to
    `to_sq`, of a `piece` (a piece code): a lifted piece's targets, the rivals SAN must tell
    apart. Only the moves that pass the filter are played to test their legality, so a
    lifted piece costs a few make/unmake pairs, not one per move (~0.6 ms each on an RP2040)."""
    buf = SCRATCH_MOVES
    end = position.gen_moves(buf, 0)
    check = position.in_check()
    board = position.board
    result = []
    for i in range(end):
        move = buf[i]
        if from_sq >= 0 and move & 127 != from_sq:
            continue
        if to_sq >= 0 and (move >> 7) & 127 != to_sq:
            continue
        if piece and board[move & 127] != piece:
            continue
        if position.make_legal(move, check):
            position.unmake()
            result.append(move)
    return result


def has_legal_move(position):
    """True when the side to move has a legal move. Allocates nothing."""
    buf = SCRATCH_MOVES
    end = position.gen_moves(buf, 0)
    check = position.in_check()
    for i in range(end):
        if position.make_legal(buf[i], check):
            position.unmake()
            return True
    return False


def find_move(position, from_sq, to_sq, promotion=0):
    """The legal move from `from_sq` to `to_sq` (0x88), or 0 when there is none.

    `promotion` is a piece kind (KNIGHT..QUEEN); a pawn reaching the last rank with no
    promotion given becomes a queen. This is the primitive a sensor board needs: it knows the
    squares, the engine knows the rules."""
    fallback = 0
    for move in legal_moves(position, from_sq):
        if (move >> 7) & 127 == to_sq:
            promo = (move >> 14) & 7
            if promo == promotion:
                return move
            if promotion == 0 and promo == 5:
                fallback = move
    return fallback


def _side_insufficient(position, colour):
    """Can `colour` never mate, whatever the opponent plays? (python-chess's definition.)"""
    c = position.counts
    if c[colour | 1] or c[colour | 4] or c[colour | 5]:
        return False
    them = colour ^ 8
    if c[colour | 2]:
        # A lone knight mates only with help from enemy pieces other than queens.
        own = c[colour | 2] + c[colour | 3]
        helpers = c[them | 1] + c[them | 2] + c[them | 3] + c[them | 4]
        return own <= 1 and helpers == 0
    if c[colour | 3]:
        # Bishops (of either side) all on one square colour, and no pawns or knights at all.
        if c[1] or c[9] or c[2] or c[10]:
            return False
        light = dark = 0
        b = position.board
        for sq in SQUARES:
            if b[sq] & 7 == 3:
                if ((sq >> 4) + (sq & 7)) & 1:
                    light = 1
                else:
                    dark = 1
        return not (light and dark)
    return True


def is_insufficient_material(position):
    """Neither side can ever mate (K-K, KB-K, KN-K, bishops all on one square colour)."""
    return _side_insufficient(position, 0) and _side_insufficient(position, 8)


def repetitions(position):
    """How many times the current position has occurred (this time included), counting back
    to the last capture or pawn move. Allocates nothing."""
    lo = position.hash_lo
    hi = position.hash_hi
    count = 1
    reach = position.halfmove
    ply = position.ply
    i = ply - 2
    stop = ply - reach
    while i >= 0 and i >= stop:
        if position.hist_lo[i] == lo and position.hist_hi[i] == hi:
            count += 1
        i -= 2
    # Continue into hashes from before the last set_fen (a resumed game).
    if i >= stop:
        j = len(position.prior_lo) + i
        while j >= 0 and i >= stop:
            if position.prior_lo[j] == lo and position.prior_hi[j] == hi:
                count += 1
            j -= 2
            i -= 2
    return count


def status(position):
    """The automatic game-ending status (see module docstring), or ONGOING."""
    if not has_legal_move(position):
        return CHECKMATE if position.in_check() else STALEMATE
    if is_insufficient_material(position):
        return INSUFFICIENT_MATERIAL
    if position.halfmove >= 150:
        return SEVENTYFIVE_MOVES
    if repetitions(position) >= 5:
        return FIVEFOLD_REPETITION
    return ONGOING


def claimable_draw(position):
    """FIFTY_MOVES or THREEFOLD_REPETITION when the side to move may claim a draw now."""
    if position.halfmove >= 100:
        return FIFTY_MOVES
    if repetitions(position) >= 3:
        return THREEFOLD_REPETITION
    return ONGOING
