"""bench/sprt.py and selfplay.py's early stop: the sequential test decides like it says."""
import math
import random

import chess
import chess.pgn
import pytest

from bench import sprt
from bench.match_stockfish import play_match
from bench.selfplay import book_openings, main as selfplay_main, openings_for, parse_plies


def test_expected_score_is_logistic_and_symmetric():
    assert sprt.expected_score(0) == 0.5
    assert sprt.expected_score(400) == pytest.approx(10 / 11)
    assert sprt.expected_score(-35) == pytest.approx(1 - sprt.expected_score(35))


def test_llr_is_the_normal_log_likelihood_ratio_of_the_pair_scores():
    rng = random.Random(3)
    results = [rng.choice((0.0, 0.5, 1.0, 1.0)) for _ in range(200)]
    pairs = [(results[i] + results[i + 1]) / 2 for i in range(0, 200, 2)]
    mean = sum(pairs) / len(pairs)
    var = sum((p - mean) ** 2 for p in pairs) / len(pairs)
    s0, s1 = sprt.expected_score(0), sprt.expected_score(20)
    direct = sum(((p - s0) ** 2 - (p - s1) ** 2) / (2 * var) for p in pairs)
    assert sprt.llr(results, 0, 20) == pytest.approx(direct)
    assert direct > 0  # these games score far above both hypotheses


def test_pair_interval_narrows_with_more_pairs_and_holds_the_score():
    assert sprt.pair_interval([1.0, 0.0]) is None
    short = sprt.pair_interval([1.0, 0.5, 0.5, 0.5, 0.0, 0.5, 1.0, 1.0])
    long = sprt.pair_interval([1.0, 0.5, 0.5, 0.5, 0.0, 0.5, 1.0, 1.0] * 25)
    assert short[0] == pytest.approx(long[0]) == pytest.approx(-400 * math.log10(1 / 0.625 - 1))
    assert short[1] < long[1] < long[0] < long[2] < short[2]


def test_an_odd_last_game_waits_for_its_partner():
    assert sprt.pair_scores([1.0, 0.0, 1.0]) == [0.5]
    assert sprt.llr([1.0, 0.0, 1.0], 0, 10) == 0.0


def test_clear_wins_accept_h1_and_clear_losses_accept_h0():
    test = sprt.Sprt(0, 10)
    rng = random.Random(1)
    wins = []
    while test.update(wins) is None:
        wins.append(rng.choice((1.0, 1.0, 0.5, 0.0)))
    assert test.update(wins) == "H1" and test.llr >= test.upper
    test = sprt.Sprt(0, 10)
    losses = []
    while test.update(losses) is None:
        losses.append(rng.choice((0.0, 0.0, 0.5, 1.0)))
    assert test.update(losses) == "H0" and test.llr <= test.lower


def _run(true_elo, elo0, elo1, rng, most=4000):
    """One simulated SPRT: games scored with draws, the true expected score true_elo's."""
    s = sprt.expected_score(true_elo)
    draw = 0.3
    win = s - draw / 2
    test = sprt.Sprt(elo0, elo1)
    results = []
    while len(results) < most:
        x = rng.random()
        results.append(1.0 if x < win else (0.5 if x < win + draw else 0.0))
        if len(results) % 2 == 0:
            verdict = test.update(results)
            if verdict:
                return verdict
    return None


def test_error_rates_are_near_alpha_and_beta():
    """Simulated matches: a change that is really elo0 is accepted rarely, one that is really
    elo1 nearly always (alpha = beta = 0.05; the normal approximation allows some slack)."""
    rng = random.Random(7)
    runs = 200
    for elo1 in (60, 30):
        false_accepts = sum(_run(0, 0, elo1, rng) == "H1" for _ in range(runs))
        true_accepts = sum(_run(elo1, 0, elo1, rng) == "H1" for _ in range(runs))
        assert false_accepts <= 0.10 * runs
        assert true_accepts >= 0.90 * runs


def test_bad_parameters_get_a_clear_error():
    assert sprt.parse_bounds("0,10") == (0.0, 10.0)
    for text in ("10", "0,x", "10,0", "5,5", "0,5,10"):
        with pytest.raises(sprt.SprtError):
            sprt.parse_bounds(text)
    with pytest.raises(sprt.SprtError):
        sprt.llr_bounds(alpha=0.7)
    assert parse_plies("10,8,12") == [10, 8, 12]
    for text in ("", "10,,8", "0", "ten"):
        with pytest.raises(sprt.SprtError):
            parse_plies(text)


def test_opening_sets_are_taken_in_turn_without_repeats():
    tens, eights = book_openings(10), book_openings(8)
    both = openings_for([10, 8])
    assert both[:2] == [tens[0], eights[0]]
    assert both[2] == tens[1]
    assert len(both) == len(set(both)) == len(set(tens) | set(eights))


class _Engine:
    """Enough of a python-chess engine for play_match: these games end before a move."""

    class protocol:
        @staticmethod
        def send_line(line):
            pass

    def play(self, board, limit):
        raise AssertionError("the game is over before it starts")

    def quit(self):
        pass


