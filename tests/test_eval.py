"""Static evaluation: colour symmetry, endgame knowledge, terms pulling the right way."""
import chess
import pytest

from firmware.engine import tunables as T
from firmware.engine.evaluate import evaluate, init
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from tests.randomgames import random_positions

init()


def ev(fen_text):
    position = Position(fen_text)
    position.rehash()
    return evaluate(position)


def test_colour_mirror_gives_the_same_score():
    """Mirroring the board and swapping colours (and the side to move) is the same position
    for the other side: the mover's score must not change. Catches every asymmetric slip
    between the white and black code paths."""
    checked = 0
    for board in random_positions(300, seed=5):
        mirrored = board.mirror()
        assert ev(board.fen()) == ev(mirrored.fen()), board.fen()
        checked += 1
    assert checked == 300


def test_start_position_is_the_tempo_for_either_side():
    assert ev(chess.STARTING_FEN) == T.TEMPO
    assert ev("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1") == T.TEMPO


@pytest.mark.parametrize("fen_text", [
    "8/8/4k3/8/8/3K4/8/8 w - - 0 1",  # KK
    "8/8/4k3/8/8/3K4/8/5B2 w - - 0 1",  # KBK
    "8/8/4k3/8/8/3K4/8/5N2 b - - 0 1",  # KNK
    "8/8/4k3/8/8/3K4/8/4NN2 w - - 0 1",  # KNNK
    "8/5b2/4k3/8/8/3K4/8/5N2 w - - 0 1",  # KNKB
    "7k/8/6K1/7P/8/8/8/3B4 w - - 0 1",  # rook pawn + wrong (light) bishop, king in the corner
    "7k/8/8/8/8/8/6KP/8 w - - 0 1",  # KPK rook pawn, defending king in the corner
])
def test_known_draws_score_zero(fen_text):
    assert ev(fen_text) == 0


def test_right_bishop_or_far_king_is_not_a_draw():
    assert ev("7k/8/6K1/7P/8/8/8/2B5 w - - 0 1") > 500  # the dark bishop controls h8
    assert ev("8/8/8/2k5/8/8/6KP/2B5 w - - 0 1") > 200  # king far from the corner


def test_bare_king_mates_are_known_wins_driving_to_the_edge():
    centre = ev("8/8/8/3k4/8/8/8/4K2R w - - 0 1")
    edge = ev("3k4/8/8/8/8/8/8/4K2R w - - 0 1")
    corner = ev("k7/8/8/8/8/8/8/4K2R w - - 0 1")
    assert T.KNOWN_WIN < centre < edge < corner
    assert ev("k7/8/8/8/8/8/8/4K2R b - - 0 1") == -corner  # the loser's view
    assert ev("8/8/8/3k4/8/8/7Q/4K3 w - - 0 1") > centre  # a queen is worth more


def test_bare_king_score_grows_as_the_strong_king_comes_closer():
    """KQK, the lone king on a8 and the queen on h2 fixed: wherever the strong king stands, a
    square nearer the lone king (Manhattan distance) scores more. Material and the mop-up
    only: with the endgame piece-square sum in the score, the tables' king pulled toward the
    centre as hard as the mop-up pulled it toward the lone king (10 distances overlapped),
    and a 400-node search let its king stand off."""
    by_distance = {}
    for sq in chess.SQUARES:
        board = chess.Board("k7/8/8/8/8/8/7Q/8 w - - 0 1")
        if board.piece_at(sq):
            continue
        board.set_piece_at(sq, chess.Piece(chess.KING, chess.WHITE))
        if board.is_valid():
            distance = chess.square_manhattan_distance(sq, chess.A8)
            by_distance.setdefault(distance, []).append(ev(board.fen()))
    distances = sorted(by_distance)
    assert len(distances) >= 10
    for near, far in zip(distances, distances[1:]):
        assert min(by_distance[near]) > max(by_distance[far]), (near, far)


