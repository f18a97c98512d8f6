"""Every tuned number of the evaluation and the search, in one place.

Units are centipawns unless a name says otherwise. Tables indexed by rank use the rank as
seen from the side that owns the piece (0 = own first rank, 7 = promotion rank).

Material and piece-square tables (PeSTO) live in pesto.py: evaluate.init() installs them in
position.py once and releases that module. The extra terms below (pawn structure, king
safety, ...) were measured against those tables with bench/bratko_kopec.py and self-play,
and kept small so they do not count twice what the tables already know (PeSTO's endgame
pawn table already pays for advanced pawns).

SPSA on self-play at 1,000 nodes (tools/spsa.py) set many of the numbers: its built-in PLAN
(material, the search's margins, the tempo, two threats, the king's open files, the passed
pawns' endgame table and the king-attack table scaled; +15 Elo (+5 .. +27) over 3,030 games
against the numbers it started from), that plan again with the piece-square tables' scales
(tools/spsa_plans/run3.txt: +13 Elo (+2 .. +24) over 3,030 games), and the search's shape
(tools/spsa_plans/run4.txt: where the reductions step up, the null move's least depth, the
late-move pruning counts, the margins), +5 alone and not proven, kept together with two other
near misses (the threats' order among themselves, the queen's attack units): +13 Elo
(+1 .. +24) over 3,030 games. The results: docs/engine.md, "Tuning on self-play".
"""
from firmware.compat import const

# ---- material ------------------------------------------------------------------------------
# Material and piece-square tables: pesto.py. Phase weight per kind (PeSTO): knight and
# bishop 1, rook 2, queen 4, so the start position has 24 and a pawn ending 0 (written out in
# evaluate.py and in the search's lazy evaluation).
# Rough values used by move ordering, SEE-lite pruning and delta pruning.
ORDER_VALUE = (0, 100, 320, 330, 500, 950, 2000)

# ---- evaluation terms (mg, eg) -------------------------------------------------------------
TEMPO = const(14)
BISHOP_PAIR_MG = const(25)
BISHOP_PAIR_EG = const(51)
DOUBLED_MG = const(5)  # per pawn with a friendly pawn in front of it on its file
DOUBLED_EG = const(11)
ISOLATED_MG = const(11)
ISOLATED_EG = const(4)
BACKWARD_MG = const(9)
BACKWARD_EG = const(3)
# Passed pawn bonus by relative rank (on top of the PST, which already pays for advancing).
PASSED_MG = (0, 0, 5, 7, 24, 23, 51, 0)
PASSED_EG = (0, 10, 14, 24, 41, 70, 111, 0)
PASSED_PROTECTED_EG = const(29)  # per rank step of a passer guarded by a pawn
PAWN_THREAT_MG = const(51)  # per enemy piece (not a pawn or king) a pawn attacks
PAWN_THREAT_EG = const(41)
# A knight or bishop attacking an enemy rook or queen, a rook attacking an enemy queen (per
# attacked piece; pawns' threats are PAWN_THREAT). Both sides count: for the side to move it
# is a capture the quiescence search may find, for the other side a threat it cannot see.
THREAT_MINOR_MG = const(65)
THREAT_MINOR_EG = const(45)
THREAT_ROOK_MG = const(45)
THREAT_ROOK_EG = const(35)
# A knight or bishop that no pawn of its side guards, attacked by an enemy knight or bishop
# (WEAK_BY_MINOR) or rook (WEAK_BY_ROOK), per attacked piece (+25 Elo in self-play at 1,000 nodes: docs/engine.md).
WEAK_BY_MINOR_MG = const(35)
WEAK_BY_MINOR_EG = const(20)
WEAK_BY_ROOK_MG = const(25)
WEAK_BY_ROOK_EG = const(25)
# A king next to an enemy piece or pawn that no enemy pawn guards and the enemy king does not
# stand next to: the king can take it (Stockfish's ThreatByKing; once per king, +24 Elo in
# self-play at 1,000 nodes: docs/engine.md).
KING_THREAT_MG = const(10)
KING_THREAT_EG = const(60)
PASSED_BLOCKED_DIV = const(2)  # passer blocked by any piece: bonus divided by this
# x (enemy king distance - own king distance) to the stop square, by rank
PASSED_KING_DIST = (0, 0, 2, 4, 8, 12, 16, 0)  # +18 Elo against half these (docs/engine.md)
UNSTOPPABLE = const(600)  # pawn race won by the square rule when the enemy has only pawns
ROOK_OPEN_MG = const(34)
ROOK_OPEN_EG = const(1)
ROOK_HALF_OPEN_MG = const(23)
ROOK_HALF_OPEN_EG = const(4)
ROOK_SEVENTH_MG = const(13)
ROOK_SEVENTH_EG = const(14)
# Mobility: per square a piece reaches that holds no own piece and that no enemy pawn attacks,
# beyond MOBILITY_BASE_x (fitted with tools/texel.py fit --only: docs/engine.md).
BISHOP_MOBILITY = const(3)  # mg and eg
MOBILITY_BASE_B = const(6)
ROOK_MOBILITY_MG = const(1)
ROOK_MOBILITY_EG = const(1)
MOBILITY_BASE_R = const(6)
KNIGHT_MOBILITY = const(3)
MOBILITY_BASE_N = const(4)
# King safety (middlegame only, scaled by phase):
KING_OPEN_FILE = const(17)  # per file at the king with no own pawn (half-open for the enemy)
# The king's attackers give attack units by kind: enemy pieces near it (Chebyshev distance <= 2)
# and enemy knights, bishops and rooks reaching a square next to it; the penalty grows with
# their square, so a lone attacker costs little and a swarm costs much.
KING_ATTACK_UNITS = (0, 0, 2, 2, 3, 3, 0)  # the queen 3 (self-play: docs/engine.md)
KING_ATTACK_PENALTY = (0, 0, 5, 7, 14, 24, 39, 59, 76, 98, 124, 151, 180, 211, 241, 272, 301)
# Drawish material: a side without pawns that is not at least a rook ahead scales its
# advantage down by this divisor (KBK, KNK, KRKB, KRKN, ...).
NO_PAWN_DRAW_DIV = const(8)

