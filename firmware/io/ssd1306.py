"""SSD1306 128x64 OLED on I2C: text only, with the built-in 5x7 font (no framebuf needed).

    display = Ssd1306(i2c, addr=0x3C, faults=hw_faults)
    display.show_text("e2e4")                       # one line
    display.show_text(("Level 3", "+0.35", "e7e5"))  # up to 8 lines (scale 1, 21 chars each)
    display.show_text(("e2e4", "Lvl 3"), scale=2)    # up to 4 lines of 10 big characters

The I2C object needs only `writeto(addr, buf)` (MicroPython's machine.I2C; boards/blinka.py
wraps busio.I2C). The screen is drawn one page (8 pixel rows) at a time into one 129-byte
buffer (control byte + 128 columns), so the driver holds no 1 KB frame. `text` keeps the
lines last shown (the simulator reads them). Text longer than a line is cut; missing glyphs
show as '?'.

A display that does not answer (OSError from writeto: nothing at that address, a loose
wire) does not stop the board: the driver sets `fault` to a short message, appends it once
to the `faults` list it was given (the board's `hw.faults`) and from then on draws nothing.
"""
from firmware.compat import const
from firmware.io import IoError
from firmware.io.font5x7 import FONT5X7, glyph_offset

_WIDTH = const(128)
_PAGES = const(8)
_CHAR_W = const(6)  # 5 columns + 1 space

_INIT = (
    b"\xae"  # display off
    b"\xd5\x80"  # clock divide
    b"\xa8\x3f"  # multiplex 64
    b"\xd3\x00"  # display offset
    b"\x40"  # start line 0
    b"\x8d\x14"  # charge pump on
    b"\x20\x00"  # horizontal addressing
    b"\xa1"  # segment remap (column 127 = SEG0)
    b"\xc8"  # COM scan descending
    b"\xda\x12"  # COM pins
    b"\x81\xcf"  # contrast
    b"\xd9\xf1"  # pre-charge
    b"\xdb\x40"  # VCOMH
    b"\xa4"  # follow RAM
    b"\xa6"  # normal (not inverted)
    b"\xaf"  # display on
)
_WINDOW = b"\x21\x00\x7f\x22\x00\x07"  # columns 0..127, pages 0..7: the whole screen


DisplayError = IoError  # Bad display options or text.


class Ssd1306:
    def __init__(self, i2c, addr=0x3C, faults=None):
        if i2c is None:
            raise DisplayError("SSD1306 needs an I2C object")
        self._i2c = i2c
        self.addr = addr
        self.fault = None
        self._faults = faults
        self._buf = bytearray(1 + _WIDTH)
        self._cmd = bytearray(2)
        self._cmd[0] = 0x80  # control byte: one command follows
        self.text = ()
        for c in _INIT:
            self.command(c)
        self.show_text(())

    def _send(self, buf):
        if self.fault is None:
            try:
                self._i2c.writeto(self.addr, buf)
            except OSError:
                self.fault = "display: no SSD1306 at I2C 0x%02X" % self.addr
                if self._faults is not None:
                    self._faults.append(self.fault)

    def command(self, c):
        self._cmd[1] = c
        self._send(self._cmd)

    def contrast(self, level):
        """Brightness 0..255."""
        if not 0 <= level <= 255:
            raise DisplayError("contrast must be 0..255, got %r" % (level,))
        self.command(0x81)
        self.command(level)

    def power(self, on):
        self.command(0xAF if on else 0xAE)

    def max_chars(self, scale=1):
        return _WIDTH // (_CHAR_W * scale)

    def show_text(self, line_or_lines, scale=1):
        """Show one string or a sequence of strings, top-aligned; lines beyond the screen
        (8 at scale 1, 4 at scale 2) are an error so nothing important is silently lost."""
        if scale not in (1, 2):
            raise DisplayError("scale must be 1 or 2, got %r" % (scale,))
        lines = (line_or_lines,) if isinstance(line_or_lines, str) else tuple(line_or_lines)
        if len(lines) > _PAGES // scale:
            raise DisplayError("%d lines do not fit: %d at scale %d" % (len(lines), _PAGES // scale, scale))
        for line in lines:
            if not isinstance(line, str):
                raise DisplayError("display lines must be strings, got %r" % (line,))
        self.text = lines
        for c in _WINDOW:
            self.command(c)
        fb = self._buf
        fb[0] = 0x40  # control byte: data follows
        width = _WIDTH // (_CHAR_W * scale)
        for page in range(_PAGES):
            if self.fault is not None:
                return
            for i in range(1, _WIDTH + 1):
                fb[i] = 0
            row = page // scale
            if row < len(lines):
                line = lines[row]
                shift = 4 * (page - row * scale)  # scale 2: top page low nibble, then high
                for col in range(min(len(line), width)):
                    off = glyph_offset(ord(line[col]))
                    x = 1 + col * _CHAR_W * scale
                    for i in range(5):
                        bits = FONT5X7[off + i]
                        if scale == 1:
                            fb[x + i] = bits
                        else:
                            bits = (bits >> shift) & 15
                            wide = 0
                            for k in range(4):  # each bit doubled
                                if bits & (1 << k):
                                    wide |= 3 << (2 * k)
                            fb[x + 2 * i] = fb[x + 2 * i + 1] = wide
            self._send(fb)
