"""The emulated Pico's table decoding runs every instruction as rp2040js's own decoding does.

host_sim/rp2040/fast_decode.mjs generates, from the installed rp2040js, an executeInstruction
that finds each instruction's branch through a 64 K table instead of the package's if-chain;
the runner uses it for every chip test. check_decode.mjs runs every 16-bit opcode (and 32-bit
ones with sampled second half-words) on a plain and a table-decoding chip from the same state
and compares registers, flags, core state, cycles and memory.
"""
import os
import shutil
import subprocess

import pytest

from tools.emulated_pico import RP_DIR

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK = os.path.join(ROOT, "host_sim", "rp2040", "check_decode.mjs")
ESM = os.path.join(RP_DIR, "node_modules", "rp2040js", "dist", "esm")


def _check(*args):
    if not shutil.which("node"):
        pytest.skip("node not found on PATH")
    if not os.path.isfile(os.path.join(ESM, "cortex-m0-core.js")):
        pytest.skip("rp2040js is not installed (make emulators)")
    return subprocess.run(["node", CHECK, ESM, *args], capture_output=True, text=True, timeout=300)


def test_every_opcode_runs_the_same_with_the_table():
    run = _check()
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    checked = int(run.stdout.split()[1])
    assert checked > 2 * 65536, run.stdout  # every 16-bit opcode from two states, and the 32-bit samples


def test_the_check_sees_one_opcode_sent_to_the_wrong_branch():
    run = _check("--spoil")
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    assert " 0 differ" not in run.stdout and run.stdout.splitlines()[1].startswith("1c08 0000:"), run.stdout
