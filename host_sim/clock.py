"""Simulated device time for the simulator, shared by the test thread and the firmware thread.

The firmware runs in its own thread and reads the clock through `firmware_ticks()` (passed to
the App as its `ticks_ms`). Every read costs simulated time: one main-loop pass (`pass_us`)
plus the nodes searched since the last read times the device's time per node, so a search
takes as long in simulated time as it would on the chip. When the firmware wants more time
than has been granted, its thread blocks; `grant(ms)` (the test thread, through
`Simulator.run`) hands out time and returns once the firmware has used it up and is waiting
again. Exactly one thread runs at any moment, so a simulation is deterministic.

Device speeds (DEVICE_NODES_PER_S): the RP2040's is measured, the others derived from it. On
the emulated stock Pico (rp2040js running MicroPython 1.29's RPI_PICO image at 125 MHz,
bench/pico_speed.py --variant all at depth 4, docs/benchmarks.md "Engine speed") the .mpy build
that `make flash` copies (attack test, move generator, making and taking back a move, move
ordering, SEE, the evaluation and the quiescence search in viper machine code, the main search
bytecode) searches 1,068 nodes/s; the emulator counts every flash fetch as one cycle, so a real
chip is somewhat slower. Inside the running App the search gets less (it polls the board;
bench/calibrate_levels.py uses that figure for the timed levels' Elo). The RP2350 (150 MHz
Cortex-M33) and the ESP32s (240 MHz Xtensa) are estimates relative to the RP2040's figure:
ratios estimated against an engine that searched 399 nodes/s on the RP2040
(../shared/reference), scaled by 1068/399 (MicroPython's allocator and VM are the same on every
port, so what speeds the engine up on one helps the others alike; not measured). A board config
may override them with `device_nodes_per_s` and `device_pass_us`.
"""
import threading

DEVICE_NODES_PER_S = {"RP2040": 1068, "RP2350": 1601, "ESP32": 1298, "ESP32-S3": 1426}
DEFAULT_NODES_PER_S = 20000  # Linux boards (Raspberry Pi with Blinka, CPython)
# One service pass (scan + debounce + board sync + buttons + LEDs) on the device, in us. The
# RP2040's is measured on the emulated chip with the pico board at its pins (a quiet pass of
# the flashed firmware, display attached: 2.35 ms, of it the matrix scan 1.3 ms; docs/benchmarks.md
# "Board reaction and scanning"); the others are scaled from it as the nodes/s are.
DEVICE_PASS_US = {"RP2040": 2350, "RP2350": 1600, "ESP32": 1900, "ESP32-S3": 1800}
DEFAULT_PASS_US = 200


class SimulatorClosed(BaseException):
    """Raised in the firmware thread when the simulator shuts down (ends the thread)."""


def device_speed(config):
    """(nodes per second, pass time in us) for a board config."""
    mcu = config.get("mcu", "")
    nps = config.get("device_nodes_per_s", DEVICE_NODES_PER_S.get(mcu, DEFAULT_NODES_PER_S))
    pass_us = config.get("device_pass_us", DEVICE_PASS_US.get(mcu, DEFAULT_PASS_US))
    return nps, pass_us


class SimClock:
    """See the module docstring. `work()` returns the firmware's running node count."""

    def __init__(self, nodes_per_s=399, pass_us=2000, work=None):
        self.now_us = 0
        self.limit_us = 0
        self.us_per_node = 1000000 // nodes_per_s
        self.pass_us = pass_us
        self.work = work
        self._seen_work = 0
        self._cond = threading.Condition()
        self._waiting = False  # the firmware thread is blocked for time
        self._generation = 0  # grants so far
        self._seen_generation = -1
        self.closed = False
        self.finished = False  # the firmware thread has ended
        self.reads = 0

    # ---- the firmware thread ----------------------------------------------------------
    def now_ms(self):
        """Current simulated time in ms (free: no time passes)."""
        return self.now_us // 1000

    def firmware_ticks(self):
        """The firmware's ticks_ms: charges one pass plus the nodes searched since the last
        read, blocking until that much time has been granted."""
        cost = self.pass_us
        if self.work is not None:
            w = self.work()
            cost += (w - self._seen_work) * self.us_per_node
            self._seen_work = w
        self.consume_us(cost)
        self.reads += 1
        return (self.now_us // 1000) & 0x3FFFFFFF

    def consume_us(self, us):
        with self._cond:
            target = self.now_us + us
            while target > self.limit_us:
                if self.closed:
                    raise SimulatorClosed()
                self._waiting = True
                self._seen_generation = self._generation
                self._cond.notify_all()
                self._cond.wait()
            self._waiting = False
            self.now_us = target

    def firmware_done(self):
        with self._cond:
            self.finished = True
            self._cond.notify_all()

    # ---- the test thread --------------------------------------------------------------
    def grant(self, ms):
        """Let the firmware run `ms` more simulated milliseconds; return when it waits."""
        with self._cond:
            if self.limit_us < self.now_us:
                self.limit_us = self.now_us
            self.limit_us += int(ms * 1000)
            self._generation += 1
            self._cond.notify_all()
            while not self.finished and not (self._waiting and self._seen_generation == self._generation):
                self._cond.wait()

    def close(self):
        with self._cond:
            self.closed = True
            self._cond.notify_all()
