"""Board configs: validation and building every driver from a config with any pin factory.

A board module (boards/pico.py, ...) holds a `CONFIG` dict and `make_hardware()`.
`build_hardware(config, factory)` builds the same drivers for a real board
(boards/machine_factory.py), a Raspberry Pi with Blinka (boards/blinka.py) or the simulator's
fake electronics (host_sim/pins.py), so the simulator runs exactly the board's drivers.

Pin factory protocol (duck-typed; pin ids are whatever the platform uses: ints on
MicroPython, names like "D17" on Blinka):
    factory.pin(pin_id, mode, pull=None, value=None) -> pin with value() / value(x)
        mode: "in" or "out"; pull: "up" or None; value: initial output level
    factory.pwm(pin_id) -> object with freq(hz) and duty_u16(0..65535)
    factory.neopixel(pin_id, count) -> np[i] = (r, g, b); np.write()
    factory.i2c(bus_id, scl, sda, freq_hz) -> object with writeto(addr, buf) (the display), and
        readfrom_mem_into(addr, reg, buf) / writeto_mem(addr, reg, buf) (MCP23017 sensors)
    factory.spi(bus_id, sck, miso, baudrate) -> object with readinto(buf), SPI mode 0
        (only for a 74HC165 sensor with an "spi" entry)
    factory.sleep_us -> function(us), or None when no wait is needed
    factory.cols_port(pin_ids) (optional) -> (mem, address, shift) when bit shift + c of
        mem[address] is the level of pin_ids[c] (one register read for a reed matrix's 8
        columns), or None where the chip cannot (the columns are then read pin by pin)

CONFIG keys (see docs/io.md for the full table):
    name, mcu, sensor{kind: matrix|shift165|mcp23017, ...}, leds{kind: matrix|edge|neopixel, ...},
    buttons{name: pin}, buzzer{pin} or None, display{kind: ssd1306, i2c, scl, sda, addr} or None,
    heap_bytes, tt_entries, poll_nodes, settle_us, debounce_ms, stable_ms,
    button_debounce_ms, long_press_ms, and optionally move_stack (the search's move buffer,
    cells of 8 bytes; default 2048), game_plies (the longest game the record holds, 16 bytes
    a ply; default 600), boot_gc_threshold (bytes allocated between collections while it boots;
    default 2048), stack_bytes (the MicroPython port's C stack, so the search keeps
    room for the controller's poll; default unknown), valid_pins, input_only_pins,
    external_pullups (input pins with a resistor on the board, e.g. ESP32 GPIO 34-39),
    status (a status light: {kind: pixel} = one more WS2812 after the 64 of a neopixel
    board, or {kind: pin, pin, active} = one LED on a pin; absent or None: no status light).
"""
from boards import Hardware  # noqa: F401 (boards.config.Hardware, as before)
from firmware.io.buttons import REQUIRED, Buttons
from firmware.io.cellmap import CellMapError, make_cell_map

SENSOR_KINDS = ("matrix", "shift165", "mcp23017")
LED_KINDS = ("matrix", "edge", "neopixel")
DISPLAY_KINDS = ("ssd1306",)
STATUS_KINDS = ("pixel", "pin")
NUMBERS = ("heap_bytes", "tt_entries", "poll_nodes", "settle_us", "debounce_ms", "stable_ms",
           "button_debounce_ms", "long_press_ms")
# Optional memory sizes: key -> (default, least, most). A board with little RAM sets them
# smaller (docs/memory.md, "Fitting a board"); firmware.app passes them on.
SIZES = {
    "move_stack": (2048, 768, 16384),  # Searcher(move_stack=): moves on the searched line
    "game_plies": (600, 200, 2000),  # Game(capacity=): plies in the game record
    "stack_bytes": (0, 4096, 1 << 20),  # Searcher(stack_bytes=): the MicroPython port's C stack
    # bytes allocated between two collections while the chess computer is built (features/boot.py)
    "boot_gc_threshold": (2048, 1024, 1 << 20),
}


