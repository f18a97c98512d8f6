"""Search speed and the `bench` signature (run by hand; results go to docs/benchmarks.md).

    python bench/search_speed.py [depth]                       # CPython
    MICROPYPATH=. micropython bench/search_speed.py [depth]    # MicroPython unix port

Searches a fixed set of positions to a fixed depth with a fresh Searcher each and prints,
per position, the nodes, milliseconds and nodes per second, then the total as

    bench <nodes> nodes <ms> ms <nps> nps

The node count is the engine's signature (Stockfish style): it must be identical on both
interpreters, and any change of search or evaluation changes it, so commits that touch
them say whether it moved. Wall-clock time includes whatever else the machine is doing:
compare numbers taken on an idle machine.
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


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else BENCH_DEPTH)
