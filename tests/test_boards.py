"""Board configs: every board validates and builds on simulated pins; bad configs fail clearly."""
import copy
import importlib

import pytest

from boards.config import BoardConfigError, Hardware, build_hardware, validate
from host_sim.electronics import build_simulated
from host_sim.pins import FakePinFactory
from tests.mpy import run_mpy

BOARDS = ["pico", "pico2", "esp32", "esp32s3", "rpi_blinka"]


def _config(name):
    return copy.deepcopy(importlib.import_module("boards." + name).CONFIG)


@pytest.mark.parametrize("name", BOARDS)
def test_board_builds_its_drivers_on_simulated_pins(name):
    cfg = _config(name)
    elec, hw = build_simulated(cfg)
    assert isinstance(hw, Hardware) and hw.config is cfg
    elec.set_cell(0, True)
    elec.set_cell(45, True)
    bitmap = bytearray(8)
    hw.sensors.scan_into(bitmap)
    assert bitmap == bytearray([1, 0, 0, 0, 0, 1 << 5, 0, 0])
    hw.leds.show({45: 1})
    for t in range(8):
        hw.leds.update(t)
    assert list(elec.led_cells()) == [45]
    assert set(hw.buttons.names) == set(cfg["buttons"])
    assert (hw.buzzer is None) == (cfg["buzzer"] is None)
    assert (hw.display is None) == (cfg["display"] is None)
    assert hw.make_debouncer().debounce_ms == cfg["debounce_ms"]
    mod = importlib.import_module("boards." + name)
    assert callable(mod.make_hardware)


def test_limits_follow_the_memory_of_each_board():
    heaps = {n: _config(n)["heap_bytes"] for n in BOARDS}
    tts = {n: _config(n)["tt_entries"] for n in BOARDS}
    assert heaps["esp32"] < heaps["pico"] < heaps["pico2"] < heaps["esp32s3"]
    assert tts["esp32"] < tts["pico"] < tts["pico2"] < tts["esp32s3"]


def _mutate(path, value):
    cfg = _config("pico")
    node = cfg
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return cfg


@pytest.mark.parametrize("path,value,msg", [
    (("buzzer", "pin"), 9, "pin 9 used twice: sensor col 1 and buzzer"),
    (("buttons", "hint"), 16, "pin 16 used twice"),
    (("buttons", "takeback"), KeyError, "missing required button 'takeback'"),
    (("sensor", "kind"), "hall", "unknown sensor kind 'hall'"),
    (("leds", "kind"), "laser", "unknown LED kind 'laser'"),
    (("display", "kind"), "lcd1602", "unknown display kind 'lcd1602'"),
    (("sensor", "rows"), [0, 1, 2, 3, 4, 5, 6], "sensor 'rows' needs 8 pins"),
    (("sensor", "cell_map"), "sideways", "sensor cell_map: unknown cell map"),
    (("leds", "pin"), 24, "pin 24 (neopixel data) is not a usable pin"),
    (("tt_entries",), 0, "'tt_entries' must be a positive int"),
    (("debounce_ms",), KeyError, "'debounce_ms' must be a positive int"),
    (("long_press_ms",), 10, "long_press_ms must be longer"),
])
def test_bad_config_fails_with_a_clear_message(path, value, msg):
    cfg = _mutate(path, value)
    with pytest.raises(BoardConfigError, match=msg.replace("(", r"\(").replace(")", r"\)")) as info:
        validate(cfg)
    assert str(info.value).startswith("board pico: ")
    with pytest.raises(BoardConfigError):
        build_hardware(cfg, FakePinFactory(None))  # fails before touching any pin


def test_edge_and_matrix_led_pin_counts_and_input_only_pins():
    cfg = _config("rpi_blinka")
    cfg["leds"]["files"] = cfg["leds"]["files"][:7]
    with pytest.raises(BoardConfigError, match="leds 'files' needs 8 pins"):
        validate(cfg)
    cfg = _config("esp32")
    cfg["buzzer"]["pin"] = 36
    with pytest.raises(BoardConfigError, match="input-only"):
        validate(cfg)
    cfg = _config("esp32")
    cfg["external_pullups"] = [34]
    with pytest.raises(BoardConfigError, match="pin 35 .button mode. has no internal pull-up"):
        validate(cfg)


def test_config_must_be_a_dict():
    with pytest.raises(BoardConfigError, match="must be a dict"):
        validate(None)


def test_boards_load_and_build_under_micropython():
    # make_hardware() runs on the chip: the config code and every driver must import and build
    # there. A minimal allocation-tolerant factory stands in for machine.
    out = run_mpy(
        "from boards.config import build_hardware\n"
        "import boards.pico, boards.pico2, boards.esp32, boards.esp32s3, boards.rpi_blinka\n"
        "class P:\n"
        "    def __init__(s): s.v = 1\n"
        "    def value(s, v=None):\n"
        "        if v is None: return s.v\n"
        "        s.v = v\n"
        "class NP:\n"
        "    def __setitem__(s, i, v): pass\n"
        "    def write(s): pass\n"
        "class PWM:\n"
        "    def freq(s, f): pass\n"
        "    def duty_u16(s, d): pass\n"
        "class I2C:\n"
        "    def writeto(s, a, b): pass\n"
        "class F:\n"
        "    sleep_us = None\n"
        "    def pin(s, i, m, pull=None, value=None): return P()\n"
        "    def pwm(s, i): return PWM()\n"
        "    def neopixel(s, i, n): return NP()\n"
        "    def i2c(s, b, c, d, f): return I2C()\n"
        "for m in (boards.pico, boards.pico2, boards.esp32, boards.esp32s3, boards.rpi_blinka):\n"
        "    hw = build_hardware(m.CONFIG, F())\n"
        "    b = bytearray(8); hw.sensors.scan_into(b); hw.leds.update(0); hw.buttons.poll(0)\n"
        "    print(m.CONFIG['name'], type(hw.sensors).__name__, type(hw.leds).__name__, len(hw.buttons.names))\n",
        heapsize="210K",
    )
    assert out.split("\n")[:5] == [
        "pico ReedMatrix NeoPixelLeds 6",
        "pico2 ReedMatrix NeoPixelLeds 6",
        "esp32 Shift165 NeoPixelLeds 7",
        "esp32s3 Shift165 LedMatrix 5",
        "rpi_blinka Shift165 EdgeLeds 5",
    ]


