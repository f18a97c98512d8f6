"""The main loop's hot paths under the real MicroPython unix port: an idle service pass (scan,
debounce, board sync, buttons, controller tick, LEDs, buzzer) and the search's poll allocate
nothing (heap_lock held), while waiting for the player and while the computer's move is
shown and blinking. The pins are allocation-free fakes built through the pico board's own
build_hardware (the host_sim electronics model allocates as it models, so it is not used here)."""
from tests.mpy import run_mpy

SETUP = r"""
from firmware.compat import heap_lock, heap_unlock
from boards.pico import CONFIG
from boards.config import build_hardware
from firmware.app import App
from firmware.engine.search import Searcher
from firmware.controller import ui

class Board:
    def __init__(s):
        s.closed = bytearray(64)
        s.row_low = -1
        s.levels = bytearray(64)
        s.pressed = bytearray(32)
class Pin:
    def __init__(s, b, pid, mode):
        s.b = b; s.pid = pid; s.mode = mode
        s.row = CONFIG["sensor"]["rows"].index(pid) if pid in CONFIG["sensor"]["rows"] else -1
        s.col = CONFIG["sensor"]["cols"].index(pid) if pid in CONFIG["sensor"]["cols"] else -1
    def value(s, v=None):
        b = s.b
        if v is None:
            if s.col >= 0:
                r = b.row_low
                return 0 if r >= 0 and b.closed[r * 8 + s.col] else 1
            return 0 if b.pressed[s.pid] else 1
        if s.row >= 0:
            if v == 0: b.row_low = s.row
            elif b.row_low == s.row: b.row_low = -1
        b.levels[s.pid] = v
class NP:
    def __init__(s, n): s.buf = bytearray(3 * n); s.writes = 0
    def __setitem__(s, i, rgb):
        s.buf[3 * i] = rgb[0]; s.buf[3 * i + 1] = rgb[1]; s.buf[3 * i + 2] = rgb[2]
    def write(s): s.writes += 1
class PWM:
    def __init__(s): s.f = 0; s.d = 0
    def freq(s, f): s.f = f
    def duty_u16(s, d): s.d = d
class I2C:
    def writeto(s, addr, buf): return len(buf)
class Factory:
    sleep_us = None
    def __init__(s, b): s.b = b
    def pin(s, pid, mode, pull=None, value=None): return Pin(s.b, pid, mode)
    def pwm(s, pid): return PWM()
    def neopixel(s, pid, n): return NP(n)
    def i2c(s, bus, scl, sda, freq): return I2C()

b = Board()
for c in list(range(16)) + list(range(48, 64)):
    b.closed[c] = 1
hw = build_hardware(CONFIG, Factory(b))
T = [0]
def ticks():
    T[0] += 2
    return T[0]
app = App(hw, Searcher(tt_entries=256, poll_nodes=64, clock_ms=lambda: T[0]), ticks_ms=ticks)
app.boot(ticks())
def run(ms):
    end = T[0] + ms
    while T[0] < end:
        app.step(ticks())
def locked(label, fn, n):
    run(50)
    heap_lock()
    err = None
    try:
        for i in range(n):
            fn()
    except MemoryError as e:
        err = e
    heap_unlock()
    print(label, "allocated" if err else "ok")
"""

CHECKS = r"""
run(1000)
print("phase", ui.PHASE_NAMES[app.controller.phase])
locked("idle", lambda: app.service(ticks()), 500)
locked("poll", lambda: app._poll(app.searcher), 300)
# the player plays e2e4 (cells 12 -> 28); the computer answers and shows its move
b.closed[12] = 0
run(200)
b.closed[28] = 1
run(3000)
print("phase", ui.PHASE_NAMES[app.controller.phase], len(hw.leds.lit()))
locked("showing", lambda: app.service(ticks()), 500)
"""


def test_idle_pass_and_poll_allocate_nothing():
    out = run_mpy(SETUP + CHECKS).split("\n")
    assert "phase player" in out
    assert "idle ok" in out
    assert "poll ok" in out
    assert any(line.startswith("phase showing") and not line.endswith(" 0") for line in out)
    assert "showing ok" in out


def test_the_lock_would_catch_an_allocation():
    # the harness itself can fail: an allocating call under the lock is reported
    out = run_mpy(SETUP + 'locked("alloc", lambda: [1, 2, 3], 3)\n')
    assert "alloc allocated" in out


def test_a_game_ended_by_its_last_move_resumes_ended_under_micropython(tmp_path):
    """The journal holds Fool's mate but not its end (the power went in between): booting
    under MicroPython finds the game over and writes the end (tests/test_journal_powercut.py
    cuts at every flash operation under CPython)."""
    head = SETUP.split("T = [0]")[0]
    code = head + r"""
from firmware.controller.journal import Journal
from firmware.engine.position import Position
from firmware.engine.uci_parse import parse_uci
folder = %r
j = Journal(folder)
j.start_game(None)
p = Position()
for text in ("f2f3", "e7e5", "g2g4", "d8h4"):
    m = parse_uci(p, text)
    j.record_move(m)
    p.make(m)
print("before", Journal(folder).load().result)
T = [0]
def ticks():
    T[0] += 2
    return T[0]
app = App(hw, Searcher(tt_entries=256, poll_nodes=64, clock_ms=lambda: T[0]), journal=Journal(folder), ticks_ms=ticks)
app.boot(ticks())
print("after", app.controller.game.over, app.controller.game.result, Journal(folder).load().result)
""" % str(tmp_path)
    out = run_mpy(code).split()
    assert out == ["before", "*", "after", "True", "0-1", "0-1"]
