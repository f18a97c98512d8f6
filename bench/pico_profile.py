"""Where a node's time goes on the emulated stock Pico (run by hand; results in docs/benchmarks.md).

    python bench/pico_profile.py --emu .cache/rp2040            # the shipped machine code
    python bench/pico_profile.py --emu .cache/rp2040 --variant none

The chip has no profiler, so this multiplies two measurements:

- per node, how often the search calls each engine function: counted under CPython with
  cProfile on pico_speed's fixed search (3 bench positions to depth 4; the node counts are
  the same on every interpreter, so the call counts are too);
- on the emulated Pico, what one call of each costs: each timed in a loop of REPS calls on a
  middlegame position (kiwipete), less the loop's own cost, in emulated microseconds.

The product is each function's estimated share of a node; the rest of the measured time
per node (pico_speed's search, same run) is the search's own code (_search's bytecode and
_qsearch's machine code between their calls: move loops, pruning tests, history updates,
the quiescence's table probe) plus what a
call costs in the real search beyond the loop here (other heap layouts and arguments).
A function's figure includes what it calls (e.g. play includes its legality test).
"""
import argparse
import cProfile
import os
import pstats
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import pico_speed  # noqa: E402

REPS = 200
FEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

# (label, the functions whose calls it stands for, the statement timed on the chip). In the
# statements: p the position, s a Searcher with s.pos = p, mv the move stack, n the number
# of moves generated, q a quiet move, x a capture, e a bytecode function with two locals
# and f one with twelve (a frame of more than 11 words comes from the heap on the chip).
CASES = (
    ("loop", (), "pass"),
    ("call, frame on the C stack", (), "e(1)"),
    ("call, frame from the heap", (), "f(1)"),
    ("evaluate", ("evaluate",), "evaluate(p)"),
    ("generate all moves", ("gen_moves",), "p.gen_moves(mv, 0)"),
    ("generate captures", ("gen_captures",), "p.gen_captures(mv, 0)"),
    ("play with its legality and check tests + unmake (quiet)", ("play",), "p.play(q, 5) and p.unmake()"),
    ("in_check", ("in_check",), "p.in_check()"),
    ("see (losing capture)", ("see",), "see(p, x)"),
)

DEVICE_SCRIPT = r"""
import gc
from time import ticks_us, ticks_diff
from firmware.engine.position import Position
from firmware.engine.search import Searcher
from firmware.engine.evaluate import evaluate
from firmware.engine.see import see
from firmware.engine.uci_parse import parse_uci
s = Searcher(tt_entries=1024, move_stack=1024, poll_nodes=1024)
p = Position(%(fen)r)
s.pos = p
mv = s.moves
n = p.gen_moves(mv, 0)
q = parse_uci(p, 'a2a3')
x = parse_uci(p, 'f3h3')
def e(a):
    return a
def f(a):
    b = c = d = g = h = i = j = k = l = m = o = a
    return b
%(loops)s
"""

LOOP = """
gc.collect()
t0 = ticks_us()
for _ in range(%(reps)d):
    %(stmt)s
print('CASE %(index)d %%d' %% ticks_diff(ticks_us(), t0))
"""


def device_script():
    loops = "".join(LOOP % {"reps": REPS, "stmt": stmt, "index": i} for i, (_, _, stmt) in enumerate(CASES))
    return DEVICE_SCRIPT % {"fen": FEN, "loops": loops}


def calls_per_node():
    """{function name: calls per node} of pico_speed's fixed search under CPython."""
    from bench.search_speed import BENCH_FENS
    from firmware.engine.position import Position
    from firmware.engine.search import Limits, Searcher

    searcher = Searcher(tt_entries=pico_speed.TT_ENTRIES, move_stack=pico_speed.MOVE_STACK, poll_nodes=1024)
    profile = cProfile.Profile()
    nodes = 0
    profile.enable()
    for fen in BENCH_FENS[:pico_speed.BENCH_COUNT]:
        searcher.new_game()
        nodes += searcher.search(Position(fen), Limits(depth=pico_speed.BENCH_DEPTH)).nodes
    profile.disable()
    counts = {}
    for (_, _, name), (_, calls, _, _, _) in pstats.Stats(profile).stats.items():
        counts[name] = counts.get(name, 0) + calls
    return nodes, {name: c / nodes for name, c in counts.items()}


def run_on_pico(variant, args):
    """(the CASE times, pico_speed's parsed bench) from one emulated Pico."""
    work_dir = os.path.join(ROOT, "build", "pico_profile")
    built = pico_speed.build_variant(variant, os.path.join(work_dir, variant))
    bench_script = pico_speed.device_script(pico_speed.BENCH_DEPTH, pico_speed.BENCH_COUNT)
    (out, _), (bench, _) = pico_speed.run_on_emulator(built, args, [device_script(), bench_script], work_dir)
    times = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) == 3 and w[0] == "CASE":
            times[int(w[1])] = int(w[2])
    if len(times) != len(CASES):
        raise SystemExit("the Pico printed:\n" + out[-2000:])
    return times, pico_speed.parse(bench)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="all", help="as bench/pico_speed.py: all, none, group+group")
    ap.add_argument("--port", type=int, default=2351)
    ap.add_argument("--emu", default=os.environ.get("RP2040_EMU", pico_speed.RP_DIR),
                    help="folder of rp2040js and the firmware")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.emu, "node_modules", "rp2040js")):
        raise SystemExit("no emulated Pico in %s: `make emulators` (or --emu DIR)" % args.emu)
    nodes, per_node = calls_per_node()
    os.makedirs(os.path.join(ROOT, "build", "pico_profile"), exist_ok=True)
    t0 = time.time()
    times, bench = run_on_pico(args.variant, args)
    if bench.get("nodes") != nodes:
        raise SystemExit("the Pico searched %s nodes, CPython %d" % (bench.get("nodes"), nodes))
    us_per_node = bench["ms"] * 1000.0 / bench["nodes"]
    loop_us = times[0] / REPS
    print("variant %s: %d nodes, %.0f us a node (%d nodes/s); host %.0f s" % (
        args.variant, nodes, us_per_node, bench["nodes"] * 1000 // bench["ms"], time.time() - t0))
    print("\n| what | us a call | calls a node | us a node | share |")
    print("|---|---:|---:|---:|---:|")
    explained = 0.0
    for i, (label, names, _) in enumerate(CASES):
        if i == 0:
            continue
        us = times[i] / REPS - loop_us
        if not names:
            print("| %s | %.0f | | | |" % (label, us))
            continue
        calls = sum(per_node.get(name, 0.0) for name in names)
        share = us * calls
        explained += share
        print("| %s | %.0f | %.2f | %.0f | %.0f %% |" % (label, us, calls, share, 100 * share / us_per_node))
    rest = us_per_node - explained
    print("| the rest: the search's own code, its calls and frames | | | %.0f | %.0f %% |" % (
        rest, 100 * rest / us_per_node))
    print("| a node (pico_speed's search) | | | %.0f | 100 %% |" % us_per_node)
    print("\ncalls a node, other functions: %s" % ", ".join(
        "%s %.2f" % (k, v) for k, v in sorted(per_node.items(), key=lambda kv: -kv[1])[:16]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
