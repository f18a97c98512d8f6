"""The Blinka backend on CPython with BLINKA_OS_AGNOSTIC=1 (Blinka's generic test board):
the adapter imports, drives digitalio pins and runs the real io drivers on them.

Run in a subprocess: Blinka detects the platform once per process, at import.
"""
import os
import subprocess
import sys

from tests.mpy import ROOT

SCRIPT = r"""
import digitalio
from boards.blinka import BlinkaFactory, BlinkaPin
from firmware.io.buttons import Buttons, LONG
from firmware.io.buzzer import Buzzer, CLICK

f = BlinkaFactory()
out = f.pin("Dx_OUTPUT", "out", value=1)
assert isinstance(out, BlinkaPin) and isinstance(out._dio, digitalio.DigitalInOut)
assert out._dio.direction == digitalio.Direction.OUTPUT
print("out initial", out._dio._pin.current_value)
out.value(0)
print("out after value(0)", out._dio._pin.current_value)
out.value(1)
print("out after value(1)", out._dio._pin.current_value)

# Blinka's generic board: D1 always reads low (a button held down), D2 reads high (released).
held = f.pin("Dx_INPUT_FALSE", "in", pull="up")
free = f.pin("Dx_INPUT_TRUE_PULL_UP", "in", pull="up")
assert held._dio.pull == digitalio.Pull.UP
print("levels", held.value(), free.value())
buttons = Buttons({"new": free, "hint": held}, debounce_ms=20, long_ms=300)
for t in range(0, 400, 10):
    buttons.poll(t)
ev = buttons.pop()
print("button", buttons.names[ev & 15], "long" if ev >> 4 == LONG else "short", buttons.pop())

bz = Buzzer(f.pwm("Dx_OUTPUT"))
bz.play(CLICK)
bz.update(0)
print("pwm", bz._pwm._pwm.frequency, bz._pwm._pwm.duty_cycle)
"""


def test_blinka_adapter_drives_digitalio_pins():
    env = dict(os.environ, BLINKA_OS_AGNOSTIC="1", PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "out initial 1",
        "out after value(0) 0",
        "out after value(1) 1",
        "levels 0 1",
        "button hint long -1",
        "pwm 2000 32768",
    ]
