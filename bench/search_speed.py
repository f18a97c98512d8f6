"""Search speed and the `bench` signature (run by hand; results go to docs/benchmarks.md).

    python bench/search_speed.py [depth]                       # CPython
    MICROPYPATH=. micropython bench/search_speed.py [depth]    # MicroPython unix port

Searches a fixed set of positions to a fixed depth with a fresh Searcher each and prints,
per position, the nodes, milliseconds and nodes per second, then the total as

    bench <nodes> nodes <ms> ms <nps> nps

The node count is the engine's signature (Stockfish style): it must be identical on both
interpreters, and any change of search or evaluation changes it, so commits that touch
them say whether it moved. Wall-clock time includes whatever else the machine is doing:
compare numbers taken on an idle machine, or use

    python bench/search_speed.py --compare [depth]

which runs the set under CPython and under MicroPython (as a child process) and divides the
node count by the CPU time each used (process time; the child's user+system time from
getrusage, less its start-up measured with an empty run), so other jobs on a shared machine
matter much less. It checks that both signatures agree.
"""
import sys

try:
    sys.path.insert(0, ".")
except Exception:
    pass

from firmware.compat import ticks_diff, ticks_ms  # noqa: E402
from firmware.engine.notation import uci  # noqa: E402
from firmware.engine.position import Position  # noqa: E402
from firmware.engine.search import Limits, Searcher  # noqa: E402

BENCH_DEPTH = 5
BENCH_FENS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "2r3k1/pp3ppp/2n1b3/3p4/3P4/2N1B3/PP3PPP/2R3K1 w - - 0 20",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
)


def run(depth=BENCH_DEPTH, tt_entries=1 << 14):
    total_nodes = 0
    total_ms = 0
    for fen in BENCH_FENS:
        searcher = Searcher(tt_entries=tt_entries, poll_nodes=4096)
        position = Position(fen)
        t0 = ticks_ms()
        result = searcher.search(position, Limits(depth=depth))
        ms = ticks_diff(ticks_ms(), t0)
        total_nodes += result.nodes
        total_ms += ms
        print("%-8s %8d nodes %7d ms %7d nps  %s" % (uci(result.best_move), result.nodes, ms,
                                                     result.nodes * 1000 // (ms or 1), fen))
    print("bench %d nodes %d ms %d nps" % (total_nodes, total_ms, total_nodes * 1000 // (total_ms or 1)))
    return total_nodes


def compare(depth):
    """CPython vs MicroPython nodes per CPU second (host only: CPython with `resource`)."""
    import os
    import re
    import resource
    import subprocess
    import tempfile
    import time

    from tools import flash

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    t0 = time.process_time()
    nodes = run(depth)
    cpython_s = time.process_time() - t0
    micro = os.path.join(os.path.dirname(sys.executable), "micropython")
    env = dict(os.environ, MICROPYPATH=root)

    def child(args, cwd=root):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([micro] + args, cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    _, startup_s = child(["-c", "import bench.search_speed"])
    out, micro_s = child(["bench/search_speed.py", str(depth)])
    micro_s -= startup_s
    micro_nodes = int(re.search(r"^bench (\d+) nodes", out, re.M).group(1))
    # the same firmware with @micropython.native taken out (tools.flash --bytecode)
    with tempfile.TemporaryDirectory() as plain:
        for folder, _, names in os.walk(os.path.join(root, "firmware")):
            for name in names:
                if name.endswith(".py"):
                    rel = os.path.relpath(os.path.join(folder, name), root)
                    os.makedirs(os.path.join(plain, os.path.dirname(rel)), exist_ok=True)
                    with open(os.path.join(root, rel)) as f:
                        text = f.read()
                    with open(os.path.join(plain, rel), "w") as f:
                        f.write(flash.bytecode_source(text))
        env["MICROPYPATH"] = plain
        out, bytecode_s = child([os.path.join(root, "bench", "search_speed.py"), str(depth)], cwd=plain)
        bytecode_s -= startup_s
    bytecode_nodes = int(re.search(r"^bench (\d+) nodes", out, re.M).group(1))
    print("CPython                 %8d nodes %7.2f CPU s %7d nodes/s" % (nodes, cpython_s, nodes / cpython_s))
    print("MicroPython (native)    %8d nodes %7.2f CPU s %7d nodes/s" % (micro_nodes, micro_s, micro_nodes / micro_s))
    print("MicroPython (bytecode)  %8d nodes %7.2f CPU s %7d nodes/s" % (bytecode_nodes, bytecode_s,
                                                                         bytecode_nodes / bytecode_s))
    same = micro_nodes == nodes == bytecode_nodes
    print("signatures %s" % ("match" if same else "DIFFER"))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--compare":
        compare(int(sys.argv[2]) if len(sys.argv) > 2 else BENCH_DEPTH)
    else:
        run(int(sys.argv[1]) if len(sys.argv) > 1 else BENCH_DEPTH)
