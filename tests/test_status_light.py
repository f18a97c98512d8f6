"""The status light: io drivers (firmware/io/status.py: a pin LED or one more WS2812), the
board configs that declare one, and in the Simulator what it shows: whose turn, thinking,
waiting for the computer's move to be made, error."""
import pytest

from boards.config import BoardConfigError, validate
from firmware.engine.levels import find_level
from firmware.io import status as S
from firmware.io.leds import BLINK_FAST, BLINK_SLOW, OFF, ON, LedError
from host_sim import Simulator
from tests.mpy import run_mpy


class Pin:
    def __init__(self):
        self.levels = []

    def value(self, v=None):
        self.levels.append(v)


class Chain:
    def __init__(self, n):
        self.px = [(0, 0, 0)] * n
        self.writes = 0

    def __setitem__(self, i, rgb):
        self.px[i] = rgb

    def write(self):
        self.writes += 1


def test_pin_light_modes_and_writes_only_on_change():
    pin = Pin()
    light = S.PinStatusLight(pin, active=0)  # active low: off is 1
    assert pin.levels == [1]
    light.set(S.GREEN, ON)
    for t in range(0, 100, 10):
        light.update(t)
    assert pin.levels == [1, 0]
    light.set(S.RED, BLINK_FAST)
    seen = [light.is_lit(t) for t in range(0, 512, 64)]
    assert seen == [True, True, False, False, True, True, False, False]
    light.set(S.YELLOW, S.PULSE)
    assert light.is_lit(5) and not light.is_lit(200) and light.is_lit(1030)
    light.set(S.WHITE, OFF)
    light.update(0)
    assert pin.levels[-1] == 1
    with pytest.raises(LedError):
        light.set(9, ON)
    with pytest.raises(LedError):
        light.set(S.RED, 7)


def test_pixel_light_colours():
    chain = Chain(65)
    light = S.PixelStatusLight(chain, 64, brightness=255)
    light.set(S.BLUE, ON)
    light.update(0)
    assert chain.px[64] == (0, 60, 255) and chain.px[:64] == [(0, 0, 0)] * 64
    light.set(S.BLUE, BLINK_SLOW)
    light.update(100)
    assert chain.writes == 1  # same colour, still lit: nothing written
    light.update(600)
    assert chain.px[64] == (0, 0, 0) and chain.writes == 2
    dim = S.PixelStatusLight(Chain(65), brightness=51)
    assert dim._rgb[S.WHITE] == (51, 51, 51)


def test_status_update_allocates_nothing_under_micropython():
    out = run_mpy(
        "from firmware.compat import heap_lock, heap_unlock\n"
        "from firmware.io.status import PixelStatusLight, PinStatusLight, PULSE, RED\n"
        "from firmware.io.leds import BLINK_FAST\n"
        "class C:\n"
        "    def __init__(s): s.b = bytearray(195)\n"
        "    def __setitem__(s, i, rgb): s.b[3 * i] = rgb[0]\n"
        "    def write(s): pass\n"
        "class P:\n"
        "    def value(s, v=None): pass\n"
        "a = PixelStatusLight(C()); a.set(RED, BLINK_FAST)\n"
        "b = PinStatusLight(P()); b.set(RED, PULSE)\n"
        "def run(t):\n"
        "    while t < 3000:\n"
        "        a.update(t); b.update(t)\n"
        "        t += 7\n"
        "r = 'ok'\n"
        "heap_lock()\n"
        "try:\n"
        "    run(0)\n"
        "except MemoryError:\n"
        "    r = 'allocated'\n"
        "heap_unlock()\n"
        "print(r)\n"
    )
    assert out.strip() == "ok"


def test_configs_declare_status_lights_and_bad_ones_are_refused():
    from boards import esp32s3, pico

    assert pico.CONFIG["status"] == {"kind": "pixel"} and esp32s3.CONFIG["status"]["kind"] == "pin"
    bad = dict(esp32s3.CONFIG, status={"kind": "pixel"})
    with pytest.raises(BoardConfigError, match="neopixel"):
        validate(bad)
    clash = dict(esp32s3.CONFIG, status={"kind": "pin", "pin": 48})
    with pytest.raises(BoardConfigError, match="used twice"):
        validate(clash)
    with pytest.raises(BoardConfigError, match="status light kind"):
        validate(dict(pico.CONFIG, status={"kind": "lamp"}))


def light(sim):
    st = sim.hw.status
    return S.COLOUR_NAMES[st.colour], S.MODE_NAMES[st.mode]


def test_status_light_in_a_game():
    sim = Simulator(level=find_level("Depth 2"), book=False, ponder=False)
    sim.run(100)
    assert light(sim) == ("white", "on") and sim.electronics.status_light() != (0, 0, 0)  # your move
    sim.play("e2e4")
    assert light(sim) in (("yellow", "pulse"), ("green", "blink"))
    seen = set()
    while sim.computer_move() is None:
        seen.add(light(sim))
        sim.run(20)
    assert ("yellow", "pulse") in seen  # thinking
    assert light(sim) == ("green", "blink")  # waiting for its move to be made
    sim.execute()
    assert light(sim) == ("white", "on")
    sim.lift("a1")  # an illegal move: the rook jumps its pawn
    sim.run(250)
    sim.place("a3")
    sim.settle()
    assert light(sim) == ("red", "blink-fast")
    sim.lift("a3")
    sim.run(250)
    sim.place("a1")
    sim.settle()
    assert light(sim) == ("white", "on")
    two = Simulator(human="both", book=False)
    two.play("e2e4")
    assert light(two) == ("blue", "on")  # Black to move
    s3 = Simulator(board="esp32s3", book=False, level=find_level("Depth 2"), ponder=False)
    s3.run(100)
    assert s3.electronics.status_light() == 1  # one LED on a pin, lit: your move
    s3.press("new")  # the board is already set up: verify, then play
    assert light(s3)[1] in ("blink-fast", "on")


def test_ui_status_colours_agree_with_the_status_light():
    """ui.py folds the status light's colours into its bytecode instead of importing io.status."""
    from firmware.controller import ui

    assert (ui._WHITE, ui._BLUE, ui._YELLOW, ui._GREEN, ui._RED, ui._PULSE) == (
        S.WHITE, S.BLUE, S.YELLOW, S.GREEN, S.RED, S.PULSE)
