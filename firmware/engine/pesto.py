"""Material values and piece-square tables of PeSTO (Ronald Friederich's tapered evaluation,
published on the Chess Programming Wiki page "PeSTO's Evaluation Function"), middlegame and
endgame, in centipawns.

The 64-entry tables are written like a board diagram: the first row is rank 8, White's point
of view. evaluate.init() calls install(), which writes them (material added) into position.py's
tables, whose sums make/unmake keep incrementally; then it drops this module from sys.modules,
so its tuples (about 4 KB on a 32-bit board) and that function's code are freed: nothing else
reads it.
The other tuned numbers are in tunables.py.
"""

# ---- material (mg, eg) by kind: none, P, N, B, R, Q, K ------------------------------------
# Set by tools/spsa.py on self-play at 1,000 nodes: its built-in plan, then with the tables'
# scales (tools/spsa_plans/run3.txt; docs/engine.md, "Tuning on self-play").
MATERIAL_MG = (0, 86, 340, 368, 483, 1026, 0)
MATERIAL_EG = (0, 88, 290, 311, 538, 985, 0)

# ---- piece-square tables (PeSTO), rank 8 first ------------------------------------------
# The SPSA run of tools/spsa_plans/run3.txt scaled each table about its mean (a pawn's over
# ranks 2-7), in per cent: pawn 95/93 (mg/eg), knight 98/88, bishop 106/87, rook 93/95, queen
# 109/104, king 94/110; with its other numbers +13 Elo (+2 .. +24) at 1,000 nodes
# (docs/engine.md).
PAWN_MG = (
    0, 0, 0, 0, 0, 0, 0, 0,
    94, 128, 59, 91, 65, 121, 33, -10,
    -5, 7, 26, 30, 63, 54, 25, -18,
    -13, 13, 6, 21, 23, 12, 17, -21,
    -25, -1, -4, 12, 17, 6, 10, -23,
    -24, -3, -3, -9, 4, 4, 32, -11,
    -32, 0, -18, -21, -13, 24, 37, -20,
    0, 0, 0, 0, 0, 0, 0, 0,
)
PAWN_EG = (
    0, 0, 0, 0, 0, 0, 0, 0,
    169, 164, 150, 128, 140, 126, 156, 177,
    90, 96, 82, 65, 55, 52, 79, 81,
    33, 25, 15, 8, 1, 7, 19, 19,
    15, 11, 0, -4, -4, -4, 6, 2,
    7, 10, -3, 4, 3, -2, 2, -4,
    15, 10, 10, 12, 15, 3, 5, -4,
    0, 0, 0, 0, 0, 0, 0, 0,
)
KNIGHT_MG = (
    -164, -87, -33, -48, 60, -95, -15, -105,
    -72, -40, 71, 35, 23, 61, 7, -17,
    -46, 59, 36, 64, 82, 126, 72, 43,
    -9, 17, 19, 52, 36, 68, 18, 22,
    -13, 4, 16, 13, 27, 19, 21, -8,
    -23, -9, 12, 10, 19, 17, 24, -16,
    -28, -52, -12, -3, -1, 18, -14, -19,
    -103, -21, -57, -32, -17, -27, -19, -23,
)
KNIGHT_EG = (
    -53, -35, -13, -27, -29, -26, -57, -89,
    -24, -9, -24, -4, -10, -24, -23, -48,
    -23, -20, 7, 6, -3, -10, -19, -38,
    -17, 1, 17, 17, 17, 8, 5, -18,
    -18, -7, 12, 20, 12, 13, 2, -18,
    -22, -5, -3, 11, 7, -5, -20, -21,
    -39, -20, -11, -6, -4, -20, -22, -41,
    -27, -47, -22, -15, -21, -18, -46, -58,
)
BISHOP_MG = (
    -31, 4, -87, -40, -27, -45, 7, -9,
    -28, 17, -19, -14, 32, 62, 19, -50,
    -17, 39, 45, 42, 37, 53, 39, -2,
    -5, 5, 20, 53, 39, 39, 7, -2,
    -7, 13, 13, 27, 36, 12, 10, 4,
    0, 16, 16, 16, 15, 28, 19, 10,
    4, 16, 17, 0, 7, 22, 35, 1,
    -35, -3, -15, -23, -14, -13, -42, -23,
)
BISHOP_EG = (
    -13, -19, -10, -7, -7, -8, -15, -21,
    -7, -4, 6, -11, -3, -12, -4, -13,
    1, -7, -1, -1, -2, 5, -1, 3,
    -3, 7, 10, 7, 12, 8, 2, 1,
    -6, 2, 11, 16, 6, 8, -3, -8,
    -11, -3, 6, 8, 11, 2, -7, -14,
    -13, -16, -7, -1, 3, -8, -14, -24,
    -21, -8, -21, -5, -8, -14, -5, -15,
)
ROOK_MG = (
    30, 40, 30, 48, 59, 9, 29, 41,
    26, 30, 55, 58, 75, 63, 25, 41,
    -4, 18, 25, 34, 16, 42, 57, 15,
    -22, -10, 7, 25, 23, 33, -7, -18,
    -33, -24, -11, 0, 9, -6, 6, -21,
    -41, -23, -14, -15, 3, 1, -4, -30,
    -40, -14, -18, -8, 0, 11, -5, -65,
    -17, -12, 1, 16, 15, 7, -34, -24,
)
ROOK_EG = (
    12, 10, 17, 14, 11, 11, 8, 5,
    11, 12, 12, 11, -3, 3, 8, 3,
    7, 7, 7, 5, 4, -3, -5, -3,
    4, 3, 12, 1, 2, 1, -1, 2,
    3, 5, 8, 4, -5, -6, -8, -10,
    -4, 0, -5, -1, -7, -11, -8, -15,
    -6, -6, 0, 2, -9, -9, -10, -3,
    -9, 2, 3, -1, -5, -12, 4, -19,
)
QUEEN_MG = (
    -31, 0, 31, 13, 64, 48, 47, 49,
    -26, -43, -6, 1, -18, 62, 30, 59,
    -14, -19, 7, 9, 31, 61, 51, 62,
    -30, -30, -18, -18, -1, 18, -2, 1,
    -10, -29, -10, -11, -2, -5, 3, -3,
    -15, 2, -12, -2, -6, 2, 15, 5,
    -38, -9, 12, 2, 9, 16, -3, 1,
    -1, -20, -10, 11, -17, -27, -34, -55,
)
QUEEN_EG = (
    -10, 23, 23, 28, 28, 19, 10, 20,
    -18, 20, 33, 42, 60, 26, 31, 0,
    -21, 6, 9, 51, 49, 36, 19, 9,
    3, 23, 25, 46, 59, 41, 59, 37,
    -19, 29, 19, 49, 32, 35, 40, 24,
    -17, -28, 15, 6, 9, 17, 10, 5,
    -23, -24, -32, -17, -17, -24, -38, -34,
    -35, -29, -23, -45, -6, -34, -21, -43,
)
KING_MG = (
    -62, 21, 14, -15, -54, -33, 1, 11,
    26, -2, -20, -8, -8, -5, -37, -28,
    -9, 22, 1, -16, -20, 5, 20, -22,
    -17, -20, -12, -26, -29, -24, -14, -35,
    -47, -2, -26, -38, -44, -42, -32, -49,
    -14, -14, -22, -44, -42, -29, -15, -26,
    0, 6, -8, -61, -41, -16, 8, 7,
    -15, 33, 10, -52, 7, -27, 22, 12,
)
KING_EG = (
    -82, -39, -20, -20, -12, 16, 4, -19,
    -14, 18, 15, 18, 18, 42, 25, 12,
    11, 18, 25, 16, 22, 49, 48, 14,
    -9, 24, 26, 29, 28, 36, 28, 3,
    -20, -5, 23, 26, 29, 25, 10, -12,
    -21, -4, 12, 23, 25, 17, 7, -10,
    -30, -12, 4, 14, 15, 4, -6, -19,
    -59, -38, -23, -12, -31, -16, -27, -48,
)
PST_MG_BY_KIND = (None, PAWN_MG, KNIGHT_MG, BISHOP_MG, ROOK_MG, QUEEN_MG, KING_MG)
PST_EG_BY_KIND = (None, PAWN_EG, KNIGHT_EG, BISHOP_EG, ROOK_EG, QUEEN_EG, KING_EG)


