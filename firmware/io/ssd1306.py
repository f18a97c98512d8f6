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

_WIDTH = const(128)
_PAGES = const(8)
_CHAR_W = const(6)  # 5 columns + 1 space

# A 5x7 pixel font for ASCII 32..126 (the classic public-domain GLCD font, 475 bytes):
# FONT5X7[(ord(ch) - 32) * 5 + i] is column i of the glyph, bit 0 the top pixel; characters
# outside 32..126 are drawn as '?'.
FONT5X7 = (
    b"\x00\x00\x00\x00\x00\x00\x00\x5f\x00\x00\x00\x07\x00\x07\x00\x14\x7f\x14\x7f\x14"  #  !"#
    b"\x24\x2a\x7f\x2a\x12\x23\x13\x08\x64\x62\x36\x49\x56\x20\x50\x00\x05\x03\x00\x00"  # $%&'
    b"\x00\x1c\x22\x41\x00\x00\x41\x22\x1c\x00\x14\x08\x3e\x08\x14\x08\x08\x3e\x08\x08"  # ()*+
    b"\x00\x50\x30\x00\x00\x08\x08\x08\x08\x08\x00\x60\x60\x00\x00\x20\x10\x08\x04\x02"  # ,-./
    b"\x3e\x51\x49\x45\x3e\x00\x42\x7f\x40\x00\x42\x61\x51\x49\x46\x21\x41\x45\x4b\x31"  # 0123
    b"\x18\x14\x12\x7f\x10\x27\x45\x45\x45\x39\x3c\x4a\x49\x49\x30\x01\x71\x09\x05\x03"  # 4567
    b"\x36\x49\x49\x49\x36\x06\x49\x49\x29\x1e\x00\x36\x36\x00\x00\x00\x56\x36\x00\x00"  # 89:;
    b"\x08\x14\x22\x41\x00\x14\x14\x14\x14\x14\x00\x41\x22\x14\x08\x02\x01\x51\x09\x06"  # <=>?
    b"\x32\x49\x79\x41\x3e\x7e\x11\x11\x11\x7e\x7f\x49\x49\x49\x36\x3e\x41\x41\x41\x22"  # @ABC
    b"\x7f\x41\x41\x22\x1c\x7f\x49\x49\x49\x41\x7f\x09\x09\x09\x01\x3e\x41\x49\x49\x7a"  # DEFG
    b"\x7f\x08\x08\x08\x7f\x00\x41\x7f\x41\x00\x20\x40\x41\x3f\x01\x7f\x08\x14\x22\x41"  # HIJK
    b"\x7f\x40\x40\x40\x40\x7f\x02\x0c\x02\x7f\x7f\x04\x08\x10\x7f\x3e\x41\x41\x41\x3e"  # LMNO
    b"\x7f\x09\x09\x09\x06\x3e\x41\x51\x21\x5e\x7f\x09\x19\x29\x46\x46\x49\x49\x49\x31"  # PQRS
    b"\x01\x01\x7f\x01\x01\x3f\x40\x40\x40\x3f\x1f\x20\x40\x20\x1f\x3f\x40\x38\x40\x3f"  # TUVW
    b"\x63\x14\x08\x14\x63\x07\x08\x70\x08\x07\x61\x51\x49\x45\x43\x00\x7f\x41\x41\x00"  # XYZ[
    b"\x02\x04\x08\x10\x20\x00\x41\x41\x7f\x00\x04\x02\x01\x02\x04\x40\x40\x40\x40\x40"  # \\]^_
    b"\x00\x01\x02\x04\x00\x20\x54\x54\x54\x78\x7f\x48\x44\x44\x38\x38\x44\x44\x44\x20"  # `abc
    b"\x38\x44\x44\x48\x7f\x38\x54\x54\x54\x18\x08\x7e\x09\x01\x02\x0c\x52\x52\x52\x3e"  # defg
    b"\x7f\x08\x04\x04\x78\x00\x44\x7d\x40\x00\x20\x40\x44\x3d\x00\x7f\x10\x28\x44\x00"  # hijk
    b"\x00\x41\x7f\x40\x00\x7c\x04\x18\x04\x78\x7c\x08\x04\x04\x78\x38\x44\x44\x44\x38"  # lmno
    b"\x7c\x14\x14\x14\x08\x08\x14\x14\x18\x7c\x7c\x08\x04\x04\x08\x48\x54\x54\x54\x20"  # pqrs
    b"\x04\x3f\x44\x40\x20\x3c\x40\x40\x20\x7c\x1c\x20\x40\x20\x1c\x3c\x40\x30\x40\x3c"  # tuvw
    b"\x44\x28\x10\x28\x44\x0c\x50\x50\x50\x3c\x44\x64\x54\x4c\x44\x00\x08\x36\x41\x00"  # xyz{
    b"\x00\x00\x7f\x00\x00\x00\x41\x36\x08\x00\x08\x04\x08\x10\x08"  # |}~
)

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
_WINDOW = b"\x21\x00\x7f\x22\x00\x07"  # columns 0..127, pages 0..7 (byte 4: the first page)
_BLANK = bytes(_WIDTH)


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
        self._window = bytearray(_WINDOW)
        self._drawn = [None] * _PAGES  # type: list[str | None]  # the text on each page (None: unknown, draw it)
        self._drawn_scale = bytearray(_PAGES)
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

    def show_text(self, line_or_lines, scale=1):
        """Show one string or a sequence of strings, top-aligned; lines beyond the screen
        (8 at scale 1, 4 at scale 2) are an error so nothing important is silently lost.
        Only the pages whose text changed are drawn and sent: on an RP2040 a whole screen
        costs ~8x the Python work of one line, and the evaluation line changes every depth."""
        if scale not in (1, 2):
            raise DisplayError("scale must be 1 or 2, got %r" % (scale,))
        lines = (line_or_lines,) if isinstance(line_or_lines, str) else tuple(line_or_lines)
        if len(lines) > _PAGES // scale:
            raise DisplayError("%d lines do not fit: %d at scale %d" % (len(lines), _PAGES // scale, scale))
        for line in lines:
            if not isinstance(line, str):
                raise DisplayError("display lines must be strings, got %r" % (line,))
        self.text = lines
        drawn = self._drawn
        fb = self._buf
        fb[0] = 0x40  # control byte: data follows
        window = self._window
        width = _WIDTH // (_CHAR_W * scale)
        for page in range(_PAGES):
            if self.fault is not None:
                return
            row = page // scale
            line = lines[row] if row < len(lines) else ""
            if drawn[page] == line and self._drawn_scale[page] == scale:
                continue
            drawn[page] = line
            self._drawn_scale[page] = scale
            window[4] = page  # this page only, then its 128 columns
            for c in window:
                self.command(c)
            fb[1:] = _BLANK
            shift = 4 * (page & 1)  # scale 2: the top page of a row shows the low nibble, then high
            for col in range(min(len(line), width)):
                off = ord(line[col])
                off = (off - 32 if 32 <= off <= 126 else 31) * 5  # '?' without a glyph
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