def test_kbnk_drives_to_the_bishops_corner():
    # dark-squared bishop (c1): a1 and h8 are the mating corners
    right = ev("7k/8/8/8/8/8/8/2B1KN2 w - - 0 1")
    wrong = ev("k7/8/8/8/8/8/8/2B1KN2 w - - 0 1")
    assert right > wrong > T.KNOWN_WIN


def test_lone_minor_against_pawns_side_cannot_be_winning_much():
    # Black has a bishop vs a pawn: Black is "ahead" but cannot win without pawns
    assert abs(ev("8/8/4k3/5b2/8/3K4/4P3/8 w - - 0 1")) < 60


def test_passed_pawn_bonus_grows_with_its_rank():
    """A black pawn on the adjacent file ahead stops White's pawn from being passed; the
    same pawn on the h-file does not. The difference is the passer's worth. Both kings stand
    four squares from each stop square (d5, d6, d7: White's on h4, Black's on h6), so the
    king-distance term, which weighs where the kings stand, adds the same at every rank."""
    # the pawn on d4, d5, d6; knights on both sides: no pawn-race (unstoppable passer) terms;
    # {} is the 7th rank: the black pawn on c7 (not passed) or h7 (passed)
    boards = ("n7/{}/7k/8/3P3K/8/8/N7", "n7/{}/7k/3P4/7K/8/8/N7", "n7/{}/3P3k/8/7K/8/8/N7")
    gaps = [ev(board.format("7p") + " w - - 0 1") - ev(board.format("2p5") + " w - - 0 1") for board in boards]
    assert gaps[0] > 0 and gaps == sorted(gaps) and gaps[-1] > gaps[0] + 20, gaps


def test_unstoppable_passer_outside_the_square():
    # the black king cannot catch the a-pawn (square rule); against a king in the square it can
    free = ev("8/8/8/P7/8/8/7k/K7 w - - 0 1")
    caught = ev("8/8/2k5/P7/8/8/8/K7 w - - 0 1")
    assert free > caught + 300


def test_a_pawn_race_goes_to_the_side_that_promotes_first():
    # g4 and the c5 pawn both need 4 moves and no king can catch them: the side to move
    # promotes first, so either side to move is the one winning the race
    assert ev("8/8/8/2p5/k5P1/7P/7K/8 b - - 0 1") > 300
    assert ev("8/8/8/2p5/k5P1/7P/7K/8 w - - 0 1") > 300
    # a second unstoppable passer is worth a pawn, not a second race won
    one = ev("8/8/8/8/k5P1/8/7K/8 b - - 0 1")
    two = ev("8/8/8/8/k5P1/7P/7K/8 b - - 0 1")
    assert -T.UNSTOPPABLE // 2 < two - one < 0  # Black's view: White is a pawn better
    without = _ev_without(["UNSTOPPABLE"], "8/8/8/8/k5P1/7P/7K/8 b - - 0 1")
    assert two == without - T.UNSTOPPABLE



def _ev_without(names, fen_text):
    """ev(fen_text) with the tunables `names` set to 0 (the evaluation reads them from the array
    pack_terms fills), then restored."""
    import firmware.engine.evaluate as E

    saved = [getattr(T, name) for name in names]
    for name in names:
        setattr(T, name, 0)
    E.pack_terms(T)
    try:
        return ev(fen_text)
    finally:
        for name, value in zip(names, saved):
            setattr(T, name, value)
        E.pack_terms(T)


def _check_counted(names, cases):
    """A term counted per attacked piece, its weights in `names` as (mg, eg) pairs: each case
    (FEN, then for each pair White's count minus Black's) must move the evaluation by exactly
    the tapered sum of its weights, from the side to move's view."""
    for fen_text, *counts in cases:
        position = Position(fen_text)
        c = position.counts
        phase = min(24, c[2] + c[3] + c[10] + c[11] + 2 * (c[4] + c[12]) + 4 * (c[5] + c[13]))
        mg = sum(n * getattr(T, names[2 * i]) for i, n in enumerate(counts))
        eg = sum(n * getattr(T, names[2 * i + 1]) for i, n in enumerate(counts))
        expected = (mg * phase + eg * (24 - phase)) // 24
        if position.stm:
            expected = -expected
        diff = ev(fen_text) - _ev_without(names, fen_text)
        assert abs(diff - expected) <= 1, (fen_text, diff, expected)  # the taper's rounding


