"""Under the real MicroPython unix port: a scan + debounce pass, LED updates, button polling
and buzzer updates allocate nothing (run with heap_lock held) and give the right results."""
from tests.mpy import ESP32_HEAP, run_mpy

# Allocation-free fakes (plain Python classes, as MicroPython runs them).
FAKES = r"""
from firmware.compat import heap_lock, heap_unlock
class Board:
    def __init__(s):
        s.closed = bytearray(64)   # physical switch states
        s.row_low = -1
        s.reg = bytearray(64)      # 74HC165 shift register, shift-out order
        s.pos = 0
        s.load = 1
        s.levels = bytearray(64)   # output pin levels by pin number
        s.buttons = bytearray(8)   # 1 = held
class RowPin:
    def __init__(s, b, r): s.b = b; s.r = r
    def value(s, v=None):
        if v == 0: s.b.row_low = s.r
        elif s.b.row_low == s.r: s.b.row_low = -1
class ColPin:
    def __init__(s, b, c): s.b = b; s.c = c
    def value(s, v=None):
        r = s.b.row_low
        if r >= 0 and s.b.closed[r * 8 + s.c]: return 0
        return 1
class LoadPin:
    def __init__(s, b): s.b = b
    def value(s, v=None):
        b = s.b
        b.load = v
        if v == 0:
            for k in range(64):
                b.reg[k] = 0 if b.closed[(k >> 3) * 8 + 7 - (k & 7)] else 1
            b.pos = 0
class ClockPin:
    def __init__(s, b): s.b = b; s.level = 0
    def value(s, v=None):
        if v == 1 and s.level == 0 and s.b.load: s.b.pos += 1
        s.level = v
class ColPort:
    # the 8 column levels of the row driven low, as bits 8-15 of one register (ReedMatrix cols_port)
    def __init__(s, b): s.b = b
    def __getitem__(s, address):
        r = s.b.row_low
        v = 0
        for c in range(8):
            if not (r >= 0 and s.b.closed[r * 8 + c]): v |= 1 << c
        return v << 8
class DataPin:
    def __init__(s, b): s.b = b
    def value(s, v=None):
        return s.b.reg[s.b.pos] if s.b.pos < 64 else 0
class OutPin:
    def __init__(s, b, n): s.b = b; s.n = n
    def value(s, v=None):
        if v is None: return s.b.levels[s.n]
        s.b.levels[s.n] = v
class ButtonPin:
    def __init__(s, b, i): s.b = b; s.i = i
    def value(s, v=None): return 0 if s.b.buttons[s.i] else 1
class NP:
    def __init__(s): s.buf = bytearray(192); s.writes = 0
    def __setitem__(s, i, rgb):
        s.buf[3 * i] = rgb[0]; s.buf[3 * i + 1] = rgb[1]; s.buf[3 * i + 2] = rgb[2]
    def write(s): s.writes += 1
class PWM:
    def __init__(s): s.f = 0; s.d = 0
    def freq(s, f): s.f = f
    def duty_u16(s, d): s.d = d
"""

