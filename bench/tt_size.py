"""What a smaller transposition table costs in nodes (run by hand; results in
docs/benchmarks.md, "Levels: budgets and table size"; docs/levels.md, "Per board").

    MICROPYPATH=. .venv/bin/micropython -X heapsize=64M bench/tt_size.py --depth 7
    python bench/tt_size.py --depth 6 --plies 20 --entries 2048,262144
    MICROPYPATH=. .venv/bin/micropython -X heapsize=64M bench/tt_size.py --depth 4,5,6,7,8 \
        --games 3,4,7 --kept-only 1

The games first: from each bench position in `--games` (indices into bench/search_speed.py's
BENCH_FENS; default the last, a queen's gambit middlegame), the engine's own moves at
`--game-nodes` nodes a move with a 262,144-slot table, `--plies` plies. Then, for every depth
in `--depth` and every table size in `--entries`, every position of those games searched to
that depth: with one Searcher per game whose table is kept from move to move, as in a game
("kept"), and (unless `--kept-only 1`) with a new Searcher for every position ("fresh").
Prints the nodes each needed. A node-limited game plays better the fewer nodes its depths
cost, so the ratio to the largest table is what a board's smaller table costs at about that
many nodes a move: the shape of firmware/engine/levels.py's _TABLE_COST (whose size
`bench/selfplay.py`, with a table fixed at the board's size, measured in games).

A 262,144-slot table takes 2.5 MB: under the unix port give it the heap (`-X heapsize`).
"""
import sys

try:
    import argparse
except ImportError:  # MicroPython's unix port: the arguments by hand
    argparse = None

sys.path.insert(0, ".")

from bench.search_speed import BENCH_FENS  # noqa: E402
from firmware.engine.position import Position  # noqa: E402
from firmware.engine.search import Limits, Searcher  # noqa: E402

BIG_TABLE = 262144  # slots: the 4 MB hash of the Stockfish matches and self-play
DEFAULTS = {"depth": "7", "plies": 40, "game_nodes": 10000, "entries": "1024,2048,8192,65536,262144",
            "games": "7", "kept_only": 0}
_LISTS = ("depth", "entries", "games")  # comma-separated


def parse(argv):
    options = dict(DEFAULTS)
    if argparse is not None:
        parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        parser.add_argument("--depth", default=DEFAULTS["depth"], help="depths, comma-separated")
        parser.add_argument("--plies", type=int, default=DEFAULTS["plies"])
        parser.add_argument("--game-nodes", type=int, default=DEFAULTS["game_nodes"])
        parser.add_argument("--entries", default=DEFAULTS["entries"], help="table sizes, comma-separated")
        parser.add_argument("--games", default=DEFAULTS["games"], help="start positions (BENCH_FENS indices)")
        parser.add_argument("--kept-only", type=int, default=0, help="1: skip the fresh tables")
        options = vars(parser.parse_args(argv))
    else:
        k = 0
        while k < len(argv):
            name = argv[k].lstrip("-").replace("-", "_")
            if name not in options or k + 1 >= len(argv):
                raise SystemExit("usage: tt_size.py [--depth D,..] [--plies N] [--game-nodes N] [--entries A,B,..] "
                                 "[--games I,..] [--kept-only 0|1]")
            options[name] = argv[k + 1] if name in _LISTS else int(argv[k + 1])
            k += 2
    for name in _LISTS:
        options[name] = [int(text) for text in str(options[name]).split(",")]
    return options


def play_game(fen, plies, nodes):
    """The engine's own moves from `fen`, `nodes` nodes a move, the big table kept."""
    position = Position(fen)
    searcher = Searcher(tt_entries=BIG_TABLE, poll_nodes=4096)
    moves = []
    for _ in range(plies):
        move = searcher.search(position, Limits(nodes=nodes)).best_move
        if not move:
            break
        moves.append(move)
        position.make(move)
    return moves


def nodes_along(fen, moves, entries, depth, keep):
    """Nodes to `depth` at every position of the game, the table kept or new each move."""
    position = Position(fen)
    searcher = Searcher(tt_entries=entries, poll_nodes=4096)
    total = 0
    for move in moves:
        if not keep:
            searcher = Searcher(tt_entries=entries, poll_nodes=4096)
        total += searcher.search(position, Limits(depth=depth)).nodes
        position.make(move)
    return total


def main(argv):
    options = parse(argv)
    sizes = options["entries"]
    games = []
    for index in options["games"]:
        fen = BENCH_FENS[index]
        games.append((fen, play_game(fen, options["plies"], options["game_nodes"])))
        print("game %d: %d plies from %s" % (index, len(games[-1][1]), fen))
    positions = sum(len(moves) for fen, moves in games)
    for depth in options["depth"]:
        rows = []
        for entries in sizes:
            kept = fresh = 0
            for fen, moves in games:
                kept += nodes_along(fen, moves, entries, depth, True)
                if not options["kept_only"]:
                    fresh += nodes_along(fen, moves, entries, depth, False)
            rows.append((entries, kept, fresh))
        base_kept = rows[-1][1]
        base_fresh = rows[-1][2] or 1
        print("depth %d, %d positions, %d nodes a position with %d slots kept" % (
            depth, positions, base_kept // positions, rows[-1][0]))
        for entries, kept, fresh in rows:
            print("%7d slots: kept %9d nodes (x %.3f)   fresh %9d nodes (x %.3f)" % (
                entries, kept, kept / base_kept, fresh, fresh / base_fresh))


if __name__ == "__main__":
    main(sys.argv[1:])