def test_every_board_reports_no_faults_when_all_devices_answer():
    for name in BOARDS:
        assert build_simulated(_config(name))[1].faults == []


def _pico_without(device_missing):
    from host_sim.electronics import VirtualBoardElectronics

    cfg = _config("pico")
    elec = VirtualBoardElectronics(cfg)
    factory = FakePinFactory(elec)
    if device_missing == "display":
        elec.i2c.devices.clear()  # nothing on the I2C bus: every writeto raises OSError (ENODEV)
    elif device_missing == "bus":
        def no_bus(*args):
            raise ValueError("bad SCL pin")
        factory.i2c = no_bus
    return elec, build_hardware(cfg, factory)


def test_nothing_on_the_i2c_bus_is_a_fault_not_a_crash():
    elec, hw = _pico_without("display")
    assert hw.faults == ["display: no SSD1306 at I2C 0x3C"]
    bitmap = bytearray(8)
    hw.sensors.scan_into(bitmap)  # the rest of the board works as before
    hw.leds.show({12: 1})
    hw.leds.update(0)
    assert list(elec.led_cells()) == [12]
    hw.display.show_text(("Reedchess", "ready"))  # a silent no-op
    hw.buzzer.play((440, 10))
    hw.buzzer.update(0)
    hw.status.set(0, 1)
    hw.status.update(0)
    assert hw.faults == ["display: no SSD1306 at I2C 0x3C"]  # reported once
    assert hw.display.text == ("Reedchess", "ready")


def test_an_i2c_bus_the_port_refuses_is_a_fault_and_no_display():
    _elec, hw = _pico_without("bus")
    assert hw.display is None and hw.faults == ["display: no I2C bus 1 (bad SCL pin)"]


def test_machine_factory_builds_with_nothing_attached_and_releases_the_config_code():
    # On a board make_hardware() goes through boards.machine_factory; a fake `machine` module
    # where the I2C device never answers (ETIMEDOUT, as on the emulated Pico with no display).
    out = run_mpy(
        "import sys, gc\n"
        "class Pin:\n"
        "    OUT = 1; IN = 0; PULL_UP = 1\n"
        "    def __init__(s, n, mode=0, pull=None, value=None): s.v = 1 if value is None else value\n"
        "    def value(s, v=None):\n"
        "        if v is None: return s.v\n"
        "        s.v = v\n"
        "class PWM:\n"
        "    def __init__(s, pin): pass\n"
        "    def freq(s, f): pass\n"
        "    def duty_u16(s, d): pass\n"
        "class I2C:\n"
        "    def __init__(s, bus, scl=None, sda=None, freq=0): s.n = 0\n"
        "    def writeto(s, a, b):\n"
        "        s.n += 1\n"
        "        raise OSError(110)\n"
        "class NeoPixel:\n"
        "    def __init__(s, pin, n): s.n = n\n"
        "    def __setitem__(s, i, v): pass\n"
        "    def write(s): pass\n"
        "class M: pass\n"
        "machine = M(); machine.Pin = Pin; machine.PWM = PWM; machine.I2C = I2C\n"
        "neopixel = M(); neopixel.NeoPixel = NeoPixel\n"
        "sys.modules['machine'] = machine; sys.modules['neopixel'] = neopixel\n"
        "import time\n"
        "if not hasattr(time, 'sleep_us'): time.sleep_us = lambda us: None\n"
        "import boards.pico, boards\n"
        "hw = boards.pico.make_hardware()\n"
        "print(hw.faults)\n"
        "print('boards.config' in sys.modules, 'boards.machine_factory' in sys.modules,\n"
        "      hasattr(boards, 'config'), hasattr(boards, 'machine_factory'), 'firmware.io.cellmap' in sys.modules)\n"
        "b = bytearray(8); hw.sensors.scan_into(b); print(list(b))\n"
        "hw.leds.set(12, 1); hw.leds.update(0)\n"
        "hw.display.show_text(('Reedchess', 'ready')); print(hw.display._i2c.n)\n"
        "hw.buzzer.play((440, 10)); hw.buzzer.update(0); hw.status.set(2, 1); hw.status.update(0)\n"
        "print(hw.faults, type(hw).__name__)\n"
        "print(sorted(k for k in ('sensor', 'leds', 'buttons', 'display', 'valid_pins', 'debounce_ms', 'tt_entries')\n"
        "             if k in boards.pico.CONFIG), hw.config is boards.pico.CONFIG)\n",
        heapsize="210K",
    )
    assert out.split("\n")[:6] == [
        "['display: no SSD1306 at I2C 0x3C']",
        "False False False False False",
        "[0, 0, 0, 0, 0, 0, 0, 0]",
        "1",
        "['display: no SSD1306 at I2C 0x3C'] Hardware",
        "['debounce_ms', 'tt_entries'] True",  # the pin sections are dropped after building
    ]
