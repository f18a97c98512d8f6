"""tools/spsa.py and its engine tools/spsa_uci.py: the options change the numbers the engine
plays with (on CPython and under MicroPython) and put them back exactly, the gain sequences
are fishtest's, the steps climb a known objective, and `write` edits the right numbers."""
import os
import random
import re

import pytest

from tests.mpy import run_mpy_module
from tools import spsa

# a middlegame with knights on both sides and a knight against a bishop
FEN = "r1bqk2r/pp1n1ppp/2n1p3/2bpP3/3N1P2/2N1B3/PPP3PP/R2QKB1R w KQkq - 1 9"
UNEVEN = "4k3/pp3ppp/8/8/3N4/8/PPP2PPP/4K3 w - - 0 30"  # a knight up


def _session():
    from tools.spsa_uci import TuningSession

    out = []
    return TuningSession(write=out.append), out


def _evaluate(fen):
    from firmware.engine.evaluate import evaluate
    from firmware.engine.position import Position

    return evaluate(Position(fen))


def test_options_change_the_evaluation_and_put_it_back():
    from firmware.engine.pesto import MATERIAL_EG, MATERIAL_MG

    session, out = _session()
    before = (_evaluate(FEN), _evaluate(UNEVEN))
    session.handle("uci")
    assert "option name MATERIAL_MG[2] type spin default %d min 0 max 65535" % MATERIAL_MG[2] in out
    assert "option name KING_ATTACK_PENALTY% type spin default 100 min 0 max 65535" in out
    del out[:]
    try:
        session.handle("setoption name MATERIAL_EG[2] value %d" % (MATERIAL_EG[2] + 100))
        uneven = _evaluate(UNEVEN)
        # the phase of a lone knight is 1 of 24: the endgame part weighs 23/24
        assert uneven - before[1] in (95, 96)
        assert _evaluate(FEN) == before[0]  # a knight each: no change
    finally:
        session.handle("setoption name MATERIAL_EG[2] value %d" % MATERIAL_EG[2])
    assert (_evaluate(FEN), _evaluate(UNEVEN)) == before
    assert not [line for line in out if "error" in line]


