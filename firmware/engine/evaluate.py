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
- light mobility (knights, bishops, rooks: squares not occupied by own pieces and not
  attacked by an enemy pawn);
- threats: a pawn attacking a knight, bishop, rook or queen; a knight or bishop attacking a
  rook or queen; a rook attacking a queen; a knight, bishop or rook attacking a knight or
  bishop that no pawn guards (found on the mobility walk's last square); a king next to an
  enemy piece or pawn that no pawn of its side guards and its own king does not stand next
  to (once per king);
- king safety (middlegame part only): open files at the king, and
  its attackers (units by kind, penalty growing with their square): enemy pieces within two
  squares of it, and knights, bishops and rooks whose mobility walk reaches a square next to it;
- endgame knowledge in endgame.py: mating nets for KQK/KRK/KBNK and other bare-king
  endings, draws for insufficient or typically drawn material (KBK, KNK, KNNK, wrong-bishop
  rook pawn, a side without pawns that is less than a rook ahead);
- a small tempo bonus for the side to move.

One scan of the board collects the pawns of each file into per-file rank masks (bit r set
when a pawn stands on rank r), so each pawn term is a few shifts. Scratch buffers are
module-level and preallocated by init(): evaluate() allocates nothing. Scores are small ints
within +-(KNOWN_WIN + 8000), far from the search's mate scores.
"""
from array import array

from firmware.compat import const, micropython, ptr8, ptr16
from firmware.engine import endgame
from firmware.engine.tunables import NO_PAWN_DRAW_DIV, TEMPO
from firmware.engine.position import ATTACK_STEPS

_PHASE_TOTAL = const(24)
_NONE = const(32767)  # endgame.special(): "no special knowledge, evaluate normally"

# The tunables _terms() reads, packed into one array of unsigned 16-bit numbers (all are >= 0)
# by pack_terms(): viper code reads an array element as a machine integer, where a module
# global would be a dictionary lookup and an object. Offsets of the scalars, then the tables.
_T_BISHOP_PAIR_MG = const(0)  # the scalars first: small offsets make short machine code
_T_BISHOP_PAIR_EG = const(1)
_T_DOUBLED_MG = const(2)
_T_DOUBLED_EG = const(3)
_T_ISOLATED_MG = const(4)
_T_ISOLATED_EG = const(5)
_T_BACKWARD_MG = const(6)
_T_BACKWARD_EG = const(7)
_T_PASSED_PROTECTED_EG = const(8)
_T_PASSED_BLOCKED_DIV = const(9)
_T_PAWN_THREAT_MG = const(10)
_T_PAWN_THREAT_EG = const(11)
_T_UNSTOPPABLE = const(12)
_T_ROOK_OPEN_MG = const(13)
_T_ROOK_OPEN_EG = const(14)
_T_ROOK_HALF_OPEN_MG = const(15)
_T_ROOK_HALF_OPEN_EG = const(16)
_T_ROOK_SEVENTH_MG = const(17)
_T_ROOK_SEVENTH_EG = const(18)
_T_KNIGHT_MOBILITY = const(19)
_T_MOBILITY_BASE_N = const(20)
_T_BISHOP_MOBILITY = const(21)
_T_MOBILITY_BASE_B = const(22)
_T_ROOK_MOBILITY_MG = const(23)
_T_ROOK_MOBILITY_EG = const(24)
_T_MOBILITY_BASE_R = const(25)
_T_KING_OPEN_FILE = const(26)
_T_THREAT_MG = const(27)  # 2 entries: by a minor piece, by a rook
_T_THREAT_EG = const(29)
_T_PASSED_MG = const(31)  # 8 entries, by rank
_T_PASSED_EG = const(39)
_T_PASSED_KING_DIST = const(47)
_T_KING_ATTACK_UNITS = const(55)  # 7 entries, by kind
_T_KING_ATTACK_PENALTY = const(62)  # 17 entries, by units
_T_WEAK_MG = const(79)  # 2 entries: a weak knight or bishop attacked by a minor, by a rook
_T_WEAK_EG = const(81)
_T_KING_THREAT_MG = const(83)
_T_KING_THREAT_EG = const(84)
_T_SIZE = const(85)
_TERMS = array("H", bytes(2 * _T_SIZE))


def pack_terms(T=None):
    """Copy the evaluation's tunables from tunables.py (or the module T a tuner changed; init()
    drops tunables.py from sys.modules, so a later import is a fresh copy) into _TERMS.
    The packing lives in terms.py, loaded for the call and dropped after it: it runs at import
    and for tuners, so its code does not stay in a board's heap."""
    from firmware.loader import call  # (here, not at the top: no global entry in this big module)

    call("firmware.engine.terms", "pack", _TERMS, T)


