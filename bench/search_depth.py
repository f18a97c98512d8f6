"""The depth the search reaches at a node budget (run by hand; results in docs/benchmarks.md).

    python bench/search_depth.py                                  # 1,000 and 10,000 nodes
    python bench/search_depth.py --micropython auto 1000 10000 30000
    python bench/search_depth.py --stockfish /usr/games/stockfish 1000 10000 30000

Searches the 50 opening positions of bench/match_stockfish.py (where the yardstick's games
start) with a fresh 16,384-entry table each, at each node budget, and prints the last depth
each search finished, then per budget the median, the mean and the range, and the effective
branching factor into each depth: the nodes spent when a search finished the depth over those
when it finished the one before (a geometric mean over the positions that finished both; the
last depths' figure leans low, since only the cheap positions finished them). A node-limited
search is the same on every machine and on both interpreters, so the figures are exact: they
show how a search rule changes the shape of the tree where the chip plays (about 10,000 nodes
a move at 10 s on an RP2040), beside what self-play says the rule is worth.

`--micropython PATH` (`auto`: the venv's) runs the searches under the MicroPython unix port,
about 13 times CPython's speed: this script then runs itself there as a child, the FENs on
its standard input (MicroPython has no python-chess to make them).

`--stockfish PATH` measures Stockfish's classical engine (`Use NNUE` false, one thread, the
table cleared before each position) the same way: the yardstick's reference in our chair.
Each engine counts its depth its own way, so compare the node growth, not the depth numbers.
"""
import math
import sys

sys.path.insert(0, ".")

from firmware.engine.position import Position  # noqa: E402
from firmware.engine.search import Limits, Searcher  # noqa: E402

DEFAULT_NODES = (1000, 10000)


def depths(nodes, positions):
    """Each of `positions` (FENs) searched to `nodes` nodes: its finished depth, and the nodes
    the search had spent when it finished each depth ({depth: nodes})."""
    reached = []
    spent = []
    for fen in positions:
        searcher = Searcher(tt_entries=1 << 14, poll_nodes=4096)
        finished = {}
        depth = 0
        for info in searcher.iterate(Position(fen), Limits(nodes=nodes)):
            depth = info.depth
            finished[depth] = info.nodes
        reached.append(depth)
        spent.append(finished)
    return reached, spent


def stockfish_depths(path, nodes, positions):
    """The same as depths() for Stockfish (`path`) with its hand-written evaluation (`Use NNUE`
    false, one thread, 16 MB of table cleared before each position): its classical engine, the
    yardstick's reference in our chair (bench/match_stockfish.py --reference classical)."""
    import chess
    import chess.engine

    reached = []
    spent = []
    engine = chess.engine.SimpleEngine.popen_uci(path)
    try:
        engine.configure({"Threads": 1, "Hash": 16, "Use NNUE": False})
        for fen in positions:
            finished = {}
            # a new game object for each position: python-chess sends ucinewgame (the table cleared)
            with engine.analysis(chess.Board(fen), chess.engine.Limit(nodes=nodes), game=object()) as analysis:
                for info in analysis:
                    # an iteration's last line has its score; "currmove" lines come within one
                    if "depth" in info and "score" in info and "nodes" in info and "upperbound" not in info \
                            and "lowerbound" not in info:
                        finished[info["depth"]] = info["nodes"]
            depth = max(finished) if finished else 0
            reached.append(depth)
            spent.append(finished)
    finally:
        engine.quit()
    return reached, spent


def branching(spent):
    """{depth: the effective branching factor into it}: the nodes spent when a search finished
    the depth over those when it finished the one before, a geometric mean over the positions
    that finished both."""
    factors = {}
    for depth in sorted({d for finished in spent for d in finished}):
        logs = [math.log(f[depth] / f[depth - 1]) for f in spent if depth - 1 in f and depth in f and f[depth - 1]]
        if logs:
            factors[depth] = (math.exp(sum(logs) / len(logs)), len(logs))
    return factors


def report(budgets, positions, depths_of=depths):
    for nodes in budgets:
        reached, spent = depths_of(nodes, positions)
        ordered = sorted(reached)
        print("%7d nodes: median depth %d, mean %.2f, %d .. %d over %d positions" % (
            nodes, ordered[len(ordered) // 2], sum(reached) / len(reached), ordered[0], ordered[-1],
            len(reached)))
        print("  " + " ".join(str(d) for d in reached))
        print("  effective branching factor into depth d (positions): " + "  ".join(
            "%d: %.2f (%d)" % (depth, factor, count) for depth, (factor, count) in sorted(branching(spent).items())
            if depth > 1))


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
    parser.add_argument("--stockfish", metavar="PATH", default=None,
                        help="search with Stockfish's classical engine instead (e.g. /usr/games/stockfish)")
    args = parser.parse_args(argv)
    positions = list(openings(50))
    if args.stockfish:
        report(args.nodes, positions, lambda nodes, fens: stockfish_depths(args.stockfish, nodes, fens))
        return
    if not args.micropython:
        report(args.nodes, positions)
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([micropython_path(args.micropython), os.path.abspath(__file__)] + [str(n) for n in args.nodes],
                   input="\n".join(positions) + "\n", text=True, cwd=root, check=True,
                   env=dict(os.environ, MICROPYPATH=root))


if __name__ == "__main__":
    main(sys.argv[1:])
