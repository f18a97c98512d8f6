"""On a board App.run sleeps out the rest of a quiet pass (App.pause, time.sleep_ms there) so
the chip waits for an interrupt instead of spinning: a 1 ms pass sleeps 3 ms, a pass of 4 ms or
more (one that searched) does not sleep. Without a pause (CPython, the unix port, whose clocks
the simulator and the tests drive) the loop never sleeps."""
import pytest

from firmware.features import boot
from host_sim import Simulator


class Stop(Exception):
    pass


def _loop(monkeypatch, pass_ms, pause):
    """App.run over passes that take pass_ms[i] ms each; returns the passes' start times."""
    sim = Simulator(seed=1, book=False, ponder=False)
    app = sim.app
    assert app.pause is None  # the simulator drives the clock: its App never sleeps
    now = [1000]
    app.ticks_ms = lambda: now[0]
    starts = []

    def step(now_ms):
        if len(starts) == len(pass_ms):
            raise Stop
        now[0] += pass_ms[len(starts)]
        starts.append(now_ms)

    monkeypatch.setattr(app, "step", step)

    def sleep(ms):
        slept.append(ms)
        now[0] += ms

    slept = []
    app.pause = sleep if pause else None
    with pytest.raises(Stop):
        app.run(booted=True)
    return starts, slept


def test_a_quiet_pass_sleeps_to_the_pace_and_a_long_one_does_not(monkeypatch):
    starts, slept = _loop(monkeypatch, [1, 2, 4, 50, 0], pause=True)
    assert slept == [3, 2, 4]  # after the 1, 2 and 0 ms passes; none after 4 or 50 ms
    assert starts == [1000, 1004, 1008, 1012, 1062]


def test_without_a_pause_the_loop_never_sleeps(monkeypatch):
    starts, slept = _loop(monkeypatch, [1, 1, 1], pause=False)
    assert slept == [] and starts == [1000, 1001, 1002]
    assert boot._pause_function() is None  # CPython: the simulator's clock, never time.sleep_ms


def test_the_boots_fault_display_sleeps_between_the_leds_updates():
    from firmware.io.leds import BLINK_FAST, ERROR

    class Leds:
        def __init__(self):
            self.shown, self.updates = [], []

        def show(self, patterns):
            self.shown.append(dict(patterns))

        def update(self, now_ms):
            self.updates.append(now_ms)

    class Hw:
        faults = ["display: no answer at 0x3c"]
        display = None
        leds = Leds()

    now = [0]
    slept, said = [], []

    def pause(ms):
        slept.append(ms)
        now[0] += ms

    assert boot.show_faults(Hw, ticks_ms=lambda: now[0], write=said.append, ms=1500, pause=pause) == Hw.faults
    assert said == ["faults: display: no answer at 0x3c"]
    corner = BLINK_FAST | ERROR
    assert Hw.leds.shown == [{0: corner, 7: corner, 56: corner, 63: corner}, {}]
    assert slept == [20] * 75 and Hw.leds.updates == list(range(0, 1500, 20))
