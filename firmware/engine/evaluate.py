"""Static evaluation: `evaluate(position) -> centipawns` from the side to move's view.

Tapered between middlegame and endgame by the phase (knights and bishops 1, rooks 2, queens
4; 24 at the start, 0 in a pawn ending):

    score = (mg * phase + eg * (24 - phase)) // 24

Terms (all numbers in tunables.py and pesto.py):
- material + piece-square tables: read from the incremental `score_mg`/`score_eg` that
  make/unmake keep (init() installs the tables once);
- pawn structure: doubled, isolated, backward; passed pawns by rank, halved when blocked,
  more when protected, king distances to the stop square, unstoppable passers (square rule)
  when the defender has only pawns;
- bishop pair; rooks on open/half-open files and on the 7th rank;
- light mobility (knights, bishops, rooks: squares not occupied by own pieces);
- king safety (middlegame part only): missing shield pawns, open files at the king, and
  enemy pieces within two squares of it (units by kind, penalty growing with their square);
- endgame knowledge in endgame.py: mating nets for KQK/KRK/KBNK and other bare-king
  endings, draws for insufficient or typically drawn material (KBK, KNK, KNNK, wrong-bishop
  rook pawn, a side without pawns that is less than a rook ahead);
- a small tempo bonus for the side to move.

One scan of the board collects the pawns of each file into per-file rank masks (bit r set
when a pawn stands on rank r), so each pawn term is a few shifts. Scratch buffers are
module-level and preallocated by init(): evaluate() allocates nothing. Scores are small ints
within +-(KNOWN_WIN + 8000), far from the search's mate scores.
"""
from firmware.compat import const
from firmware.engine import endgame
from firmware.engine.tunables import (  # module globals: cheaper than T.X on MicroPython
    BACKWARD_EG,
    BACKWARD_MG,
    BISHOP_MOBILITY,
    BISHOP_PAIR_EG,
    BISHOP_PAIR_MG,
    DOUBLED_EG,
    DOUBLED_MG,
    ISOLATED_EG,
    ISOLATED_MG,
    KING_ATTACK_PENALTY,
    KING_ATTACK_UNITS,
    KING_OPEN_FILE,
    KNIGHT_MOBILITY,
    MOBILITY_BASE_B,
    MOBILITY_BASE_N,
    MOBILITY_BASE_R,
    NO_PAWN_DRAW_DIV,
    PASSED_BLOCKED_DIV,
    PASSED_EG,
    PASSED_KING_DIST,
    PASSED_MG,
    PASSED_PROTECTED_EG,
    PAWN_THREAT_EG,
    PAWN_THREAT_MG,
    ROOK_HALF_OPEN_EG,
    ROOK_HALF_OPEN_MG,
    ROOK_MOBILITY_EG,
    ROOK_MOBILITY_MG,
    ROOK_OPEN_EG,
    ROOK_OPEN_MG,
    ROOK_SEVENTH_EG,
    ROOK_SEVENTH_MG,
    SHIELD_MISSING,
    TEMPO,
    UNSTOPPABLE,
)
from firmware.engine.position import set_piece_square_tables
from firmware.engine.constants import SQUARES

_PHASE_TOTAL = const(24)
_NONE = const(32767)  # endgame.special(): "no special knowledge, evaluate normally"

# Per-file pawn rank masks, index file + 1 (0 and 9 stay empty so f-1 and f+1 always exist).
_WPM = bytearray(10)
_BPM = bytearray(10)
# Occupied squares found by the scan (at most 32).
_OCC = bytearray(32)
# Chebyshev distance between two 0x88 squares, by `a - b + 119`.
DIST = bytearray(239)

_ready = False


