"""Fake pins and devices for the simulator and tests; they remember what is written to them.

    elec = VirtualBoardElectronics(config)          # host_sim/electronics.py
    hw = build_hardware(config, FakePinFactory(elec))

FakePin asks the electronics model for the level on its net, so a column pin really reads
low only while the driver holds a row low over a closed switch. FakePWM, FakeNeoPixel,
FakeI2C and FakeSsd1306 record every write and can be inspected.
"""
from firmware.io.font5x7 import FONT5X7, FIRST, LAST


class FakePin:
    """machine.Pin-like: value() reads the net (via the electronics), value(x) drives it."""

    def __init__(self, electronics, pin_id, mode, pull=None, value=None):
        self.electronics = electronics
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        self.writes = 0
        if mode == "out":
            electronics.write_level(pin_id, 1 if value else 0)

    def value(self, v=None):
        if v is None:
            return self.electronics.read_level(self.id, self.pull)
        if self.mode != "out":
            raise RuntimeError("pin %r is an input; the driver tried to drive it" % (self.id,))
        self.writes += 1
        self.electronics.write_level(self.id, 1 if v else 0)
        return None

    __call__ = value

    def __repr__(self):
        return "FakePin(%r, %s)" % (self.id, self.mode)


class FakePWM:
    """Records frequency and duty; `history` is [(now_ms, freq_hz, duty_u16)] on every change."""

    def __init__(self, clock=None):
        self._clock = clock or (lambda: 0)
        self.freq_hz = 0
        self.duty = 0
        self.history = []

    def freq(self, hz=None):
        if hz is None:
            return self.freq_hz
        self.freq_hz = hz
        self.history.append((self._clock(), self.freq_hz, self.duty))

    def duty_u16(self, duty=None):
        if duty is None:
            return self.duty
        self.duty = duty
        self.history.append((self._clock(), self.freq_hz, self.duty))

    def tone_hz(self):
        """Frequency sounding now, 0 when silent."""
        return self.freq_hz if self.duty else 0


class FakeNeoPixel:
    """neopixel.NeoPixel-like: `buf` holds what was set, `shown` what the last write() sent."""

    def __init__(self, count):
        self.n = count
        self.buf = [(0, 0, 0)] * count
        self.shown = [(0, 0, 0)] * count
        self.writes = 0

    def __len__(self):
        return self.n

    def __setitem__(self, i, rgb):
        r, g, b = rgb
        for v in (r, g, b):
            if not 0 <= v <= 255:
                raise ValueError("colour component %r out of 0..255" % (v,))
        self.buf[i] = (r, g, b)

    def __getitem__(self, i):
        return self.buf[i]

    def write(self):
        self.shown = list(self.buf)
        self.writes += 1


class FakeI2C:
    """I2C bus: forwards writeto() to attached devices, records (addr, bytes) in `log`.
    Register access (machine.I2C's writeto_mem / readfrom_mem_into) goes to a device's
    receive(reg + data) and read(n); reads are counted in `reads`, not logged. A missing device
    raises OSError 19 (ENODEV) as machine.I2C does; `held_low = True` (a bus held low by a
    broken chip or a short) fails every transfer with OSError 110 (ETIMEDOUT)."""

    def __init__(self):
        self.devices = {}
        self.log = []
        self.reads = 0
        self.held_low = False

    def attach(self, addr, device):
        self.devices[addr] = device
        return device

    def _device(self, addr):
        if self.held_low:
            raise OSError(110, "I2C bus held low (ETIMEDOUT)")
        if addr not in self.devices:
            raise OSError(19, "no I2C device at 0x%02x (ENODEV)" % addr)
        return self.devices[addr]

    def writeto(self, addr, buf, stop=True):
        data = bytes(buf)
        self.log.append((addr, data))
        self._device(addr).receive(data)
        return len(data)

    def writeto_mem(self, addr, reg, buf):
        self.writeto(addr, bytes((reg,)) + bytes(buf))

    def readfrom_mem_into(self, addr, reg, buf):
        dev = self._device(addr)
        self.reads += 1
        dev.receive(bytes((reg,)))
        buf[:] = dev.read(len(buf))

    def scan(self):
        return sorted(self.devices)


