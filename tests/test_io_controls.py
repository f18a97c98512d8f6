"""Buttons (short vs long), buzzer patterns and the SSD1306 text display on modelled hardware."""
import pytest

from boards.esp32 import CONFIG as ESP32
from boards.pico import CONFIG as PICO
from firmware.io.buttons import LONG, SHORT, ButtonConfigError, Buttons
from firmware.io.buzzer import CLICK, CONFIRM, ERROR, Buzzer, BuzzerError
from firmware.io.ssd1306 import DisplayError, Ssd1306
from host_sim.electronics import build_simulated
from host_sim.pins import FakeI2C, FakePWM, FakeSsd1306


def _events(buttons):
    out = []
    ev = buttons.pop()
    while ev >= 0:
        out.append((buttons.names[ev & 15], ev >> 4, buttons.event_ms))
        ev = buttons.pop()
    return out


def _hold(elec, hw, name, from_ms, to_ms, until_ms, step_ms=5, bounce=True):
    for t in range(from_ms, until_ms + 1, step_ms):
        elec.set_time(t)
        down = from_ms <= t < to_ms
        if bounce and t in (from_ms + 5, to_ms + 5):  # one contact bounce at each edge
            down = not down
        (elec.press if down else elec.release)(name)
        hw.buttons.poll(t)
    return _events(hw.buttons)


def test_short_and_long_presses_are_told_apart():
    elec, hw = build_simulated(PICO)  # debounce 20 ms, long 800 ms
    # release at 150 bounces at 155, settles at 160, + 20 ms debounce
    assert _hold(elec, hw, "hint", 0, 150, 400) == [("hint", SHORT, 180)]
    # press at 1000 bounces at 1005, settles at 1010; long after 800 ms, while still held
    got = _hold(elec, hw, "move", 1000, 2500, 2700)
    assert got == [("move", LONG, 1810)]  # nothing more on release


def test_button_names_are_in_product_order_and_extra_ones_work():
    elec, hw = build_simulated(ESP32)  # "ok"/"mode" on input-only pins with external pull-ups
    assert hw.buttons.names == ("new", "level", "takeback", "hint", "move", "mode", "ok")
    assert _hold(elec, hw, "ok", 0, 100, 300, bounce=False) == [("ok", SHORT, 100 + 20)]
    assert hw.buttons.names.index("ok") == 6


def test_glitch_shorter_than_debounce_is_no_press():
    elec, hw = build_simulated(PICO)
    assert _hold(elec, hw, "new", 0, 10, 200, step_ms=5, bounce=False) == []


def test_button_errors():
    with pytest.raises(ButtonConfigError, match="no buttons"):
        Buttons({})
    with pytest.raises(ButtonConfigError, match="debounce_ms < long_ms"):
        Buttons({"new": object()}, debounce_ms=50, long_ms=40)


def _sounds(pwm):
    """[(start_ms, freq_hz)] of each tone switched on, 0 for silence."""
    out = []
    last = None
    for t, f, d in pwm.history:
        now = f if d else 0
        if now != last:
            out.append((t, now))
            last = now
    return out


def test_buzzer_plays_pattern_without_blocking():
    clock = [0]
    pwm = FakePWM(lambda: clock[0])
    bz = Buzzer(pwm, volume_u16=30000)
    bz.play(CONFIRM)  # 1500 Hz 60 ms, pause 40 ms, 2000 Hz 80 ms
    for t in range(0, 300, 5):
        clock[0] = t
        bz.update(t)
    assert _sounds(pwm) == [(0, 0), (0, 1500), (60, 0), (100, 2000), (180, 0)]
    assert not bz.busy and pwm.duty == 0


def test_buzzer_new_pattern_replaces_and_mute_silences():
    pwm = FakePWM()
    bz = Buzzer(pwm)
    bz.play(ERROR)
    bz.update(0)
    assert pwm.tone_hz() == 300
    bz.play(CLICK)
    bz.update(10)
    assert pwm.tone_hz() == 2000
    bz.update(30)
    assert pwm.tone_hz() == 0 and not bz.busy
    bz.mute = True
    bz.play(CLICK)
    bz.update(40)
    assert pwm.tone_hz() == 0
    with pytest.raises(BuzzerError, match="pairs"):
        bz.play((440,))
    with pytest.raises(BuzzerError, match="bad beep step"):
        bz.play((5, 100))