def init():
    """Install the piece-square tables in position.py and fill the distance table.
    Idempotent; the Searcher calls it. Positions created before must be rehash()ed.

    The tables (pesto.py, about 4 KB of tuples) are needed only here: afterwards that module
    is dropped from sys.modules, so they are freed (a later import loads it again)."""
    global _ready
    if _ready:
        return
    import sys
    from firmware.engine import pesto as P

    mg_by_kind = [[] for _ in range(7)]  # index 0 (no piece) stays empty
    eg_by_kind = [[] for _ in range(7)]
    for kind in range(1, 7):
        mg = []
        eg = []
        pst_mg = P.PST_MG_BY_KIND[kind]
        pst_eg = P.PST_EG_BY_KIND[kind]
        for sq64 in range(64):
            rank, file = sq64 >> 3, sq64 & 7
            diagram = (7 - rank) * 8 + file  # tables are written rank 8 first
            mg.append(P.MATERIAL_MG[kind] + pst_mg[diagram])
            eg.append(P.MATERIAL_EG[kind] + pst_eg[diagram])
        mg_by_kind[kind] = mg
        eg_by_kind[kind] = eg
    del P, pst_mg, pst_eg
    sys.modules.pop("firmware.engine.pesto", None)
    package = sys.modules.get("firmware.engine")
    if package is not None and "pesto" in package.__dict__:
        delattr(package, "pesto")
    set_piece_square_tables(mg_by_kind, eg_by_kind)
    for df in range(-7, 8):
        for dr in range(-7, 8):
            DIST[dr * 16 + df + 119] = max(abs(df), abs(dr))
    endgame.init()
    _ready = True


