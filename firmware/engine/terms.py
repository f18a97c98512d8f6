"""Packs the evaluation's tunables into evaluate.py's _TERMS array (unsigned 16-bit, read by
its viper code). Loaded only for evaluate.pack_terms() and dropped after it, so this code
does not stay in a board's heap.

The layout is evaluate.py's _T_* offsets: the 31 scalars below from 0, then the tables at
_T_PASSED_MG (31), _T_PASSED_EG (39), _T_PASSED_KING_DIST (47), _T_KING_ATTACK_UNITS (55),
_T_KING_ATTACK_PENALTY (62), _T_WEAK_MG (79), _T_WEAK_EG (81), and the king's threat at
_T_KING_THREAT_MG (83) and _T_KING_THREAT_EG (84): 85 cells in all (tests/test_eval.py checks
every one).
"""


def pack(cells, T=None):
    """Write the tunables of module T (default: tunables.py) into `cells`. They are magnitudes
    (evaluate.py gives each its sign): a value outside 0..65535 is refused."""
    if T is None:
        from firmware.engine import tunables as T

    scalars = (T.BISHOP_PAIR_MG, T.BISHOP_PAIR_EG, T.DOUBLED_MG, T.DOUBLED_EG, T.ISOLATED_MG, T.ISOLATED_EG,
               T.BACKWARD_MG, T.BACKWARD_EG, T.PASSED_PROTECTED_EG, T.PASSED_BLOCKED_DIV, T.PAWN_THREAT_MG,
               T.PAWN_THREAT_EG, T.UNSTOPPABLE, T.ROOK_OPEN_MG, T.ROOK_OPEN_EG, T.ROOK_HALF_OPEN_MG,
               T.ROOK_HALF_OPEN_EG, T.ROOK_SEVENTH_MG, T.ROOK_SEVENTH_EG, T.KNIGHT_MOBILITY, T.MOBILITY_BASE_N,
               T.BISHOP_MOBILITY, T.MOBILITY_BASE_B, T.ROOK_MOBILITY_MG, T.ROOK_MOBILITY_EG, T.MOBILITY_BASE_R,
               T.KING_OPEN_FILE, T.THREAT_MINOR_MG, T.THREAT_ROOK_MG, T.THREAT_MINOR_EG,
               T.THREAT_ROOK_EG)
    for offset, values in ((31, T.PASSED_MG), (39, T.PASSED_EG), (47, T.PASSED_KING_DIST),
                           (55, T.KING_ATTACK_UNITS), (62, T.KING_ATTACK_PENALTY),
                           (79, (T.WEAK_BY_MINOR_MG, T.WEAK_BY_ROOK_MG)), (81, (T.WEAK_BY_MINOR_EG, T.WEAK_BY_ROOK_EG)),
                           (83, (T.KING_THREAT_MG, T.KING_THREAT_EG)),
                           (0, scalars)):
        for i, value in enumerate(values):
            if not 0 <= value <= 65535:
                raise ValueError("tunables.py: the evaluation's terms are 0..65535, got %r" % value)
            cells[offset + i] = value
