"""Engine core: allocation-free make/unmake under MicroPython, 30-bit hashes, rule pitfalls,
and name/parse round trips over their whole domain."""
import random

import chess
import pytest

from firmware.engine import rules, zobrist
from firmware.engine.constants import (
    from_sq64,
    START_FEN,
    parse_square,
    square_name,
    to_sq64,
)
from firmware.engine.fen import fen as fen_of
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.san_parse import parse_san
from firmware.engine.position import Position
from tests.mpy import run_mpy
from tests.positions import PERFT

LIMIT = 1 << 30


def test_perft_allocates_nothing_under_micropython():
    """heap_lock held around the whole kiwipete d3 walk: gen/make/unmake allocate nothing."""
    fen = PERFT["kiwipete"][0]
    out = run_mpy(
        "from firmware.engine.position import Position\n"
        "from firmware.engine.perft import perft\n"
        "from firmware.compat import heap_lock, heap_unlock\n"
        "p = Position(%r)\n"
        "perft(p, 3)  # warm up: allocates the per-depth move buffers once\n"
        "heap_lock()\n"
        "try:\n"
        "    n = perft(p, 3)\n"
        "finally:\n"
        "    heap_unlock()\n"
        "print('nodes', n)\n" % fen
    )
    assert out.split() == ["nodes", str(PERFT["kiwipete"][1][2])]


def test_heap_lock_test_can_fail():
    """The same harness does report an allocation inside the lock (the test above can fail)."""
    with pytest.raises(Exception) as info:
        run_mpy(
            "from firmware.engine.position import Position\n"
            "from firmware.engine.rules import legal_moves\n"
            "from firmware.compat import heap_lock\n"
            "p = Position()\n"
            "heap_lock()\n"
            "legal_moves(p)\n"
        )
    assert "MemoryError" in str(info.value)


def test_every_key_fits_in_30_bits():
    zobrist.init()
    tables = [zobrist.PIECE_LO, zobrist.PIECE_HI, zobrist.CASTLE_LO, zobrist.CASTLE_HI,
              zobrist.EP_LO, zobrist.EP_HI, zobrist.SIDE_LO, zobrist.SIDE_HI]
    for table in tables:
        for value in table:
            assert 0 <= value < LIMIT
    # keys used for real pieces are non-zero and distinct
    pieces = (1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14)
    used = [zobrist.PIECE_LO[zobrist.PIECE_BASE[p] + from_sq64(s)] for p in pieces for s in range(64)]
    assert len(set(used)) == len(used) and 0 not in used


def _xorshift32(x):
    """The key generator as its definition says it (Python's unbounded ints, cut to 32 bits)."""
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    return x


def test_keys_are_xorshift32_from_the_scheme_seed_on_small_ints():
    """zobrist_keys keeps the generator's state in 16-bit halves (no big integers on a 32-bit
    board); its draws are the 32-bit generator's, cut to 30 bits, in the tables' order."""
    from firmware.engine import zobrist_keys

    state = [zobrist_keys.SEED >> 16, zobrist_keys.SEED & 0xFFFF]
    x = zobrist_keys.SEED
    for _ in range(2000):
        x = _xorshift32(x)
        assert zobrist_keys.next_key(state) == x & 0x3FFFFFFF
        assert state == [x >> 16, x & 0xFFFF]  # both halves below 2^16: every step's value < 2^29
    zobrist.init()
    x = zobrist_keys.SEED
    first = []
    for _ in range(4):
        x = _xorshift32(x)
        first.append(x & 0x3FFFFFFF)
    white_pawn_a1 = zobrist.PIECE_BASE[1]
    assert [zobrist.PIECE_LO[white_pawn_a1], zobrist.PIECE_HI[white_pawn_a1],
            zobrist.PIECE_LO[white_pawn_a1 + 1], zobrist.PIECE_HI[white_pawn_a1 + 1]] == first


def test_keys_are_identical_under_micropython():
    code = (
        "from firmware.engine.position import Position\n"
        "p = Position('r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1')\n"
        "print(p.hash_lo, p.hash_hi)\n"
    )
    position = Position(PERFT["kiwipete"][0])
    assert run_mpy(code).split() == [str(position.hash_lo), str(position.hash_hi)]


