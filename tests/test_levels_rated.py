"""The rated levels "Elo 1000" .. "Elo 2000": where they sit in the table, node budgets searched
exactly (the same nodes and moves under CPython and the MicroPython unix port), bounded and
seeded evaluation noise, no allocation while searching."""
import json

import chess
import pytest

from firmware.engine import levels
from firmware.engine.evaluate import evaluate
from firmware.engine.levels import LEVELS, apply_level, find_level, limits_for_level
from firmware.uci import rated_level
from firmware.engine.notation import uci
from firmware.engine.position import Position
from firmware.engine.search import Searcher
from tests.mpy import run_mpy
from tests.randomgames import random_positions

RATINGS = list(range(1000, 2001, 100))
RATED = [find_level("Elo %d" % elo) for elo in RATINGS]

# The levels before the rated ones, in order: a level index saved in the settings (and the
# statistics per level) must keep meaning the same level.
FIXED_NAMES = [
    "Fun 1", "Fun 2", "Fun 3", "Fun 4", "1 s/move", "3 s/move", "5 s/move", "10 s/move", "15 s/move",
    "30 s/move", "1 min/move", "2 min/move", "3 min/move", "Blitz 5 min", "Blitz 3+2", "Rapid 15+10",
    "Tournament 40/2h", "Depth 2", "Depth 4", "Depth 6", "1000 nodes", "10000 nodes", "Mate in 2",
    "Mate in 3", "Mate in 5", "Analysis",
]

POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "2r3k1/pp3ppp/2n1b3/3p4/3P4/2N1B3/PP3PPP/2R3K1 w - - 0 20",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
]


def test_rated_levels_follow_the_old_ones_in_order():
    assert [LEVELS[i].name for i in range(len(FIXED_NAMES))] == FIXED_NAMES
    assert RATED == list(range(len(FIXED_NAMES), len(FIXED_NAMES) + len(RATINGS)))
    assert RATED[-1] == len(LEVELS) - 1
    assert [LEVELS[i].name for i in RATED] == ["Elo %d" % elo for elo in range(1000, 2001, 100)]


def test_rated_levels_weaken_by_nodes_and_bounded_noise():
    entries = [LEVELS[i] for i in RATED]
    budgets = [e.value for e in entries]
    noises = [e.noise_cp for e in entries]
    assert all(e.kind == levels.NODES for e in entries)
    assert budgets == sorted(budgets) and budgets[0] >= 100  # depth 1 (nearly) always finishes
    assert noises == sorted(noises, reverse=True) and noises[0] > 0
    for e in entries:
        assert 0 <= e.noise_cp <= 250  # below a minor piece
        if e.noise_cp == 0:
            assert e.book_plies == 16
    assert [e.noise_cp for e in entries if int(e.name.split()[1]) >= 1300] == [0] * 8  # no blunders up there
    clean = [e.value for e in entries if not e.noise_cp]
    assert all(a < b for a, b in zip(clean, clean[1:]))  # stronger means more nodes
    for i in RATED:
        assert limits_for_level(i).nodes == LEVELS[i].value and not limits_for_level(i).depth


BOARD_SLOTS = (1024, 2048, 8192, 65536)  # ESP32, Pico, Pico 2, ESP32-S3 (boards/)


def test_a_smaller_table_gets_more_nodes_for_the_same_rating():
    """levels.table_nodes: the calibration's 262,144 slots (and more, or an unknown size) keep
    the budget; a smaller table gets more nodes, the more the fuller it gets (bigger budget,
    fewer slots), never fewer, and a budget far below the table's size stays as it is."""
    budgets = [LEVELS[i].value for i in RATED]
    for nodes in budgets + [1, 999, 100000, 10 ** 6]:
        for slots in (0, 262144, 1 << 20):
            assert levels.table_nodes(nodes, slots) == nodes
        assert levels.table_nodes(nodes, 4 * nodes + 4) == nodes  # a quarter full at most
        got = [levels.table_nodes(nodes, s) for s in (2, 64) + BOARD_SLOTS + (131072,)]
        assert all(n >= nodes for n in got) and got == sorted(got, reverse=True)
    for slots in (2,) + BOARD_SLOTS:
        got = [levels.table_nodes(n, slots) for n in range(50, 200000, 997)]
        assert all(a < b for a, b in zip(got, got[1:]))  # more nodes stay more
        assert all(n <= 2 * m for n, m in zip(got, range(50, 200000, 997)))  # at most twice
    pico = [levels.table_nodes(n, 2048) for n in budgets]
    assert pico[-2] > budgets[-2] * 11 // 10 and pico[-1] > pico[-2]  # Elo 1900, 2000 on a Pico
    assert pico[:6] == budgets[:6]  # up to Elo 1500 (350 nodes) nothing to make up


