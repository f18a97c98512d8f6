"""Reading UCI move text (`e2e4`, `e7e8q`, castling as the king's move `e1g1`) into the legal
move it names: for the UCI engine, the online play and the host's tools. The board's App never
imports it, so its code costs the chip's heap nothing (writing a move, `notation.uci`, stays
resident).

parse_uci returns a legal move of the position or raises: MoveSyntaxError for text that is not
a move at all, IllegalMoveError (rules.py) for a well-formed move that is not legal here. Both
derive from ValueError.
"""
from firmware.engine.constants import parse_square
from firmware.engine.notation import PROMO_LETTERS
from firmware.engine.rules import IllegalMoveError, legal_moves


class MoveSyntaxError(ValueError):
    """Text that is not a move in the expected notation."""


def parse_uci(position, text):
    """UCI text -> the legal move it names. Raises MoveSyntaxError / IllegalMoveError."""
    if not isinstance(text, str) or len(text) not in (4, 5):
        raise MoveSyntaxError("not a UCI move: %r" % (text,))
    try:
        fr = parse_square(text[0:2])
        to = parse_square(text[2:4])
    except ValueError:
        raise MoveSyntaxError("not a UCI move: %r" % (text,))
    promo = 0
    if len(text) == 5:
        promo = PROMO_LETTERS.find(text[4])
        if promo < 2:
            raise MoveSyntaxError("bad promotion piece in %r (use n, b, r or q)" % (text,))
    for move in legal_moves(position, fr):
        if (move >> 7) & 127 == to and (move >> 14) & 7 == promo:
            return move
    raise IllegalMoveError("illegal move %s in this position" % text)
