"""The search: mates, stalemate traps, underpromotion, limits, stop, legality, bookkeeping.

Mate-in-N positions and their mate distances were checked with Stockfish 16 (multipv) when
the table was written; python-chess confirms every mate the engine plays."""
import random

import chess
import pytest

from firmware.engine import rules
from firmware.engine.fen import fen
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from firmware.engine.search import MATE, MATE_BOUND, MAX_PLY, Limits, SearchError, Searcher, mate_in_moves
from firmware.engine.timeman import SOFT_NEXT_PERCENT, LimitsError, budget
from firmware.engine.tt import BOUND_EXACT, BOUND_LOWER, TranspositionTable, TTSizeError
from tests.randomgames import random_positions

# (fen, mate in N moves, the mating first moves if the solution is unique, else None)
MATES = [
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1, {"d1d8"}),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, {"h5f7"}),
    ("7k/6pp/8/8/8/8/1Q6/K7 w - - 0 1", 1, {"b2b8"}),
    ("6rk/6pp/8/6N1/8/8/8/6RK w - - 0 1", 1, {"g5f7"}),
    ("4k3/8/4K3/8/8/8/8/R7 w - - 0 1", 1, {"a1a8"}),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2, {"d5f6"}),
    ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", 2, {"a1a6"}),
    ("r1bq2r1/b4pk1/p1pp1p2/1p2pP2/1P2P1PB/3P4/1PPQ2P1/R3K2R w - - 0 1", 2, {"d2h6"}),
    ("7k/8/5K2/8/8/8/8/6R1 w - - 0 1", 2, {"f6f7"}),
    ("k7/p1p5/Kp6/8/8/8/8/1R6 w - - 0 1", 2, None),
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3, {"f6a6"}),
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3, {"f8c5"}),
]


def _board_after(fen_text, moves):
    board = chess.Board(fen_text)
    for m in moves:
        board.push(chess.Move.from_uci(m))
    return board


def _play_out_mate(searcher, fen_text, n):
    """Let the engine play the mating side against python-chess's first legal replies
    (all replies for a one-move lookahead would be slower than it is worth); it must mate
    within n moves."""
    board = chess.Board(fen_text)
    position = Position(fen_text)
    for _ in range(n):
        result = searcher.search(position, Limits(depth=2 * n + 1))
        move = chess.Move.from_uci(uci(result.best_move))
        board.push(move)
        position.make(result.best_move)
        if board.is_checkmate():
            return True
        reply = next(iter(board.legal_moves))
        board.push(reply)
        position.make(parse_uci(position, reply.uci()))
        n -= 1
    return board.is_checkmate()


@pytest.mark.parametrize("fen_text,n,keys", MATES)
def test_finds_mate_in_n_at_small_depth(fen_text, n, keys):
    searcher = Searcher(tt_entries=1 << 14)
    position = Position(fen_text)
    before = fen(position)
    result = searcher.search(position, Limits(depth=2 * n + 1))
    assert fen(position) == before and position.ply == 0
    assert result.mate_in == n, (uci(result.best_move), result.score)
    assert result.score == MATE - (2 * n - 1)
    if keys is not None:
        assert uci(result.best_move) in keys
    assert _play_out_mate(searcher, fen_text, n)


@pytest.mark.parametrize("fen_text,n,keys", MATES)
def test_mate_search_alone_finds_every_mate_in_n(fen_text, n, keys):
    """`go mate N` and the mate levels search at most 2N plies: without forward pruning they
    must find every mate in N (a pruned quiet check near the leaves, as in 1.Ra6 bxa6 2.b7#,
    would be missed for good)."""
    searcher = Searcher(tt_entries=1 << 12)
    result = searcher.search(Position(fen_text), Limits(mate=n))
    assert result.mate_in == n, (uci(result.best_move), result.score, result.depth)
    assert result.depth <= 2 * n
    if keys is not None:
        assert uci(result.best_move) in keys


def test_mate_limit_stops_when_found():
    searcher = Searcher(tt_entries=1 << 12)
    result = searcher.search(Position("7k/8/5K2/8/8/8/8/6R1 w - - 0 1"), Limits(mate=2))
    assert result.mate_in == 2 and result.depth <= 4


