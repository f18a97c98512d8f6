"""Mate trainer and clock features, by hand: start-position speed, defence quality per node
budget, and the heap the features hold.

    .venv/bin/python bench/trainer.py

- random_start: milliseconds per start position on CPython and on the MicroPython unix port;
- defence: in random K+Q / K+R vs K positions with the lone king to move next to the edge,
  where its moves differ (some allow a mate in one or two, found by brute force with
  python-chess), how often a search with `nodes` picks a move with the longest resistance,
  against a random walk's expectation (tests/test_trainer.py asserts this at the trainer's
  own limits);
- memory (MicroPython unix port, 64-bit objects): the heap held by a Trainer, a GameClock,
  a TouchMove and a Stats object.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from firmware.features.trainer import random_start  # noqa: E402
from firmware.engine.notation import uci  # noqa: E402
from firmware.engine.position import Position  # noqa: E402
from firmware.engine.search import Limits, Searcher  # noqa: E402
from tests.mpy import run_mpy  # noqa: E402
from tests.test_trainer import pressed_king_positions  # noqa: E402

SPEED_MPY = """
import time
from firmware.features.trainer import random_start
a = time.ticks_ms()
for seed in range(300):
    random_start(seed % 6, seed)
print(time.ticks_diff(time.ticks_ms(), a) / 300)
"""

MEMORY_MPY = """
import gc
from firmware.features.trainer import Trainer
from firmware.features.stats import Stats
from firmware.features.clock import GameClock
from firmware.features.touch import TouchMove
from firmware.engine.position import Position
Position()
gc.collect(); a = gc.mem_alloc()
t = Trainer()
gc.collect(); b = gc.mem_alloc()
c = GameClock(); m = TouchMove(); s = Stats("/tmp", levels=26, sets=6)
gc.collect(); d = gc.mem_alloc()
print(b - a, d - b)
"""


def main():
    t = time.perf_counter()
    for seed in range(300):
        random_start(seed % 6, seed)
    print("random_start: CPython %.2f ms, MicroPython %.2f ms per start position"
          % ((time.perf_counter() - t) * 1000 / 300, float(run_mpy(SPEED_MPY))))
    positions = list(pressed_king_positions(30, 77))
    walk = sum(sum(1 for v in o.values() if v == max(o.values())) / len(o) for _, o in positions)
    print("defence: %d positions; a random walk would pick a longest resistance %.1f times" % (len(positions), walk))
    for nodes in (300, 500, 1000, 2500):
        s = Searcher(tt_entries=1 << 12)
        best = mate1 = 0
        for board, options in positions:
            choice = options[uci(s.search(Position(board.fen()), Limits(nodes=nodes)).best_move)]
            best += choice == max(options.values())
            mate1 += choice == 1
        print("  %5d nodes: longest resistance %d/%d, into a mate in one %d" % (nodes, best, len(positions), mate1))
    trainer, rest = run_mpy(MEMORY_MPY).split()
    print("heap: Trainer %s bytes; GameClock + TouchMove + Stats %s bytes" % (trainer, rest))


if __name__ == "__main__":
    main()
