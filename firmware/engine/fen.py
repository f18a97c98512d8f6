"""FEN parsing with validation, and FEN output.

`set_fen(position, text)` raises FenError (a ValueError) naming the field at fault for every
malformed or illegal FEN, and leaves the position unchanged in that case: it parses into a
scratch board first and only then commits. Checked: six fields (the two clocks may be
omitted, as many tools do), 8 ranks of 8 squares, known piece letters, exactly one king per
side, at most 16 pieces and 8 pawns per side and no more promoted pieces than missing pawns,
no pawns on the first or last rank, side to move, castling rights that match king and rook
squares, an en-passant square that a double pawn push just made possible, numeric clocks,
and the side not to move not in check.
"""
from firmware.engine.constants import FILE_NAMES, PIECE_LETTERS, RANK_NAMES, SQUARES, START_FEN, FenError  # noqa: F401

_CASTLE_CHARS = "KQkq"
# (right bit, king square, rook square, rook piece code) per castling letter.
_CASTLE_NEEDS = {"K": (1, 4, 7, 4), "Q": (2, 4, 0, 4), "k": (4, 116, 119, 12), "q": (8, 116, 112, 12)}


def _parse_board(text):
    ranks = text.split("/")
    if len(ranks) != 8:
        raise FenError("FEN board: expected 8 ranks separated by '/', got %d" % len(ranks))
    board = bytearray(128)
    for i, row in enumerate(ranks):
        rank = 7 - i
        file = 0
        previous_digit = False
        for ch in row:
            if ch in "0123456789":
                if ch in "09":
                    raise FenError("FEN board: bad digit %r in rank %d (empty squares count 1-8)" % (ch, rank + 1))
                if previous_digit:
                    raise FenError("FEN board: two digits in a row in rank %d" % (rank + 1))
                previous_digit = True
                file += ord(ch) - 48
            else:
                previous_digit = False
                code = PIECE_LETTERS.find(ch)
                if code <= 0 or ch == ".":
                    raise FenError("FEN board: unknown piece letter %r in rank %d" % (ch, rank + 1))
                if file > 7:
                    raise FenError("FEN board: rank %d has more than 8 squares" % (rank + 1))
                board[rank * 16 + file] = code
                file += 1
            if file > 8:
                raise FenError("FEN board: rank %d has more than 8 squares" % (rank + 1))
        if file != 8:
            raise FenError("FEN board: rank %d has %d squares, expected 8" % (rank + 1, file))
    return board


def _check_material(board):
    counts = [0] * 16
    for sq in SQUARES:
        counts[board[sq]] += 1
        if board[sq] & 7 == 1 and (sq >> 4) in (0, 7):
            raise FenError("FEN board: pawn on %s (pawns never stand on the first or last rank)" % _name(sq))
    for colour, side in ((0, "White"), (8, "Black")):
        if counts[colour | 6] != 1:
            raise FenError("FEN board: %s has %d kings, expected 1" % (side, counts[colour | 6]))
        pieces = sum(counts[colour | k] for k in range(1, 7))
        if pieces > 16:
            raise FenError("FEN board: %s has %d pieces, at most 16" % (side, pieces))
        pawns = counts[colour | 1]
        if pawns > 8:
            raise FenError("FEN board: %s has %d pawns, at most 8" % (side, pawns))
        extra = (
            max(0, counts[colour | 2] - 2)
            + max(0, counts[colour | 3] - 2)
            + max(0, counts[colour | 4] - 2)
            + max(0, counts[colour | 5] - 1)
        )
        if extra > 8 - pawns:
            raise FenError("FEN board: %s has more promoted pieces than missing pawns" % side)


def _name(sq):
    return FILE_NAMES[sq & 7] + RANK_NAMES[sq >> 4]


def _parse_int(text, field, minimum):
    if not text.isdigit():
        raise FenError("FEN %s: expected a number, got %r" % (field, text))
    value = int(text)
    if value < minimum or value > 9999:
        raise FenError("FEN %s: %d is out of range" % (field, value))
    return value