def test_incremental_state_matches_recomputation_in_random_games():
    rng = random.Random(5)
    for _ in range(40):
        board = chess.Board()
        position = Position()
        for _ in range(rng.randrange(20, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            board.push(move)
            position.make(parse_uci(position, move.uci()))
            assert 0 <= position.hash_lo < LIMIT and 0 <= position.hash_hi < LIMIT
            lo, hi, mg, eg = position.hash_lo, position.hash_hi, position.score_mg, position.score_eg
            position.rehash()
            assert (lo, hi, mg, eg) == (position.hash_lo, position.hash_hi, position.score_mg, position.score_eg)
        # unmake all the way back restores the start position exactly
        while position.ply:
            position.unmake()
        assert fen_of(position) == chess.STARTING_FEN
        assert (position.hash_lo, position.hash_hi) == (Position().hash_lo, Position().hash_hi)


def test_square_names_round_trip_over_whole_domain():
    names = [f + r for r in "12345678" for f in "abcdefgh"]
    for sq64, name in enumerate(names):
        sq = from_sq64(sq64)
        assert square_name(sq) == name
        assert parse_square(name) == sq
        assert to_sq64(sq) == sq64
        assert chess.square_name(sq64) == name  # same numbering as python-chess
    for bad in (8, 0x88, -1, 120, 127):
        with pytest.raises(ValueError):
            square_name(bad)
    for bad in ("", "e", "e9", "i1", "E4", "e44", None, 4):
        with pytest.raises(ValueError):
            parse_square(bad)


def test_generated_moves_follow_the_documented_layout():
    """constants.py's move layout, read off every legal move of the perft positions and
    compared with python-chess: from (bits 0-6) and to (7-13) as 0x88 squares, the promotion
    kind (14-16), the special kind (17-18: 1 double push, 2 en passant, 3 castling), < 2^20."""
    kinds = {None: 0, chess.KNIGHT: 2, chess.BISHOP: 3, chess.ROOK: 4, chess.QUEEN: 5}
    seen = set()
    extra = ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant
             "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1")  # promotions and castling
    for fen in [fen for fen, _ in PERFT.values()] + list(extra):
        board = chess.Board(fen)
        for m in rules.legal_moves(Position(fen)):
            fr, to, promotion, special = m & 127, (m >> 7) & 127, (m >> 14) & 7, m >> 17
            assert m < 1 << 20
            match = [mv for mv in board.legal_moves
                     if mv.from_square == to_sq64(fr) and kinds[mv.promotion] == promotion
                     and mv.to_square == to_sq64(to)]
            assert len(match) == 1, (fen, m)
            mv = match[0]
            if board.is_castling(mv):
                expected = 3
            elif board.is_en_passant(mv):
                expected = 2
            elif board.piece_type_at(mv.from_square) == chess.PAWN and abs(mv.to_square - mv.from_square) == 16:
                expected = 1
            else:
                expected = 0
            assert special == expected, (fen, m, mv)
            seen.add(special)
            seen.add(10 + promotion)
    assert seen >= {0, 1, 2, 3, 10, 12, 13, 14, 15}  # every special kind and promotion occurs


def _legal_ucis(fen):
    return sorted(uci(m) for m in rules.legal_moves(Position(fen)))


def test_castling_rights_lost_when_rook_captured_on_corner():
    position = Position("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1")
    position.make(parse_uci(position, "g2h1"))  # bishop takes the h1 rook
    assert "K" not in fen_of(position).split()[2]
    assert fen_of(position).split()[2] == "Qkq"


def test_queen_side_castling_allowed_with_b1_attacked():
    # b1 attacked by the bishop on e4? no: by a rook on b8; d1/c1 free and safe.
    assert "e1c1" in _legal_ucis("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    # but not through an attacked d1
    assert "e1c1" not in _legal_ucis("3rk3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    # nor out of check
    assert "e1c1" not in _legal_ucis("4k3/8/8/8/8/8/8/R3K2r w Q - 0 1")


def test_en_passant_horizontal_pin_is_illegal():
    # White king a5, pawn b5, black pawn c7-c5 just moved, black rook h5: bxc6 e.p. exposes the king.
    position = Position("4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1")
    position.make(parse_uci(position, "c7c5"))
    assert "b5c6" not in [uci(m) for m in rules.legal_moves(position)]
    position = Position("4k3/2p5/8/1P5r/K7/8/8/8 b - - 0 1")
    position.make(parse_uci(position, "c7c5"))
    assert "b5c6" in [uci(m) for m in rules.legal_moves(position)]


def test_fullmove_number_increments_after_black():
    position = Position()
    position.make(parse_uci(position, "e2e4"))
    assert position.fullmove == 1
    position.make(parse_uci(position, "e7e5"))
    assert position.fullmove == 2


def test_repetition_claim_and_fivefold():
    position = Position()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for i in range(8):
        position.make(parse_uci(position, shuffle[i % 4]))
    assert rules.repetitions(position) == 3
    assert rules.claimable_draw(position) == rules.THREEFOLD_REPETITION
    assert rules.status(position) == rules.ONGOING
    for i in range(8):
        position.make(parse_uci(position, shuffle[i % 4]))
    assert rules.repetitions(position) == 5
    assert rules.status(position) == rules.FIVEFOLD_REPETITION


def test_fifty_and_seventyfive_move_rules():
    assert rules.claimable_draw(Position("4k3/8/8/8/8/8/8/R3K3 w - - 100 80")) == rules.FIFTY_MOVES
    assert rules.claimable_draw(Position("4k3/8/8/8/8/8/8/R3K3 w - - 99 80")) == rules.ONGOING
    assert rules.status(Position("4k3/8/8/8/8/8/8/R3K3 w - - 150 100")) == rules.SEVENTYFIVE_MOVES
    # mate on the 150th half-move is still mate
    assert rules.status(Position("R3k3/8/4K3/8/8/8/8/8 b - - 150 100")) == rules.CHECKMATE


@pytest.mark.parametrize(
    "fen,insufficient",
    [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),  # K-K
        ("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", True),  # KB-K
        ("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1", True),  # KN-K
        ("2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1", False),  # KB-KB opposite colours
        ("3bk3/8/8/8/8/8/8/2B1K3 w - - 0 1", True),  # KB-KB same colour
        ("4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1", False),  # KNN-K can't force, but mate possible
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", False),
        ("4k3/p7/8/8/8/8/8/4K3 w - - 0 1", False),
    ],
)
def test_insufficient_material(fen, insufficient):
    assert rules.is_insufficient_material(Position(fen)) == insufficient
    assert chess.Board(fen).is_insufficient_material() == insufficient


def test_find_move_defaults_promotion_to_queen():
    position = Position("8/4P3/8/8/8/k7/8/4K3 w - - 0 1")
    move = rules.find_move(position, parse_square("e7"), parse_square("e8"))
    assert uci(move) == "e7e8q"
    move = rules.find_move(position, parse_square("e7"), parse_square("e8"), 2)
    assert uci(move) == "e7e8n"
    assert rules.find_move(position, parse_square("e7"), parse_square("e6")) == 0


def test_parse_san_variants():
    position = Position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert uci(parse_san(position, "O-O")) == "e1g1"
    assert uci(parse_san(position, "0-0-0")) == "e1c1"
    position = Position("8/4P3/8/8/8/k7/8/4K3 w - - 0 1")
    assert uci(parse_san(position, "e8=N+")) == "e7e8n"
    assert uci(parse_san(position, "e8Q")) == "e7e8q"


def test_legal_moves_from_is_each_square_of_python_chess():
    """A lifted piece's targets (rules.legal_moves with a square): for every square of 60 random
    positions, exactly python-chess's legal moves from that square, promotions included."""
    from tests.randomgames import random_positions

    for board in random_positions(60, seed=16):
        pos = Position(board.fen())
        for square in chess.SQUARES:
            sq = (square >> 3) * 16 + (square & 7)
            ours = sorted(uci(m) for m in rules.legal_moves(pos, sq))
            theirs = sorted(m.uci() for m in board.legal_moves if m.from_square == square)
            assert ours == theirs, (board.fen(), chess.square_name(square))


# Played on the MicroPython unix port, where make and unmake are machine code (viper): random
# games from the perft positions (castling, e.p., promotions, captures of every kind), the
# incremental hash halves and scores checked against a recomputation after every make and
# every unmake, and the position back exactly where it started.
_INCREMENTAL_MPY = """
from firmware.engine.position import Position
from firmware.engine.rules import legal_moves
from firmware.engine.fen import fen
seed = 12345
bad = 0
plies = 0
kinds = set()
for start in %r:
    for game in range(6):
        p = Position(start)
        first = (p.hash_lo, p.hash_hi, p.score_mg, p.score_eg, fen(p))
        trail = []
        for _ in range(90):
            moves = legal_moves(p)
            if not moves:
                break
            seed = (seed * 1103515245 + 12345) & 0x3FFFFFFF
            m = moves[seed %% len(moves)]
            for e in moves:
                if e >> 17 == 2:  # en passant is rare in random play: take it when it comes
                    m = e
            kinds.add((m >> 17, (m >> 14) & 7 != 0, p.board[(m >> 7) & 127] != 0))
            trail.append((p.hash_lo, p.hash_hi, p.score_mg, p.score_eg))
            p.make(m)
            plies += 1
            got = (p.hash_lo, p.hash_hi, p.score_mg, p.score_eg)
            p.rehash()
            bad += got != (p.hash_lo, p.hash_hi, p.score_mg, p.score_eg)
        while p.ply:
            p.unmake()
            bad += trail.pop() != (p.hash_lo, p.hash_hi, p.score_mg, p.score_eg)
        bad += first != (p.hash_lo, p.hash_hi, p.score_mg, p.score_eg, fen(p))
print(bad, plies, len(kinds))
"""


def test_make_and_unmake_keep_the_incremental_state_under_micropython():
    starts = [fen for fen, _ in PERFT.values()]
    bad, plies, kinds = (int(x) for x in run_mpy(_INCREMENTAL_MPY % (starts,), timeout=300).split())
    assert plies > 1000
    assert kinds == 7  # quiet, captures, double pushes, e.p., castling, promotions (with and without capture)
    assert bad == 0


def test_set_start_and_assign_give_what_fen_gives():
    from firmware.engine.fen import set_fen

    start = Position()
    parsed = Position("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1")
    set_fen(parsed, START_FEN)
    state = lambda p: (bytes(p.board), bytes(p.counts), bytes(p.kings), p.stm, p.castling, p.ep,  # noqa: E731
                       p.halfmove, p.fullmove, p.hash_lo, p.hash_hi, p.score_mg, p.score_eg, p.ply)
    assert state(start) == state(parsed)
    game = Position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    for text in ("e1g1", "h3g2", "a2a4"):  # castling, a capture, a double push beside an enemy pawn (e.p.)
        game.make(parse_uci(game, text))
    copy = Position()
    copy.make(parse_uci(copy, "e2e4"))
    copy.assign(game)
    assert game.ep and game.castling == 12
    assert state(copy)[:-1] == state(game)[:-1] and copy.ply == 0 and len(copy.prior_lo) == 0
    assert fen_of(copy) == fen_of(game)


def test_set_start_and_assign_give_what_fen_gives_under_micropython():
    out = run_mpy(
        "from firmware.engine.position import Position\n"
        "from firmware.engine.uci_parse import parse_uci\n"
        "from firmware.engine.fen import START_FEN, fen, set_fen\n"
        "def state(p):\n"
        "    return (bytes(p.board), bytes(p.counts), bytes(p.kings), p.stm, p.castling, p.ep,\n"
        "            p.halfmove, p.fullmove, p.hash_lo, p.hash_hi, p.score_mg, p.score_eg, p.ply)\n"
        "start = Position()\n"
        "parsed = Position('4k3/8/8/8/8/8/8/4K3 w - - 0 1')\n"
        "set_fen(parsed, START_FEN)\n"
        "print(state(start) == state(parsed))\n"
        "game = Position('r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1')\n"
        "for t in ('e1g1', 'h3g2', 'a2a4'):\n"
        "    game.make(parse_uci(game, t))\n"
        "copy = Position()\n"
        "copy.make(parse_uci(copy, 'e2e4'))\n"
        "copy.assign(game)\n"
        "print(state(copy)[:-1] == state(game)[:-1], copy.ply, len(copy.prior_lo), fen(copy) == fen(game), game.ep)\n"
    )
    assert out.split("\n")[:2] == ["True", "True 0 0 True 32"]  # e.p. square a3 (0x20) kept


def test_the_fen_parser_is_loaded_only_while_a_fen_is_read():
    out = run_mpy(
        "import sys\n"
        "from firmware.controller.game import Game\n"
        "from firmware.engine.position import FenError, Position\n"
        "g = Game(100)\n"
        "g.new()\n"
        "Position(None, 40).assign(g.position)\n"
        "print('firmware.engine.fen' in sys.modules)\n"
        "g.new('8/8/8/4k3/8/8/8/4K2R w K - 0 1')\n"
        "print('firmware.engine.fen' in sys.modules, g.start_fen)\n"
        "try:\n"
        "    g.new('8/8/8/8/8/8/8/8 w - - 0 1')\n"
        "except FenError as e:\n"
        "    print('FenError', 'firmware.engine.fen' in sys.modules, g.start_fen)\n"
        "import firmware.engine.fen\n"
        "g.new('8/8/8/4k3/8/8/8/4K3 w - - 0 1')\n"
        "print('firmware.engine.fen' in sys.modules)\n"
    )
    assert out.split("\n")[:4] == ["False", "False 8/8/8/4k3/8/8/8/4K2R w K - 0 1",
                                     "FenError False 8/8/8/4k3/8/8/8/4K2R w K - 0 1", "True"]
