"""The pico image (`make image BOARD=pico`) plays tests/test_pins_pico.py's pin-level games: the
same hand, LEDs, buttons, buzzer and display at the pins of the emulated Pico
(host_sim/rp2040/), with the image written alone onto an erased flash instead of `make flash`
onto stock MicroPython. (Its power cut and a new image over a game: tests/test_image.py.) The
games are tests/test_pins_pico.py's, on the same firmware frozen: `make test-images` runs them
(REEDCHESS_ALL_IMAGES=1), `make test` does not.

Skipped, with the reason, without the cross toolchain, the MicroPython source, or node and the
emulator (tests/test_image.py says which).
"""
import time

import pytest

from tests import test_pins_pico as pins
from tests.test_image import ALL_IMAGES, built, erased_flash_with
from tools.emulated_pico import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    if not ALL_IMAGES:
        pytest.skip("the same games as tests/test_pins_pico.py (the image's own boot, game and power cut: "
                    "tests/test_image.py): make test-images (REEDCHESS_ALL_IMAGES=1)")
    info = built("pico")
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard

    b = PicoBoard()
    t0 = time.monotonic()
    b.image = erased_flash_with(info["paths"]["bin"], str(tmp_path_factory.mktemp("image") / "pins.img"))
    b.flash_s = time.monotonic() - t0  # "flash": the image written onto an erased flash
    try:
        yield b
    finally:
        b.stop()


def test_the_pin_level_games_on_the_image(board):
    pins.test_whole_game_through_the_pins(board)  # power_on(b.image): the frozen main runs