def evaluate(position):
    """Centipawns from the side to move's point of view (positive: good for the mover)."""
    c = position.counts
    pw = c[1]
    pb = c[9]
    phase = c[2] + c[3] + c[10] + c[11] + 2 * (c[4] + c[12]) + 4 * (c[5] + c[13])
    if phase > _PHASE_TOTAL:
        phase = _PHASE_TOTAL
    if not pw or not pb or phase <= 2:
        s = endgame.special(position)
        if s != _NONE:
            return s if position.stm == 0 else -s
    mg = position.score_mg
    eg = position.score_eg
    if c[3] >= 2:
        mg += BISHOP_PAIR_MG
        eg += BISHOP_PAIR_EG
    if c[11] >= 2:
        mg -= BISHOP_PAIR_MG
        eg -= BISHOP_PAIR_EG

    b = position.board
    wpm = _WPM
    bpm = _BPM
    occ = _OCC
    dist = DIST
    n = 0
    for sq in SQUARES:
        p = b[sq]
        if p:
            occ[n] = sq
            n += 1
            if p == 1:
                wpm[(sq & 7) + 1] |= 1 << (sq >> 4)
            elif p == 9:
                bpm[(sq & 7) + 1] |= 1 << (sq >> 4)
    wk = position.kings[0]
    bk = position.kings[8]
    w_units = 0  # attack units against the white king
    b_units = 0
    w_pieces = c[2] + c[3] + c[4] + c[5]
    b_pieces = c[10] + c[11] + c[12] + c[13]
    i = 0
    while i < n:
        sq = occ[i]
        i += 1
        p = b[sq]
        kind = p & 7
        f = sq & 7
        r = sq >> 4
        if kind == 1:
            fi = f + 1
            # threats: an enemy knight, bishop, rook or queen on a square this pawn attacks
            # (b[t] ^ p ^ 9 turns the enemy's piece codes into 2..5 for either colour)
            t = sq + 15 if p == 1 else sq - 17
            if not t & 0x88 and 1 < b[t] ^ p ^ 9 < 6:
                mg += PAWN_THREAT_MG if p == 1 else -PAWN_THREAT_MG
                eg += PAWN_THREAT_EG if p == 1 else -PAWN_THREAT_EG
            t += 2
            if not t & 0x88 and 1 < b[t] ^ p ^ 9 < 6:
                mg += PAWN_THREAT_MG if p == 1 else -PAWN_THREAT_MG
                eg += PAWN_THREAT_EG if p == 1 else -PAWN_THREAT_EG
            if p == 1:  # white pawn
                if wpm[fi] >> (r + 1):
                    mg -= DOUBLED_MG
                    eg -= DOUBLED_EG
                elif not ((bpm[fi - 1] | bpm[fi] | bpm[fi + 1]) >> (r + 1)):
                    stop = sq + 16
                    bm = PASSED_MG[r]
                    be = PASSED_EG[r]
                    if b[stop]:
                        bm //= PASSED_BLOCKED_DIV
                        be //= PASSED_BLOCKED_DIV
                    if (not (sq - 15) & 0x88 and b[sq - 15] == 1) or (not (sq - 17) & 0x88 and b[sq - 17] == 1):
                        be += PASSED_PROTECTED_EG * r // 2
                    be += (dist[stop - bk + 119] - dist[stop - wk + 119]) * PASSED_KING_DIST[r]
                    if not b_pieces:
                        moves = 7 - r - (r == 1)
                        kd = dist[(112 | f) - bk + 119] - (position.stm == 8)
                        if kd > moves:
                            be += UNSTOPPABLE
                    mg += bm
                    eg += be
                adj = wpm[fi - 1] | wpm[fi + 1]
                if not adj:
                    mg -= ISOLATED_MG
                    eg -= ISOLATED_EG
                elif not (adj & ((2 << r) - 1)) and (bpm[fi - 1] | bpm[fi + 1]) & (1 << (r + 2)):
                    mg -= BACKWARD_MG
                    eg -= BACKWARD_EG
            else:  # black pawn
                if bpm[fi] & ((1 << r) - 1):
                    mg += DOUBLED_MG
                    eg += DOUBLED_EG
                elif not ((wpm[fi - 1] | wpm[fi] | wpm[fi + 1]) & ((1 << r) - 1)):
                    stop = sq - 16
                    rr = 7 - r
                    bm = PASSED_MG[rr]
                    be = PASSED_EG[rr]
                    if b[stop]:
                        bm //= PASSED_BLOCKED_DIV
                        be //= PASSED_BLOCKED_DIV
                    if (not (sq + 15) & 0x88 and b[sq + 15] == 9) or (not (sq + 17) & 0x88 and b[sq + 17] == 9):
                        be += PASSED_PROTECTED_EG * rr // 2
                    be += (dist[stop - wk + 119] - dist[stop - bk + 119]) * PASSED_KING_DIST[rr]
                    if not w_pieces:
                        moves = 7 - rr - (rr == 1)
                        kd = dist[f - wk + 119] - (position.stm == 0)
                        if kd > moves:
                            be += UNSTOPPABLE
                    mg -= bm
                    eg -= be
                adj = bpm[fi - 1] | bpm[fi + 1]
                if not adj:
                    mg += ISOLATED_MG
                    eg += ISOLATED_EG
                elif not (adj >> r) and r >= 2 and (wpm[fi - 1] | wpm[fi + 1]) & (1 << (r - 2)):
                    mg += BACKWARD_MG
                    eg += BACKWARD_EG
        elif kind == 6:
            continue
        else:
            white = p < 8
            if white:
                if dist[sq - bk + 119] <= 2:
                    b_units += KING_ATTACK_UNITS[kind]
                us = 0
            else:
                if dist[sq - wk + 119] <= 2:
                    w_units += KING_ATTACK_UNITS[kind]
                us = 8
            if kind == 2:
                mob = 0
                for d in (33, 31, 18, 14, -14, -18, -31, -33):
                    t = sq + d
                    if not t & 0x88:
                        q = b[t]
                        if not q or (q & 8) != us:
                            mob += 1
                v = (mob - MOBILITY_BASE_N) * KNIGHT_MOBILITY
                if white:
                    mg += v
                    eg += v
                else:
                    mg -= v
                    eg -= v
            elif kind == 3:
                mob = 0
                for d in (17, 15, -15, -17):
                    t = sq + d
                    while not t & 0x88:
                        q = b[t]
                        if q:
                            if (q & 8) != us:
                                mob += 1
                            break
                        mob += 1
                        t += d
                v = (mob - MOBILITY_BASE_B) * BISHOP_MOBILITY
                if white:
                    mg += v
                    eg += v
                else:
                    mg -= v
                    eg -= v
            elif kind == 4:
                mob = 0
                for d in (16, 1, -1, -16):
                    t = sq + d
                    while not t & 0x88:
                        q = b[t]
                        if q:
                            if (q & 8) != us:
                                mob += 1
                            break
                        mob += 1
                        t += d
                vm = (mob - MOBILITY_BASE_R) * ROOK_MOBILITY_MG
                ve = (mob - MOBILITY_BASE_R) * ROOK_MOBILITY_EG
                fi = f + 1
                if white:
                    if not wpm[fi]:
                        if not bpm[fi]:
                            vm += ROOK_OPEN_MG
                            ve += ROOK_OPEN_EG
                        else:
                            vm += ROOK_HALF_OPEN_MG
                            ve += ROOK_HALF_OPEN_EG
                    if r == 6 and (bk >> 4 == 7 or _any_rank(bpm, 6)):
                        vm += ROOK_SEVENTH_MG
                        ve += ROOK_SEVENTH_EG
                    mg += vm
                    eg += ve
                else:
                    if not bpm[fi]:
                        if not wpm[fi]:
                            vm += ROOK_OPEN_MG
                            ve += ROOK_OPEN_EG
                        else:
                            vm += ROOK_HALF_OPEN_MG
                            ve += ROOK_HALF_OPEN_EG
                    if r == 1 and (wk >> 4 == 0 or _any_rank(wpm, 1)):
                        vm += ROOK_SEVENTH_MG
                        ve += ROOK_SEVENTH_EG
                    mg -= vm
                    eg -= ve

    # King safety (middlegame only: the taper fades it out as pieces come off).
    if phase > 6:
        # Shelter (inlined: a call per king costs more than the loop on MicroPython): each
        # file at the king without an own pawn one or two ranks ahead, more if it has none.
        r = wk >> 4
        if r <= 2:
            shield = (2 << r) | (4 << r)
            f = wk & 7
            i = f if f > 0 else 1  # mask index = file + 1; the board edge has no file
            last = f + 2 if f < 7 else 8
            while i <= last:
                m = wpm[i]
                if not m:
                    mg -= KING_OPEN_FILE + SHIELD_MISSING
                elif not (m & shield):
                    mg -= SHIELD_MISSING
                i += 1
        r = bk >> 4
        if r >= 5:
            shield = (1 << (r - 1)) | (1 << (r - 2))
            f = bk & 7
            i = f if f > 0 else 1
            last = f + 2 if f < 7 else 8
            while i <= last:
                m = bpm[i]
                if not m:
                    mg += KING_OPEN_FILE + SHIELD_MISSING
                elif not (m & shield):
                    mg += SHIELD_MISSING
                i += 1
        if w_units:
            if w_units > 16:
                w_units = 16
            pen = KING_ATTACK_PENALTY[w_units]
            mg -= pen if c[13] else pen >> 1
        if b_units:
            if b_units > 16:
                b_units = 16
            pen = KING_ATTACK_PENALTY[b_units]
            mg += pen if c[5] else pen >> 1

    # Clear the pawn masks for the next call (cheaper than clearing all 20 bytes).
    for f in range(10):
        wpm[f] = 0
        bpm[f] = 0

    score = mg * phase + eg * (_PHASE_TOTAL - phase)
    # divide rounding toward zero, so a colour-mirrored position scores exactly the negation
    score = score // _PHASE_TOTAL if score >= 0 else -((-score) // _PHASE_TOTAL)
    # A side without pawns that is not clearly ahead in pieces rarely wins.
    if score > 0 and not pw:
        if _piece_value(c, 0) - _piece_value(c, 8) < 400:
            score //= NO_PAWN_DRAW_DIV
    elif score < 0 and not pb:
        if _piece_value(c, 8) - _piece_value(c, 0) < 400:
            score = -((-score) // NO_PAWN_DRAW_DIV)
    if position.stm:
        return TEMPO - score
    return score + TEMPO

def _any_rank(masks, rank):
    bit = 1 << rank
    for f in range(1, 9):
        if masks[f] & bit:
            return True
    return False

def _piece_value(c, colour):
    return 320 * (c[colour | 2] + c[colour | 3]) + 500 * c[colour | 4] + 950 * c[colour | 5]