def test_board_buzzer_is_wired():
    elec, hw = build_simulated(PICO)
    hw.buzzer.play(CLICK)
    hw.buzzer.update(0)
    assert elec.buzzer().tone_hz() == 2000


def test_display_shows_text_that_reads_back():
    i2c = FakeI2C()
    screen = i2c.attach(0x3C, FakeSsd1306())
    d = Ssd1306(i2c)
    assert screen.on
    d.show_text("e2e4")
    assert screen.read_text() == ["e2e4"]
    d.show_text(("Level 3", "+0.35", "", "~{|}"))
    assert screen.read_text() == ["Level 3", "+0.35", "", "~{|}"]
    assert d.text == ("Level 3", "+0.35", "", "~{|}")
    d.show_text(("Nf3", "mate in 2"), scale=2)
    assert screen.read_text(scale=2) == ["Nf3", "mate in 2"]
    d.show_text("x" * 30)
    assert screen.read_text() == ["x" * 21]  # cut at the edge
    d.show_text("\u00e9")
    assert screen.read_text() == ["?"]
    d.contrast(10)
    assert screen.contrast == 10


def test_display_sends_only_the_pages_that_changed():
    """The evaluation line changes after every depth: only its page is drawn and sent, and
    the screen's RAM is then the same as after drawing everything afresh."""
    i2c = FakeI2C()
    screen = i2c.attach(0x3C, FakeSsd1306())
    d = Ssd1306(i2c)
    d.show_text(("Level 3", "+0.35", "e4 e5 Nf3"))
    before = len(screen.commands)
    d.show_text(("Level 3", "+0.41", "e4 e5 Nf3"))
    pages = [args[0] for cmd, args in screen.commands[before:] if cmd == 0x22]
    assert pages == [1]
    d.show_text(("Level 3", "+0.41", "e4 e5 Nf3"), scale=2)  # same text, new scale: all drawn again
    assert screen.read_text(scale=2) == ["Level 3", "+0.41", "e4 e5 Nf3"]
    d.show_text(("Level 3", "+0.41"))
    fresh_i2c = FakeI2C()
    fresh = fresh_i2c.attach(0x3C, FakeSsd1306())
    Ssd1306(fresh_i2c).show_text(("Level 3", "+0.41"))
    assert screen.ram == fresh.ram


def test_display_errors():
    d = Ssd1306(_i2c_with_screen())
    with pytest.raises(DisplayError, match="do not fit"):
        d.show_text(["a"] * 5, scale=2)
    with pytest.raises(DisplayError, match="strings"):
        d.show_text([42])

def test_display_that_does_not_answer_is_a_fault_reported_once_then_a_no_op():
    i2c = FakeI2C()
    i2c.attach(0x3C, FakeSsd1306())
    faults = []
    d = Ssd1306(i2c, addr=0x3D, faults=faults)  # nothing answers at that address
    assert faults == ["display: no SSD1306 at I2C 0x3D"] and d.fault == faults[0]
    assert len(i2c.log) == 1  # gave up after the first write
    d.show_text(("still", "fine"))
    d.contrast(3)
    d.power(False)
    assert d.text == ("still", "fine") and faults == [d.fault] and len(i2c.log) == 1
    with pytest.raises(DisplayError, match="strings"):
        d.show_text([42])  # bad input is still an error


def test_display_unplugged_later_is_reported_once():
    i2c = FakeI2C()
    screen = i2c.attach(0x3C, FakeSsd1306())
    faults = []
    d = Ssd1306(i2c, faults=faults)
    d.show_text("e2e4")
    assert screen.read_text() == ["e2e4"] and faults == [] and d.fault is None
    del i2c.devices[0x3C]
    for _ in range(3):
        d.show_text("e7e5")
    assert faults == ["display: no SSD1306 at I2C 0x3C"]


def _i2c_with_screen():
    i2c = FakeI2C()
    i2c.attach(0x3C, FakeSsd1306())
    return i2c


def test_board_display_is_wired():
    elec, hw = build_simulated(ESP32)
    hw.display.show_text(("Reedchess", "ready"))
    assert elec.display.read_text() == ["Reedchess", "ready"]