# ---- endgame knowledge ----------------------------------------------------------------------
KNOWN_WIN = const(2000)  # a basic mate (KQK, KRK, KBNK): beyond any material sum
MOPUP_EDGE = const(20)  # x centre distance of the lone king
MOPUP_CLOSE = const(8)  # x (14 - Manhattan distance between kings)

# ---- search ---------------------------------------------------------------------------------
# The first window's half-width, from depth 3 on (not 4: +38 Elo, docs/engine.md); widens x4 on each fail
ASPIRATION = const(28)
NULL_MIN_DEPTH = const(3)
NULL_R = const(3)  # + depth // 4
NULL_EXTRA_MARGIN = const(200)  # one more ply of null-move reduction per this much above beta (at most 3)
RFP_MAX_DEPTH = const(3)  # reverse futility (static null move) pruning
RFP_MARGIN = const(84)  # per depth
RAZOR_MARGIN = const(261)  # per depth (1-2): static + this <= alpha drops into quiescence
FUTILITY_MARGIN = (0, 115, 197)  # quiet moves skipped at depth 1-2 when eval + margin <= alpha
# late quiet moves pruned at depth 1-7 beyond this many (x 3/4 when not improving)
LMP_COUNT = (0, 6, 9, 20, 24, 30, 40, 52)
LMP_MAX_DEPTH = const(7)
SEE_CAPTURE_MARGIN = const(100)  # x depth: a losing capture skipped at depth 3-6 when SEE is below minus this
SEE_QUIET_MARGIN = const(25)  # x depth squared: the same for a late quiet move at depth 1-6
LMR_MIN_DEPTH = const(3)
LMR_FIRST = const(3)  # moves searched before reductions start
LMR_SECOND = const(6)  # a second ply of reduction after this many moves
LMR_THIRD = const(11)  # a third after this many, from depth LMR_THIRD_DEPTH
LMR_THIRD_DEPTH = const(4)
DELTA_MARGIN = const(228)
HISTORY_MAX = const(16000)  # history table cells are 16-bit
LAZY_MARGIN = const(294)  # quiescence: skip the full evaluation when this far outside