HOT_LOOP = FAKES + r"""
from firmware.io.matrix import ReedMatrix
from firmware.io.shift165 import Shift165
from firmware.io.debounce import OccupancyDebouncer
from firmware.io.leds import ON, BLINK_SLOW, BLINK_FAST, ERROR
from firmware.io.leds_matrix import LedMatrix
from firmware.io.leds_edge import EdgeLeds
from firmware.io.leds_neopixel import NeoPixelLeds
from firmware.io.buttons import Buttons
from firmware.io.buzzer import Buzzer, CONFIRM

b = Board()
sensors = (ReedMatrix([RowPin(b, r) for r in range(8)], [ColPin(b, c) for c in range(8)], settle_us=0,
                      cell_map="rot180"),
           Shift165(LoadPin(b), ClockPin(b), DataPin(b), cell_map="rot180"),
           # the columns from one register: bit by bit (rot180), one store a row (identity)
           ReedMatrix([RowPin(b, r) for r in range(8)], [ColPin(b, c) for c in range(8)], settle_us=0,
                      cell_map="rot180", cols_port=(ColPort(b), 0, 8)),
           ReedMatrix([RowPin(b, r) for r in range(8)], [ColPin(b, c) for c in range(8)], settle_us=0,
                      cols_port=(ColPort(b), 0, 8)))
leds = (LedMatrix([OutPin(b, i) for i in range(8)], [OutPin(b, 8 + i) for i in range(8)]),
        EdgeLeds([OutPin(b, 16 + i) for i in range(8)], [OutPin(b, 24 + i) for i in range(8)]),
        NeoPixelLeds(NP(), cell_map="serpentine"))
for l in leds:
    l.show({0: ON, 9: BLINK_SLOW, 63: BLINK_FAST | ERROR})
buttons = Buttons({"new": ButtonPin(b, 0), "hint": ButtonPin(b, 1)}, debounce_ms=20, long_ms=300)
pwm = PWM()
buzzer = Buzzer(pwm)
buzzer.play(CONFIRM)
debs = tuple(OccupancyDebouncer(30) for _ in sensors)
raws = tuple(bytearray(8) for _ in sensors)
got = bytearray(128 * len(sensors))   # (cell | kind << 6) of each event, per sensor
times = bytearray(128 * len(sensors))  # event time / 10
n_got = [0] * len(sensors)
n_btn = [0]

def step(now):
    for i in range(len(sensors)):
        sensors[i].scan_into(raws[i])
        debs[i].update(raws[i], now)
        ev = debs[i].pop()
        while ev >= 0:
            got[i * 128 + n_got[i]] = ev
            times[i * 128 + n_got[i]] = debs[i].event_ms // 10
            n_got[i] += 1
            ev = debs[i].pop()
    for l in leds:
        l.update(now)
    buttons.poll(now)
    ev = buttons.pop()
    while ev >= 0:
        n_btn[0] += 1
        ev = buttons.pop()
    buzzer.update(now)

step(0)  # warm-up outside the lock
result = "ok"
heap_lock()
try:
    for t in range(10, 1500, 10):
        if t == 100:
            b.closed[0] = 1        # physical 0 = cell 63 (rot180)
        if t == 110:
            b.closed[0] = 0        # bounce
        if t == 120:
            b.closed[0] = 1
            b.closed[62] = 1       # cell 1
        if t == 400:
            b.buttons[1] = 1
        if t == 900:
            b.closed[62] = 0
        step(t)
except MemoryError:
    result = "allocated"
heap_unlock()
print(result)
for i in range(len(sensors)):
    print(" ".join("%d:%d@%d" % (got[i * 128 + k] & 63, got[i * 128 + k] >> 6, times[i * 128 + k] * 10)
                   for k in range(n_got[i])))
print("buttons", n_btn[0], buttons.is_pressed(1))
print("np writes", leds[2]._np.writes > 3)
print("matrix row", leds[0].row, "edge", leds[1].rank_on, leds[1].file_on)
"""


def test_scan_debounce_leds_buttons_buzzer_allocate_nothing_under_micropython():
    out = run_mpy(HOT_LOOP, heapsize=ESP32_HEAP).splitlines()
    assert out[0] == "ok", out
    expected_events = "1:1@120 63:1@120 1:0@900"  # same-time events in cell order
    assert out[1] == expected_events  # reed matrix
    assert out[2] == expected_events  # 74HC165 chain
    assert out[3] == expected_events  # reed matrix, its columns from one register, bit by bit
    assert out[4] == "0:1@120 62:1@120 62:0@900"  # the same, identity-wired: one store a row
    assert out[5] == "buttons 1 True"  # LONG while still held
    assert out[6] == "np writes True"


def test_allocation_is_detected():
    # The harness itself must be able to fail: a scan into a fresh bytearray allocates.
    code = FAKES + r"""
from firmware.io.matrix import ReedMatrix
b = Board()
m = ReedMatrix([RowPin(b, r) for r in range(8)], [ColPin(b, c) for c in range(8)], settle_us=0)
r = "no allocation"  # globals exist before the lock (a new global may grow the dict)
heap_lock()
try:
    m.scan_into(bytearray(8))
except MemoryError:
    r = "allocated"
heap_unlock()
print(r)
"""
    assert run_mpy(code).strip() == "allocated"