def test_mated_side_reports_negative_mate():
    # Black to move is mated in one (after any move White mates).
    searcher = Searcher(tt_entries=1 << 12)
    result = searcher.search(Position("k7/8/1K6/8/8/8/8/7R b - - 0 1"), Limits(depth=4))
    assert result.mate_in is not None and result.mate_in < 0


def test_no_legal_moves_gives_no_move():
    searcher = Searcher(tt_entries=1 << 10)
    mated = searcher.search(Position("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"), Limits(depth=3))
    assert mated.best_move == 0 and mated.score == -MATE
    stalemated = searcher.search(Position("k7/8/1Q6/8/8/8/8/7K b - - 0 1"), Limits(depth=3))
    assert stalemated.best_move == 0 and stalemated.score == 0


def _stalemate_traps(count, seed):
    """Random K+Q (+ own pawn) vs K (+ blocked pawn) positions, White to move, where at
    least one legal move stalemates Black."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        board = chess.Board(None)
        squares = rng.sample(range(8, 56), 4)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        board.set_piece_at(squares[2], chess.Piece(chess.QUEEN, chess.WHITE))
        if rng.random() < 0.5:
            board.set_piece_at(squares[3], chess.Piece(chess.PAWN, chess.BLACK))
        if not board.is_valid() or board.is_game_over():
            continue
        traps = []
        for move in board.legal_moves:
            board.push(move)
            if board.is_stalemate():
                traps.append(move)
            board.pop()
        if traps:
            found.append(board.fen())
    return found


@pytest.mark.parametrize("fen_text", _stalemate_traps(12, seed=3))
def test_winning_side_avoids_stalemate(fen_text):
    searcher = Searcher(tt_entries=1 << 12)
    result = searcher.search(Position(fen_text), Limits(depth=3))
    board = chess.Board(fen_text)
    board.push(chess.Move.from_uci(uci(result.best_move)))
    assert not board.is_stalemate()
    assert result.score > 300


def test_rook_underpromotion_when_queen_stalemates():
    searcher = Searcher(tt_entries=1 << 12)
    result = searcher.search(Position("8/5P1k/8/7K/8/8/8/8 w - - 0 1"), Limits(depth=4))
    assert uci(result.best_move) == "f7f8r"
    assert result.score > 500


def test_knight_underpromotion_fork():
    searcher = Searcher(tt_entries=1 << 12)
    result = searcher.search(Position("8/4P1k1/3q4/8/8/8/6PP/6K1 w - - 0 1"), Limits(depth=4))
    assert uci(result.best_move) == "e7e8n"


def test_position_left_unchanged_and_pv_is_legal():
    for board in random_positions(12, seed=11):
        if board.is_game_over():
            continue
        position = Position(board.root().fen())
        for move in board.move_stack:
            position.make(parse_uci(position, move.uci()))
        before = (fen(position), position.ply, position.hash_lo, position.hash_hi)
        searcher = Searcher(tt_entries=1 << 12)
        infos = [(info.depth, info.pv) for info in searcher.iterate(position, Limits(depth=4))]
        assert (fen(position), position.ply, position.hash_lo, position.hash_hi) == before
        assert [d for d, _ in infos] == [1, 2, 3, 4]
        for _, pv in infos:
            replay = board.copy()
            for move in pv:
                replay.push(chess.Move.from_uci(uci(move)))  # raises if illegal
        assert infos[-1][1][0] == searcher.best_move


def test_500_random_positions_tiny_budgets_legal_moves():
    searcher = Searcher(tt_entries=1 << 10, poll_nodes=16)
    boards = [b for b in random_positions(520, seed=2024) if not b.is_game_over()][:500]
    assert len(boards) == 500
    for i, board in enumerate(boards):
        position = Position(board.fen())
        limits = Limits(nodes=1 + i % 40) if i % 2 else Limits(depth=1 + i % 2)
        result = searcher.search(position, limits)
        assert chess.Move.from_uci(uci(result.best_move)) in board.legal_moves, board.fen()
        if result.ponder_move:
            after = board.copy()
            after.push(chess.Move.from_uci(uci(result.best_move)))
            assert chess.Move.from_uci(uci(result.ponder_move)) in after.legal_moves


def test_check_evasion_filter_keeps_every_legal_move():
    searcher = Searcher(tt_entries=1 << 10)
    checked = 0
    for board in random_positions(400, seed=77):
        if not board.is_check():
            continue
        position = Position(board.fen())
        searcher.pos = position
        end = position.gen_moves(searcher.moves, 0)
        end = searcher._filter_evasions(0, end)
        kept = {uci(searcher.moves[i]) for i in range(end)}
        legal = {m.uci() for m in board.legal_moves}
        assert legal <= kept, board.fen()
        assert all(b == 0 for b in searcher.evade)
        checked += 1
    assert checked >= 20


def test_node_limit_is_exact_and_depth_1_move_is_legal():
    searcher = Searcher(tt_entries=1 << 10, poll_nodes=1000)
    position = Position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    for budget_nodes in (1, 7, 50, 333):
        result = searcher.search(position, Limits(nodes=budget_nodes))
        assert result.nodes <= budget_nodes + 1
        assert result.best_move in rules.legal_moves(position)


def test_poll_stops_search_and_is_called_every_poll_nodes():
    calls = []

    def poll(searcher):
        calls.append(searcher.nodes)
        return len(calls) >= 5

    searcher = Searcher(tt_entries=1 << 12, poll_nodes=100)
    position = Position()
    result = searcher.search(position, Limits(infinite=True), poll=poll)
    assert calls == [100, 200, 300, 400, 500]
    assert result.nodes <= 501
    assert result.best_move in rules.legal_moves(position)


def test_stop_from_poll_and_ponderhit_with_simulated_clock():
    now = [0]
    searcher = Searcher(tt_entries=1 << 12, poll_nodes=50, clock_ms=lambda: now[0])
    events = []

    def poll(s):
        now[0] += 10  # 10 simulated ms per 50 nodes
        if now[0] == 200:
            s.ponderhit()
            events.append(("ponderhit", s.nodes))
        return False

    limits = Limits(ponder=True, movetime_ms=1000)
    result = searcher.search(Position(), limits, poll=poll)
    # pondering ignored the clock until ponderhit at t=200; then the 1 s budget applied,
    # counted from there: the search went on until an iteration ended past
    # SOFT_NEXT_PERCENT of it (where depends on the tree), and not beyond its hard limit
    soft, hard = budget(limits, 0)
    assert events and searcher.start_ms == 200
    assert 200 + soft * SOFT_NEXT_PERCENT // 100 - 10 <= now[0] <= 200 + hard + 10
    assert result.best_move in rules.legal_moves(Position())


def test_hard_time_limit_with_simulated_clock():
    now = [0]

    def clock():
        return now[0]

    def poll(s):
        now[0] += 5
        return False

    searcher = Searcher(tt_entries=1 << 12, poll_nodes=64, clock_ms=clock)
    result = searcher.search(Position(), Limits(movetime_ms=300), poll=poll)
    assert now[0] <= 300 + 10
    assert result.best_move


def test_same_search_twice_is_deterministic():
    position = Position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    a = Searcher(tt_entries=1 << 12).search(position, Limits(depth=5))
    b = Searcher(tt_entries=1 << 12).search(position, Limits(depth=5))
    assert (a.best_move, a.nodes, a.score) == (b.best_move, b.nodes, b.score)


def test_winning_side_avoids_repeating_the_game_history():
    position = Position("k7/8/8/8/8/7Q/8/K7 w - - 0 1")
    for text in ("h3h4", "a8b8", "h4h3", "b8a8"):
        position.make(parse_uci(position, text))
    # h3h4 now would repeat the position after White's first move: a draw for the search
    searcher = Searcher(tt_entries=1 << 12)
    result = searcher.search(position, Limits(depth=4))
    assert uci(result.best_move) != "h3h4"
    assert result.score > 500
    # below the root, the repeated position scores 0; the same position without the
    # history scores as lost for Black
    position.make(parse_uci(position, "h3h4"))
    searcher.search(position, Limits(depth=1))  # sets up searcher.pos
    assert searcher._search(-30000, 30000, 2, 1, False, True) == 0
    fresh = Position(fen(position))
    searcher.search(fresh, Limits(depth=1))
    assert searcher._search(-30000, 30000, 2, 1, False, True) < -500


def test_fifty_move_rule_scores_draw():
    searcher = Searcher(tt_entries=1 << 12)
    result = searcher.search(Position("8/8/8/4k3/8/8/3QK3/8 w - - 99 80"), Limits(depth=3))
    assert abs(result.score) < MATE_BOUND
    # every move but a capture or pawn move leads to a 50-move draw: score 0 for all
    assert result.score == 0


def test_mate_in_moves_helper():
    assert mate_in_moves(MATE - 1) == 1
    assert mate_in_moves(MATE - 5) == 3
    assert mate_in_moves(-(MATE - 2)) == -1
    assert mate_in_moves(150) is None


def test_bad_arguments_raise_value_errors():
    with pytest.raises(SearchError):
        Searcher(poll_nodes=0)
    with pytest.raises(SearchError, match="512 to 65535"):
        Searcher(move_stack=1 << 16)  # the quiescence keeps move indexes in 16-bit cells
    with pytest.raises(SearchError, match="512 to 65535"):
        Searcher(move_stack=511)
    with pytest.raises(TTSizeError):
        Searcher(tt_entries=1)
    with pytest.raises(SearchError):
        Searcher(tt_entries=16).search(Position(), {"depth": 3})
    with pytest.raises(LimitsError):
        Limits(depth=-1)
    with pytest.raises(LimitsError):
        Limits(movetime_ms="100")


def test_transposition_table_store_probe_and_replacement():
    tt = TranspositionTable(64)
    assert tt.size == 64
    tt.store(5, 1234, 777, BOUND_EXACT, 6, -50)
    i = tt.probe(5, 1234)
    assert i >= 0 and tt.data[i] & 0x7FFFF == 777 and (tt.data[i] >> 21) & 63 == 6 and tt.scores[i] == -50
    assert tt.probe(5, 999) == -1
    # a shallower entry for another key in the same bucket goes to the second slot
    tt.store(5 + 64, 4321, 888, BOUND_LOWER, 2, 10)
    assert tt.probe(5, 1234) >= 0 and tt.probe(5 + 64, 4321) >= 0
    # after new_search the old deep entry may be replaced
    tt.new_search()
    tt.store(5 + 128, 5555, 999, BOUND_LOWER, 1, 0)
    assert tt.probe(5 + 128, 5555) >= 0
    # a result without a move keeps the stored move
    tt.store(5 + 128, 5555, 0, BOUND_EXACT, 3, 7)
    assert tt.data[tt.probe(5 + 128, 5555)] & 0x7FFFF == 999


def test_time_budgets():
    assert budget(Limits(movetime_ms=1000), 0) == (970, 970)
    assert budget(Limits(infinite=True, movetime_ms=5), 0) == (0, 0)
    assert budget(Limits(depth=5), 0) == (0, 0)
    soft, hard = budget(Limits(wtime_ms=60000, btime_ms=1000, winc_ms=1000), 0)
    assert 1000 < soft < hard <= 60000 // 3 + 1000
    soft_b, hard_b = budget(Limits(wtime_ms=60000, btime_ms=1000), 8)
    assert soft_b < soft and hard_b <= 1000
    soft, hard = budget(Limits(wtime_ms=10000, movestogo=1), 0)
    assert hard > 9000 - 100


def test_nearly_full_position_history_limits_the_search_instead_of_failing():
    for capacity in (10, 14, 30):
        position = Position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", capacity)
        for text in ("f1c4", "g8f6", "d2d3", "f8c5", "e1g1", "e8g8", "c2c3", "d7d6"):
            position.make(parse_uci(position, text))
        before = (fen(position), position.ply)
        result = Searcher(tt_entries=1 << 10).search(position, Limits(depth=6))
        assert (fen(position), position.ply) == before
        assert result.best_move in rules.legal_moves(position)


def test_running_out_of_stack_redoes_the_depth_with_a_lower_ply_limit():
    """CPython's recursion limit stands in for a board's small C stack (MicroPython raises
    the same "maximum recursion depth exceeded"; tests/test_search_mpy.py overflows a real
    one): the search finishes the depth shallower instead of crashing, the position is
    unchanged, and the lower limit holds for the next search."""
    import inspect
    import sys

    fen_text = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    searcher = Searcher(tt_entries=1024)
    position = Position(fen_text)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 20)  # room for ~10 plies of search
    try:
        result = searcher.search(position, Limits(depth=8))
        first = searcher.stack_ply
        again = searcher.search(position, Limits(depth=7))
    finally:
        sys.setrecursionlimit(old_limit)
    assert result.depth == 8 and again.depth == 7
    assert 2 <= first < MAX_PLY - 1 and searcher.stack_ply == first
    assert fen(position) == fen_text and position.ply == 0 and searcher.sp == 0
    assert uci(result.best_move) in {m.uci() for m in chess.Board(fen_text).legal_moves}


def test_an_unrelated_runtime_error_is_not_taken_for_a_stack_overflow():
    searcher = Searcher(tt_entries=1024)

    def poll(_searcher):
        raise RuntimeError("a bug in the poll function")

    searcher.poll_nodes = 1
    with pytest.raises(RuntimeError, match="bug in the poll"):
        searcher.search(Position(), Limits(depth=4), poll)


@pytest.mark.parametrize("bad", [-1, 100, 2560, "8192", 1.5])
def test_a_bad_stack_size_is_refused_with_a_clear_error(bad):
    with pytest.raises(SearchError, match="stack_bytes"):
        Searcher(tt_entries=256, stack_bytes=bad)


def test_history_rewards_cutoffs_punishes_the_moves_tried_before_and_stays_bounded():
    """History with gravity: a quiet move that cuts off gains, the quiet moves searched before
    it at that node lose, and no cell ever leaves +-HISTORY_MAX (the table is 16-bit and is
    never rescaled). Many searches on one Searcher drive cells toward the bound."""
    from firmware.engine.tunables import HISTORY_MAX

    searcher = Searcher(tt_entries=1 << 12)
    for board in random_positions(12, seed=21):
        searcher.search(Position(board.fen()), Limits(depth=5))
        cells = list(searcher.history)
        assert max(cells) <= HISTORY_MAX and min(cells) >= -HISTORY_MAX
    cells = list(searcher.history)
    assert max(cells) > 0 and min(cells) < 0  # both the bonus and the malus were applied


def test_quiescence_results_are_stored_and_answer_the_next_search():
    """Every finished quiescence node stores its score (depth 0, no move) in its bucket's
    always-replace slot, as a lower bound at or above beta, else an upper one; so a second
    search to the same depth finds the capture lines of the first in the table."""
    fen_text = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    searcher = Searcher(tt_entries=1 << 14)
    first = searcher.search(Position(fen_text), Limits(depth=1)).nodes
    tt = searcher.tt
    stored = [i for i in range(tt.size) if tt.keys[i] and (tt.data[i] >> 21) & 63 == 0]
    assert len(stored) > 20
    assert all(i % 2 == 1 for i in stored)  # never the depth-preferred slot
    assert all(tt.data[i] & 0x7FFFF == 0 for i in stored)  # no move
    assert {(tt.data[i] >> 19) & 3 for i in stored} <= {BOUND_LOWER, 1}  # lower or upper bounds
    assert all(-MATE_BOUND < tt.scores[i] < MATE_BOUND for i in stored)
    second = searcher.search(Position(fen_text), Limits(depth=1)).nodes
    assert second < first


def test_a_quiet_refutation_becomes_the_countermove_of_the_move_it_refuted():
    # After a search every stored countermove is a quiet move of its to-square's table (its
    # from and to squares: low 16 bits), some are stored at all, and a new game forgets them.
    searcher = Searcher(tt_entries=1024)
    pos = Position("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    searcher.search(pos, Limits(depth=5))
    stored = [v for v in searcher.counters if v]
    assert stored
    assert all(v < 1 << 14 and (v & 127) != (v >> 7) & 127 for v in stored)
    searcher.new_game()
    assert not any(searcher.counters)
