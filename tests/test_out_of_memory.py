"""A MemoryError in the main loop (App.run): the first is reported (serial, display, the four
corners) and the game goes on; a second within App's _OOM_AGAIN_MS means the heap stays too
full or split to go on (on the emulated Pico the unit then failed every command and seemed
dead), so on a board the App restarts MicroPython with machine.soft_reset and the journal
resumes the game. Without a `machine.soft_reset` (CPython, the unix port) it goes on."""
import sys
import types

import pytest

from host_sim import Simulator


class Restarted(Exception):
    pass


def _failing_app(monkeypatch, clock_step_ms):
    sim = Simulator(seed=1, book=False, ponder=False)
    app = sim.app
    written = []
    app.write = written.append
    now = [100000]

    def ticks():
        now[0] += clock_step_ms
        return now[0]

    app.ticks_ms = ticks
    calls = []

    def step(now_ms):
        calls.append(now_ms)
        if len(calls) > 6:
            raise Restarted("the loop went on after 6 MemoryErrors")
        raise MemoryError

    monkeypatch.setattr(app, "step", step)
    return app, written, calls


def test_a_second_memory_error_soon_after_restarts_the_board(monkeypatch):
    resets = []

    def soft_reset():
        resets.append(1)
        raise Restarted("soft reset")

    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace(soft_reset=soft_reset))
    app, written, calls = _failing_app(monkeypatch, clock_step_ms=1000)
    with pytest.raises(Restarted, match="soft reset"):
        app.run(booted=True)
    assert len(calls) == 2 and resets == [1]
    assert written[0] == "out of memory" and written[-1].startswith("out of memory again: restarting")
    assert app.controller.message == "out of memory"


def test_memory_errors_far_apart_or_without_a_board_go_on(monkeypatch):
    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace(soft_reset=lambda: pytest.fail("reset")))
    app, written, calls = _failing_app(monkeypatch, clock_step_ms=60000)  # a minute apart
    with pytest.raises(Restarted, match="after 6"):
        app.run(booted=True)
    assert written == ["out of memory"] * 6

    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace())  # no soft_reset: go on
    app, written, calls = _failing_app(monkeypatch, clock_step_ms=10)
    with pytest.raises(Restarted, match="after 6"):
        app.run(booted=True)
    assert written == ["out of memory"] * 6


def test_out_of_memory_while_starting_says_so_and_returns(monkeypatch, capsys):
    """Too little heap to build or boot (the 195 KB cap on the emulated Pico ran out in the
    journal's first write): a clear message, not a traceback; the journal's game stays."""
    from firmware import app as app_module
    from firmware.features import boot

    def build(*args):
        raise MemoryError("memory allocation failed, allocating 1148 bytes")

    monkeypatch.setattr(boot, "build", build)
    assert app_module.main(object()) is None
    out = capsys.readouterr().out
    assert out.startswith("Reedchess cannot start: out of memory") and "saved game is kept" in out
