"""UCI_LimitStrength and UCI_Elo: announced, parsed (bad values are errors that change
nothing), and they change the search: the rated level's node budget whatever the time
control, its noise, the same under CPython and the MicroPython unix port."""
import random
import subprocess
import sys

import chess
import pytest

from firmware import uci as uci_module
from firmware.engine.levels import LEVELS, table_nodes
from firmware.uci import rated_level
from firmware.uci import UciSession
from tests.mpy import ROOT, run_mpy_module
from tests.test_uci_small_heap import Engine, _play, tree  # noqa: F401 (tree: the .mpy build fixture)


class Lines:
    """A non-blocking line source for the search's poll: the scripted lines, then None."""

    def __init__(self, lines=()):
        self.lines = list(lines)

    def __call__(self):
        return self.lines.pop(0) if self.lines else None


def _session(lines=()):
    out = []
    return UciSession(out.append, read_line=Lines(lines), poll_nodes=100), out


def _totals(out):
    """(nodes, bestmove) of every search in `out`."""
    nodes = [int(line.split()[2]) for line in out if line.startswith("info nodes")]
    best = [line.split()[1] for line in out if line.startswith("bestmove")]
    assert len(nodes) == len(best), out
    return list(zip(nodes, best))


def _untimed(lines):
    """The lines without their `time` and `nps` fields (they depend on the machine)."""
    out = []
    for line in lines:
        words = line.split()
        for name in ("time", "nps"):
            if name in words:
                k = words.index(name)
                del words[k:k + 2]
        out.append(" ".join(words))
    return out


def test_options_are_announced_like_other_engines():
    session, out = _session()
    session.handle("uci")
    assert "option name UCI_LimitStrength type check default false" in out
    assert "option name UCI_Elo type spin default 1500 min 1000 max 2000" in out
    assert out[-1] == "uciok"
    assert LEVELS[rated_level(uci_module._ELO_MIN)].name == "Elo %d" % uci_module._ELO_MIN
    top = LEVELS[rated_level(uci_module._ELO_MAX)].name
    assert top == "Elo %d" % uci_module._ELO_MAX == LEVELS[len(LEVELS) - 1].name


@pytest.mark.parametrize("line", [
    "setoption name UCI_Elo value 999",
    "setoption name UCI_Elo value 2001",
    "setoption name UCI_Elo value fast",
    "setoption name UCI_Elo value",
    "setoption name UCI_Elo",
    "setoption name UCI_Elo value 1500.5",
    "setoption name UCI_LimitStrength value yes",
    "setoption name UCI_LimitStrength",
])
def test_bad_values_are_errors_and_change_nothing(line):
    session, out = _session()
    session.handle("setoption name UCI_Elo value 1300")
    session.handle("setoption name UCI_LimitStrength value true")
    assert session.handle(line) is True  # the session goes on
    assert len(out) == 1 and out[0].startswith("info string error: UCI_"), out
    assert (session.uci_elo, session.limit_strength) == (1300, True)


def test_option_names_are_case_insensitive_and_limit_can_be_turned_off():
    session, out = _session()
    session.handle("setoption name uci_elo value 1800")
    session.handle("setoption name uci_limitstrength value TRUE")
    assert (session.uci_elo, session.limit_strength) == (1800, True)
    session.handle("setoption name UCI_LimitStrength value false")
    assert session.limit_strength is False and out == []


@pytest.mark.parametrize("go", ["go movetime 5000", "go wtime 300000 btime 300000 winc 2000 binc 2000",
                                "go depth 12", "go nodes 50000"])
def test_limited_strength_searches_the_levels_budget_whatever_the_time_control(go):
    session, out = _session()
    session.handle("setoption name UCI_LimitStrength value true")
    session.handle("setoption name UCI_Elo value 1460")  # nearest: Elo 1500
    session.handle("position startpos moves e2e4 c7c5")
    session.handle(go)
    budget = table_nodes(LEVELS[rated_level(1500)].value, session.searcher.tt.size)
    assert _totals(out) == [(budget, _totals(out)[0][1])]
    assert session.searcher.noise_cp == LEVELS[rated_level(1500)].noise_cp