class BoardConfigError(ValueError):
    """A board config that cannot work; the message names the board and the problem."""


def _error(config, msg):
    name = config.get("name", "?") if isinstance(config, dict) else "?"
    return BoardConfigError("board %s: %s" % (name, msg))


def _fail(config, msg):
    raise _error(config, msg)


def _section(config, key, optional=False):
    sec = config.get(key)
    if sec is None and optional:
        return None
    if not isinstance(sec, dict):
        raise _error(config, "'%s' must be a dict, got %r" % (key, sec))
    return sec


def _pin_list(config, sec, key, where, count):
    pins = sec.get(key)
    if not isinstance(pins, (list, tuple)) or len(pins) != count:
        _fail(config, "%s '%s' needs %d pins, got %r" % (where, key, count, pins))
    return list(pins)


def pin_roles(config):
    """[(pin, role, direction)] for every pin the config uses (direction "in"/"out"/"bus")."""
    used = []
    s = _section(config, "sensor")
    if s.get("kind") == "matrix":
        used += [(p, "sensor row %d" % i, "out") for i, p in enumerate(_pin_list(config, s, "rows", "sensor", 8))]
        used += [(p, "sensor col %d" % i, "in") for i, p in enumerate(_pin_list(config, s, "cols", "sensor", 8))]
    elif s.get("kind") == "shift165":
        for key, d in (("load", "out"), ("clock", "out"), ("data", "in")):
            if s.get(key) is None:
                _fail(config, "sensor shift165 needs a '%s' pin" % key)
            used.append((s[key], "sensor " + key, d))
    elif s.get("kind") == "mcp23017":
        for key in ("sda", "scl"):
            if s.get(key) is None:
                _fail(config, "sensor mcp23017 needs an '%s' pin (its I2C bus)" % key)
            used.append((s[key], "sensor " + key, "bus"))
    led = _section(config, "leds")
    if led.get("kind") == "matrix":
        used += [(p, "led row %d" % i, "out") for i, p in enumerate(_pin_list(config, led, "rows", "leds", 8))]
        used += [(p, "led col %d" % i, "out") for i, p in enumerate(_pin_list(config, led, "cols", "leds", 8))]
    elif led.get("kind") == "edge":
        used += [(p, "rank led %d" % (i + 1), "out") for i, p in enumerate(_pin_list(config, led, "ranks", "leds", 8))]
        files = _pin_list(config, led, "files", "leds", 8)
        used += [(p, "file led %s" % "abcdefgh"[i], "out") for i, p in enumerate(files)]
    elif led.get("kind") == "neopixel":
        if led.get("pin") is None:
            _fail(config, "neopixel leds need a 'pin'")
        used.append((led["pin"], "neopixel data", "out"))
    buttons = _section(config, "buttons") or {}  # never None: a required section raises
    for name in sorted(buttons):
        used.append((buttons[name], "button " + str(name), "in"))
    bz = _section(config, "buzzer", optional=True)
    if bz is not None:
        if bz.get("pin") is None:
            _fail(config, "buzzer needs a 'pin' (or set buzzer to None)")
        used.append((bz["pin"], "buzzer", "out"))
    st = _section(config, "status", optional=True)
    if st is not None and st.get("kind") == "pin":
        if st.get("pin") is None:
            _fail(config, "a status light of kind 'pin' needs a 'pin'")
        used.append((st["pin"], "status light", "out"))
    disp = _section(config, "display", optional=True)
    if disp is not None:
        for key in ("scl", "sda"):
            if disp.get(key) is None:
                _fail(config, "display needs an '%s' pin" % key)
        if not shares_sensor_bus(config):
            for key in ("scl", "sda"):
                used.append((disp[key], "display " + key, "bus"))
    return used


def shares_sensor_bus(config):
    """True when the display sits on the MCP23017 sensors' I2C bus (same bus id and pins)."""
    s = config.get("sensor") or {}
    d = config.get("display")
    if s.get("kind") != "mcp23017" or not isinstance(d, dict):
        return False
    return (d.get("i2c", 0), d.get("sda"), d.get("scl")) == (s.get("i2c", 0), s.get("sda"), s.get("scl"))