_BIAS = 0x8000  # copy of firmware.engine.position._PST_BIAS: its cells are unsigned


def install():
    """Write these tables into position.py's PST_MG/PST_EG (material added; Black's entries
    mirrored and negated, each cell + _BIAS). Positions made afterwards (or re-set with
    `load_fen`, or `rehash()`ed) score with them."""
    from firmware.engine.position import PIECE_BASE, PST_EG, PST_MG

    for kind in range(1, 7):
        pst_mg = PST_MG_BY_KIND[kind]
        pst_eg = PST_EG_BY_KIND[kind]
        white = PIECE_BASE[kind]
        black = PIECE_BASE[kind | 8]
        for sq64 in range(64):
            rank, file = sq64 >> 3, sq64 & 7
            diagram = (7 - rank) * 8 + file  # the tables are written rank 8 first
            mg = MATERIAL_MG[kind] + pst_mg[diagram]
            eg = MATERIAL_EG[kind] + pst_eg[diagram]
            sq = rank * 16 + file
            mirrored = (7 - rank) * 16 + file
            PST_MG[white + sq] = _BIAS + mg
            PST_EG[white + sq] = _BIAS + eg
            PST_MG[black + mirrored] = _BIAS - mg
            PST_EG[black + mirrored] = _BIAS - eg