def test_the_budgets_for_a_table_are_the_same_under_micropython():
    """table_nodes is integer arithmetic on small ints: every rated level's budget for every
    board's table (and some fuller ones) is the same under the unix port as under CPython."""
    slots = (2, 64, 512) + BOARD_SLOTS + (262144,)
    ours = [limits_for_level(i, None, n).nodes for i in RATED for n in slots]
    code = (
        "from firmware.engine.levels import limits_for_level\n"
        "print([limits_for_level(i, None, n).nodes for i in %r for n in %r])\n" % (RATED, slots)
    )
    theirs = json.loads(run_mpy(code).strip().splitlines()[-1])
    assert theirs == ours
    assert ours != [LEVELS[i].value for i in RATED for n in slots]  # some budgets do change


@pytest.mark.parametrize("slots", BOARD_SLOTS)
def test_the_rated_levels_search_the_budget_for_the_table(slots):
    for i in RATED:
        assert limits_for_level(i, None, slots).nodes == levels.table_nodes(LEVELS[i].value, slots)
    # the levels named by their node count keep it
    for name in ("1000 nodes", "10000 nodes"):
        i = find_level(name)
        assert limits_for_level(i, None, slots).nodes == LEVELS[i].value


@pytest.mark.parametrize("elo,name", [(1000, "Elo 1000"), (1049, "Elo 1000"), (1050, "Elo 1100"),
                                      (1449, "Elo 1400"), (1999, "Elo 2000"), (2000, "Elo 2000")])
def test_rated_level_is_the_nearest(elo, name):
    assert LEVELS[rated_level(elo)].name == name


@pytest.mark.parametrize("bad", [999, 2001, -5, "1500", None, True, 1500.0])
def test_rated_level_rejects_bad_ratings(bad):
    # the levels module as rated_level will find it: a strength-limited UCI `go` drops the
    # module (its heap goes to the search), so after such a test it is a new copy with its
    # own LevelError class
    from firmware.engine import levels as current

    with pytest.raises(current.LevelError):
        rated_level(bad)


def _search_level(index, fen_text, seed=0, tt=1 << 11):
    searcher = Searcher(tt_entries=tt, seed=seed)
    apply_level(searcher, index)
    return searcher.search(Position(fen_text), limits_for_level(index))


def test_a_rated_level_searches_its_budget_exactly():
    for index in (RATED[0], RATED[3], RATED[6]):
        for fen_text in POSITIONS:
            assert _search_level(index, fen_text).nodes == LEVELS[index].value, (LEVELS[index].name, fen_text)


def test_same_nodes_and_moves_under_micropython():
    cases = [(i, f) for i in (RATED[0], RATED[5], RATED[7]) for f in POSITIONS[:3]]
    ours = []
    for index, fen_text in cases:
        r = _search_level(index, fen_text, seed=3)
        ours.append([uci(r.best_move), r.nodes, r.score])
    code = (
        "import json\n"
        "from firmware.engine.levels import apply_level, limits_for_level\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine.search import Searcher\n"
        "from firmware.engine.notation import uci\n"
        "out = []\n"
        "for i, f in %s:\n"
        "    s = Searcher(tt_entries=1 << 11, seed=3)\n"
        "    apply_level(s, i)\n"
        "    r = s.search(Position(f), limits_for_level(i))\n"
        "    out.append([uci(r.best_move), r.nodes, r.score])\n"
        "print(json.dumps(out))\n" % json.dumps(cases)
    )
    theirs = json.loads(run_mpy(code).strip().splitlines()[-1])
    assert theirs == ours
    assert [x[1] for x in ours] == [LEVELS[i].value for i, _ in cases]


def test_noise_is_bounded_by_the_levels_noise():
    index = RATED[0]
    noise = LEVELS[index].noise_cp
    searcher = Searcher(tt_entries=1 << 10, seed=5)
    apply_level(searcher, index)
    offsets = []
    for board in random_positions(200, seed=11):
        position = Position(board.fen())
        position.rehash()
        searcher.pos = position
        offsets.append(searcher._static() - evaluate(position))
    assert max(offsets) <= noise and min(offsets) >= -noise
    assert max(offsets) > noise // 2 and min(offsets) < -noise // 2  # it is really there
    assert len(set(offsets)) > 50


