"""Diagnostics mode on simulated boards: LED walk, live sensor map, fault report, button test."""
from boards.esp32s3 import CONFIG as S3
from boards.pico import CONFIG as PICO
from firmware.io.diagnostics import BUTTONS, FAULTS, SENSORS, WALK, Diagnostics
from firmware.io.leds import BLINK_FAST, BLINK_SLOW, ERROR, ON
from host_sim.electronics import build_simulated


def _run(elec, diag, until_ms, step_ms=5):
    while elec.now_ms < until_ms:
        diag.update(elec.now_ms)
        elec.advance(step_ms)


def test_led_walk_visits_every_cell_in_turn():
    elec, hw = build_simulated(S3)
    diag = Diagnostics(hw, step_ms=20)
    seen = []
    while elec.now_ms < 64 * 20:
        diag.update(elec.now_ms)
        lit = hw.leds.lit()
        assert len(lit) == 1
        if not seen or seen[-1] != next(iter(lit)):
            seen.append(next(iter(lit)))
        elec.advance(2)
    assert seen == list(range(64))
    assert elec.led_cells() == {63: 1}  # the real matrix output agrees


def test_sensor_map_lights_occupied_cells_and_display_counts():
    elec, hw = build_simulated(PICO)
    diag = Diagnostics(hw)
    diag.set_mode(SENSORS)
    for c in (0, 7, 36):
        elec.set_cell(c, True)
    _run(elec, diag, 100)
    assert hw.leds.lit() == {0: ON, 7: ON, 36: ON}
    assert elec.display.read_text() == ["Sensor map", "3 closed", "long new: next"]
    elec.set_cell(7, False)
    _run(elec, diag, 200)
    assert hw.leds.lit() == {0: ON, 36: ON}


def test_fault_report_shows_stuck_and_chattering_cells():
    elec, hw = build_simulated(PICO)
    diag = Diagnostics(hw)  # expects an empty board
    diag.set_mode(FAULTS)
    elec.stick(10, True)
    for k in range(16):
        elec.schedule(50, 50 + 15 * k, k % 2 == 0)
    _run(elec, diag, 400)
    assert hw.leds.lit() == {10: BLINK_SLOW | ERROR, 50: BLINK_FAST | ERROR}
    assert elec.display.read_text() == ["Faults", "1 stuck c2", "1 chatter c7", "long new: next"]
    assert diag.report() == ["cell 10 (c2): switch closed (stuck?)", "cell 50 (c7): chattering"]


def test_long_press_moves_on_and_button_test_names_buttons():
    elec, hw = build_simulated(PICO)
    diag = Diagnostics(hw)
    assert diag.mode == WALK
    for mode in (SENSORS, FAULTS, BUTTONS):
        elec.press("level")
        _run(elec, diag, elec.now_ms + 900)
        elec.release("level")
        _run(elec, diag, elec.now_ms + 100)
        assert diag.mode == mode
    elec.press("hint")
    _run(elec, diag, elec.now_ms + 100)
    elec.release("hint")
    _run(elec, diag, elec.now_ms + 100)
    assert elec.display.read_text() == ["Button test", "hint", "short", "long new: next"]
    elec.press("move")  # a long press of any button but "new" is shown, not acted on
    _run(elec, diag, elec.now_ms + 900)
    elec.release("move")
    _run(elec, diag, elec.now_ms + 100)
    assert diag.mode == BUTTONS
    assert elec.display.read_text() == ["Button test", "move", "long", "long new: next"]
    assert len(elec.buzzer().history) > 0  # presses clicked
    elec.press("new")
    _run(elec, diag, elec.now_ms + 900)
    assert diag.mode == WALK


def test_led_walk_follows_a_pixel_chain_in_its_own_order():
    elec, hw = build_simulated(PICO)  # serpentine: rank 2 runs h2 .. a2
    diag = Diagnostics(hw, step_ms=20)
    seen = []
    while elec.now_ms < 16 * 20:
        diag.update(elec.now_ms)
        lit = hw.leds.lit()
        assert len(lit) == 1
        if not seen or seen[-1] != next(iter(lit)):
            seen.append(next(iter(lit)))
        elec.advance(2)
    assert seen == list(range(8)) + list(range(15, 7, -1))  # a1 .. h1, then h2 .. a2