def test_the_rating_changes_the_search_and_off_means_the_go_limits_again():
    session, out = _session()
    session.handle("position startpos moves d2d4")
    session.handle("setoption name UCI_LimitStrength value true")
    for elo in (1000, 1700, 2000):
        session.handle("setoption name UCI_Elo value %d" % elo)
        session.handle("go movetime 10")
    entries = [LEVELS[rated_level(e)] for e in (1000, 1700, 2000)]
    assert [n for n, _ in _totals(out)] == [table_nodes(e.value, session.searcher.tt.size) for e in entries]
    assert len({e.value for e in entries}) == 3
    session.handle("setoption name UCI_LimitStrength value false")
    del out[:]
    session.handle("go nodes 777")
    assert _totals(out)[0][0] == 777
    assert session.searcher.noise_cp == 0  # the rated level's noise is gone


def test_a_small_hash_gets_the_levels_budget_for_its_size():
    """The rated level plays as calibrated (with 262,144 slots) on a smaller table too: more
    nodes (levels.table_nodes), as on a board."""
    session, out = _session()
    session.handle("position startpos moves d2d4 g8f6")
    session.handle("setoption name UCI_LimitStrength value true")
    session.handle("setoption name UCI_Elo value 1700")
    session.handle("go movetime 10")  # the searcher is made at the first go: the default table
    big = session.searcher.tt.size
    session.searcher = session._new_searcher(512)  # a table the level's budget overfills
    session.handle("go movetime 10")
    budget = LEVELS[rated_level(1700)].value
    assert [n for n, _ in _totals(out)] == [table_nodes(budget, big), table_nodes(budget, 512)]
    assert table_nodes(budget, 512) > budget


def test_the_lowest_rating_adds_its_noise_and_replays_the_same():
    def play(limit):
        session, out = _session()
        session.handle("position startpos moves e2e4 e7e5 g1f3")
        session.handle("setoption name UCI_Elo value 1000")
        session.handle("setoption name UCI_LimitStrength value %s" % limit)
        session.handle("go movetime 10" if limit == "true" else "go nodes %d" % LEVELS[rated_level(1000)].value)
        assert session.searcher.noise_cp == (LEVELS[rated_level(1000)].noise_cp if limit == "true" else 0)
        return _untimed([line for line in out if line.startswith("info depth")])

    noisy = play("true")
    assert noisy == play("true")  # seeded: the same line, the same scores
    assert noisy != play("false")  # the same budget without the noise searches otherwise


def test_infinite_and_mate_searches_are_not_limited():
    session, out = _session()
    session.handle("setoption name UCI_LimitStrength value true")
    session.handle("setoption name UCI_Elo value 1000")
    session.handle("position fen r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1")
    session.handle("go mate 3")
    assert _totals(out)[0][1] == "f6a6"
    assert session.searcher.noise_cp == 0
    del out[:]
    session.read_line = Lines([None] * 5 + ["stop"])
    session.handle("position startpos")
    session.handle("go infinite")
    assert _totals(out)[0][0] != LEVELS[rated_level(1000)].value


SCRIPT = ("uci\nsetoption name UCI_LimitStrength value true\nsetoption name UCI_Elo value %d\n"
          "position startpos moves e2e4 e7e5 g1f3 b8c6\ngo wtime 60000 btime 60000\nisready\nquit\n")


@pytest.mark.parametrize("elo", [1000, 1600])
def test_same_nodes_and_move_under_micropython_and_cpython(elo):
    script = SCRIPT % elo
    cpython = subprocess.run([sys.executable, "-m", "firmware.uci"], input=script, capture_output=True,
                             text=True, cwd=ROOT, timeout=120).stdout
    micro = run_mpy_module("firmware.uci", stdin=script, timeout=120)
    ours = [line for line in cpython.splitlines() if line.startswith(("info nodes", "bestmove", "info depth"))]
    theirs = [line for line in micro.splitlines() if line.startswith(("info nodes", "bestmove", "info depth"))]
    assert _untimed(ours) == _untimed(theirs) and len(ours) >= 3
    # Elo 1000 and 1600: budgets too small for the default table to change
    assert "info nodes %d" % LEVELS[rated_level(elo)].value in _untimed(ours)


def _limited_engine(mpy_tree, elo):
    """The unix port on a 128 KB heap running the .mpy files in `mpy_tree`, told UCI_Elo `elo`."""
    engine = Engine(mpy_tree)
    try:
        engine.send("uci")
        engine.until("uciok")
        engine.send("setoption name UCI_LimitStrength value true")
        engine.send("setoption name UCI_Elo value %d" % elo)
    except BaseException:
        engine.close()
        raise
    return engine


