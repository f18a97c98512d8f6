"""Move notation written: UCI (`e2e4`, `e7e8q`) and SAN (`Nbd7`, `exd6`, `O-O`, `e8=Q#`), for
the display, the game record and the protocols. Reading is uci_parse.py and san_parse.py,
which only the protocols and the host's tools load, so their code stays off the board's heap.
These allocate and are not for the search loop.
"""
from firmware.engine.constants import FILE_NAMES, RANK_NAMES, square_name
from firmware.engine.rules import has_legal_move, legal_moves

PROMO_LETTERS = "..nbrq"  # index by kind
SAN_PIECES = "..NBRQK"


def uci(move):
    """Move -> UCI text ('e2e4', 'e7e8q', castling as the king's move 'e1g1'); '0000' for none."""
    if not move:
        return "0000"
    text = square_name(move & 127) + square_name((move >> 7) & 127)
    promo = (move >> 14) & 7
    if promo:
        text += PROMO_LETTERS[promo]
    return text


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
                text += "=" + SAN_PIECES[promo]
        else:
            text = SAN_PIECES[kind]
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