# Per-file pawn rank masks, index file + 1 (0 and 9 stay empty so f-1 and f+1 always exist):
# White's pawns (bit r set when one stands on rank r), Black's from _M_BLACK, and both again
# mirrored (bit 7 - r) from _M_MIRRORED, so Black's pawns read like White's from Black's side.
_M_BLACK = const(10)
_M_MIRRORED = const(20)
_M_SIZE = const(40)
_PAWN_MASKS = bytearray(_M_SIZE)
# Occupied squares found by the scan (at most 32).
_OCC = bytearray(32)
# Chebyshev distance between two 0x88 squares, by `a - b + 119`.
DIST = bytearray(239)

_ready = False


def init():
    """Install the piece-square tables in position.py and fill the distance table.
    Idempotent; the Searcher calls it. Positions created before must be rehash()ed.

    The tables (pesto.py, about 4 KB of tuples) are needed only here, and tunables.py (its
    dictionary and tuples, about 1 KB on a 32-bit board) only while the engine's modules import:
    its values are in _TERMS and in the modules that imported them by now. Both modules are
    dropped from sys.modules, so they are freed (a later import loads a fresh copy)."""
    global _ready
    if _ready:
        return
    from firmware.loader import call, drop_unused

    call("firmware.engine.pesto", "install")
    drop_unused("firmware.engine.tunables")
    for df in range(-7, 8):
        for dr in range(-7, 8):
            DIST[dr * 16 + df + 119] = max(abs(df), abs(dr))
    endgame.init()
    _ready = True


