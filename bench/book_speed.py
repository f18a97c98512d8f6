"""Opening-book figures for docs/benchmarks.md (run by hand: `python bench/book_speed.py`).

Prints the shipped book's size, entries, reachable positions and average book depth
(weighted playouts on CPython), then the time to open (with checksum) and to look up
positions under the MicroPython unix port and CPython. A board runs MicroPython roughly
50-75x slower than the unix port on a PC (see the reference notes), so multiply.
"""

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from firmware.engine.book import default_book_path, open_book  # noqa: E402
from firmware.engine.uci_parse import parse_uci  # noqa: E402
from firmware.engine.position import Position  # noqa: E402
from tests.mpy import PICO_HEAP, run_mpy  # noqa: E402
from tools.book_build import book_stats  # noqa: E402

# In book at several depths, and one position out of book (the probe's worst case is similar).
LINES = [
    [],
    ["e2e4"],
    ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"],
    ["d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4", "e2e3", "e8g8"],
    ["a2a4", "h7h5", "h2h4", "a7a5"],
]
ROUNDS = 200

MPY = r"""
import gc
import time
from firmware.engine.book import open_book
from firmware.engine.position import Position
from firmware.engine.uci_parse import parse_uci
from firmware.compat import heap_lock, heap_unlock
gc.collect()
before = gc.mem_alloc()
probe_book = open_book(%(path)r)
gc.collect()
print("ram_bytes", gc.mem_alloc() - before)
probe_book.close()
t0 = time.ticks_us()
book = open_book(%(path)r)
t_open = time.ticks_diff(time.ticks_us(), t0)
t0 = time.ticks_us()
book.close()
book = open_book(%(path)r, verify=False)
t_open_fast = time.ticks_diff(time.ticks_us(), t0)
print("open_us", t_open, t_open_fast)
positions = []
for line in %(lines)r:
    pos = Position()
    for text in line:
        pos.make(parse_uci(pos, text))
    positions.append(pos)
for pos in positions:
    best_probe = best_choose = 1 << 29
    for rep in range(5):  # best of 5: the machine is shared
        t0 = time.ticks_us()
        heap_lock()
        for _ in range(%(rounds)d):
            book.probe(pos)
        heap_unlock()
        best_probe = min(best_probe, time.ticks_diff(time.ticks_us(), t0))
        t0 = time.ticks_us()
        heap_lock()
        for _ in range(%(rounds)d):
            book.choose(pos)
        heap_unlock()
        best_choose = min(best_choose, time.ticks_diff(time.ticks_us(), t0))
    print("pos", book.probe(pos), best_probe / %(rounds)d, best_choose / %(rounds)d)
"""


def main():
    path = default_book_path()
    size = os.path.getsize(path)
    with open_book(path) as book:
        stats = book_stats(book, playouts=2000, seed=1)
    print("book: %s, %d bytes" % (os.path.relpath(path, ROOT), size))
    for name, value in stats.items():
        print("  %s: %s" % (name, round(value, 2) if isinstance(value, float) else value))

    out = run_mpy(MPY % {"path": path, "lines": LINES, "rounds": ROUNDS}, heapsize=PICO_HEAP)
    print("MicroPython unix port (heap %s):" % PICO_HEAP)
    for line in out.strip().splitlines():
        fields = line.split()
        if fields[0] == "open_us":
            print("  open with checksum %.1f ms, without %.2f ms" % (int(fields[1]) / 1000, int(fields[2]) / 1000))
        elif fields[0] == "pos":
            print(
                "  position with %s entries: probe %.0f us, choose %.0f us"
                % (fields[1], float(fields[2]), float(fields[3]))
            )
        elif fields[0] == "ram_bytes":
            print("  heap held by an open Book: %s bytes (64-bit port; the module itself not counted)" % fields[1])
        else:
            print("  " + line)

    print("CPython %s:" % sys.version.split()[0])
    t0 = time.perf_counter()
    book = open_book(path)
    print("  open with checksum %.1f ms" % ((time.perf_counter() - t0) * 1000))
    for line in LINES:
        pos = Position()
        for text in line:
            pos.make(parse_uci(pos, text))
        t_probe = t_choose = 1e9
        for _ in range(5):  # best of 5: the machine is shared
            t0 = time.perf_counter()
            for _ in range(ROUNDS):
                book.probe(pos)
            t_probe = min(t_probe, (time.perf_counter() - t0) / ROUNDS * 1e6)
            t0 = time.perf_counter()
            for _ in range(ROUNDS):
                book.choose(pos)
            t_choose = min(t_choose, (time.perf_counter() - t0) / ROUNDS * 1e6)
        print("  position with %d entries: probe %.0f us, choose %.0f us" % (book.probe(pos), t_probe, t_choose))
    book.close()


if __name__ == "__main__":
    main()
