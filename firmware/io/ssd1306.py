"""SSD1306 128x64 OLED on I2C: text only, with the built-in 5x7 font (no framebuf needed).

    display = Ssd1306(i2c, addr=0x3C)
    display.show_text("e2e4")                       # one line
    display.show_text(("Level 3", "+0.35", "e7e5"))  # up to 8 lines (scale 1, 21 chars each)
    display.show_text(("e2e4", "Lvl 3"), scale=2)    # up to 4 lines of 10 big characters

The I2C object needs only `writeto(addr, buf)` (MicroPython's machine.I2C; boards/blinka.py
wraps busio.I2C). One 1025-byte buffer (control byte + 1024 bytes of display RAM) is
allocated in the constructor and sent in one transfer. `text` keeps the lines last shown
(the simulator reads them). Text longer than a line is cut; missing glyphs show as '?'.
"""
from firmware.compat import const
from firmware.io.font5x7 import FONT5X7, glyph_offset

WIDTH = const(128)
HEIGHT = const(64)
_PAGES = const(8)
_CHAR_W = const(6)  # 5 columns + 1 space

_INIT = (
    0xAE,  # display off
    0xD5, 0x80,  # clock divide
    0xA8, 0x3F,  # multiplex 64
    0xD3, 0x00,  # display offset
    0x40,  # start line 0
    0x8D, 0x14,  # charge pump on
    0x20, 0x00,  # horizontal addressing
    0xA1,  # segment remap (column 127 = SEG0)
    0xC8,  # COM scan descending
    0xDA, 0x12,  # COM pins
    0x81, 0xCF,  # contrast
    0xD9, 0xF1,  # pre-charge
    0xDB, 0x40,  # VCOMH
    0xA4,  # follow RAM
    0xA6,  # normal (not inverted)
    0xAF,  # display on
)


class DisplayError(ValueError):
    """Bad display options or text."""


class Ssd1306:
    def __init__(self, i2c, addr=0x3C):
        if i2c is None:
            raise DisplayError("SSD1306 needs an I2C object")
        self._i2c = i2c
        self.addr = addr
        self._buf = bytearray(1 + WIDTH * _PAGES)
        self._buf[0] = 0x40  # control byte: data follows
        self._cmd = bytearray(2)
        self.text = ()
        for c in _INIT:
            self.command(c)
        self.show_text(())

    def command(self, c):
        self._cmd[0] = 0x80  # control byte: one command follows
        self._cmd[1] = c
        self._i2c.writeto(self.addr, self._cmd)

    def contrast(self, level):
        """Brightness 0..255."""
        if not 0 <= level <= 255:
            raise DisplayError("contrast must be 0..255, got %r" % (level,))
        self.command(0x81)
        self.command(level)

    def power(self, on):
        self.command(0xAF if on else 0xAE)

    def max_chars(self, scale=1):
        return WIDTH // (_CHAR_W * scale)

    def show_text(self, line_or_lines, scale=1):
        """Show one string or a sequence of strings, top-aligned; lines beyond the screen
        (8 at scale 1, 4 at scale 2) are an error so nothing important is silently lost."""
        if scale not in (1, 2):
            raise DisplayError("scale must be 1 or 2, got %r" % (scale,))
        lines = (line_or_lines,) if isinstance(line_or_lines, str) else tuple(line_or_lines)
        rows = _PAGES // scale
        if len(lines) > rows:
            raise DisplayError("%d lines do not fit: %d at scale %d" % (len(lines), rows, scale))
        fb = self._buf
        for i in range(1, len(fb)):
            fb[i] = 0
        width = self.max_chars(scale)
        for row in range(len(lines)):
            line = lines[row]
            if not isinstance(line, str):
                raise DisplayError("display lines must be strings, got %r" % (line,))
            for col in range(min(len(line), width)):
                self._draw(ord(line[col]), col * _CHAR_W * scale, row * scale, scale)
        self.text = lines
        self._flush()

    def _draw(self, code, x, page, scale):
        fb = self._buf
        off = glyph_offset(code)
        for i in range(5):
            bits = FONT5X7[off + i]
            if scale == 1:
                fb[1 + page * WIDTH + x + i] = bits
            else:
                lo = _stretch(bits & 15)
                hi = _stretch(bits >> 4)
                at = 1 + page * WIDTH + x + 2 * i
                fb[at] = fb[at + 1] = lo
                fb[at + WIDTH] = fb[at + WIDTH + 1] = hi

    def _flush(self):
        for c in (0x21, 0, WIDTH - 1, 0x22, 0, _PAGES - 1):  # whole screen
            self.command(c)
        self._i2c.writeto(self.addr, self._buf)


def _stretch(nibble):
    """4 bits -> 8 bits, each bit doubled (for scale 2)."""
    out = 0
    for k in range(4):
        if nibble & (1 << k):
            out |= 3 << (2 * k)
    return out