def evaluate(position):
    """Centipawns from the side to move's point of view (positive: good for the mover)."""
    score = _terms(position, 0)
    if score == _NONE:  # a side without pawns, or little material: endgame.py may know it
        score = endgame.special(position)
        if score != _NONE:
            return score if position.stm == 0 else -score
        score = _terms(position, 1)  # White's view, tempo not added
        # A side without pawns that is not clearly ahead in pieces rarely wins.
        c = position.counts
        if score > 0 and not c[1]:
            if _piece_value(c, 0) - _piece_value(c, 8) < 400:
                score //= NO_PAWN_DRAW_DIV
        elif score < 0 and not c[9]:
            if _piece_value(c, 8) - _piece_value(c, 0) < 400:
                score = -((-score) // NO_PAWN_DRAW_DIV)
        return TEMPO - score if position.stm else score + TEMPO
    return score


def _piece_value(c, colour):
    return 320 * (c[colour | 2] + c[colour | 3]) + 500 * c[colour | 4] + 950 * c[colour | 5]


@micropython.viper
def _terms(position, known: int) -> int:
    """The evaluation, side to move's view: the terms beyond material and piece-square
    tables, the incremental sums added, tapered by the phase, and the tempo. Returns _NONE
    instead when `known` is 0 and endgame.py's knowledge may apply (a side without pawns, or
    at most a rook's worth of pieces on the board): evaluate() asks it, then calls again with
    `known` 1 for White's view without the tempo, and finishes that rare case itself.

    Viper, because as bytecode this is a third of a node's time on the chip (and the
    tapering around it, as bytecode, another quarter of an evaluation): machine
    integers, raw pointers into the board and into _TERMS (the tunables packed by
    pack_terms()), no Python object per square. Each piece's terms are computed once from
    its own side's view (ranks counted from its side, the pawn masks mirrored for Black) and
    added or subtracted at the end: half the machine code of two colour branches, which
    matters because a stock Pico loads machine code into its heap. The same function runs
    unchanged as plain Python (CPython, bytecode builds) with the same result: no chained
    comparisons, and the only divisions are of non-negative numbers."""
    b = ptr8(position.board)
    c = ptr8(position.counts)
    phase = int(c[2]) + int(c[3]) + int(c[10]) + int(c[11]) + 2 * (int(c[4]) + int(c[12])) + 4 * (
        int(c[5]) + int(c[13]))
    if phase > _PHASE_TOTAL:
        phase = _PHASE_TOTAL
    if not known:
        if int(c[1]) == 0 or int(c[9]) == 0 or phase <= 2:
            return _NONE
    kings = ptr8(position.kings)
    t = ptr16(_TERMS)
    masks = ptr8(_PAWN_MASKS)
    dist = ptr8(DIST)
    steps = ptr8(ATTACK_STEPS)  # knight 0..7, rook 16..19, bishop 20..23 (position.py)
    occ = ptr8(_OCC)
    stm = int(position.stm)
    mg = 0
    eg = 0
    # One scan: the occupied squares, and each file's pawns as rank masks (see _PAWN_MASKS).
    n = 0
    sq = 0
    while sq < 128:
        if sq & 8:
            sq += 8
            continue
        p = int(b[sq])
        if p:
            occ[n] = sq
            n += 1
            if p & 7 == 1:
                i = (sq & 7) + 1 + (0 if p == 1 else _M_BLACK)
                masks[i] |= 1 << (sq >> 4)
                masks[i + _M_MIRRORED] |= 128 >> (sq >> 4)
        sq += 1
    # attack units near each king, by the colour of the king (0 white, 8 black)
    units_w = 0
    units_b = 0
    # the first promotion of an unstoppable passer: the ply it comes on x 16 + its colour
    race = 9999
    # pieces the enemy king attacks (bit 0: White's, bit 1: Black's)
    king_threats = 0
    i = 0
    while i < n:
        sq = int(occ[i])
        i += 1
        p = int(b[sq])
        kind = p & 7
        if kind == 6:
            continue
        f = sq & 7
        fi = f + 1
        if p < 8:  # the side's view: own/enemy masks, its ranks, its kings, forward
            r = sq >> 4
            own = 0
            opp = _M_BLACK
            king = int(kings[0])
            enemy_king = int(kings[8])
            fwd = 16
        else:
            r = 7 - (sq >> 4)
            own = _M_BLACK + _M_MIRRORED
            opp = _M_MIRRORED
            king = int(kings[8])
            enemy_king = int(kings[0])
            fwd = -16
        vm = 0
        ve = 0
        # next to the enemy king, not to its own, and no own pawn guards it (none on a file
        # beside it one rank behind, read from the pawn masks): the enemy king can take it
        if int(dist[sq - enemy_king + 119]) == 1 and int(dist[sq - king + 119]) > 1:
            if not (((int(masks[own + fi - 1]) | int(masks[own + fi + 1])) << 1) & (1 << r)):
                king_threats |= 1 + (p >> 3)
        if kind == 1:
            # threats: an enemy knight, bishop, rook or queen on a square this pawn attacks
            # (b[s] ^ p ^ 9 turns the enemy's piece codes into 2..5 for either colour)
            s = sq + fwd - 1
            while s <= sq + fwd + 1:
                if not (s & 0x88):
                    e = int(b[s]) ^ p ^ 9
                    if e > 1 and e < 6:
                        vm += int(t[_T_PAWN_THREAT_MG])
                        ve += int(t[_T_PAWN_THREAT_EG])
                s += 2
            if int(masks[own + fi]) >> (r + 1):  # an own pawn ahead on the file
                vm -= int(t[_T_DOUBLED_MG])
                ve -= int(t[_T_DOUBLED_EG])
            elif not ((int(masks[opp + fi - 1]) | int(masks[opp + fi]) | int(masks[opp + fi + 1])) >> (r + 1)):
                stop = sq + fwd  # passed
                bm = int(t[_T_PASSED_MG + r])
                be = int(t[_T_PASSED_EG + r])
                if b[stop]:
                    bm //= int(t[_T_PASSED_BLOCKED_DIV])
                    be //= int(t[_T_PASSED_BLOCKED_DIV])
                e = 0  # guarded by an own pawn
                s = sq - fwd - 1
                while s <= sq - fwd + 1:
                    if not (s & 0x88) and int(b[s]) == p:
                        e = 1
                    s += 2
                if e:
                    be += int(t[_T_PASSED_PROTECTED_EG]) * r // 2
                e = int(dist[stop - enemy_king + 119]) - int(dist[stop - king + 119])
                be += e * int(t[_T_PASSED_KING_DIST + r])
                e = (p & 8) ^ 8  # the enemy's colour
                if not (int(c[e | 2]) + int(c[e | 3]) + int(c[e | 4]) + int(c[e | 5])):
                    # the enemy has only pawns: won the race by the square rule?
                    moves = 7 - r - (1 if r == 1 else 0)
                    kd = int(dist[(112 if p < 8 else 0) + f - enemy_king + 119]) - (1 if stm != p & 8 else 0)
                    if kd > moves:  # unstoppable: see the race below
                        e = (moves << 5) - ((((stm ^ p) & 8) ^ 8) << 1) + (p & 8)
                        if e < race:
                            race = e
                vm += bm
                ve += be
            adj = int(masks[own + fi - 1]) | int(masks[own + fi + 1])
            if not adj:
                vm -= int(t[_T_ISOLATED_MG])
                ve -= int(t[_T_ISOLATED_EG])
            elif not (adj & ((2 << r) - 1)) and (int(masks[opp + fi - 1]) | int(masks[opp + fi + 1])) & (1 << (r + 2)):
                vm -= int(t[_T_BACKWARD_MG])  # no own pawn beside or behind, an enemy pawn guards the stop
                ve -= int(t[_T_BACKWARD_EG])
        else:
            # an attacker of the enemy king: within two squares of it, or reaching a square
            # next to it (found on the mobility walk)
            near = 1 if int(dist[sq - enemy_king + 119]) <= 2 else 0
            # mobility: squares reached that do not hold an own piece and that no enemy pawn
            # attacks (steps from a byte table, > 127 meaning negative: ATTACK_STEPS; an
            # enemy pawn attacking s stands on s + fwd +- 1)
            mob = 0
            us = p & 8
            enemy_pawn = us ^ 9
            if kind != 5:
                # knight 0..7 (one step each), bishop 20..23, rook 16..19 (sliding)
                j = 0 if kind == 2 else (20 if kind == 3 else 16)
                last = j + (8 if kind == 2 else 4)
                while j < last:
                    d = int(steps[j])
                    if d > 127:
                        d -= 256
                    s = sq + d
                    while not (s & 0x88):
                        q = int(b[s])
                        if q and (q & 8) == us:
                            break  # an own piece: no square to go to, nothing to test
                        e = s + fwd - 1
                        safe = 1
                        if not (e & 0x88) and int(b[e]) == enemy_pawn:
                            safe = 0
                        e += 2
                        if not (e & 0x88) and int(b[e]) == enemy_pawn:
                            safe = 0
                        mob += safe
                        if not near and int(dist[s - enemy_king + 119]) <= 1:
                            near = 1
                        if q:
                            # threats: a minor on a rook or queen, a rook on a queen
                            # (a king is not one; kind >> 2: 0 for a minor, 1 for a rook)
                            e = q & 7
                            if (e & 6) == 4 and e > kind:
                                vm += int(t[_T_THREAT_MG + (kind >> 2)])
                                ve += int(t[_T_THREAT_EG + (kind >> 2)])
                            elif safe and e > 1 and e < 4:
                                # a knight or bishop no pawn guards ("safe": no pawn of
                                # its side attacks its square), attacked by a minor or rook
                                vm += int(t[_T_WEAK_MG + (kind >> 2)])
                                ve += int(t[_T_WEAK_EG + (kind >> 2)])
                            break
                        if kind == 2:
                            break
                        s += d
                    j += 1
                if kind == 2:
                    e = (mob - int(t[_T_MOBILITY_BASE_N])) * int(t[_T_KNIGHT_MOBILITY])
                    vm += e
                    ve += e
                elif kind == 3:
                    e = (mob - int(t[_T_MOBILITY_BASE_B])) * int(t[_T_BISHOP_MOBILITY])
                    vm += e
                    ve += e
                else:
                    vm += (mob - int(t[_T_MOBILITY_BASE_R])) * int(t[_T_ROOK_MOBILITY_MG])
                    ve += (mob - int(t[_T_MOBILITY_BASE_R])) * int(t[_T_ROOK_MOBILITY_EG])
                    if not masks[own + fi]:
                        if not masks[opp + fi]:
                            vm += int(t[_T_ROOK_OPEN_MG])
                            ve += int(t[_T_ROOK_OPEN_EG])
                        else:
                            vm += int(t[_T_ROOK_HALF_OPEN_MG])
                            ve += int(t[_T_ROOK_HALF_OPEN_EG])
                    if r == 6:  # on the 7th with the enemy king on the 8th or enemy pawns on the 7th
                        e = 0
                        if (enemy_king >> 4) == (7 if p < 8 else 0):
                            e = 1
                        j = 1
                        while j < 9:
                            if int(masks[opp + j]) & 64:
                                e = 1
                            j += 1
                        if e:
                            vm += int(t[_T_ROOK_SEVENTH_MG])
                            ve += int(t[_T_ROOK_SEVENTH_EG])
            if near:
                if p < 8:
                    units_b += int(t[_T_KING_ATTACK_UNITS + kind])
                else:
                    units_w += int(t[_T_KING_ATTACK_UNITS + kind])
        if p < 8:
            mg += vm
            eg += ve
        else:
            mg -= vm
            eg -= ve
    # A pawn race: only the side that promotes first gains, once, however many unstoppable
    # passers it has. (Counting every unstoppable passer of both sides scored
    # 8/8/8/2p5/k5P1/7P/7K/8 b, where Black promotes first, 7 pawns up for White.)
    if race < 9999:
        if race & 8:
            eg -= int(t[_T_UNSTOPPABLE])
        else:
            eg += int(t[_T_UNSTOPPABLE])
    king_threats = (king_threats >> 1) - (king_threats & 1)  # White's view: -1, 0 or 1
    mg += int(t[_T_KING_THREAT_MG]) * king_threats
    eg += int(t[_T_KING_THREAT_EG]) * king_threats
    if int(c[3]) >= 2:
        mg += int(t[_T_BISHOP_PAIR_MG])
        eg += int(t[_T_BISHOP_PAIR_EG])
    if int(c[11]) >= 2:
        mg -= int(t[_T_BISHOP_PAIR_MG])
        eg -= int(t[_T_BISHOP_PAIR_EG])

    # King safety (middlegame only: the taper fades it out as pieces come off): each file at
    # the king (on its first three ranks) without an own pawn; and the attack units of enemy
    # pieces near it (halved without the enemy queen). A shield term (an own pawn one or two
    # ranks ahead) fits to 0 with tools/texel.py, so there is none (docs/engine.md).
    if phase > 6:
        colour = 0
        while colour < 16:
            king = int(kings[colour])
            r = (king >> 4) if colour == 0 else 7 - (king >> 4)
            vm = 0
            if r <= 2:
                f = king & 7
                i = (f if f > 0 else 1) + (0 if colour == 0 else _M_BLACK + _M_MIRRORED)
                last = i + (2 if f > 0 else 1) - (1 if f == 7 else 0)
                while i <= last:
                    if not masks[i]:
                        vm += int(t[_T_KING_OPEN_FILE])
                    i += 1
            units = units_w if colour == 0 else units_b
            if units:
                if units > 16:
                    units = 16
                pen = int(t[_T_KING_ATTACK_PENALTY + units])
                vm += pen if c[(colour ^ 8) | 5] else pen >> 1
            if colour == 0:
                mg -= vm
            else:
                mg += vm
            colour += 8

    # Clear the pawn masks for the next call.
    i = 0
    while i < _M_SIZE:
        masks[i] = 0
        i += 1
    score = (int(position.score_mg) + mg) * phase + (int(position.score_eg) + eg) * (_PHASE_TOTAL - phase)
    # divide rounding toward zero, so a colour-mirrored position scores exactly the negation
    score = score // _PHASE_TOTAL if score >= 0 else 0 - (0 - score) // _PHASE_TOTAL
    if known:
        return score  # evaluate() applies the no-pawn rule and the tempo (rare: bytecode)
    if stm:
        return int(TEMPO) - score
    return score + int(TEMPO)


pack_terms()
