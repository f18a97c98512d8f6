"""The depth the search reaches at a node budget (run by hand; results in docs/benchmarks.md).

    python bench/search_depth.py                                  # 1,000 and 10,000 nodes
    python bench/search_depth.py --micropython auto 1000 10000 30000

Searches the 50 opening positions of bench/match_stockfish.py (where the yardstick's games
start) with a fresh 16,384-entry table each, at each node budget, and prints the last depth
each search finished, then per budget the median, the mean and the range. A node-limited
search is the same on every machine and on both interpreters, so the figures are exact: they
show how a search rule changes the shape of the tree where the chip plays (about 10,000 nodes
a move at 10 s on an RP2040), beside what self-play says the rule is worth.

`--micropython PATH` (`auto`: the venv's) runs the searches under the MicroPython unix port,
about 13 times CPython's speed: this script then runs itself there as a child, the FENs on
its standard input (MicroPython has no python-chess to make them).
"""
import sys

sys.path.insert(0, ".")

from firmware.engine.position import Position  # noqa: E402
from firmware.engine.search import Limits, Searcher  # noqa: E402

DEFAULT_NODES = (1000, 10000)


def depths(nodes, positions):
    """The finished depth of a `nodes`-node search from each of `positions` (FENs)."""
    reached = []
    for fen in positions:
        searcher = Searcher(tt_entries=1 << 14, poll_nodes=4096)
        reached.append(searcher.search(Position(fen), Limits(nodes=nodes)).depth)
    return reached


def report(budgets, positions):
    for nodes in budgets:
        reached = depths(nodes, positions)
        ordered = sorted(reached)
        print("%7d nodes: median depth %d, mean %.2f, %d .. %d over %d positions" % (
            nodes, ordered[len(ordered) // 2], sum(reached) / len(reached), ordered[0], ordered[-1],
            len(reached)))
        print("  " + " ".join(str(d) for d in reached))


def main(argv):
    if sys.implementation.name == "micropython":  # the child: FENs on stdin
        report([int(a) for a in argv], [line.strip() for line in sys.stdin if line.strip()])
        return
    import argparse
    import os
    import subprocess

    from bench.match_stockfish import openings
    from bench.selfplay import micropython_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("nodes", nargs="*", type=int, default=list(DEFAULT_NODES))
    parser.add_argument("--micropython", metavar="PATH", default=None)
    args = parser.parse_args(argv)
    positions = list(openings(50))
    if not args.micropython:
        report(args.nodes, positions)
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([micropython_path(args.micropython), os.path.abspath(__file__)] + [str(n) for n in args.nodes],
                   input="\n".join(positions) + "\n", text=True, cwd=root, check=True,
                   env=dict(os.environ, MICROPYPATH=root))


if __name__ == "__main__":
    main(sys.argv[1:])
