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
    shallow = search_depth.depths(200, positions)
    deep = search_depth.depths(2000, positions)
    assert len(shallow) == len(deep) == 3
    assert all(1 <= s <= d for s, d in zip(shallow, deep))
    assert sum(deep) > sum(shallow)


def test_the_unix_port_child_prints_the_same_depths_as_cpython():
    micro = os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(micro):
        micro = shutil.which("micropython")
    if micro is None:
        pytest.skip("no MicroPython unix port (make test installs it)")
    out = subprocess.run([sys.executable, "bench/search_depth.py", "--micropython", micro, "300"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0].startswith("    300 nodes: median depth") and out[0].endswith("over 50 positions")
    assert [int(d) for d in out[1].split()] == search_depth.depths(300, list(openings(50)))