def _check_mcp23017(config, s):
    """The MCP23017 sensor entry: addresses, polarity, bus; the display's address if it shares the bus."""
    addrs = s.get("addrs")
    if not isinstance(addrs, (list, tuple)) or len(addrs) not in (4, 8):
        _fail(config, "sensor mcp23017 'addrs' needs 4 addresses (16 inputs each) or 8 (8 inputs each), got %r"
              % (addrs,))
    seen = []
    for a in addrs:
        if not isinstance(a, int) or isinstance(a, bool) or not 0x20 <= a <= 0x27:
            _fail(config, "sensor mcp23017 address %r is not 0x20..0x27 (pins A2 A1 A0)" % (a,))
        if a in seen:
            _fail(config, "sensor mcp23017 address 0x%02X given twice in 'addrs'" % a)
        seen.append(a)
    if s.get("active", 0) not in (0, 1) or isinstance(s.get("active", 0), bool):
        _fail(config, "sensor 'active' must be 0 (a sensor pulls low) or 1 (drives high), got %r" % (s.get("active"),))
    if not isinstance(s.get("pullups", True), bool):
        _fail(config, "sensor 'pullups' must be True or False, got %r" % (s.get("pullups"),))
    for key, lo, hi, default in (("i2c", 0, 7, 0), ("freq_hz", 10000, 1000000, 400000), ("retry_scans", 1, 100000, 64)):
        v = s.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            _fail(config, "sensor mcp23017 '%s' must be an int %d..%d, got %r" % (key, lo, hi, v))
    d = config.get("display")
    if shares_sensor_bus(config) and d.get("addr", 0x3C) in addrs:
        _fail(config, "display address 0x%02X is also an MCP23017 on the same I2C bus" % d.get("addr", 0x3C))
    if isinstance(d, dict) and d.get("i2c", 0) == s.get("i2c", 0) and not shares_sensor_bus(config):
        _fail(config, "display and sensors both on I2C%d with different pins: give them the same 'sda' and 'scl'"
              " (one bus) or another 'i2c' bus id" % s.get("i2c", 0))


