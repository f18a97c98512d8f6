"""A model of a board's electronics, wired as its config says, for the simulator and tests.

    elec = VirtualBoardElectronics(config)           # config: e.g. boards.pico.CONFIG
    hw = build_hardware(config, FakePinFactory(elec)) # the board's real drivers on fake pins
    elec.set_cell(12, True)                           # a piece on cell 12 closes its reed switch
    elec.advance(50)                                  # simulated time (or pass clock=fn)
    hw.sensors.scan_into(bitmap)                      # the driver scans the modelled circuit
    elec.led_cells()                                  # {cell: colour or 1} physically lit now
    hw.leds.lit()                                     # {cell: pattern} from the driver itself

What is modelled:
- reed matrix: a column pin reads low iff some row pin is driven low and the switch at
  (row, col) is closed (one diode per switch: no ghosting); otherwise the pull-up wins;
- 74HC165 chain: SH/LD low latches the 64 inputs, each rising CLK shifts; QH is read;
- MCP23017 expanders (host_sim/pins.py FakeMcp23017) on their I2C bus: a closed switch pulls
  its input low (sensor `active` 1: a push-pull sensor drives it high, else low); `unplug(addr)`
  and `plug(addr)` take a chip off the bus and back, `bus(id).held_low` holds a bus low,
  `power_cycle(addr)` resets a chip's registers;
- LED matrix: which LEDs got current: for each row, the columns active while it was last
  driven; `max_rows_on` records whether two rows were ever on at once (a driver bug);
- edge LEDs: lit rank LEDs x lit file LEDs, right now;
- NeoPixel: the colours of the last write();
- buttons pull their pin low while pressed; buzzer PWM and SSD1306 RAM are recorded.
Contact bounce: `set_cell(cell, occupied, bounces=n, bounce_ms=t)` scripts n open/close
flips over t ms after the change; `schedule(cell, at_ms, closed)` any flip; `stick(cell,
closed)` a stuck switch that ignores pieces. Cells map to physical switches through the
sensor's cell_map, LEDs through the LED cell_map, exactly as the drivers do.
"""
from boards.config import validate
from firmware.io.cellmap import invert, make_cell_map
from host_sim.pins import FakeI2C, FakeSsd1306


