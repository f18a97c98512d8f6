"""Perft speed: leaf nodes per second with make/unmake at every leaf (no bulk counting).

Measures, in one run on one machine, Reedchess under CPython, Reedchess under the MicroPython
unix port, and python-chess under CPython (push/pop at every leaf) as the yardstick, on
kiwipete d4 and start d5 (`--quick`: one depth less). Prints a Markdown table for
docs/benchmarks.md.

    .venv/bin/python bench/perft_speed.py [--quick]
"""
import os
import platform
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import chess  # noqa: E402

from firmware.engine.position import Position  # noqa: E402
from firmware.engine.perft import perft  # noqa: E402
from tests.mpy import run_mpy  # noqa: E402
from tests.positions import PERFT  # noqa: E402


def chess_perft(board, depth):
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def timed(fn):
    start = time.perf_counter()
    nodes = fn()
    return nodes, time.perf_counter() - start


def main():
    quick = "--quick" in sys.argv
    cases = [("kiwipete", 3 if quick else 4), ("start", 4 if quick else 5)]
    rows = []
    for name, depth in cases:
        fen, counts = PERFT[name]
        expected = counts[depth - 1]
        ours_nodes, ours_s = timed(lambda fen=fen, depth=depth: perft(Position(fen), depth))
        code = (
            "import time\n"
            "from firmware.engine.position import Position\n"
            "from firmware.engine.perft import perft\n"
            "p = Position(%r)\n"
            "t = time.ticks_us()\n"
            "n = perft(p, %d)\n"
            "print(n, time.ticks_diff(time.ticks_us(), t))\n" % (fen, depth)
        )
        mp_nodes, mp_us = run_mpy(code, timeout=3600).split()
        mp_nodes, mp_s = int(mp_nodes), int(mp_us) / 1e6
        pc_nodes, pc_s = timed(lambda fen=fen, depth=depth: chess_perft(chess.Board(fen), depth))
        assert ours_nodes == mp_nodes == pc_nodes == expected, (ours_nodes, mp_nodes, pc_nodes, expected)
        rows.append((name, depth, expected, ours_nodes / ours_s, mp_nodes / mp_s, pc_nodes / pc_s))
    machine = (platform.machine(), platform.processor() or "cpu", platform.python_version(), time.strftime("%Y-%m-%d"))
    print("Machine: %s, %s, Python %s; %s" % machine)
    print()
    columns = ["position", "depth", "leaves", "Reedchess CPython n/s", "Reedchess MicroPython n/s",
               "python-chess CPython n/s", "MicroPython / python-chess", "CPython / python-chess"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for name, depth, leaves, ours, mp, pc in rows:
        cells = (name, depth, leaves, ours, mp, pc, mp / pc, ours / pc)
        print("| %s | %d | %d | %.0f | %.0f | %.0f | %.2f | %.2f |" % cells)


if __name__ == "__main__":
    main()
