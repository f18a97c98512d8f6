"""The pico image (`make image BOARD=pico`) plays tests/test_pins_pico.py's pin-level games: the
same hand, LEDs, buttons, buzzer and display at the pins of the emulated Pico
(host_sim/rp2040/), with the image written alone onto an erased flash instead of `make flash`
onto stock MicroPython. (Its power cut and a new image over a game: tests/test_image.py.)

Skipped, with the reason, without the cross toolchain, the MicroPython source, or node and the
emulator (tests/test_image.py says which).
"""
import time

import pytest

from tests import test_pins_pico as pins
from tests.test_image import built, erased_flash_with
from tools.emulated_pico import DeviceError, unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    info = built("pico")
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard

    b = PicoBoard()
    t0 = time.monotonic()
    b._runner_from(erased_flash_with(info["paths"]["bin"], str(tmp_path_factory.mktemp("image") / "pins.img")))
    deadline = time.monotonic() + 120
    while True:  # the frozen main runs at power-on: Ctrl-C to the REPL, where a flash leaves a board
        b.pico.write(b"\x03")
        try:
            b.pico.read_until(b">>> ", timeout=1)
            break
        except DeviceError:
            if time.monotonic() > deadline:
                raise
    b.pico.buf = b""
    b.flash_s = time.monotonic() - t0  # "flash": the power-on from the image
    try:
        yield b
    finally:
        b.stop()


def test_the_pin_level_games_on_the_image(board):
    pins.test_whole_game_through_the_pins(board)  # b.boot(): a soft reset runs the frozen main again