class VirtualBoardElectronics:
    def __init__(self, config, clock=None):
        validate(config)
        self.config = config
        self.now_ms = 0
        self._clock = clock
        self.levels = {}  # pin id -> level an output drives
        self.pins = {}  # pin id -> FakePin
        self.pwms = {}
        self.neopixels = {}
        self.buses = {}  # I2C bus id -> FakeI2C
        d = config.get("display")
        self.i2c = self.bus(d.get("i2c", 0) if d else 0)  # the display's bus
        self.display = self.i2c.attach(d.get("addr", 0x3C), FakeSsd1306()) if d else None
        self._switch = bytearray(64)  # by physical switch position, 1 = closed
        self._stuck = {}  # physical -> forced level
        self._schedule = []  # sorted [(at_ms, seq, physical, closed)]
        self._seq = 0
        self.pressed = set()
        s = config["sensor"]
        self.sensor_kind = s["kind"]
        self._sensor_phys = invert(make_cell_map(s.get("cell_map")))  # cell -> physical
        self.expanders = {}  # MCP23017 address -> FakeMcp23017 (plugged in or not)
        if s["kind"] == "matrix":
            self._rows = list(s["rows"])
            self._cols = {p: i for i, p in enumerate(s["cols"])}
        elif s["kind"] == "mcp23017":
            from host_sim.pins import FakeMcp23017

            self.sensor_bus = self.bus(s.get("i2c", 0))
            pins = 64 // len(s["addrs"])
            active = s.get("active", 0)
            for k, addr in enumerate(s["addrs"]):
                self.expanders[addr] = self.sensor_bus.attach(addr, FakeMcp23017(self._mcp_level(k * pins, active),
                                                                                 addr))
        else:
            self._load, self._clk, self._data = s["load"], s["clock"], s["data"]
            self._shift = bytearray(64)
            self._shift_pos = 0
        self._button_pin = {p: n for n, p in config["buttons"].items()}
        led = config["leds"]
        self.led_kind = led["kind"]
        self._led_cell = make_cell_map(led.get("cell_map")) if led["kind"] != "edge" else None
        if led["kind"] == "matrix":
            self._led_rows = list(led["rows"])
            self._led_cols = list(led["cols"])
            self._row_on = led.get("row_active", 1)
            self._col_on = led.get("col_active", 0)
            self._led_seen = [0] * 8  # per LED row: column mask while it was last on
            self.max_rows_on = 0
        elif led["kind"] == "edge":
            self._ranks = list(led["ranks"])
            self._files = list(led["files"])
            self._edge_on = led.get("active", 1)

    def bus(self, bus_id):
        """The FakeI2C of I2C bus `bus_id` (made on first use)."""
        if bus_id not in self.buses:
            self.buses[bus_id] = FakeI2C()
        return self.buses[bus_id]

    def _mcp_level(self, first, active):
        def level(pin):
            self._apply_schedule()
            if self._closed(first + pin):
                return active  # the sensor drives its input
            return 0 if active else None  # a push-pull sensor drives low, else the pull-up decides
        return level

    def unplug(self, addr):
        """Take the MCP23017 at `addr` off its bus (a loose wire): it answers nothing."""
        self.sensor_bus.devices.pop(addr, None)

    def plug(self, addr, power_cycle=True):
        """Put the MCP23017 at `addr` back on its bus; power_cycle: with its registers at their
        power-on values (it lost power too), else as it left them."""
        chip = self.expanders[addr]
        if power_cycle:
            chip.power_cycle()
        self.sensor_bus.attach(addr, chip)

    # -- time -------------------------------------------------------------------------
    def now(self):
        return self._clock() if self._clock is not None else self.now_ms

    def advance(self, ms):
        self.now_ms += ms

    def set_time(self, now_ms):
        self.now_ms = now_ms

    # -- the physical board -------------------------------------------------------------
    def set_cell(self, cell, occupied, bounces=0, bounce_ms=8):
        """Put a piece on (occupied=True) or take it off `cell` now; with `bounces` the
        contact opens and closes that many extra times within `bounce_ms` before settling."""
        self._check_cell(cell)
        phys = self._sensor_phys[cell]
        self._schedule = [e for e in self._schedule if e[2] != phys]  # a new action overrides old bounce
        self._switch[phys] = 1 if occupied else 0
        if bounces:
            steps = 2 * bounces
            for k in range(1, steps + 1):
                level = (1 if occupied else 0) if k % 2 == 0 else (0 if occupied else 1)
                self.schedule(cell, self.now() + bounce_ms * k // steps, level)

    def schedule(self, cell, at_ms, closed):
        """The switch of `cell` becomes closed/open at simulated time `at_ms`."""
        self._check_cell(cell)
        self._seq += 1
        self._schedule.append((at_ms, self._seq, self._sensor_phys[cell], 1 if closed else 0))
        self._schedule.sort()

    def stick(self, cell, closed):
        """Make the switch of `cell` stuck closed/open (None: repaired)."""
        self._check_cell(cell)
        if closed is None:
            self._stuck.pop(self._sensor_phys[cell], None)
        else:
            self._stuck[self._sensor_phys[cell]] = 1 if closed else 0

    def cell_occupied(self, cell):
        self._apply_schedule()
        return self._switch[self._sensor_phys[cell]] == 1

    def set_occupancy(self, bitmap):
        """Set all 64 cells from a bytearray(8) (byte r = rank r, bit f = file f)."""
        for c in range(64):
            self.set_cell(c, bool(bitmap[c >> 3] & (1 << (c & 7))))

    def occupancy(self):
        """bytearray(8) of the switch states as they are now (closed = 1)."""
        self._apply_schedule()
        out = bytearray(8)
        for c in range(64):
            if self._closed(self._sensor_phys[c]):
                out[c >> 3] |= 1 << (c & 7)
        return out

    def press(self, name):
        if name not in self.config["buttons"]:
            raise ValueError("board %s has no button %r" % (self.config["name"], name))
        self.pressed.add(name)

    def release(self, name):
        self.pressed.discard(name)

    def _check_cell(self, cell):
        if not isinstance(cell, int) or not 0 <= cell < 64:
            raise ValueError("cell must be 0..63, got %r" % (cell,))

    def _apply_schedule(self):
        now = self.now()
        while self._schedule and self._schedule[0][0] <= now:
            _, _, phys, closed = self._schedule.pop(0)
            self._switch[phys] = closed

    def _closed(self, phys):
        return self._stuck.get(phys, self._switch[phys])

    # -- nets ---------------------------------------------------------------------------
    def attach_pin(self, pin):
        if pin.id in self.pins:
            raise ValueError("pin %r attached twice" % (pin.id,))
        self.pins[pin.id] = pin
        return pin

    def attach_spi(self, spi):
        self.spi = spi
        return spi

    def attach_pwm(self, pin_id, pwm):
        self.pwms[pin_id] = pwm
        return pwm

    def attach_neopixel(self, pin_id, np):
        self.neopixels[pin_id] = np
        return np

    def write_level(self, pin_id, level):
        old = self.levels.get(pin_id)
        self.levels[pin_id] = level
        if self.sensor_kind == "shift165":
            if pin_id == self._load and level == 0:
                self._latch_165()
            elif pin_id == self._clk and level == 1 and old == 0 and self.levels.get(self._load, 1) == 1:
                self._shift_pos += 1
        if self.led_kind == "matrix" and (pin_id in self._led_rows or pin_id in self._led_cols):
            self._sample_led_matrix()

    def read_level(self, pin_id, pull=None):
        if self.sensor_kind == "matrix" and pin_id in self._cols:
            self._apply_schedule()
            c = self._cols[pin_id]
            for r, rp in enumerate(self._rows):
                if self.levels.get(rp, 1) == 0 and self._closed(r * 8 + c):
                    return 0
            return 1 if pull == "up" else self._floating(pin_id)
        if self.sensor_kind == "shift165" and pin_id == self._data:
            if self.levels.get(self._load, 1) == 0:
                self._latch_165()
            k = self._shift_pos
            if k >= 64:
                return 0  # SER of the last chip is tied to ground
            return self._shift[k]
        if pin_id in self._button_pin:
            if self._button_pin[pin_id] in self.pressed:
                return 0
            external = pin_id in (self.config.get("external_pullups") or ())
            return 1 if (pull == "up" or external) else self._floating(pin_id)
        if pin_id in self.levels:
            return self.levels[pin_id]
        return 1 if pull == "up" else self._floating(pin_id)

    def _floating(self, pin_id):
        raise RuntimeError("pin %r floats: input without pull-up and nothing driving it" % (pin_id,))

    def _latch_165(self):
        self._apply_schedule()
        for k in range(64):  # shift-out order: chip k//8, input H first
            phys = (k >> 3) * 8 + 7 - (k & 7)
            closed = 1 if self._closed(phys) else 0  # closed switch pulls the input low (active 0)
            self._shift[k] = closed if self.config["sensor"].get("active", 0) else 1 - closed
        self._shift_pos = 0

    def _sample_led_matrix(self):
        on_rows = [r for r, p in enumerate(self._led_rows) if self.levels.get(p) == self._row_on]
        self.max_rows_on = max(self.max_rows_on, len(on_rows))
        mask = 0
        for c, p in enumerate(self._led_cols):
            if self.levels.get(p) == self._col_on:
                mask |= 1 << c
        for r in on_rows:
            self._led_seen[r] = mask

    # -- what a person sees ----------------------------------------------------------------
    def led_cells(self):
        """{cell: value} of LEDs lit now: (r, g, b) for NeoPixels, 1 otherwise. For the LED
        matrix, each row as it was last driven (one multiplex cycle = 8 updates)."""
        out = {}
        if self.led_kind == "neopixel":
            np = next(iter(self.neopixels.values()))
            for p, rgb in enumerate(np.shown[:64]):  # pixel 64: a status light (status_light())
                if rgb != (0, 0, 0):
                    out[self._led_cell[p]] = rgb
        elif self.led_kind == "matrix":
            for r in range(8):
                for c in range(8):
                    if self._led_seen[r] & (1 << c):
                        out[self._led_cell[r * 8 + c]] = 1
        else:
            ranks = [i for i, p in enumerate(self._ranks) if self.levels.get(p) == self._edge_on]
            files = [i for i, p in enumerate(self._files) if self.levels.get(p) == self._edge_on]
            for r in ranks:
                for f in files:
                    out[r * 8 + f] = 1
        return out

    def status_light(self):
        """What the status light shows now: (r, g, b) for a pixel, 1/0 for a pin LED; None
        when the board has none."""
        st = self.config.get("status")
        if st is None:
            return None
        if st["kind"] == "pixel":
            return next(iter(self.neopixels.values())).shown[64]
        return 1 if self.levels.get(st["pin"]) == st.get("active", 1) else 0

    def buzzer(self):
        """The buzzer's FakePWM, or None."""
        bz = self.config.get("buzzer")
        return self.pwms.get(bz["pin"]) if bz else None


def build_simulated(config, clock=None):
    """(electronics, hardware): the board's real drivers on modelled electronics."""
    from boards.config import build_hardware
    from host_sim.pins import FakePinFactory

    elec = VirtualBoardElectronics(config, clock=clock)
    return elec, build_hardware(config, FakePinFactory(elec))
