"""Reading SAN (`Nbd7`, `exd6`, `O-O`, `e8=Q#`) into the legal move it names: for the host's
tools (terminal UI, benchmarks, tests, book building). The board's App never imports it, so
its code costs the chip's heap nothing (writing SAN, `notation.san`, stays resident).

Raises MoveSyntaxError (uci_parse.py) for text that is not a move, IllegalMoveError (rules.py)
for a move that is not legal here, AmbiguousMoveError for a SAN that fits several legal
moves. All derive from ValueError.
"""
from firmware.engine.constants import FILE_NAMES, RANK_NAMES, parse_square
from firmware.engine.notation import SAN_PIECES
from firmware.engine.uci_parse import MoveSyntaxError
from firmware.engine.rules import IllegalMoveError, legal_moves


class AmbiguousMoveError(ValueError):
    """A SAN move that several legal moves fit."""


def parse_san(position, text):
    """SAN text -> the legal move. Accepts common variants: 0-0, e8Q, e8=Q, trailing +#!?,
    and a redundant 'x' or disambiguation."""
    if not isinstance(text, str):
        raise MoveSyntaxError("not a SAN move: %r" % (text,))
    s = text.strip()
    while s and s[-1] in "+#!?":
        s = s[:-1]
    if not s:
        raise MoveSyntaxError("empty SAN move")
    moves = legal_moves(position)
    if s in ("O-O", "0-0", "O-O-O", "0-0-0"):
        long_side = len(s) == 5
        for move in moves:
            if move >> 17 == 3 and ((move >> 7) & 127 < (move & 127)) == long_side:
                return move
        raise IllegalMoveError("castling %s is not legal here" % text)
    promo = 0
    if "=" in s:
        s, _, p = s.partition("=")
        promo = SAN_PIECES.find(p.upper()) if len(p) == 1 else -1
        if promo < 2 or promo > 5:
            raise MoveSyntaxError("bad promotion in %r" % text)
    elif len(s) >= 3 and s[-1] in "NBRQ" and s[-2] in RANK_NAMES:
        promo = SAN_PIECES.find(s[-1])
        s = s[:-1]
    kind = 1
    if s and s[0] in "NBRQK":
        kind = SAN_PIECES.find(s[0])
        s = s[1:]
    if len(s) < 2:
        raise MoveSyntaxError("not a SAN move: %r" % text)
    try:
        to = parse_square(s[-2:])
    except ValueError:
        raise MoveSyntaxError("not a SAN move: %r" % text)
    hint = s[:-2].replace("x", "")
    from_file = from_rank = -1
    for ch in hint:
        if ch in FILE_NAMES and from_file < 0:
            from_file = FILE_NAMES.index(ch)
        elif ch in RANK_NAMES and from_rank < 0:
            from_rank = RANK_NAMES.index(ch)
        else:
            raise MoveSyntaxError("not a SAN move: %r" % text)
    if kind == 1 and promo == 0 and to >> 4 in (0, 7):
        raise MoveSyntaxError("pawn move to the last rank needs a promotion piece: %r" % text)
    found = []
    for move in moves:
        fr = move & 127
        if (move >> 7) & 127 != to or position.board[fr] & 7 != kind or (move >> 14) & 7 != promo:
            continue
        if move >> 17 == 3:
            continue  # castling only through O-O
        if from_file >= 0 and fr & 7 != from_file:
            continue
        if from_rank >= 0 and fr >> 4 != from_rank:
            continue
        found.append(move)
    if not found:
        raise IllegalMoveError("illegal move %s in this position" % text)
    if len(found) > 1:
        raise AmbiguousMoveError("ambiguous move %s" % text)
    return found[0]
