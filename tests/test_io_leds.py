"""LED drivers drive the modelled pins right: matrix multiplexing, edge LEDs, NeoPixel colours."""
import pytest

from boards.esp32s3 import CONFIG as S3
from boards.pico import CONFIG as PICO
from boards.rpi_blinka import CONFIG as RPI
from firmware.io.leds import (BLINK_FAST, BLINK_SLOW, ERROR, HINT, INFO, ON, LedError)
from firmware.io.leds_neopixel import NeoPixelLeds
from host_sim.electronics import build_simulated
from host_sim.pins import FakeNeoPixel


def _levels(elec, pins):
    return [elec.levels[p] for p in pins]


def test_matrix_drives_one_row_with_the_right_columns():
    elec, hw = build_simulated(S3)
    rows, cols = S3["leds"]["rows"], S3["leds"]["cols"]
    hw.leds.show({8 * 2 + 3: ON, 8 * 2 + 6: ON, 8 * 5 + 0: ON})
    for row in range(8):
        hw.leds.update(0)  # first call shows row 0, then 1, ...
        assert hw.leds.row == row
        assert _levels(elec, rows) == [1 if r == row else 0 for r in range(8)]
        want = {2: {3, 6}, 5: {0}}.get(row, set())
        assert _levels(elec, cols) == [0 if c in want else 1 for c in range(8)]  # columns sink: active low
    assert elec.max_rows_on == 1  # never two rows at once (no smearing)
    assert elec.led_cells() == {19: 1, 22: 1, 40: 1}


def test_matrix_blinks_in_phase():
    elec, hw = build_simulated(S3)
    hw.leds.show({0: BLINK_SLOW, 1: BLINK_FAST})
    for t in range(8):
        hw.leds.update(t)  # t < 128: both in the lit half
    assert elec.led_cells() == {0: 1, 1: 1}
    for t in range(200, 208):
        hw.leds.update(t)  # fast blink dark (200 & 128), slow still lit
    assert elec.led_cells() == {0: 1}
    for t in range(600, 608):
        hw.leds.update(t)  # 600 & 512: slow dark, 600 & 128 = 0: fast lit
    assert elec.led_cells() == {1: 1}


def test_matrix_with_cell_map_lights_the_mapped_led():
    cfg = dict(S3)
    cfg["leds"] = dict(S3["leds"], cell_map="rot180")
    elec, hw = build_simulated(cfg)
    hw.leds.set(0, ON)
    for t in range(8):
        hw.leds.update(t)
    assert elec._led_seen[7] == 1 << 7  # wiring row 7 col 7 carries cell 0
    assert elec.led_cells() == {0: 1}


def test_edge_leds_show_one_cell_then_the_other():
    elec, hw = build_simulated(RPI)
    ranks, files = RPI["leds"]["ranks"], RPI["leds"]["files"]
    hw.leds.show({12: ON, 28: ON})  # e2 and e4 in chess terms
    hw.leds.update(0)
    assert _levels(elec, ranks) == [0, 1, 0, 0, 0, 0, 0, 0]
    assert _levels(elec, files) == [0, 0, 0, 0, 1, 0, 0, 0]
    assert elec.led_cells() == {12: 1}
    hw.leds.update(500)
    assert elec.led_cells() == {28: 1}
    hw.leds.update(1000)
    assert elec.led_cells() == {12: 1}
    hw.leds.clear()
    hw.leds.update(1001)
    assert elec.led_cells() == {}
    assert _levels(elec, ranks + files) == [0] * 16


def test_edge_leds_write_pins_only_on_change():
    elec, hw = build_simulated(RPI)
    hw.leds.show({0: ON})
    hw.leds.update(0)
    writes = sum(elec.pins[p].writes for p in RPI["leds"]["ranks"] + RPI["leds"]["files"])
    for t in range(1, 100):
        hw.leds.update(t)
    assert sum(elec.pins[p].writes for p in RPI["leds"]["ranks"] + RPI["leds"]["files"]) == writes


def test_neopixel_buffer_holds_role_colours_at_brightness():
    elec, hw = build_simulated(PICO)  # serpentine chain, brightness 48
    hw.leds.show({0: ON, 8: ON | HINT, 63: BLINK_SLOW | ERROR, 9: ON | INFO})
    hw.leds.update(0)
    np = elec.neopixels[PICO["leds"]["pin"]]
    scale = lambda rgb: tuple(v * 48 // 255 for v in rgb)  # noqa: E731
    assert np.shown[0] == scale((0, 255, 0))
    assert np.shown[15] == scale((0, 80, 255))  # cell 8 is pixel 15 on a serpentine chain
    assert np.shown[14] == scale((255, 150, 0))
    assert np.shown[56] == scale((255, 0, 0))  # cell 63 is pixel 56
    assert sum(1 for rgb in np.shown if rgb != (0, 0, 0)) == 4
    hw.leds.update(600)  # slow blink dark
    assert np.shown[56] == (0, 0, 0)
    assert elec.led_cells() == {0: scale((0, 255, 0)), 8: scale((0, 80, 255)), 9: scale((255, 150, 0))}


def test_neopixel_writes_only_when_something_changes():
    np = FakeNeoPixel(64)
    leds = NeoPixelLeds(np, brightness=255)
    leds.set(5, ON)
    for t in range(0, 1000, 7):
        leds.update(t)
    assert np.writes == 1  # steady: one write, blink phases ignored without blinking cells
    leds.set(6, BLINK_FAST)
    for t in range(0, 1024, 8):
        leds.update(t)
    assert 8 <= np.writes <= 10  # about one write per half period of 128 ms
    leds.set_brightness(10)
    leds.update(1024)
    assert np.shown[5] == (0, 10, 0)


def test_neopixel_custom_colours_and_errors():
    np = FakeNeoPixel(64)
    leds = NeoPixelLeds(np, colors={ERROR: (200, 0, 200)}, brightness=255)
    leds.set(1, ON | ERROR)
    leds.set(2, ON | HINT)
    leds.update(0)
    assert np.shown[1] == (200, 0, 200) and np.shown[2] == (0, 80, 255)
    with pytest.raises(LedError, match="bad colour"):
        NeoPixelLeds(FakeNeoPixel(64), colors={ERROR: (300, 0, 0)})
    with pytest.raises(LedError, match="brightness"):
        leds.set_brightness(256)


def test_common_api_validates_and_reads_back():
    _, hw = build_simulated(PICO)
    leds = hw.leds
    leds.show({3: BLINK_FAST | HINT, 4: ON})
    assert leds.pattern(3) == BLINK_FAST | HINT and leds.lit() == {3: BLINK_FAST | HINT, 4: ON}
    with pytest.raises(LedError, match="0..63"):
        leds.set(64, ON)
    with pytest.raises(LedError, match="pattern"):
        leds.set(0, 16)
    with pytest.raises(LedError, match="bad LED entry"):
        leds.show({3: ON, 99: ON})
    assert leds.lit() == {3: BLINK_FAST | HINT, 4: ON}  # a bad show() changed nothing
    leds.clear()
    assert leds.lit() == {}