def validate(config):
    """Raise BoardConfigError for anything that cannot work; return config unchanged."""
    if not isinstance(config, dict):
        raise BoardConfigError("a board config must be a dict, got %r" % (config,))
    if not isinstance(config.get("name"), str):
        _fail(config, "needs a 'name' string")
    s = _section(config, "sensor")
    if s.get("kind") not in SENSOR_KINDS:
        _fail(config, "unknown sensor kind %r (known: %s)" % (s.get("kind"), ", ".join(SENSOR_KINDS)))
    if s.get("kind") == "mcp23017":
        _check_mcp23017(config, s)
    if s.get("kind") == "shift165" and s.get("active", 0) not in (0, 1):
        _fail(config, "sensor 'active' must be 0 (a sensor pulls low) or 1 (drives high), got %r" % (s.get("active"),))
    if s.get("kind") == "shift165" and s.get("spi") is not None:
        spi = s["spi"]
        if not isinstance(spi, dict) or spi.get("id") is None:
            _fail(config, "sensor 'spi' must be a dict with the bus 'id' (and optional 'baudrate'), got %r" % (spi,))
    led = _section(config, "leds")
    if led.get("kind") not in LED_KINDS:
        _fail(config, "unknown LED kind %r (known: %s)" % (led.get("kind"), ", ".join(LED_KINDS)))
    disp = _section(config, "display", optional=True)
    if disp is not None and disp.get("kind") not in DISPLAY_KINDS:
        _fail(config, "unknown display kind %r (known: %s, or None)" % (disp.get("kind"), ", ".join(DISPLAY_KINDS)))
    st = _section(config, "status", optional=True)
    if st is not None:
        if st.get("kind") not in STATUS_KINDS:
            _fail(config, "unknown status light kind %r (known: %s, or None)"
                  % (st.get("kind"), ", ".join(STATUS_KINDS)))
        if st["kind"] == "pixel" and led.get("kind") != "neopixel":
            _fail(config, "a status light of kind 'pixel' needs neopixel leds (it is pixel 64 of their chain)")
    buttons = _section(config, "buttons") or {}
    for name in REQUIRED:
        if name not in buttons:
            _fail(config, "missing required button %r (required: %s)" % (name, ", ".join(REQUIRED)))
    for key in NUMBERS:
        v = config.get(key)
        zero_ok = key in ("settle_us", "debounce_ms")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0 or (v == 0 and not zero_ok):
            _fail(config, "'%s' must be a positive int, got %r" % (key, v))
    for key in SIZES:
        v = config.get(key)
        lo, hi = SIZES[key][1], SIZES[key][2]
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi):
            _fail(config, "'%s' must be an int %d..%d (or absent: %d), got %r" % (key, lo, hi, SIZES[key][0], v))
    if config["long_press_ms"] <= config["button_debounce_ms"]:
        _fail(config, "long_press_ms must be longer than button_debounce_ms")
    for sec, where in ((s, "sensor"), (led, "leds")):
        try:
            make_cell_map(sec.get("cell_map"))
        except CellMapError as e:
            _fail(config, "%s cell_map: %s" % (where, e))
    seen = {}
    valid = config.get("valid_pins")
    input_only = config.get("input_only_pins") or ()
    pullups = config.get("external_pullups") or ()
    for pin, role, direction in pin_roles(config):
        if pin in seen:
            _fail(config, "pin %r used twice: %s and %s" % (pin, seen[pin], role))
        seen[pin] = role
        if valid is not None and pin not in valid:
            _fail(config, "pin %r (%s) is not a usable pin on this board" % (pin, role))
        if direction != "in" and pin in input_only:
            _fail(config, "pin %r (%s) is input-only and cannot drive an output or bus" % (pin, role))
        needs_pullup = role.startswith(("button", "sensor col"))
        if direction == "in" and pin in input_only and pin not in pullups and needs_pullup:
            _fail(config, "pin %r (%s) has no internal pull-up: add a resistor and list it in external_pullups"
                  % (pin, role))
    return config


def memory_size(config, key):
    """The config's `key` of SIZES ("move_stack", "game_plies"), or its default."""
    v = config.get(key)
    return SIZES[key][0] if v is None else v


