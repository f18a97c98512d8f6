"""bench/search_depth.py: the depth a node budget reaches, the same under both interpreters."""
import os
import shutil
import subprocess
import sys

import pytest

from bench import search_depth
from bench.match_stockfish import openings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_more_nodes_reach_at_least_as_deep_and_each_position_is_reported():
    positions = list(openings(3))
    shallow, _ = search_depth.depths(200, positions)
    deep, spent = search_depth.depths(2000, positions)
    assert len(shallow) == len(deep) == len(spent) == 3
    assert all(1 <= s <= d for s, d in zip(shallow, deep))
    assert sum(deep) > sum(shallow)
    for depth, finished in zip(deep, spent):  # every depth up to the last finished one, in the nodes it took
        assert sorted(finished) == list(range(1, depth + 1))
        nodes = [finished[d] for d in sorted(finished)]
        assert nodes == sorted(nodes) and nodes[-1] <= 2000


def test_the_branching_factor_is_the_geometric_mean_over_the_positions_that_finished_both_depths():
    spent = [{1: 10, 2: 40, 3: 80}, {1: 10, 2: 90}, {1: 20}]
    factors = search_depth.branching(spent)
    assert sorted(factors) == [2, 3]
    assert factors[2][0] == pytest.approx(6.0) and factors[2][1] == 2  # 4 and 9
    assert factors[3] == (pytest.approx(2.0), 1)


def test_stockfish_is_measured_the_same_way():
    path = shutil.which("stockfish") or ("/usr/games/stockfish" if os.path.exists("/usr/games/stockfish") else None)
    if path is None:
        pytest.skip("no Stockfish (make match installs Debian's)")
    reached, spent = search_depth.stockfish_depths(path, 2000, list(openings(2)))
    assert len(reached) == len(spent) == 2
    for depth, finished in zip(reached, spent):
        assert depth >= 2 and max(finished) == depth
        nodes = [finished[d] for d in sorted(finished)]
        assert nodes == sorted(nodes)


def test_the_unix_port_child_prints_the_same_depths_as_cpython():
    micro = os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(micro):
        micro = shutil.which("micropython")
    if micro is None:
        pytest.skip("no MicroPython unix port (make test installs it)")
    out = subprocess.run([sys.executable, "bench/search_depth.py", "--micropython", micro, "300"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0].startswith("    300 nodes: median depth") and out[0].endswith("over 50 positions")
    reached, spent = search_depth.depths(300, list(openings(50)))
    assert [int(d) for d in out[1].split()] == reached
    factors = search_depth.branching(spent)
    prefix = "  effective branching factor into depth d (positions): "
    assert out[2].startswith(prefix)
    printed = [item.split() for item in out[2][len(prefix):].split("  ")]
    # MicroPython formats its floats itself: the same double may print one hundredth apart
    assert [(int(d.rstrip(":")), float(f), int(n.strip("()"))) for d, f, n in printed] == [
        (depth, pytest.approx(factor, abs=0.011), count) for depth, (factor, count) in sorted(factors.items())
        if depth > 1]