def test_a_minor_or_rook_attacking_a_heavier_piece_is_a_threat_for_either_colour():
    """A knight or bishop attacking an enemy rook or queen, a rook attacking an enemy queen:
    counted once per attacked piece, for both colours with their signs; never a king, a piece
    of equal or lower rank, an own piece, or a piece behind another on the line."""
    names = ("THREAT_MINOR_MG", "THREAT_MINOR_EG", "THREAT_ROOK_MG", "THREAT_ROOK_EG")

    # (FEN, minor threats for White minus Black's, rook threats for White minus Black's)
    cases = (
        ("4k3/p7/8/3r4/8/4N3/P7/4K3 w - - 0 1", 1, 0),  # Ne3 attacks the rook on d5
        ("4k3/p7/8/3r4/8/4N3/P7/4K3 b - - 0 1", 1, 0),  # the same, Black to move
        ("4k3/p7/8/3q4/8/1B6/P7/4K3 w - - 0 1", 1, 0),  # Bb3 attacks the queen on d5
        ("4k3/p7/8/3q4/8/8/P7/3RK3 w - - 0 1", 0, 1),  # Rd1 attacks the queen up the file
        ("4k3/p7/8/3q4/3n4/8/P7/3RK3 w - - 0 1", 0, 0),  # ... not through the knight
        ("4k3/p7/8/3n4/8/4R3/P7/4K3 b - - 0 1", -1, 0),  # Nd5 attacks Re3; Re3 sees the king: none
        ("4k3/p7/8/3b4/8/1N6/P7/4K3 w - - 0 1", 0, 0),  # minor on minor: none
        ("4k3/p7/8/3r4/8/8/P7/3RK3 w - - 0 1", 0, 0),  # rook on rook: none
        ("4k3/p7/8/3R4/8/4N3/P7/4K3 w - - 0 1", 0, 0),  # its own rook: none
        ("3qk3/p7/8/1b6/8/8/P4R2/4K3 b - - 0 1", 0, 0),  # Bb5 and Qd8 attack nothing of these kinds
        ("4k3/p7/2n5/8/1Q1R4/8/P7/4K3 b - - 0 1", -2, 0),  # Nc6 attacks Qb4 and Rd4
    )
    _check_counted(names, cases)


def test_a_knight_or_bishop_no_pawn_guards_is_weak_when_a_piece_attacks_it():
    """A knight or bishop that no pawn of its side guards, attacked by an enemy knight or
    bishop (WEAK_BY_MINOR) or rook (WEAK_BY_ROOK): once per attacked piece, for both colours
    with their signs; not when a pawn guards it, not through another piece, and never for a
    rook, queen or pawn attacked (the threats above count the heavier ones)."""
    names = ("WEAK_BY_MINOR_MG", "WEAK_BY_MINOR_EG", "WEAK_BY_ROOK_MG", "WEAK_BY_ROOK_EG")

    # (FEN, weak pieces attacked by minors: White's attacks minus Black's, the same by rooks)
    cases = (
        ("r3k3/p7/8/3b4/8/1N6/7P/4K2R w - - 0 1", -1, 0),  # Bd5 attacks Nb3, which no pawn guards
        ("r3k3/p7/8/3b4/8/1N6/7P/4K2R b - - 0 1", -1, 0),  # the same, Black to move
        ("r3k3/p7/8/3b4/8/1N6/P6P/4K2R w - - 0 1", 0, 0),  # the a2 pawn guards b3
        ("r3k3/p7/8/3b4/2P5/1N6/7P/4K2R w - - 0 1", 0, 0),  # c4 stands between them
        ("r3k3/p7/8/3b4/8/1B6/7P/4K2R w - - 0 1", 0, 0),  # Bb3 and Bd5 attack each other
        ("4k2r/p7/8/8/8/8/P6b/4K2R w - - 0 1", 0, 1),  # Rh1 attacks Bh2
        ("4k2r/p7/8/8/8/6P1/P6b/4K2R w - - 0 1", 0, 1),  # ... White's g3 pawn does not guard it
        ("4k2r/p7/8/8/8/6p1/P6b/4K2R w - - 0 1", 0, 0),  # ... Black's does
        ("4k3/7p/1n6/8/8/1R6/P6P/4K3 w - - 0 1", 0, 1),  # Rb3 attacks Nb6 up the file
        ("4k3/2p4p/1n6/8/8/1R6/P6P/4K3 w - - 0 1", 0, 0),  # ... the c7 pawn guards it
        ("4k3/7p/1r6/8/8/1R6/P6P/4K3 w - - 0 1", 0, 0),  # a rook attacked is not weak here
    )
    _check_counted(names, cases)


