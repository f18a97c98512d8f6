"""The self-test at power-on: hold *hint* while switching the board on (or pressing reset).

    # features/boot.py, before the saved game is read, when the button is held at power-on:
    run(hw, ticks_ms, write)             # returns when the player leaves the self-test

It runs firmware.io.diagnostics's four tests in turn: the LED walk (each LED in chain order),
the sensor map (every closed switch lights its square), the fault scan (stuck and chattering
switches, against an empty board) and the button test (the display names each press). A long
press of *new* moves to the next test; after the button test it leaves the self-test, the
findings go to the serial console, and the chess computer starts. Nothing here reads or
writes the journal, so the saved game is untouched. Loaded only when the button is held.
"""
from firmware.compat import ticks_diff
from firmware.io.diagnostics import Diagnostics

TRIGGER = "hint"  # copy of firmware.features.boot.SELFTEST_BUTTON: held at power-on
_RELEASE_MS = 30  # the trigger counts as released once it has been up this long
_DONE_MS = 1500  # how long the summary stays on the display


def _show(hw, lines):
    if hw.display is not None:
        hw.display.show_text(lines)


def _wait_release(hw, ticks_ms):
    """Show the title until the trigger button is let go, then drop its press: it must not
    count as the first press of a test."""
    _show(hw, ("Self-test", "release " + TRIGGER, "", "long new: next test"))
    buttons = hw.buttons
    index = buttons.names.index(TRIGGER)
    read = buttons._get[index]  # the raw pin: 0 while pressed (active low)
    up_since = None
    while True:
        now = ticks_ms()
        buttons.poll(now)
        if not read():
            up_since = None
        elif up_since is None:
            up_since = now
        elif ticks_diff(now, up_since) >= _RELEASE_MS and not buttons.is_pressed(index):
            break
        hw.leds.update(now)
    while buttons.pop() >= 0:
        pass


def run(hw, ticks_ms, write=print):
    """The self-test until the player leaves it; returns the findings (text lines)."""
    _wait_release(hw, ticks_ms)
    diag = Diagnostics(hw, leave_after_last=True)
    while not diag.done:
        diag.update(ticks_ms())
    findings = diag.report()
    write("self-test: " + ("; ".join(findings) if findings else "no faults found"))
    _show(hw, ("Self-test done", "%d faults" % len(findings), findings[0][:21] if findings else "", "starting..."))
    start = ticks_ms()
    now = start
    while ticks_diff(now, start) < _DONE_MS:
        hw.leds.update(now)
        if hw.buzzer is not None:
            hw.buzzer.update(now)
        now = ticks_ms()
    hw.leds.clear()
    return findings
