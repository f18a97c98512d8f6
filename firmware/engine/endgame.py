"""Endgame knowledge: mating nets against a bare king and recognised draws.

`special(position)` returns a score from White's point of view, or 32767 ("none") when it has
nothing to say and the normal evaluation applies. It is called only when a side has no pawns
or almost no pieces remain, so the board scans here cost nothing in the middlegame.

- Bare king against mating material (KQK, KRK, KBBK, KBNK, and any extra pieces or pawns):
  KNOWN_WIN + the endgame material and piece-square sum + a mop-up term that drives the lone
  king to the edge (to the bishop's corner in KBNK) and brings the kings together. The
  search then finds the mate; the 50-move rule is handled by the search. With a rook or a
  queen, material alone instead of the sum: the tables' endgame king wants the centre, and
  that pull was as strong as the mop-up's pull toward the lone king (8 cp a step), so a
  400-node search let its king stand off and shuffled the queen
  (tests/test_search_endgames.py). The minor pieces keep their tables: KBNK needs its
  pieces' squares, and a pawn beside them its advance.
- Draws: no mating material on either side (KK, KBK, KNK, KNNK, minor vs minor), and a
  rook's pawn with the wrong-coloured bishop when the defending king reaches the corner.
"""
from firmware.compat import const
from firmware.engine.tunables import KNOWN_WIN, MOPUP_CLOSE, MOPUP_EDGE

_NONE = const(32767)
# Manhattan distance of each 0x88 square from the four centre squares (0..6), and from the
# nearest dark corner (a1/h8) and light corner (h1/a8), all indexed by the 0x88 square.
CENTRE_DIST = bytearray(128)
DARK_CORNER_DIST = bytearray(128)
LIGHT_CORNER_DIST = bytearray(128)


def init():
    for r in range(8):
        for f in range(8):
            sq = r * 16 + f
            CENTRE_DIST[sq] = (3 - f if f < 4 else f - 4) + (3 - r if r < 4 else r - 4)
            DARK_CORNER_DIST[sq] = min(f + r, (7 - f) + (7 - r))
            LIGHT_CORNER_DIST[sq] = min((7 - f) + r, f + (7 - r))


def _manhattan(a, b):
    df = (a & 7) - (b & 7)
    dr = (a >> 4) - (b >> 4)
    return (df if df > 0 else -df) + (dr if dr > 0 else -dr)


def special(position):
    c = position.counts
    w_pawns = c[1]
    b_pawns = c[9]
    w_minor = c[2] + c[3]
    b_minor = c[10] + c[11]
    w_major = c[4] + c[5]
    b_major = c[12] + c[13]
    w_bare = not (w_pawns or w_minor or w_major)
    b_bare = not (b_pawns or b_minor or b_major)
    if not w_pawns and not b_pawns and not w_major and not b_major:
        if w_minor <= 1 and b_minor <= 1:
            return 0  # KK, KmK, KmKm
        if (b_bare and c[3] == 0 and c[2] == 2) or (w_bare and c[11] == 0 and c[10] == 2):
            return 0  # KNNK cannot be forced
    if b_bare and not w_bare:
        return _bare_king(position, 0)
    if w_bare and not b_bare:
        return -_bare_king(position, 8)
    return _NONE


def _bare_king(position, strong):
    """Score for the `strong` side (0 or 8) against a lone king, from its own view."""
    c = position.counts
    pawns = c[strong | 1]
    knights = c[strong | 2]
    bishops = c[strong | 3]
    majors = c[strong | 4] + c[strong | 5]
    if majors:  # material only: see the module's docstring
        eg = 100 * pawns + 300 * (knights + bishops) + 500 * c[strong | 4] + 900 * c[strong | 5]
    else:  # minor pieces: their squares matter for the mate (KBNK), pawns must advance
        eg = position.score_eg if strong == 0 else -position.score_eg
    weak_king = position.kings[strong ^ 8]
    strong_king = position.kings[strong]
    if not majors and not pawns:
        if knights + bishops < 2 or (bishops == 0 and knights == 2):
            return 0
        if bishops == 1 and knights == 1:
            # KBNK: only the corners of the bishop's colour can be mated in.
            bsq = _find(position, strong | 3)
            light = ((bsq >> 4) + (bsq & 7)) & 1
            corner = LIGHT_CORNER_DIST[weak_king] if light else DARK_CORNER_DIST[weak_king]
            return (
                KNOWN_WIN
                + eg
                + 3 * MOPUP_EDGE * (7 - corner)
                + MOPUP_EDGE * CENTRE_DIST[weak_king]
                + MOPUP_CLOSE * (14 - _manhattan(strong_king, weak_king))
            )
    if not majors and pawns and knights + bishops <= 1:
        draw = _wrong_bishop(position, strong, bishops)
        if draw:
            return 0
        return _NONE if strong == 0 else -_NONE  # pawn endings: the normal evaluation
    close = 14 - _manhattan(strong_king, weak_king)
    return KNOWN_WIN + eg + MOPUP_EDGE * CENTRE_DIST[weak_king] + MOPUP_CLOSE * close


def _find(position, piece):
    b = position.board
    for r in range(8):
        for f in range(8):
            sq = r * 16 + f
            if b[sq] == piece:
                return sq
    return 0


def _wrong_bishop(position, strong, bishops):
    """Rook's pawns only, (no bishop or) a bishop that does not control the promotion square,
    and the lone king on or next to that square: a dead draw."""
    b = position.board
    pawn = strong | 1
    pawn_file = -1
    for r in range(1, 7):
        for f in range(8):
            if b[r * 16 + f] == pawn:
                if f != 0 and f != 7:
                    return False
                if pawn_file >= 0 and f != pawn_file:
                    return False
                pawn_file = f
    promo = (112 if strong == 0 else 0) | pawn_file
    if bishops:
        bsq = _find(position, strong | 3)
        if ((bsq >> 4) + (bsq & 7)) & 1 == ((promo >> 4) + (promo & 7)) & 1:
            return False  # the right bishop
    elif position.counts[strong | 2]:
        return False
    weak = position.kings[strong ^ 8]
    df = (weak & 7) - (promo & 7)
    dr = (weak >> 4) - (promo >> 4)
    return -1 <= df <= 1 and -1 <= dr <= 1