@pytest.mark.parametrize("elo", [1000, 1800])
def test_a_strength_limited_game_in_a_board_sized_heap(tree, elo):  # noqa: F811 (the imported fixture)
    """As test_uci_small_heap's game against random moves (128 KB heap, the .mpy files `make
    flash` builds), with UCI_LimitStrength: the levels module comes in at the first `go`."""
    rng = random.Random(elo)
    engine = _limited_engine(tree, elo)
    try:
        engine.send("isready")
        engine.until("readyok")
        _play(engine, chess.Board(), rng, lambda b: b.turn == chess.WHITE)
        # the budget for the table the heap allowed (a power of two; levels.table_nodes)
        value = LEVELS[rated_level(elo)].value
        budgets = tuple({"info nodes %d " % table_nodes(value, 1 << k) for k in range(1, 19)})
        assert sum(line.startswith(budgets) for line in engine.seen) >= 5
    finally:
        assert engine.close() == 0


# A game the engine mates in five plies at Elo 1800 (its moves at its own budget: the same
# every run), after which a 128 KB heap holds about 29 KB free in holes of 2 KB at most.
MATED_IN_FIVE = "e2e4 f7f5 e4f5 a7a6 d1h5 g7g6 f5g6 b8c6 g6h7".split()
NEXT_FEN = "r1bqkbnr/1ppppp2/p1n3p1/7Q/8/8/PPPP1PPP/RNB1KBNR w KQkq - 0 5"


def test_position_fen_after_a_strength_limited_game_in_a_board_sized_heap(tree):  # noqa: F811
    """The FEN module `position fen` and `d` load must find room in a heap the game has cut into
    holes (its names are interned at the session's start; failing that, the session frees the
    search's table), so the GUI's next position is set, not the last one searched again."""
    engine = _limited_engine(tree, 1800)
    try:
        for ply in range(0, len(MATED_IN_FIVE), 2):
            engine.send("position startpos moves " + " ".join(MATED_IN_FIVE[:ply]))
            engine.send("go wtime 60000 btime 60000")
            assert engine.until("bestmove")[-1].split()[1] == MATED_IN_FIVE[ply]
        engine.send("position fen " + NEXT_FEN)
        engine.send("d")
        assert engine.until("info string fen")[-1] == "info string fen " + NEXT_FEN
        engine.send("go wtime 60000 btime 60000")
        move = chess.Move.from_uci(engine.until("bestmove")[-1].split()[1])
        assert move in chess.Board(NEXT_FEN).legal_moves
    finally:
        assert engine.close() == 0


def test_fun_level_plays_the_boards_fun_levels_whatever_the_time_control():
    """Fun Level 1-4: levels 1-4 ("Fun 1" .. "Fun 4"): their depth, node cap and noise, before
    UCI_LimitStrength; 0 turns it off; bad values are errors that change nothing."""
    session, out = _session()
    session.handle("uci")
    assert "option name Fun Level type spin default 0 min 0 max 4" in out
    assert [LEVELS[i].kind for i in range(uci_module._FUN_MAX)] == ["fun"] * 4
    assert LEVELS[uci_module._FUN_MAX].kind != "fun"
    for line in ("setoption name Fun Level value 5", "setoption name Fun Level value -1",
                 "setoption name Fun Level value two", "setoption name Fun Level"):
        del out[:]
        session.handle(line)
        assert len(out) == 1 and out[0].startswith("info string error: Fun Level"), out
        assert session.fun_level == 0
    session.handle("setoption name UCI_LimitStrength value true")
    session.handle("setoption name UCI_Elo value 2000")
    session.handle("position startpos moves e2e4 e7e5 g1f3")
    for fun in (1, 4):
        session.handle("setoption name fun level value %d" % fun)
        del out[:]
        session.handle("go wtime 300000 btime 300000")
        entry = LEVELS[fun - 1]
        depths = [int(line.split()[2]) for line in out if line.startswith("info depth")]
        assert max(depths) <= entry.value and _totals(out)[0][0] <= 3000
        assert session.searcher.noise_cp == entry.noise_cp and entry.noise_cp > 0
    session.handle("setoption name Fun Level value 0")  # off: the rated level again
    del out[:]
    session.handle("go movetime 10")
    assert _totals(out)[0][0] == table_nodes(LEVELS[rated_level(2000)].value, session.searcher.tt.size)
    assert session.searcher.noise_cp == 0
