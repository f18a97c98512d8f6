"""Move notation: UCI (`e2e4`, `e7e8q`) and SAN (`Nbd7`, `exd6`, `O-O`, `e8=Q#`).

Parsers return a legal move of the position or raise: MoveSyntaxError for text that is not a
move at all, IllegalMoveError (from rules) for a well-formed move that is not legal here,
AmbiguousMoveError for a SAN that fits several legal moves. All derive from ValueError.
These allocate and are meant for protocol, display and PGN, not for the search loop.
"""
from firmware.engine.constants import FILE_NAMES, RANK_NAMES, parse_square, square_name
from firmware.engine.rules import IllegalMoveError, has_legal_move, legal_moves

_PROMO_LETTERS = "..nbrq"  # index by kind
_SAN_PIECES = "..NBRQK"


class MoveSyntaxError(ValueError):
    """Text that is not a move in the expected notation."""


class AmbiguousMoveError(ValueError):
    """A SAN move that several legal moves fit."""


def uci(move):
    """Move -> UCI text ('e2e4', 'e7e8q', castling as the king's move 'e1g1'); '0000' for none."""
    if not move:
        return "0000"
    text = square_name(move & 127) + square_name((move >> 7) & 127)
    promo = (move >> 14) & 7
    if promo:
        text += _PROMO_LETTERS[promo]
    return text


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
        promo = _PROMO_LETTERS.find(text[4])
        if promo < 2:
            raise MoveSyntaxError("bad promotion piece in %r (use n, b, r or q)" % (text,))
    for move in legal_moves(position, fr):
        if (move >> 7) & 127 == to and (move >> 14) & 7 == promo:
            return move
    raise IllegalMoveError("illegal move %s in this position" % text)


def san(position, move):
    """The SAN of a legal move in `position`, with + or # (position is left unchanged)."""
    fr = move & 127
    to = (move >> 7) & 127
    piece = position.board[fr]
    kind = piece & 7
    special = move >> 17
    if special == 3:
        text = "O-O" if to > fr else "O-O-O"
    else:
        capture = position.board[to] != 0 or special == 2
        if kind == 1:
            text = (FILE_NAMES[fr & 7] + "x" if capture else "") + square_name(to)
            promo = (move >> 14) & 7
            if promo:
                text += "=" + _SAN_PIECES[promo]
        else:
            text = _SAN_PIECES[kind]
            # Disambiguate by file, then rank, then both (FIDE order).
            rivals = [m for m in legal_moves(position, -1, to, piece) if m & 127 != fr]
            if rivals:
                same_file = any((m & 127) & 7 == fr & 7 for m in rivals)
                same_rank = any((m & 127) >> 4 == fr >> 4 for m in rivals)
                if not same_file:
                    text += FILE_NAMES[fr & 7]
                elif not same_rank:
                    text += RANK_NAMES[fr >> 4]
                else:
                    text += square_name(fr)
            if capture:
                text += "x"
            text += square_name(to)
    position.make(move)
    if position.in_check():
        text += "+" if has_legal_move(position) else "#"
    position.unmake()
    return text


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
        promo = _SAN_PIECES.find(p.upper()) if len(p) == 1 else -1
        if promo < 2 or promo > 5:
            raise MoveSyntaxError("bad promotion in %r" % text)
    elif len(s) >= 3 and s[-1] in "NBRQ" and s[-2] in RANK_NAMES:
        promo = _SAN_PIECES.find(s[-1])
        s = s[:-1]
    kind = 1
    if s and s[0] in "NBRQK":
        kind = _SAN_PIECES.find(s[0])
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