def test_play_match_stops_when_asked():
    mated = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"  # Black is mated: White wins at once
    asked = []

    def stop(results):
        asked.append(len(results))
        return len(results) == 3

    results = play_match(_Engine(), _Engine(), chess.engine.Limit(nodes=1), 10, [mated], stop=stop)
    assert results == [1.0, 0.0, 1.0]  # ours White, Black, White
    assert asked == [1, 2, 3]


def test_play_match_writes_every_game_to_the_pgn_file(tmp_path):
    mated = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"
    path = str(tmp_path / "games.pgn")
    pgn = {"file": path, "us": "Reedchess (1 node)", "them": "Other"}
    results = play_match(_Engine(), _Engine(), chess.engine.Limit(nodes=1), 2, [mated], pgn=pgn)
    assert results == [1.0, 0.0]
    with open(path) as f:
        games = [chess.pgn.read_game(f), chess.pgn.read_game(f)]
    assert [g.headers["White"] for g in games] == ["Reedchess (1 node)", "Other"]
    assert [g.headers["Result"] for g in games] == ["1-0", "1-0"]
    assert [g.headers["FEN"] for g in games] == [mated, mated]
    assert games[0].headers["Round"] == "1" and games[1].headers["Round"] == "2"


def test_selfplay_refuses_more_games_than_its_openings_give(capsys):
    """Node-limited games repeat exactly: game 2N+1 of N openings would be game 1 again."""
    distinct = 2 * len(book_openings(10))
    with pytest.raises(SystemExit):
        selfplay_main(["--book-plies", "10", "--games", str(distinct + 1)])
    assert "only %d distinct games" % distinct in capsys.readouterr().err
    with pytest.raises(SystemExit):
        selfplay_main(["--book-plies", "10", "--games", "2", "--first-game", str(distinct - 1)])


def test_adjudication_needs_both_engines_to_agree_for_the_whole_run():
    from bench.match_stockfish import DRAW_FROM_PLY, DRAW_PLIES, RESIGN_CP, RESIGN_PLIES, adjudicate

    won = [RESIGN_CP] * RESIGN_PLIES
    assert adjudicate(won, 40) == chess.WHITE
    assert adjudicate([-s for s in won], 40) == chess.BLACK
    assert adjudicate(won[1:], 40) is False  # one ply short of the run
    assert adjudicate(won[:-1] + [RESIGN_CP - 1], 40) is False  # the last engine disagrees
    level = [0, 3, -5, 2] * DRAW_PLIES
    assert adjudicate(level, DRAW_FROM_PLY) is None
    assert adjudicate(level, DRAW_FROM_PLY - 1) is False  # too early for a draw
    assert adjudicate(level[:-1] + [6], DRAW_FROM_PLY) is False


def test_an_adjudicated_game_ends_at_the_run_and_a_played_one_does_not():
    """Engines that shuffle kings and report White 12 pawns up: adjudicated after RESIGN_PLIES."""
    from bench.match_stockfish import RESIGN_PLIES, play_game

    class Shuffler(_Engine):
        def play(self, board, limit, info=None):
            move = sorted(board.legal_moves, key=lambda m: m.uci())[0]
            score = chess.engine.PovScore(chess.engine.Cp(1200), chess.WHITE)
            return chess.engine.PlayResult(move, None, info={"score": score} if info else {})

    fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"  # bare kings: drawn at once when played out
    score, board, how = play_game(Shuffler(), Shuffler(), fen, True, chess.engine.Limit(nodes=1), adjudicated=True)
    assert (score, how, len(board.move_stack)) == (0.5, "insufficient_material", 0)
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    score, board, how = play_game(Shuffler(), Shuffler(), fen, False, chess.engine.Limit(nodes=1), adjudicated=True)
    assert (score, how, len(board.move_stack)) == (0.0, "adjudicated", RESIGN_PLIES)
    score, board, how = play_game(Shuffler(), Shuffler(), fen, False, chess.engine.Limit(nodes=1), max_plies=40)
    assert how != "adjudicated" and len(board.move_stack) > RESIGN_PLIES


def test_pool_reads_the_games_of_several_logs_and_drops_an_unpaired_last_game(tmp_path, capsys):
    from bench.selfplay import read_results

    first = tmp_path / "group1.log"
    first.write_text("working tree vs main, 10000 nodes per move\n"
                     "game  1  white  win   checkmate               64 plies  running score 1.0/1\n"
                     "game  2  black  draw  adjudicated draw       120 plies  running score 1.5/2\n"
                     "game  3  white  loss  adjudicated             90 plies  running score 1.5/3\n")
    second = tmp_path / "group2.log"
    second.write_text("game  1  white  loss  checkmate  64 plies  running score 0.0/1\n"
                      "game  2  black  loss  checkmate  64 plies  running score 0.0/2\n")
    assert read_results(str(first)) == [1.0, 0.5]
    assert selfplay_main(["--pool", str(first), str(second)]) == [1.0, 0.5, 0.0, 0.0]
    out = capsys.readouterr().out
    assert "score 1.5/4 (+1 =1 -2)" in out
    with pytest.raises(SystemExit):
        selfplay_main(["--pool", str(tmp_path / "missing.log")])