def test_a_king_next_to_an_enemy_piece_no_pawn_guards_threatens_it_once():
    """A king next to an enemy piece or pawn that no enemy pawn guards and that the enemy king
    does not stand next to (KING_THREAT_MG/EG): once per king, however many such pieces, for
    both colours with their signs."""
    names = ("KING_THREAT_MG", "KING_THREAT_EG")
    # (FEN, 1 when White's king threatens, minus 1 when Black's does)
    cases = (
        ("r3k3/p7/8/8/3Kn3/8/7P/R7 w - - 0 1", 1),  # Kd4 next to Ne4
        ("r3k3/p7/8/8/3Kn3/8/7P/R7 b - - 0 1", 1),  # the same, Black to move
        ("r3k3/p7/8/5p2/3Kn3/8/7P/R7 w - - 0 1", 0),  # the f5 pawn guards e4
        ("r7/p7/8/8/3Knk2/8/7P/R7 w - - 0 1", 0),  # Black's king stands next to e4
        ("r3k3/p7/8/8/2nKp3/8/7P/R7 w - - 0 1", 1),  # Nc4 and e4: once
        ("r3k3/p7/8/3N4/8/8/7P/R3K3 w - - 0 1", 0),  # nothing next to a king
        ("r7/p7/4k3/3N4/8/8/7P/R3K3 b - - 0 1", -1),  # Ke6 next to Nd5
        ("r7/p7/4k3/3N4/2P5/8/7P/R3K3 b - - 0 1", 0),  # ... the c4 pawn guards d5
    )
    _check_counted(names, cases)


def test_mobility_counts_only_squares_no_enemy_pawn_attacks():
    """A piece's mobility counts the squares it reaches (empty or enemy) that no enemy pawn
    attacks, for both colours with their signs: here a knight in the open, a bishop whose
    diagonals pass the enemy pawns' attacks, and the same mirrored for Black."""
    # (FEN, the term's names, its weight, (mobility, base) pairs: White's pieces then Black's)
    cases = (
        # Nd4: b3 b5 c2 c6 e2 e6 f3 f5; the c6 pawn attacks b5, the g6 pawn f5 -> 6 safe
        ("6k1/8/2p3p1/8/3N4/8/P7/6K1 w - - 0 1", ("KNIGHT_MOBILITY",), T.KNIGHT_MOBILITY, (6,), ()),
        # the same for Black: Nd5 against white pawns on c3 and g3
        ("6k1/p7/8/3n4/8/2P3P1/8/6K1 b - - 0 1", ("KNIGHT_MOBILITY",), T.KNIGHT_MOBILITY, (), (6,)),
        # Bc1 on an open board: b2 a3 d2 e3 f4 g5 h6 (7); the black e5 pawn attacks f4 and d4,
        # the h7 pawn g6 (not on its diagonals) -> 6 safe
        ("6k1/7p/8/4p3/8/8/P7/2B3K1 w - - 0 1", ("BISHOP_MOBILITY",), T.BISHOP_MOBILITY, (6,), ()),
    )
    for fen_text, names, weight, whites, blacks in cases:
        position = Position(fen_text)
        base = T.MOBILITY_BASE_N if names == ("KNIGHT_MOBILITY",) else T.MOBILITY_BASE_B
        white_view = sum((m - base) * weight for m in whites) - sum((m - base) * weight for m in blacks)
        expected = -white_view if position.stm else white_view
        diff = ev(fen_text) - _ev_without(names, fen_text)
        assert diff == expected, (fen_text, diff, expected)


