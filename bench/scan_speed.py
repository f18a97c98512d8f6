"""Time one full sensor scan + debounce pass (and one LED update) under the MicroPython unix
port and scale it to the chips. Run by hand:  .venv/bin/python bench/scan_speed.py

Scaling (shared/reference notes): the unix port on a PC is 50-75x faster than MicroPython on
an ESP32; an RP2040 is 0.75-0.9x an ESP32. So RP2040 time = unix time x 55.6 .. 100, ESP32
time = unix time x 50 .. 75. The fake pins here are Python methods, slower than the C
`machine.Pin.value`, so the estimates are on the safe side. The reed matrix also waits
settle_us per row on a real board (8 x 10 us = 0.08 ms), added to the estimate. The
"shift165_spi" row's fake SPI decodes the bytes in Python; a real SPI peripheral reads 8
bytes at 1 MHz in ~0.07 ms, so the real figure is lower still.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.mpy import run_mpy  # noqa: E402
from tests.test_io_mpy import FAKES  # noqa: E402

BENCH = FAKES + r"""
import time
from firmware.io.matrix import ReedMatrix
from firmware.io.shift165 import Shift165
from firmware.io.debounce import OccupancyDebouncer
from firmware.io.leds import ON, BLINK_FAST
from firmware.io.leds_matrix import LedMatrix
from firmware.io.leds_neopixel import NeoPixelLeds

b = Board()
for c in range(16): b.closed[c] = 1
for c in range(48, 64): b.closed[c] = 1
matrix = ReedMatrix([RowPin(b, r) for r in range(8)], [ColPin(b, c) for c in range(8)], settle_us=0)
chain = Shift165(LoadPin(b), ClockPin(b), DataPin(b))
class SPI:  # stands in for the SPI peripheral: the chain's 8 bytes appear at once
    def __init__(s, b): s.b = b
    def readinto(s, buf):
        for k in range(8):
            v = 0
            for i in range(8):
                if not s.b.closed[k * 8 + i]: v |= 1 << i
            buf[k] = v
chain_spi = Shift165(LoadPin(b), None, None, spi=SPI(b))
ledm = LedMatrix([OutPin(b, i) for i in range(8)], [OutPin(b, 8 + i) for i in range(8)])
npl = NeoPixelLeds(NP())
for l in (ledm, npl):
    l.show({12: ON, 28: BLINK_FAST})
raw = bytearray(8)
N = 2000

def bench(sensor):
    deb = OccupancyDebouncer(30)
    t0 = time.ticks_us()
    for i in range(N):
        sensor.scan_into(raw)
        deb.update(raw, i)
    return time.ticks_diff(time.ticks_us(), t0) / N

def bench_leds(leds, full):
    t0 = time.ticks_us()
    for i in range(N):
        if full:
            leds._dirty = True   # force the worst case: a full rewrite every time
        leds.update(i)
    return time.ticks_diff(time.ticks_us(), t0) / N

for name, us in (("matrix", bench(matrix)), ("shift165", bench(chain)),
                 ("shift165_spi", bench(chain_spi)),
                 ("led_matrix_row", bench_leds(ledm, False)), ("neopixel_rewrite", bench_leds(npl, True))):
    print(name, "%.1f" % us)
"""

SETTLE_MS = {"matrix": 0.08}


def main():
    best = {}
    for _ in range(3):  # best of three runs: the machine is shared
        for line in run_mpy(BENCH).split("\n"):
            if line.strip():
                name, us = line.split()
                best[name] = min(best.get(name, 1e9), float(us))
    print("%-18s %10s %16s %16s" % ("pass", "unix us", "ESP32 ms", "RP2040 ms"))
    for name, us in best.items():
        extra = SETTLE_MS.get(name, 0.0)
        esp = (us * 50 / 1000 + extra, us * 75 / 1000 + extra)
        rp = (us * 50 / 0.9 / 1000 + extra, us * 75 / 0.75 / 1000 + extra)
        print("%-18s %10.1f %7.2f - %6.2f %7.2f - %6.2f" % (name, us, esp[0], esp[1], rp[0], rp[1]))


if __name__ == "__main__":
    main()
