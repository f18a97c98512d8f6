"""Board-sync property at scale: N random moves in random physical orders (default 100,000).

    .venv/bin/python bench/sync_property.py                 # 100,000 cases, seeds 0..99,999
    .venv/bin/python bench/sync_property.py 20000 --paused  # the long-pause variant
    .venv/bin/python bench/sync_property.py 5000 --start 1000000

Same generator and checks as tests/test_sync_property.py (which runs 2,000 + 300 of them in
`make test`); prints the number of cases run, how many were inferred exactly, a breakdown by
case kind and move type, the first failures (seed, FEN, events) and the time taken. Results
go into docs/benchmarks.md.
"""
import argparse
import collections
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import chess  # noqa: E402

from tests.test_sync_property import make_case, run_case, run_paused_case  # noqa: E402


def describe(seed, paused):
    kind, pos, first, plan, events, fen_text = make_case(seed, pause_p=0.12 if paused else 0.0)
    board = chess.Board(fen_text)
    if board.is_castling(first):
        move_type = "castling"
    elif board.is_en_passant(first):
        move_type = "en passant"
    elif first.promotion:
        move_type = "promotion"
    elif board.is_capture(first):
        move_type = "capture"
    else:
        move_type = "quiet"
    return kind, move_type


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="?", type=int, default=100_000)
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--paused", action="store_true", help="long pauses mid-move (game must end right)")
    parser.add_argument("--show", type=int, default=5, help="failures to print")
    args = parser.parse_args(argv)
    check = run_paused_case if args.paused else run_case
    kinds = collections.Counter()
    types = collections.Counter()
    failures = []
    t0 = time.perf_counter()
    for seed in range(args.start, args.start + args.cases):
        failure = check(seed)
        if failure:
            failures.append(failure)
        if (seed - args.start + 1) % 10_000 == 0:
            print("  %d cases, %d failures, %.0f s" % (seed - args.start + 1, len(failures), time.perf_counter() - t0),
                  flush=True)
    elapsed = time.perf_counter() - t0
    for seed in range(args.start, args.start + min(args.cases, 20_000)):  # breakdown on a sample
        kind, move_type = describe(seed, args.paused)
        kinds[kind] += 1
        types[move_type] += 1
    print("board-sync property%s: %d cases (seeds %d..%d), %d inferred exactly, %d failures, %.1f s (%.0f cases/s)" % (
        " (long pauses)" if args.paused else "", args.cases, args.start, args.start + args.cases - 1,
        args.cases - len(failures), len(failures), elapsed, args.cases / elapsed))
    sample = sum(kinds.values())
    print("case kinds (first %d): %s" % (sample, ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
    print("move types (first %d): %s" % (sample, ", ".join("%s %d" % kv for kv in sorted(types.items()))))
    for failure in failures[: args.show]:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