def test_noise_is_seeded_and_changes_choices():
    boards = [b for b in random_positions(30, seed=4) if not b.is_game_over()][:16]
    index = RATED[0]

    def moves(seed, level_index):
        return [uci(_search_level(level_index, b.fen(), seed).best_move) for b in boards]

    a = moves(1, index)
    assert a == moves(1, index)  # the same seed plays the same moves
    assert a != moves(2, index)  # another seed plays differently
    clean = [uci(Searcher(tt_entries=1 << 11).search(Position(b.fen()), limits_for_level(index)).best_move)
             for b in boards]
    assert a != clean  # and the noise changes what the same budget plays


HANGING_QUEEN = [  # (position, one capture of the undefended queen: any capture of it will do)
    ("rnb1kbnr/pppp1ppp/8/4p1q1/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "f3g5"),
    ("r1bqkbnr/pppp1ppp/2n5/4p3/3QP3/8/PPPP1PPP/RNB1KBNR b KQkq - 2 3", "c6d4"),
    ("rnbqkb1r/pppppppp/5n2/8/4Q3/8/PPP1PPPP/RNB1KBNR b KQkq - 0 2", "f6e4"),
]


@pytest.mark.parametrize("index", [i for i in RATED if LEVELS[i].noise_cp])
def test_noisy_rated_levels_still_take_a_hanging_queen(index):
    for seed in range(4):
        for fen_text, _ in HANGING_QUEEN:
            board = chess.Board(fen_text)
            move = chess.Move.from_uci(uci(_search_level(index, fen_text, seed).best_move))
            assert board.is_capture(move) and board.piece_type_at(move.to_square) == chess.QUEEN, (
                LEVELS[index].name, seed, fen_text, move)


HEAP_LOCK_LEVEL = """
from firmware.compat import heap_lock, heap_unlock
from firmware.engine.levels import apply_level, limits_for_level, LEVELS
from firmware.engine.position import Position
from firmware.engine.search import Searcher
def main(index):
    searcher = Searcher(tt_entries=2048, poll_nodes=64)
    apply_level(searcher, index)
    steps = searcher.iterate(Position("%s"), limits_for_level(index), lambda s: False)
    outcome = "ok"
    heap_lock()
    try:
        for info in steps:
            pass
    except MemoryError:
        outcome = "allocated"
    heap_unlock()
    print(outcome, searcher.nodes, LEVELS[index].value)
main(%d)
main(%d)
"""


def test_rated_levels_allocate_nothing_under_heap_lock():
    code = HEAP_LOCK_LEVEL % (POSITIONS[2], RATED[0], RATED[7])
    lines = run_mpy(code).strip().splitlines()[-2:]
    for line in lines:
        outcome, nodes, budget = line.split()
        assert outcome == "ok" and nodes == budget, lines


# ---- the timed levels' Elo per board speed (bench/calibrate_levels.py timed) ------------------
def test_timed_levels_elo_rises_with_time_and_board_speed():
    from bench.calibrate_levels import MEASURED, timed_table

    speeds = {"slow": 60, "pico": 116, "esp32": 210, "fast": 10000}
    _, rows = timed_table(MEASURED, speeds)
    assert [r[1] for r in rows] == FIXED_NAMES[4:17]  # every movetime and clock level
    for row in rows:
        elos = [elo for _, _, elo, _ in row[4]]
        assert elos == sorted(elos), row[1]  # a faster board never rates lower
    by_time = sorted(rows, key=lambda r: r[3])
    for k, chip in enumerate(speeds):
        elos = [r[4][k][2] for r in by_time]
        assert elos == sorted(elos), chip  # more time never rates lower
    marks = {(r[1], c[0]): c[3] for r in rows for c in r[4]}
    assert marks["1 s/move", "slow"] == "<="  # 58 nodes: below MIN_NODES, capped
    assert marks["3 min/move", "fast"] == ">="  # 1.8 million nodes: beyond the followed range
    assert marks["10 s/move", "pico"] == ""  # 1,157 nodes: among the anchors


def test_a_timed_levels_elo_counts_the_boards_table():
    """At one speed, a board with a smaller table rates lower where its search fills the
    table (the nodes count as calibration_nodes: the fewer a 262,144-slot table needs), the
    same where it stays a quarter full at most; past the measured load the cell is "?"."""
    from bench.calibrate_levels import (HIGH_DOUBLINGS, MEASURED, TABLE_LOAD_MEASURED, Curve, board_slots,
                                        calibration_nodes, timed_table)

    assert board_slots() == {"RP2040": 2048, "RP2350": 8192, "ESP32": 1024, "ESP32-S3": 65536}
    for nodes in (100, 5000, 40000):
        for slots in BOARD_SLOTS:
            n = calibration_nodes(nodes, slots)
            assert levels.table_nodes(n, slots) <= nodes < levels.table_nodes(n + 1, slots)
    followed = Curve(MEASURED).top * 2 ** HIGH_DOUBLINGS  # beyond it both tables are capped alike
    speed = followed / 200.0  # 3 min a move stays below it, 1 s a move fills a small table
    speeds = {"small": speed, "big": speed}
    _, rows = timed_table(MEASURED, speeds, slots={"small": 1024, "big": 262144})
    cells = {r[1]: r[4] for r in rows}
    for name in ("1 s/move", "10 s/move", "3 min/move"):
        small, big = cells[name]
        assert small[1] == big[1]  # the same nodes a move ...
        assert small[2] < big[2], name  # ... but less strength with the small table
    _, rows = timed_table(MEASURED, {"x": 100}, slots={"x": 1024})  # 97 .. 18,000 nodes: 1/4 .. 17.6 full
    assert all(r[4][0][2] == timed_table(MEASURED, {"x": 100}, slots={})[1][k][4][0][2]
               for k, r in enumerate(rows) if r[4][0][1] * 4 <= 1024)
    assert all(r[4][0][3] in ("", "<=") for r in rows)  # within the measured loads
    _, rows = timed_table(MEASURED, {"x": 1000}, slots={"x": 1024})
    marked = [r[4][0][3] in ("?", ">=") for r in rows]  # ">=": capped, shown "≥ … ?"
    assert marked == [r[4][0][1] > TABLE_LOAD_MEASURED * 1024 for r in rows]


def test_a_timed_level_at_an_anchors_nodes_gets_its_rating():
    from bench.calibrate_levels import KNEE, MEASURED, Curve, move_ms, timed_table

    curve = Curve(MEASURED)
    ms = move_ms(find_level("1 s/move"))
    assert ms == 970  # the time less the reply overhead
    for nodes in sorted({a[0] for a in curve.anchors if a[0] <= KNEE}):  # the curve joins these
        _, rows = timed_table(MEASURED, {"x": nodes * 1000.0 / ms})
        _, got, elo, _ = rows[0][4][0]
        assert got == nodes
        assert elo == pytest.approx([a[1] for a in curve.anchors if a[0] == nodes][0])


def test_timed_table_follows_a_new_measurement_and_the_clock_levels_use_their_time():
    from bench.calibrate_levels import MEASURED, move_ms, replace_marked, DOCS_BEGIN, DOCS_END, timed_table

    stronger = [(n, z, sf, w + 10, d, l - 10, what) if (n, z) == (1000, 0) else (n, z, sf, w, d, l, what)
                for n, z, sf, w, d, l, what in MEASURED]
    speeds = {"pico": 116}
    before = {r[1]: r[4][0][2] for r in timed_table(MEASURED, speeds)[1]}
    after = {r[1]: r[4][0][2] for r in timed_table(stronger, speeds)[1]}
    assert after["10 s/move"] > before["10 s/move"]
    # a 40-move control is spent over its 40 moves; sudden death keeps time in hand
    assert move_ms(find_level("Tournament 40/2h")) == pytest.approx(7200000 / 40, abs=100)
    assert 300000 / 60 < move_ms(find_level("Blitz 5 min")) < 300000 / 40
    text = "a\n" + DOCS_BEGIN + "\nold\n" + DOCS_END + "\nb\n"
    assert replace_marked(text, "new") == "a\n" + DOCS_BEGIN + "\nnew\n" + DOCS_END + "\nb\n"
    with pytest.raises(ValueError):
        replace_marked("no markers", "new")


def test_checks_and_superseded_lines_are_printed_not_fitted():
    from bench.calibrate_levels import MEASURED, Curve

    base = Curve(MEASURED)
    for what in ("check: a level", "superseded: an older engine", "anchor"):
        extra = (200000, 0, 2000, 0, 10, 90, what)  # far below the curve, above the top anchor
        curve = Curve(MEASURED + [extra])
        assert curve.rows[-1][:7] == extra  # every line is printed
        fitted = what == "anchor"
        assert (curve.top == 200000) == fitted
        assert (curve.slope < base.slope) == fitted
