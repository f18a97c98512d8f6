"""tools/texel.py's linear model: `features` must reproduce evaluate() exactly, chunk by chunk,
and `fit` must start from that (it asserts so) and lower the loss it is given."""
import json

import pytest

np = pytest.importorskip("numpy")

from tools import texel  # noqa: E402

# quiet middlegame and endgame positions, with a label and a result for White
ROWS = (
    ("r1bqkb1r/pp1n1ppp/2n1p3/3pP3/3N1P2/2N1B3/PPP3PP/R2QKB1R b KQkq - 0 8", 0.80, 1.0),
    ("r1bqk2r/pp1n1ppp/2n1p3/2bpP3/3N1P2/2N1B3/PPP3PP/R2QKB1R w KQkq - 1 9", 0.85, 1.0),
    ("8/5pk1/6p1/3R4/5P2/6P1/r5K1/8 w - - 0 40", 0.75, 0.5),
    ("r4rk1/1pp2ppp/p1n5/4p3/2B1P1b1/2NP4/PPP2PPP/R4RK1 b - - 2 12", 0.20, 0.0),
    ("4k3/pp3ppp/8/8/8/8/PPP2PPP/4K3 w - - 0 30", 0.50, 0.5),
)


def _positions_file(tmp_path):
    path = tmp_path / "positions.tsv"
    path.write_text("# fen\tlabel\tresult\n" + "".join("%s\t%.2f\t%.1f\n" % row for row in ROWS * 2))
    return str(path)


def _features(tmp_path, monkeypatch, chunk, name):
    monkeypatch.setattr(texel, "_CHUNK", chunk)
    out = str(tmp_path / name)
    texel.main(["features", "--positions", _positions_file(tmp_path), "--out", out])
    return np.load(out)


def test_features_reproduce_the_evaluation_in_chunks(tmp_path, monkeypatch):
    from firmware.engine import evaluate as E
    from firmware.engine.position import Position

    E.init()
    whole = _features(tmp_path, monkeypatch, 100, "whole.npz")
    parts = _features(tmp_path, monkeypatch, 2, "parts.npz")
    for key in ("cols", "wts", "mat", "sc", "offset", "e0", "labels", "results"):
        assert np.array_equal(whole[key], parts[key]), key
    for i, (fen, label, _) in enumerate(ROWS * 2):
        pos = Position(fen)
        assert whole["e0"][i] == E.evaluate(pos) * (1 if pos.stm == 0 else -1)
        assert whole["labels"][i] == label
    # the linear model at the current numbers is the evaluation
    model = texel.Model(whole, np.arange(2 * len(ROWS)))
    e = model.evals(whole["theta_pst"], whole["theta_mat"], whole["theta_s"])
    assert np.allclose(e, whole["e0"], atol=1e-3)


def test_fit_lowers_the_training_loss(tmp_path, monkeypatch, capsys):
    _features(tmp_path, monkeypatch, 100, "f.npz")
    out = tmp_path / "fit.json"
    texel.main(["fit", "--features", str(tmp_path / "f.npz"), "--out", str(out), "--steps", "50", "--block", "3"])
    printed = capsys.readouterr().out
    line = [x for x in printed.splitlines() if x.startswith("rounded:")][0]
    # "rounded: loss train A valid B (before: C / D)"
    after = float(line.split()[3])
    before = float(line.split("(before: ")[1].split(" /")[0])
    assert after < before
    fit = json.loads(out.read_text())
    assert len(fit["pst"]) == 12 * 64 and len(fit["material"]) == 12
    assert len(fit["scalars"]) == len(texel.SCALARS)


def test_features_without_scalars_keep_the_evaluation_in_the_offset(tmp_path, monkeypatch):
    whole = _features(tmp_path, monkeypatch, 100, "whole.npz")
    out = str(tmp_path / "lean.npz")
    texel.main(["features", "--no-scalars", "--positions", _positions_file(tmp_path), "--out", out])
    lean = np.load(out)
    assert not lean["sc"].any()
    for key in ("cols", "wts", "mat", "e0"):
        assert np.array_equal(whole[key], lean[key]), key
    model = texel.Model(lean, np.arange(2 * len(ROWS)))
    e = model.evals(lean["theta_pst"], lean["theta_mat"], lean["theta_s"])
    assert np.allclose(e, whole["e0"], atol=1e-3)