def set_fen(position, text):
    """Set `position` from FEN `text` (see the module docstring); clears its history."""
    if not isinstance(text, str):
        raise FenError("FEN: expected text, got %r" % (type(text).__name__,))
    fields = text.split()
    if len(fields) not in (4, 5, 6):
        raise FenError("FEN: expected 6 fields (board, side, castling, en passant, clocks), got %d" % len(fields))
    board = _parse_board(fields[0])
    _check_material(board)

    if fields[1] not in ("w", "b"):
        raise FenError("FEN side to move: expected 'w' or 'b', got %r" % fields[1])
    stm = 0 if fields[1] == "w" else 8

    castling = 0
    if fields[2] != "-":
        for ch in fields[2]:
            if ch not in _CASTLE_CHARS:
                raise FenError("FEN castling: unknown letter %r (use KQkq or -)" % ch)
            bit, king_sq, rook_sq, rook = _CASTLE_NEEDS[ch]
            if castling & bit:
                raise FenError("FEN castling: %r given twice" % ch)
            if board[king_sq] != (rook & 8) | 6 or board[rook_sq] != rook:
                raise FenError("FEN castling: right %r needs the king and rook on their home squares" % ch)
            castling |= bit

    ep = 0
    if fields[3] != "-":
        f = fields[3]
        if len(f) != 2 or f[0] not in FILE_NAMES or f[1] not in RANK_NAMES:
            raise FenError("FEN en passant: %r is not a square" % f)
        ep = RANK_NAMES.index(f[1]) * 16 + FILE_NAMES.index(f[0])
        need_rank = 5 if stm == 0 else 2
        pawn_sq = ep - 16 if stm == 0 else ep + 16
        origin = ep + 16 if stm == 0 else ep - 16
        pusher = 9 if stm == 0 else 1
        if ep >> 4 != need_rank:
            raise FenError("FEN en passant: %s is not on rank %d" % (f, need_rank + 1))
        if board[pawn_sq] != pusher or board[ep] or board[origin]:
            raise FenError("FEN en passant: no pawn can just have passed %s" % f)

    halfmove = _parse_int(fields[4], "half-move clock", 0) if len(fields) > 4 else 0
    fullmove = _parse_int(fields[5], "full-move number", 1) if len(fields) > 5 else 1

    # Commit to a scratch copy of the position's state so a failure below changes nothing.
    saved = (bytes(position.board), position.stm, position.castling, position.ep, position.halfmove, position.fullmove)
    position.clear()
    for sq in SQUARES:
        if board[sq]:
            position.put(sq, board[sq])
    position.stm = stm
    position.castling = castling
    position.halfmove = halfmove
    position.fullmove = fullmove
    position.ep = ep if ep and _ep_capture_possible(position, ep) else 0
    position.rehash()
    if position.attacked(position.kings[stm ^ 8], stm):
        _restore(position, saved)
        raise FenError("FEN: the side not to move (%s) is in check" % ("Black" if stm == 0 else "White"))


def _restore(position, saved):
    board, stm, castling, ep, halfmove, fullmove = saved
    position.clear()
    for sq in SQUARES:
        if board[sq]:
            position.put(sq, board[sq])
    position.stm, position.castling, position.ep = stm, castling, ep
    position.halfmove, position.fullmove = halfmove, fullmove
    position.rehash()


def _ep_capture_possible(position, ep):
    """An enemy pawn stands beside the pawn that just moved (the same test as make())."""
    b = position.board
    pawn = position.stm | 1
    victim_sq = ep - 16 if position.stm == 0 else ep + 16
    for s in (victim_sq - 1, victim_sq + 1):
        if not s & 0x88 and b[s] == pawn:
            return True
    return False


def _legal_ep_exists(position):
    from firmware.engine.rules import legal_moves

    for move in legal_moves(position):
        if move >> 17 == 2:
            return True
    return False


def fen(position):
    """The FEN of `position`. The en-passant square is written only when an en-passant capture
    is legal (as python-chess and most GUIs do)."""
    b = position.board
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for file in range(8):
            p = b[rank * 16 + file]
            if p:
                if empty:
                    row += str(empty)
                    empty = 0
                row += PIECE_LETTERS[p]
            else:
                empty += 1
        if empty:
            row += str(empty)
        rows.append(row)
    castling = "".join(ch for ch in _CASTLE_CHARS if position.castling & _CASTLE_NEEDS[ch][0]) or "-"
    ep = _name(position.ep) if position.ep and _legal_ep_exists(position) else "-"
    side = "w" if position.stm == 0 else "b"
    return "%s %s %s %s %d %d" % ("/".join(rows), side, castling, ep, position.halfmove, position.fullmove)