_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}


class FakeSsd1306:
    """Models the SSD1306's command parser and 1 KB display RAM (horizontal addressing)."""

    WIDTH = 128
    PAGES = 8

    def __init__(self):
        self.ram = bytearray(self.WIDTH * self.PAGES)
        self.on = False
        self.contrast = 0x7F
        self.commands = []
        self._pending = None  # [command, args...] still collecting arguments
        self._col_lo, self._col_hi, self._page_lo, self._page_hi = 0, 127, 0, 7
        self._col, self._page = 0, 0

    def receive(self, data):
        if not data:
            return
        control, payload = data[0], data[1:]
        if control == 0x40:
            for b in payload:
                self._data(b)
        elif control in (0x80, 0x00):
            for b in payload:
                self._command_byte(b)
        else:
            raise ValueError("unknown SSD1306 control byte 0x%02x" % control)

    def _command_byte(self, b):
        if self._pending is not None:
            self._pending.append(b)
        else:
            self._pending = [b]
        cmd = self._pending[0]
        if len(self._pending) - 1 < _ARGS.get(cmd, 0):
            return
        args, self._pending = self._pending[1:], None
        self.commands.append((cmd, tuple(args)))
        if cmd == 0xAF:
            self.on = True
        elif cmd == 0xAE:
            self.on = False
        elif cmd == 0x81:
            self.contrast = args[0]
        elif cmd == 0x21:
            self._col_lo, self._col_hi = args
            self._col = self._col_lo
        elif cmd == 0x22:
            self._page_lo, self._page_hi = args
            self._page = self._page_lo

    def _data(self, b):
        self.ram[self._page * self.WIDTH + self._col] = b
        self._col += 1
        if self._col > self._col_hi:
            self._col = self._col_lo
            self._page += 1
            if self._page > self._page_hi:
                self._page = self._page_lo

    def pixel(self, x, y):
        return (self.ram[(y >> 3) * self.WIDTH + x] >> (y & 7)) & 1

    def ascii_art(self):
        return "\n".join("".join("#" if self.pixel(x, y) else "." for x in range(self.WIDTH)) for y in range(64))

    def read_text(self, scale=1):
        """Decode the RAM back to text with the firmware's font (glyphs on the 6*scale grid);
        unknown glyphs read '?', trailing blanks and empty lines are dropped."""
        glyphs = {}
        for code in range(FIRST, LAST + 1):
            glyphs[bytes(FONT5X7[(code - FIRST) * 5:(code - FIRST) * 5 + 5])] = chr(code)
        lines = []
        for row in range(self.PAGES // scale):
            chars = []
            for col in range(self.WIDTH // (6 * scale)):
                cols = []
                for i in range(5):
                    x = (col * 6 + i) * scale
                    cols.append(sum(self.pixel(x, row * 8 * scale + bit * scale) << bit for bit in range(8)))
                chars.append(glyphs.get(bytes(cols), "?"))
            lines.append("".join(chars).rstrip())
        while lines and not lines[-1]:
            lines.pop()
        return lines


# MCP23017 registers, IOCON.BANK = 0: A and B side by side
MCP_IODIR, MCP_IPOL, MCP_GPPU, MCP_GPIO, MCP_OLAT = 0x00, 0x02, 0x0C, 0x12, 0x14


class FakeMcp23017:
    """An MCP23017 16-bit port expander as its datasheet describes the parts the sensors use:
    22 registers (IOCON.BANK = 0), a register pointer set by the first byte of a write and
    advanced by every byte written or read (IOCON.SEQOP = 0), IODIR 0xFF and everything else 0
    at power-on. GPIOA/B read each pin's level XOR its IPOL bit. `level(pin)` gives the level a
    sensor drives on input 0..15 (0 or 1), or None when it lets go (an open reed switch, an
    open-drain output off): then the pull-up (GPPU) makes it 1, and without one the input
    floats, which raises (a driver that forgot the pull-ups is a bug to see at once), unless
    `floating` is set to the level a floating input should read (a chip that lost power)."""

    def __init__(self, level, addr=0x20):
        self.level = level
        self.addr = addr
        self.regs = bytearray(22)
        self.regs[0] = self.regs[1] = 0xFF
        self.pointer = 0
        self.configured = 0  # how many times IODIR was written (a configuration)
        self.floating = None

    def power_cycle(self):
        """The chip lost power and came back: every register at its power-on value."""
        self.regs[:] = bytes(22)
        self.regs[0] = self.regs[1] = 0xFF

    def receive(self, data):
        if not data:
            return
        self.pointer = data[0] % 22
        for b in data[1:]:
            if self.pointer in (MCP_IODIR, MCP_IODIR + 1):
                self.configured += 1
            self.regs[self.pointer] = b
            self.pointer = (self.pointer + 1) % 22

    def _port(self, port):
        out = 0
        for i in range(8):
            pin = port * 8 + i
            bit = 1 << i
            level = self.level(pin)
            if level is None:
                if not self.regs[MCP_GPPU + port] & bit and self.floating is not None:
                    level = self.floating
                elif not self.regs[MCP_GPPU + port] & bit:
                    raise RuntimeError("MCP23017 0x%02x GP%s%d floats: no pull-up and nothing drives it"
                                       % (self.addr, "AB"[port], i))
                level = 1
            if not self.regs[MCP_IODIR + port] & bit:
                level = 1 if self.regs[MCP_OLAT + port] & bit else 0  # an output reads its latch
            elif self.regs[MCP_IPOL + port] & bit:
                level ^= 1
            if level:
                out |= bit
        return out

    def read(self, n):
        out = bytearray(n)
        for i in range(n):
            p = self.pointer
            out[i] = self._port(p - MCP_GPIO) if p in (MCP_GPIO, MCP_GPIO + 1) else self.regs[p]
            self.pointer = (p + 1) % 22
        return bytes(out)


class FakePinFactory:
    """The boards/config.py factory protocol on simulated electronics."""

    sleep_us = None

    def __init__(self, electronics):
        self.electronics = electronics

    def pin(self, pin_id, mode, pull=None, value=None):
        if mode not in ("in", "out"):
            raise ValueError("pin mode must be 'in' or 'out', got %r" % (mode,))
        return self.electronics.attach_pin(FakePin(self.electronics, pin_id, mode, pull, value))

    def pwm(self, pin_id):
        return self.electronics.attach_pwm(pin_id, FakePWM(self.electronics.now))

    def neopixel(self, pin_id, count):
        return self.electronics.attach_neopixel(pin_id, FakeNeoPixel(count))

    def i2c(self, bus_id, scl, sda, freq_hz):
        return self.electronics.bus(bus_id)

    def spi(self, bus_id, sck, miso, baudrate):
        return self.electronics.attach_spi(FakeSPI(self.electronics, sck, miso))


class FakeSPI:
    """SPI mode 0 master reading a device through the electronics: per bit, sample MISO,
    then a rising and a falling SCK edge. `reads` counts readinto() calls."""

    def __init__(self, electronics, sck, miso):
        self.electronics = electronics
        self.sck = sck
        self.miso = miso
        self.reads = 0
        electronics.write_level(sck, 0)

    def readinto(self, buf):
        e = self.electronics
        for i in range(len(buf)):
            v = 0
            for bit in range(7, -1, -1):
                v |= e.read_level(self.miso) << bit
                e.write_level(self.sck, 1)
                e.write_level(self.sck, 0)
            buf[i] = v
        self.reads += 1
