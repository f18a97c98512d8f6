"""Board-sync cost on the MicroPython unix port (and CPython): RAM and time per call.

    .venv/bin/python bench/sync_speed.py

Measures, for one BoardSync in the middle of a game: RAM of the object (gc.mem_free before and
after construction), a quiet update() pass, one event(), and the update() that settles on a
move (normal move, capture, castling, computer move + fast reply, an illegal board that runs
every fallback: take back, correction, start position, two-move search). The unix port on a
PC is roughly 50-75x faster than an ESP32 and RP2040 is about 0.75-0.9x an ESP32
(/work/shared/reference/chess-computer-notes.md), so device times are ~60x the unix figures.
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.mpy import PICO_HEAP, run_mpy  # noqa: E402

SNIPPET = r"""
import gc, sys
try:
    from time import ticks_us, ticks_diff
except ImportError:
    import time as _t
    def ticks_us():
        return int(_t.perf_counter() * 1000000)
    def ticks_diff(a, b):
        return a - b
from firmware.controller import board_sync as bs
from firmware.controller.board_sync import occupancy_of
from firmware.engine.position import Position
from firmware.engine.uci_parse import parse_uci

FEN = "r3k2r/pppq1ppp/2n2n2/2bpp3/2BPP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1"
gc.collect()
free0 = gc.mem_free() if hasattr(gc, "mem_free") else 0
sync = bs.BoardSync()
gc.collect()
ram = free0 - gc.mem_free() if free0 else 0
FILES = "abcdefgh"

def cell(n):
    return (ord(n[1]) - 49) * 8 + FILES.index(n[0])

def settle_time(fen, steps, expect=None, repeat=20):
    best = 10 ** 9
    code = 0
    for _ in range(repeat):
        pos = Position(fen)
        sync = bs.BoardSync()
        sync.set_position(pos)
        occ = occupancy_of(pos)
        sync.update(occ, 0)
        if expect:
            sync.expect_move(parse_uci(pos, expect))
        t = 100
        for s in steps.split():
            c = cell(s[1:])
            kind = bs.PLACE if s[0] == "+" else bs.LIFT
            if kind:
                occ[c >> 3] |= 1 << (c & 7)
            else:
                occ[c >> 3] &= 255 ^ (1 << (c & 7))
            sync.event(c, kind, t)
            sync.update(occ, t)
            t += 100
        t0 = ticks_us()
        code = sync.update(occ, t + 400)
        dt = ticks_diff(ticks_us(), t0)
        if dt < best:
            best = dt
    return best, bs.CODE_NAMES[code]

pos = Position(FEN)
sync.set_position(pos)
occ = occupancy_of(pos)
sync.update(occ, 0)
N = 500

def best_of(fn, batches=9):
    # Per-call time in us: the fastest of several batches (the machine is shared).
    best = 10 ** 9
    for _ in range(batches):
        t0 = ticks_us()
        fn()
        dt = ticks_diff(ticks_us(), t0)
        if dt < best:
            best = dt
    return best / N

def quiet_passes():
    for i in range(N):
        sync.update(occ, 5)

def wiggles():
    for i in range(N // 2):
        sync.event(12, 0, i)
        sync.event(12, 1, i)

quiet = best_of(quiet_passes)
sync.event(8, 0, 0)  # a2 in hand: the e2 wiggles never bring the board back
occ[1] &= 254
event = best_of(wiggles)
busy = best_of(quiet_passes)  # a move under way, not yet stable (time stands still)
sync.event(8, 1, 0)
occ[1] |= 1
clear = best_of(wiggles)  # each PLACE brings the board back: the 64-cell history is cleared
print("ram_bytes", ram)
print("quiet_update_us %.1f" % quiet)
print("event_us %.1f (%.1f when it brings the board back and clears the history)" % (event, clear))
print("update_us while a move is under way %.1f" % busy)
for label, fen, steps, expect in (
    ("normal move", FEN, "-a2 +a3", None),
    ("capture", FEN, "-d5 -e4 +d5", None),
    ("castling", FEN, "-h1 +f1 -e1 +g1", None),
    ("computer move + fast reply", FEN, "-a2 +a3 -a7 +a6", "a2a3"),
    ("illegal board (all fallbacks)", FEN, "-a2 +a5", None),
):
    us, code = settle_time(fen, steps, expect)
    print("settle %s: %d us -> %s" % (label, us, code))
"""


def main():
    print("MicroPython unix port (heap %s):" % PICO_HEAP)
    print(run_mpy(SNIPPET, heapsize=PICO_HEAP).rstrip())
    print("CPython %s:" % sys.version.split()[0])
    ns = {"__name__": "bench"}
    t0 = time.perf_counter()
    exec(compile(SNIPPET, "sync_speed", "exec"), ns)
    print("(CPython run took %.1f s)" % (time.perf_counter() - t0))


if __name__ == "__main__":
    main()