def test_doubled_and_isolated_pawns_cost():
    healthy = ev("4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1")
    doubled = ev("4k3/8/8/8/8/3P4/3P4/4K3 w - - 0 1")
    isolated = ev("4k3/8/8/8/8/8/P6P/4K3 w - - 0 1")
    assert doubled < healthy and isolated < healthy


def test_a_pawn_attacking_a_piece_is_a_threat_for_either_colour():
    """The pawn-threat term counts once per attacked knight, bishop, rook or queen, never a
    pawn, never the own side's piece, on both diagonals, for both colours, with its sign."""
    # (FEN, threats counted for White minus those for Black)
    cases = (
        ("4k3/p7/8/3n1b2/4P3/8/P7/4K3 w - - 0 1", 2),  # white e4 attacks d5 and f5
        ("4k3/p7/8/3n1b2/4P3/8/P7/4K3 b - - 0 1", 2),  # the same, Black to move
        ("4k3/p7/8/8/4p3/3N1B2/P7/4K3 b - - 0 1", -2),  # black e4 attacks d3 and f3
        ("4k3/p7/8/3p4/4P3/8/P7/4K3 w - - 0 1", 0),  # pawns attacking pawns: no threat
        ("4k3/p7/8/8/N3P3/8/P7/4K3 w - - 0 1", 0),  # no enemy piece in reach
        ("4k3/p7/8/5q2/4P3/8/P7/4K3 b - - 0 1", 1),  # a queen, one diagonal
    )
    _check_counted(("PAWN_THREAT_MG", "PAWN_THREAT_EG"), cases)