def test_search_numbers_are_set_where_the_search_reads_them():
    from firmware.engine import search

    session, out = _session()
    was = search.RFP_MARGIN, search.FUTILITY_MARGIN
    try:
        session.handle("setoption name RFP_MARGIN value 77")
        session.handle("setoption name FUTILITY_MARGIN[2] value 250")
        assert search.RFP_MARGIN == 77
        assert search.FUTILITY_MARGIN == (was[1][0], was[1][1], 250)
        session.handle("setoption name FUTILITY_MARGIN% value 50")  # of the values at start
        assert search.FUTILITY_MARGIN == tuple((v * 50 + 50) // 100 for v in was[1])
    finally:
        session.handle("setoption name RFP_MARGIN value %d" % was[0])
        session.handle("setoption name FUTILITY_MARGIN% value 100")
    assert (search.RFP_MARGIN, search.FUTILITY_MARGIN) == was


@pytest.mark.parametrize("line, message", [
    ("setoption name NOPE value 3", "unknown option 'NOPE'"),
    ("setoption name PASSED_MG[8] value 3", "unknown option 'PASSED_MG[8]'"),
    ("setoption name MATERIAL_MG[6] value 3", "unknown option 'MATERIAL_MG[6]'"),
    ("setoption name RFP_MARGIN value -3", "RFP_MARGIN must be 0..65535"),
    ("setoption name ORDER_VALUE[1] value 3", "unknown option 'ORDER_VALUE[1]'"),
])
def test_bad_options_get_a_clear_error(line, message):
    from firmware.engine import search

    was = search.RFP_MARGIN
    session, out = _session()
    session.handle(line)
    assert len(out) == 1 and "error" in out[0] and message in out[0]
    assert search.RFP_MARGIN == was


def test_options_work_under_micropython():
    """The same search with the default numbers, with RFP_MARGIN 0, and with it set back:
    the node counts differ, and the number set back gives the first count again. (One
    process each: a search reads the lines sent after `go` and stops at a `quit`.)"""
    from firmware.engine.tunables import RFP_MARGIN

    search = "position fen %s\ngo depth 5\n" % FEN
    back = "setoption name RFP_MARGIN value %d\n" % RFP_MARGIN
    nodes = []
    for before in ("uci\n", "setoption name RFP_MARGIN value 0\n", "setoption name RFP_MARGIN value 0\n" + back):
        out = run_mpy_module("tools.spsa_uci", stdin=before + search)
        assert "error" not in out
        nodes += [int(m) for m in re.findall(r"^info nodes (\d+)", out, re.M)]
        if before == "uci\n":
            assert "option name RFP_MARGIN type spin default %d min 0 max 65535" % RFP_MARGIN in out
    assert len(nodes) == 3
    assert nodes[0] != nodes[1] and nodes[0] == nodes[2]


def test_gains_end_at_c_end_and_r_end_and_shrink():
    c_end, r_end, pairs = 8.0, 0.01, 1000
    c_last, r_last = spsa.gains(pairs, pairs, c_end, r_end)
    assert c_last == pytest.approx(c_end) and r_last == pytest.approx(r_end)
    c_first, _ = spsa.gains(1, pairs, c_end, r_end)
    assert c_first == pytest.approx(c_end * pairs ** spsa.GAMMA)
    steps = [spsa.gains(k, pairs, c_end, r_end) for k in (1, 10, 100, 1000)]
    assert all(a[1] * a[0] ** 2 > b[1] * b[0] ** 2 for a, b in zip(steps, steps[1:]))  # a_k falls


def test_tuner_climbs_a_known_objective():
    """A noisy 'match' that favours numbers nearer a target: SPSA walks there."""
    target = {"A": 130.0, "B": 20.0}
    tuner = spsa.Tuner([("A", 10.0), ("B", 4.0)], {"A": 100, "B": 40}, pairs=3000, r_end=0.01, seed=3)
    noise = random.Random(5)

    def distance(values):
        return sum(abs(values[n] - target[n]) / c for n, c in tuner.plan)

    for _ in range(tuner.pairs):
        k, signs, plus, minus = tuner.perturb()
        edge = 0.3 if distance(plus) < distance(minus) else -0.3  # the nearer engine wins more
        result = sum(1 if noise.random() < 0.5 + edge / 2 else -1 for _ in range(2))
        tuner.update(k, signs, result)
    assert abs(tuner.theta["A"] - 130) < 8 and abs(tuner.theta["B"] - 20) < 4


def test_state_round_trips(tmp_path):
    tuner = spsa.Tuner([("A", 10.0)], {"A": 100}, pairs=50, r_end=0.01, seed=3)
    k, signs, _, _ = tuner.perturb()
    tuner.update(k, signs, 2)
    path = str(tmp_path / "state.json")
    spsa.save(tuner, path)
    again = spsa.load(path)
    assert again.theta == tuner.theta and again.k == 1 and again.results == [(1, 2)]
    assert again.perturb() == tuner.perturb()  # the same random signs follow


def test_parse_plan():
    assert spsa.parse_plan("# comment\nRFP_MARGIN 8\n\nPASSED_EG%  5  # scaled\n") == [
        ("RFP_MARGIN", 8.0), ("PASSED_EG%", 5.0)]
    for text in ("RFP_MARGIN\n", "RFP_MARGIN eight\n", "RFP_MARGIN 0\n", "# nothing\n",
                 "RFP_MARGIN 8\nRFP_MARGIN 5\n", "LMP_COUNT[2] 1\nLMP_COUNT% 5\n", "LMP_COUNT% 5\nLMP_COUNT[2] 1\n"):
        with pytest.raises(spsa.PlanError):
            spsa.parse_plan(text)


def test_every_kept_plan_names_options_of_the_engine():
    session, _ = _session()
    options = {line.split()[2] for line in session.option_lines()}
    folder = os.path.join(spsa.ROOT, "tools", "spsa_plans")
    plans = {"PLAN": list(spsa.PLAN)}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            plans[name] = spsa.parse_plan(f.read())
    assert len(plans) > 1
    for name, plan in plans.items():
        for option, _ in plan:
            assert option in options, (name, option)
    assert "NOT_A_NUMBER" not in options and "RFP_MARGIN" in options


def test_rewrite_sets_each_kind_of_number():
    with open(spsa._TUNABLES) as f:
        tunables = f.read()
    with open(spsa._PESTO) as f:
        pesto = f.read()
    from firmware.engine.pesto import MATERIAL_MG
    from firmware.engine.tunables import FUTILITY_MARGIN as F

    assert re.search(r"^RFP_MARGIN = const\(1234\)", spsa.rewrite(tunables, "RFP_MARGIN", 1234), re.M)
    assert "FUTILITY_MARGIN = (0, %d, 1234)" % F[1] in spsa.rewrite(tunables, "FUTILITY_MARGIN[2]", 1234)
    scaled = tuple((v * 150 + 50) // 100 for v in F)
    assert "FUTILITY_MARGIN = %r" % (scaled,) in spsa.rewrite(tunables, "FUTILITY_MARGIN%", 150)
    assert "MATERIAL_MG = (0, %d, 1234, %d," % (MATERIAL_MG[1], MATERIAL_MG[3]) in spsa.rewrite(
        pesto, "MATERIAL_MG[2]", 1234)
    with pytest.raises(spsa.PlanError):
        spsa.rewrite(tunables, "NO_SUCH_NUMBER", 3)


def test_a_table_scales_about_its_mean():
    from firmware.engine import pesto
    from tools.spsa_uci import scale_about_mean

    knight = pesto.KNIGHT_MG
    assert scale_about_mean(knight, 100) == knight
    flat = scale_about_mean(knight, 0)
    assert len(set(flat)) == 1 and abs(flat[0] - sum(knight) / 64) <= 0.5  # every cell the mean
    wide = scale_about_mean(knight, 150)
    assert abs(sum(wide) - sum(knight)) <= 32  # the mean stays (rounding: half a cell each)
    assert max(wide) - min(wide) in (max(knight) * 3 // 2 - min(knight) * 3 // 2 + d for d in (-1, 0, 1))
    assert scale_about_mean(tuple(-v for v in knight), 150) == tuple(-v for v in wide)
    pawn = scale_about_mean(pesto.PAWN_MG, 50, pawn=True)
    assert pawn[:8] == pawn[56:] == (0,) * 8 and pawn[8:56] != pesto.PAWN_MG[8:56]


def test_table_options_change_the_evaluation_and_put_it_back():
    """KNIGHT_MG% moves the knights' cells only, about their mean, and 100 puts back every cell,
    also after the knight's material changed in between."""
    from firmware.engine.pesto import MATERIAL_MG
    from firmware.engine.position import PIECE_BASE, PST_EG, PST_MG

    session, out = _session()
    cells = list(PST_MG), list(PST_EG)
    before = _evaluate(FEN)
    session.handle("uci")
    assert "option name KNIGHT_MG% type spin default 100 min 0 max 65535" in out
    del out[:]
    try:
        session.handle("setoption name KNIGHT_MG% value 0")
        changed = [i for i, v in enumerate(PST_MG) if v != cells[0][i]]
        knights = (PIECE_BASE[2], PIECE_BASE[2] + 128, PIECE_BASE[10], PIECE_BASE[10] + 128)
        assert changed and all(knights[0] <= i < knights[1] or knights[2] <= i < knights[3] for i in changed)
        white = [PST_MG[PIECE_BASE[2] + sq] for sq in range(128) if not sq & 0x88]
        assert len(set(white)) == 1  # flat: every knight's square worth the same
        assert _evaluate(FEN) != before
        session.handle("setoption name MATERIAL_MG[2] value %d" % (MATERIAL_MG[2] + 40))
        assert PST_MG[PIECE_BASE[2]] == white[0] + 40
    finally:
        session.handle("setoption name KNIGHT_MG% value 100")
        session.handle("setoption name MATERIAL_MG[2] value %d" % MATERIAL_MG[2])
    assert (list(PST_MG), list(PST_EG)) == cells and _evaluate(FEN) == before
    assert not [line for line in out if "error" in line]


def test_write_scales_a_table_in_pesto_as_the_engine_played_it():
    from firmware.engine import pesto
    from tools.spsa_uci import scale_about_mean

    with open(spsa._PESTO) as f:
        text = f.read()
    assert spsa.rewrite_table(text, "KING_EG", 100) == text
    new = spsa.rewrite_table(text, "KING_EG", 80)
    space = {}
    exec(compile(new, "pesto.py", "exec"), space)
    assert space["KING_EG"] == scale_about_mean(pesto.KING_EG, 80) != pesto.KING_EG
    assert space["KING_MG"] == pesto.KING_MG and space["MATERIAL_EG"] == pesto.MATERIAL_EG
    assert spsa._is_table("KING_EG%") and not spsa._is_table("PASSED_EG%")
    with pytest.raises(spsa.PlanError):
        spsa.rewrite_table(text, "KNIGHT_XG", 80)


def test_workers_save_at_once_without_losing_the_state(tmp_path):
    import threading

    tuner = spsa.Tuner([("A", 10.0)], {"A": 100}, pairs=50, r_end=0.01, seed=3)
    path = str(tmp_path / "state.json")
    errors = []

    def saver():
        try:
            for _ in range(200):
                spsa.save(tuner, path)
        except OSError as exc:  # two writers on one temporary file once lost it
            errors.append(exc)

    threads = [threading.Thread(target=saver) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and spsa.load(path).theta == tuner.theta
