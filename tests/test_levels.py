"""The level table: every level gives valid limits; fun levels are weak but not blind."""
import chess
import pytest

from firmware.engine import levels
from firmware.engine.levels import LEVELS, LevelError, apply_level, find_level, limits_for_level
from firmware.engine.notation import uci
from firmware.engine.position import Position
from firmware.engine.search import Limits, Searcher
from tests.randomgames import random_positions


def test_table_is_well_formed():
    names = [entry.name for entry in LEVELS]
    assert len(set(names)) == len(names)
    kinds = {entry.kind for entry in LEVELS}
    assert kinds == set(levels.KINDS)
    movetimes = [e.value for e in LEVELS if e.kind == levels.MOVETIME]
    assert min(movetimes) == 1000 and max(movetimes) == 180000 and movetimes == sorted(movetimes)
    assert 0 <= levels.DEFAULT_LEVEL < len(LEVELS)
    for entry in LEVELS:
        # noise only on the fun levels and the lowest rated ones (tests/test_levels_rated.py)
        assert entry.noise_cp == 0 or entry.kind == levels.FUN or entry.name.startswith("Elo ")
        assert 0 <= entry.noise_cp < 400  # far below a queen: a hanging queen is still taken


def test_names_and_the_controllers_kinds_and_book_plies_follow_the_levels():
    names = [entry.name for entry in LEVELS]
    assert names[:5] == ["Fun 1", "Fun 2", "Fun 3", "Fun 4", "1 s/move"] and names[25] == "Analysis"
    assert names[-1] == "Elo 2000" and find_level("analysis") == 25
    kinds, book_plies = levels.kinds_and_book_plies()
    assert list(kinds) == [1 if e.kind == levels.CLOCK else 2 if e.kind == levels.INFINITE else 0 for e in LEVELS]
    assert list(book_plies) == [e.book_plies for e in LEVELS]
    assert kinds.count(2) == 1 and kinds.count(1) == 4


@pytest.mark.parametrize("index", range(len(LEVELS)))
def test_every_level_gives_limits(index):
    limits = limits_for_level(index)
    assert isinstance(limits, Limits)
    entry = LEVELS[index]
    if entry.kind == levels.MOVETIME:
        assert limits.movetime_ms == entry.value
    elif entry.kind == levels.CLOCK:
        assert limits.wtime_ms == entry.value and limits.winc_ms == entry.inc_ms
        assert limits.movestogo == entry.moves
    elif entry.kind == levels.DEPTH:
        assert limits.depth == entry.value
    elif entry.kind == levels.NODES:
        assert limits.nodes == entry.value
    elif entry.kind == levels.MATE:
        assert limits.mate == entry.value
    elif entry.kind == levels.INFINITE:
        assert limits.infinite
    else:
        assert limits.depth == entry.value and limits.nodes == levels.FUN_NODE_CAP


def test_clock_levels_use_the_clock_state():
    index = find_level("Blitz 3+2")
    limits = limits_for_level(index, {"wtime_ms": 61000, "btime_ms": 59000})
    assert (limits.wtime_ms, limits.btime_ms, limits.winc_ms, limits.binc_ms) == (61000, 59000, 2000, 2000)

    class Clock:
        wtime_ms = 5000
        btime_ms = 7000
        movestogo = 3

    limits = limits_for_level(find_level("Tournament 40/2h"), Clock())
    assert (limits.wtime_ms, limits.btime_ms, limits.movestogo) == (5000, 7000, 3)


@pytest.mark.parametrize("bad", [-1, len(LEVELS), "3", None, True])
def test_bad_level_index(bad):
    with pytest.raises(LevelError):
        limits_for_level(bad)


def test_bad_clock_state_and_names():
    with pytest.raises(LevelError):
        limits_for_level(find_level("Blitz 5 min"), {"wtime_ms": -5})
    with pytest.raises(LevelError):
        find_level("grandmaster")
    assert find_level("fun 1") == 0


HANGING_QUEEN = [
    # (fen, the capture of the undefended queen)
    ("rnb1kbnr/pppp1ppp/8/4p1q1/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "f3g5"),
    ("r1bqkbnr/pppp1ppp/2n5/4p3/3QP3/8/PPPP1PPP/RNB1KBNR b KQkq - 2 3", "c6d4"),
    ("rnbqkb1r/pppppppp/5n2/8/4Q3/8/PPP1PPPP/RNB1KBNR b KQkq - 0 2", "f6e4"),
]


def test_fun_levels_still_take_a_hanging_queen():
    for index, entry in enumerate(LEVELS):
        if entry.kind != levels.FUN:
            continue
        for seed in range(4):
            searcher = Searcher(tt_entries=1 << 10, seed=seed)
            apply_level(searcher, index)
            for fen_text, _ in HANGING_QUEEN:
                board = chess.Board(fen_text)
                assert board.is_valid()
                result = searcher.search(Position(fen_text), limits_for_level(index))
                move = chess.Move.from_uci(uci(result.best_move))
                assert board.is_capture(move) and board.piece_type_at(move.to_square) == chess.QUEEN, (
                    entry.name, seed, fen_text, move)


def test_fun_noise_changes_choices_but_is_reproducible():
    boards = [b for b in random_positions(30, seed=4) if not b.is_game_over()][:20]
    index = find_level("Fun 1")

    def moves(seed, noisy):
        searcher = Searcher(tt_entries=1 << 10, seed=seed)
        if noisy:
            apply_level(searcher, index)
        return [searcher.search(Position(b.fen()), limits_for_level(index)).best_move for b in boards]

    clean = moves(0, False)
    noisy_a = moves(1, True)
    assert noisy_a == moves(1, True)  # seeded: the same game replays the same
    assert noisy_a != clean  # and it really plays differently
    assert moves(2, True) != noisy_a


def test_mate_level_finds_the_mate():
    searcher = Searcher(tt_entries=1 << 12)
    limits = limits_for_level(find_level("Mate in 3"))
    result = searcher.search(Position("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1"), limits)
    assert result.mate_in == 3 and uci(result.best_move) == "f6a6"


def test_timed_level_with_a_simulated_clock_keeps_its_time():
    now = [0]

    def poll(searcher):
        now[0] += 20
        return False

    searcher = Searcher(tt_entries=1 << 12, poll_nodes=32, clock_ms=lambda: now[0])
    result = searcher.search(Position(), limits_for_level(find_level("1 s/move")), poll=poll)
    assert result.best_move and now[0] <= 1000 + 20