def test_rook_on_open_file_and_king_shelter():
    open_file = ev("4k3/pp3ppp/8/8/8/8/PP3PPP/3R2K1 w - - 0 1")
    closed = ev("4k3/pp1p1ppp/8/8/8/8/PP1P1PPP/2R3K1 w - - 0 1")
    assert open_file > closed - 100  # sanity: comparable positions
    sheltered = ev("r5k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    bare = ev("r5k1/5ppp/8/8/8/5PPP/8/R5K1 w - - 0 1")
    assert sheltered != bare


def test_incremental_scores_match_a_fresh_rehash_after_random_play():
    for board in random_positions(40, seed=9):
        position = Position(board.root().fen())
        position.rehash()
        for move in board.move_stack:
            position.make(parse_uci(position, move.uci()))
        mg, eg = position.score_mg, position.score_eg
        position.rehash()
        assert (mg, eg) == (position.score_mg, position.score_eg)
        for _ in range(len(board.move_stack)):
            position.unmake()
        unmade = (position.score_mg, position.score_eg)
        position.rehash()
        assert unmade == (position.score_mg, position.score_eg)


def test_pesto_tables_are_installed_then_released_under_micropython():
    """evaluate.init() copies the PeSTO tables into position.py and drops pesto.py, so its
    tuples do not stay on a board's heap: the module is gone, the scores are PeSTO's, and the
    heap init() leaves behind is smaller than the tables' own import cost."""
    from tests.mpy import run_mpy

    out = run_mpy(
        "import gc, sys\n"
        "from firmware.engine import evaluate, position\n"
        "gc.collect(); a = gc.mem_free()\n"
        "import firmware.engine.pesto as P\n"
        "gc.collect(); b = gc.mem_free()\n"
        "pawn_e4 = P.MATERIAL_MG[1] + P.PAWN_MG[4 * 8 + 4]\n"
        "del P; del sys.modules['firmware.engine.pesto']; delattr(sys.modules['firmware.engine'], 'pesto')\n"
        "gc.collect(); c = gc.mem_free()\n"
        "evaluate.init()\n"
        "gc.collect(); d = gc.mem_free()\n"
        "print('pesto' in sys.modules.get('firmware.engine').__dict__, 'firmware.engine.pesto' in sys.modules)\n"
        "print(position.PST_MG[position.PIECE_BASE[1] + 0x34] - 0x8000 == pawn_e4)\n"  # position._PST_BIAS
        "print(a - b, c - d)\n"
    )
    lines = out.split("\n")
    assert lines[0] == "False False", out
    assert lines[1] == "True", out
    tables, kept = (int(x) for x in lines[2].split())
    assert kept < tables, out


def test_tunables_are_released_after_init_and_a_tuner_still_reaches_the_evaluation_under_micropython():
    """evaluate.init() drops tunables.py too (its values live on in _TERMS and in the modules
    that imported them): after a Searcher is built the module is gone and its heap is given
    back; pack_terms(T) with a changed module still changes what the evaluation says."""
    from tests.mpy import run_mpy

    out = run_mpy(
        "import gc, sys\n"
        "from firmware.engine import evaluate\n"
        "from firmware.engine.position import Position\n"
        "gc.collect(); a = gc.mem_free()\n"
        "evaluate.init()\n"
        "gc.collect(); b = gc.mem_free()\n"
        "print('tunables' in sys.modules.get('firmware.engine').__dict__, 'firmware.engine.tunables' in sys.modules)\n"
        "p = Position('4k3/p7/8/3n1b2/4P3/8/P7/4K3 w - - 0 1')\n"
        "before = evaluate.evaluate(p)\n"
        "import firmware.engine.tunables as T\n"
        "T.PAWN_THREAT_MG = T.PAWN_THREAT_EG = 0\n"
        "evaluate.pack_terms(T)\n"
        "print(before != evaluate.evaluate(p), b > a)\n"
    )
    lines = out.split("\n")
    assert lines[0] == "False False", out
    assert lines[1] == "True True", out  # the threat term counted, and init() freed more than it kept


def test_terms_packs_every_tunable_where_the_evaluation_reads_it():
    """terms.py writes the tunables in evaluate.py's layout (_T_* offsets): every cell of
    _TERMS is checked against tunables.py, and the packing module is dropped again."""
    import sys

    import firmware.engine.evaluate as E

    E.pack_terms(T)
    tables = {"PASSED_MG": E._T_PASSED_MG, "PASSED_EG": E._T_PASSED_EG, "PASSED_KING_DIST": E._T_PASSED_KING_DIST,
              "KING_ATTACK_UNITS": E._T_KING_ATTACK_UNITS, "KING_ATTACK_PENALTY": E._T_KING_ATTACK_PENALTY}
    want = {}
    for name, offset in tables.items():
        for i, value in enumerate(getattr(T, name)):
            want[offset + i] = value
    scalars = [n for n in dir(E) if n.startswith("_T_") and n[3:] not in tables
               and n not in ("_T_SIZE", "_T_THREAT_MG", "_T_THREAT_EG", "_T_WEAK_MG", "_T_WEAK_EG")]
    for name in scalars:
        want[getattr(E, name)] = getattr(T, name[3:])
    for i, name in enumerate(("MINOR", "ROOK")):
        want[E._T_THREAT_MG + i] = getattr(T, "THREAT_%s_MG" % name)
        want[E._T_THREAT_EG + i] = getattr(T, "THREAT_%s_EG" % name)
        want[E._T_WEAK_MG + i] = getattr(T, "WEAK_BY_%s_MG" % name)
        want[E._T_WEAK_EG + i] = getattr(T, "WEAK_BY_%s_EG" % name)
    assert sorted(want) == list(range(E._T_SIZE))
    assert [E._TERMS[i] for i in range(E._T_SIZE)] == [want[i] for i in range(E._T_SIZE)]
    assert "firmware.engine.terms" not in sys.modules


def test_micropython_evaluates_exactly_like_cpython():
    """The evaluation's terms are viper machine code under MicroPython (machine integers, raw
    pointers) and plain Python under CPython: every score must be the same, or the two
    interpreters would search different trees. Random positions from every stage of a game,
    and their colour mirrors (Black's side of each term); and pawn races, which random games
    rarely reach (both sides with unstoppable passers, either side to move)."""
    import json

    from tests.mpy import run_mpy

    boards = random_positions(200, seed=91)
    boards += [chess.Board(f) for f in ("8/8/8/2p5/k5P1/7P/7K/8 b - - 0 1", "8/8/8/2p5/k5P1/7P/7K/8 w - - 0 1",
                                        "8/8/8/8/k5P1/7P/7K/8 b - - 0 1", "8/8/8/2p5/k7/7P/6PK/8 w - - 0 1")]
    fens = [b.fen() for b in boards] + [b.mirror().fen() for b in boards]
    expected = [ev(f) for f in fens]
    code = (
        "import json\n"
        "from firmware.engine.evaluate import evaluate, init\n"
        "from firmware.engine.position import Position\n"
        "init()\n"
        "print('SCORES', json.dumps([evaluate(Position(f, 4)) for f in json.loads(%r)]))\n"
    ) % json.dumps(fens)
    out = run_mpy(code)
    line = [x for x in out.splitlines() if x.startswith("SCORES ")]
    assert line, out
    ours = json.loads(line[0][7:])
    assert len(ours) == len(fens)
    wrong = [(f, a, b) for f, a, b in zip(fens, expected, ours) if a != b]
    assert not wrong, wrong[:5]


def test_a_piece_reaching_a_square_next_to_the_king_attacks_it():
    """King safety's attack units come from the enemy's knights, bishops and rooks that stand
    within two squares of the king or reach a square next to it (on the mobility walk), and
    from queens within two squares; each piece counts once, for either colour."""
    import firmware.engine.evaluate as E

    # (FEN, kinds of White's attackers of the black king, kinds of Black's of the white king)
    cases = (
        ("qr4k1/5ppp/8/8/8/8/5PPP/1B1Q1RK1 w - - 0 1", (3,), ()),  # Bb1 reaches h7
        ("qr4k1/5ppp/8/8/4P3/8/5PPP/1B1Q1RK1 w - - 0 1", (), ()),  # ... not through the e4 pawn
        ("qr4k1/5ppp/8/4N3/8/8/5PPP/3Q1RK1 w - - 0 1", (2,), ()),  # Ne5 reaches f7
        ("qr4k1/5ppp/8/8/8/8/5PPP/3Q1RK1 w - - 0 1", (), ()),  # nothing reaches the kings
        ("rq4k1/5ppp/8/8/8/8/5PPP/3Q1RK1 b - - 0 1", (), ()),  # a queen walks nothing: not one
        ("q5k1/5ppp/8/8/8/3Q4/1r3PPP/6K1 b - - 0 1", (), (4,)),  # Rb2 reaches f2, next to g1
        ("q5k1/5ppp/8/8/8/3Q4/1r1B1PPP/6K1 b - - 0 1", (), ()),  # ... not through the bishop
        ("qr3rk1/5ppp/8/2b1N3/8/8/5PPP/3Q1RK1 b - - 0 1", (2,), (3,)),  # Ne5 on f7, Bc5 on f2
    )
    saved = T.KING_ATTACK_UNITS
    for fen_text, white, black in cases:
        position = Position(fen_text)
        c = position.counts
        phase = min(24, c[2] + c[3] + c[10] + c[11] + 2 * (c[4] + c[12]) + 4 * (c[5] + c[13]))
        mg = 0
        for kinds, sign, queen in ((white, 1, c[5]), (black, -1, c[13])):
            units = min(16, sum(saved[kind] for kind in kinds))
            pen = T.KING_ATTACK_PENALTY[units] if units else 0
            mg += sign * (pen if queen else pen >> 1)
        expected = mg * phase // 24 if mg >= 0 else -((-mg * phase) // 24)
        if position.stm:
            expected = -expected
        T.KING_ATTACK_UNITS = (0,) * len(saved)
        E.pack_terms(T)
        try:
            without = ev(fen_text)
        finally:
            T.KING_ATTACK_UNITS = saved
            E.pack_terms(T)
        diff = ev(fen_text) - without
        assert abs(diff - expected) <= 1 and (diff != 0) == (expected != 0), (fen_text, diff, expected)