def build_hardware(config, factory):
    """Validate `config` and build all its drivers with `factory` (protocol above).

    A device that does not answer (the display: OSError) is no reason to stop: it goes into
    `hw.faults` and its driver does nothing (or is None when it could not be made at all)."""
    validate(config)
    faults = []
    pullups = config.get("external_pullups") or ()

    def pull(p):
        return None if p in pullups else "up"

    sleep_us = getattr(factory, "sleep_us", None)
    s = config["sensor"]
    sensor_bus = None
    if s["kind"] == "matrix":
        from firmware.io.matrix import ReedMatrix

        rows = [factory.pin(p, "out", value=1) for p in s["rows"]]
        cols = [factory.pin(p, "in", pull=pull(p)) for p in s["cols"]]
        port = getattr(factory, "cols_port", None)
        sensors = ReedMatrix(rows, cols, settle_us=config["settle_us"], sleep_us=sleep_us, cell_map=s.get("cell_map"),
                             cols_port=port(s["cols"]) if port is not None else None)
    elif s["kind"] == "mcp23017":
        from firmware.io.mcp23017 import Mcp23017Sensors

        try:
            sensor_bus = factory.i2c(s.get("i2c", 0), s["scl"], s["sda"], s.get("freq_hz", 400000))
        except (OSError, ValueError) as e:  # the port's I2C rejects the pins: every square reads empty
            faults.append("sensors: no I2C bus %s (%s)" % (s.get("i2c", 0), e))
            sensor_bus = _NoBus()
        sensors = Mcp23017Sensors(sensor_bus, s["addrs"], active=s.get("active", 0), pullups=s.get("pullups", True),
                                  cell_map=s.get("cell_map"), faults=faults, retry_scans=s.get("retry_scans", 64))
    else:
        from firmware.io.shift165 import Shift165

        load = factory.pin(s["load"], "out", value=1)
        spi = s.get("spi")
        active = s.get("active", 0)
        if spi is not None:  # hardware SPI clocks the chain: SCK = clock pin, MISO = data pin
            bus = factory.spi(spi["id"], s["clock"], s["data"], spi.get("baudrate", 1000000))
            sensors = Shift165(load, None, None, cell_map=s.get("cell_map"), spi=bus, active=active)
        else:
            sensors = Shift165(load, factory.pin(s["clock"], "out", value=0), factory.pin(s["data"], "in"),
                               cell_map=s.get("cell_map"), active=active)
    led = config["leds"]
    chain = None  # the neopixel chain (a status pixel may sit at its end)
    if led["kind"] == "matrix":
        from firmware.io.leds_matrix import LedMatrix

        ra = led.get("row_active", 1)
        ca = led.get("col_active", 0)
        leds = LedMatrix([factory.pin(p, "out", value=1 - ra) for p in led["rows"]],
                         [factory.pin(p, "out", value=1 - ca) for p in led["cols"]],
                         row_active=ra, col_active=ca, cell_map=led.get("cell_map"))
    elif led["kind"] == "edge":
        from firmware.io.leds_edge import EdgeLeds

        a = led.get("active", 1)
        leds = EdgeLeds([factory.pin(p, "out", value=1 - a) for p in led["ranks"]],
                        [factory.pin(p, "out", value=1 - a) for p in led["files"]],
                        active=a, alternate_ms=led.get("alternate_ms", 500))
    else:
        from firmware.io.leds import NeoPixelLeds

        st = config.get("status")
        chain = factory.neopixel(led["pin"], 65 if st is not None and st["kind"] == "pixel" else 64)
        leds = NeoPixelLeds(chain, cell_map=led.get("cell_map"),
                            colors=led.get("colors"), brightness=led.get("brightness", 64))
    buttons = Buttons({n: factory.pin(p, "in", pull=pull(p)) for n, p in config["buttons"].items()},
                      debounce_ms=config["button_debounce_ms"], long_ms=config["long_press_ms"])
    buzzer = None
    if config.get("buzzer") is not None:
        from firmware.io.buzzer import Buzzer

        buzzer = Buzzer(factory.pwm(config["buzzer"]["pin"]), volume_u16=config["buzzer"].get("volume_u16", 32768))
    display = None
    d = config.get("display")
    if d is not None:
        from firmware.io.ssd1306 import Ssd1306

        try:
            if shares_sensor_bus(config):
                i2c = sensor_bus  # one bus object for both
            else:
                i2c = factory.i2c(d.get("i2c", 0), d["scl"], d["sda"], d.get("freq_hz", 400000))
        except (OSError, ValueError) as e:  # e.g. the port's I2C rejects the pins
            faults.append("display: no I2C bus %s (%s)" % (d.get("i2c", 0), e))
        else:
            display = Ssd1306(i2c, addr=d.get("addr", 0x3C), faults=faults)
    status = None
    st = config.get("status")
    if st is not None:
        from firmware.io.leds import PinStatusLight, PixelStatusLight

        if st["kind"] == "pixel":
            status = PixelStatusLight(chain, 64, brightness=led.get("brightness", 64))
        else:
            a = st.get("active", 1)
            status = PinStatusLight(factory.pin(st["pin"], "out", value=1 - a), active=a)
    return Hardware(config, sensors, leds, buttons, buzzer, display, status, faults)


class _NoBus:
    """An I2C bus that could not be made: every transfer fails as a missing chip does."""

    def readfrom_mem_into(self, addr, reg, buf):
        raise OSError(19, "no I2C bus")

    writeto_mem = readfrom_mem_into

    def writeto(self, addr, buf):
        raise OSError(19, "no I2C bus")
