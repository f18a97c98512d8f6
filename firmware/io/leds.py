"""LEDs in board-cell terms: one API for every LED design, the NeoPixel board and the
status light (one module: each module and class costs RAM on a board).

    leds.show({12: ON, 28: BLINK_SLOW})   # cell -> pattern; every other cell off
    leds.set(52, BLINK_FAST | ERROR)
    leds.update(now_ms)                   # call often (every loop and engine poll): blinking,
                                          # multiplexing; allocates nothing
    leds.pattern(52)                      # -> BLINK_FAST | ERROR

A pattern is one small int: a mode in bits 0-1 (OFF, ON, BLINK_SLOW, BLINK_FAST) plus an
optional role in bits 2-3 (MOVE, HINT, ERROR, INFO) that RGB boards turn into a colour and
single-colour boards ignore. Blink phases come from `now_ms` alone (slow: 1024 ms period,
fast: 256 ms, lit in the first half), so every driver blinks in step.

Drivers (same API, subclasses of LedDriver):
- firmware.io.leds_matrix.LedMatrix: 8x8 multiplexed matrix, one row per update() call;
- firmware.io.leds_edge.EdgeLeds: 8 rank + 8 file LEDs, several cells shown in turn;
- NeoPixelLeds (here; also firmware.io.leds_neopixel): 64 WS2812 pixels, colours per role
  (defaults MOVE green, HINT blue, ERROR red, INFO amber; `colors` {role: (r, g, b)}
  overrides), brightness 0..255. `np` is a neopixel-like object: `np[i] = (r, g, b)` and
  `np.write()`; pixel i sits at physical position i, `cell_map` maps it to a cell. The scaled
  colour tuples are built once (constructor, set_brightness), so update() only stores
  references; the chain is rewritten only when a pattern changed or a blink phase flipped.

StatusLight (here; also firmware.io.status, which names the colours and modes): one LED on a
pin (PinStatusLight(pin, active)) or one RGB pixel (PixelStatusLight(np, index, brightness)).
light.set(colour, mode); light.update(now_ms) writes only on change; light.is_lit(now_ms).
Modes OFF, ON, BLINK_SLOW, BLINK_FAST (in step with the board) and PULSE (a short flash every
1024 ms); colours WHITE, BLUE, YELLOW, GREEN, RED (a single-colour LED shows only the mode).
"""
from firmware.compat import const
from firmware.io import IoError

OFF = const(0)
ON = const(1)
BLINK_SLOW = const(2)
BLINK_FAST = const(3)
MODE_MASK = const(3)

MOVE = const(0)
HINT = const(4)
ERROR = const(8)
INFO = const(12)
ROLE_MASK = const(12)

_SLOW_HALF = const(512)
_FAST_HALF = const(128)
_PULSE = const(4)
_PULSE_MS = const(96)
_RED = const(4)

# r, g, b by role >> 2 (MOVE, HINT, ERROR, INFO), then the status colours (white, blue,
# yellow, green, red)
_RGB = b"\x00\xff\x00\x00\x50\xff\xff\x00\x00\xff\x96\x00\xff\xff\xff\x00\x3c\xff\xff\xaa\x00\x00\xff\x00\xff\x00\x00"
_BLACK = (0, 0, 0)

LedError = IoError  # A cell outside 0..63, an unknown pattern or a bad LED option.


def mode_lit_into(table, now_ms):
    """Fill bytearray(4) `table[mode]` = 1 if that mode is lit at `now_ms`."""
    table[OFF] = 0
    table[ON] = 1
    table[BLINK_SLOW] = 0 if now_ms & _SLOW_HALF else 1
    table[BLINK_FAST] = 0 if now_ms & _FAST_HALF else 1


def _scaled(rgb, at, level):
    return (rgb[at] * level // 255, rgb[at + 1] * level // 255, rgb[at + 2] * level // 255)


def _level(level):
    if not 0 <= level <= 255:
        raise LedError("brightness must be 0..255, got %r" % (level,))


class LedDriver:
    """Common state and API; each subclass has update(now_ms).

    `supports_brightness` tells whether set_brightness() changes anything on this design.
    """

    supports_brightness = False

    def __init__(self):
        self._patterns = bytearray(64)
        self._mode_lit = bytearray(4)
        self._dirty = True
        self.brightness = 255

    def set(self, cell, pattern):
        if not (0 <= cell < 64 and 0 <= pattern <= 15):
            raise LedError("LED cell 0..63 and pattern 0..15 (a mode plus a role), got %r and %r" % (cell, pattern))
        if self._patterns[cell] != pattern:
            self._patterns[cell] = pattern
            self._dirty = True

    def clear(self):
        for i in range(64):
            self._patterns[i] = 0
        self._dirty = True

    def show(self, mapping):
        """Light exactly the cells in `mapping` ({cell: pattern}); all others off."""
        for cell in mapping:  # validate first so a bad mapping changes nothing
            p = mapping[cell]
            if not (isinstance(cell, int) and 0 <= cell < 64 and isinstance(p, int) and 0 <= p <= 15):
                raise LedError("bad LED entry %r: %r (cells 0..63, patterns 0..15)" % (cell, p))
        self.clear()
        for cell in mapping:
            self._patterns[cell] = mapping[cell]

    def pattern(self, cell):
        return self._patterns[cell]

    def lit(self):
        """{cell: pattern} of every cell not OFF (allocates; for the simulator and tests)."""
        out = {}
        for c in range(64):
            if self._patterns[c] & MODE_MASK:
                out[c] = self._patterns[c]
        return out

    def set_brightness(self, level):
        """0..255; only designs with supports_brightness = True change their output."""
        _level(level)
        self.brightness = level
        self._dirty = True


class NeoPixelLeds(LedDriver):
    supports_brightness = True

    def __init__(self, np, cell_map=None, colors=None, brightness=64):
        LedDriver.__init__(self)
        if np is None:
            raise LedError("NeoPixel LEDs need a neopixel object")
        self._np = np
        from firmware.io.cellmap import invert, make_cell_map  # build time only: a board releases it after

        self._pixel_of = invert(make_cell_map(cell_map))
        base = bytearray(_RGB[:12])
        for role in colors or ():
            rgb = colors[role]
            try:
                ok = role in (MOVE, HINT, ERROR, INFO) and len(rgb) == 3 and 0 <= min(rgb) and max(rgb) <= 255
                if ok:
                    base[3 * (role >> 2):3 * (role >> 2) + 3] = bytes(rgb)
            except (ValueError, TypeError):
                ok = False
            if not ok:
                raise LedError("bad colour %r for role %r" % (rgb, role))
        self._base = base
        self._rgb = [_BLACK] * 4  # by role >> 2, scaled
        self._phase = -1
        self._modes_present = 0
        self.set_brightness(brightness)

    def set_brightness(self, level):
        LedDriver.set_brightness(self, level)
        for i in range(4):
            self._rgb[i] = _scaled(self._base, 3 * i, level)

    def update(self, now_ms):
        """Rewrite the chain if anything visible changed (allocates nothing)."""
        lit = self._mode_lit
        mode_lit_into(lit, now_ms)
        present = self._modes_present  # blink phases matter only if such cells exist
        phase = (lit[2] if present & 4 else 0) | (lit[3] << 1 if present & 8 else 0)
        if not self._dirty and phase == self._phase:
            return
        self._dirty = False
        np = self._np
        pats = self._patterns
        pixel_of = self._pixel_of
        rgb = self._rgb
        present = 0
        for c in range(64):
            p = pats[c]
            present |= 1 << (p & MODE_MASK)
            np[pixel_of[c]] = rgb[p >> 2] if lit[p & MODE_MASK] else _BLACK
        np.write()
        self._modes_present = present
        self._phase = (lit[2] if present & 4 else 0) | (lit[3] << 1 if present & 8 else 0)


class StatusLight:
    """A pin LED when `np` is None, else pixel `index` of `np` (one class for both kinds).
    Build it with PinStatusLight / PixelStatusLight. `colour`, `mode`: what it was told."""

    def __init__(self, pin, active, np, index, brightness):
        _level(brightness)
        self.colour = 0
        self.mode = OFF
        self._table = bytearray(4)
        self._shown = -1  # last written: -1 unknown, 0 dark, 1 + colour lit
        self._np = np
        self._index = index
        if np is None:
            self._set_pin = pin.value
            self._on = 1 if active else 0
            self._set_pin(1 - self._on)
        else:
            rgb = []
            for i in range(12, 27, 3):
                rgb.append(_scaled(_RGB, i, brightness))
            self._rgb = tuple(rgb)

    def set(self, colour, mode):
        if not (0 <= colour <= _RED and 0 <= mode <= _PULSE):
            raise LedError("status light: colour 0..4 and mode 0..4, got %r and %r" % (colour, mode))
        self.colour = colour
        self.mode = mode

    def is_lit(self, now_ms):
        mode = self.mode
        if mode == _PULSE:
            return now_ms & 1023 < _PULSE_MS
        table = self._table
        mode_lit_into(table, now_ms)
        return table[mode] == 1

    def update(self, now_ms):
        shown = 1 + self.colour if self.is_lit(now_ms) else 0
        if shown != self._shown:
            self._shown = shown
            np = self._np
            if np is None:
                self._set_pin(self._on if shown else 1 - self._on)
            else:
                np[self._index] = self._rgb[shown - 1] if shown else _BLACK
                np.write()


def PinStatusLight(pin, active=1):
    """A single LED on an output pin (active level `active`)."""
    return StatusLight(pin, active, None, 0, 0)


def PixelStatusLight(np, index=64, brightness=64):
    """Pixel `index` of a neopixel-like chain (np[i] = (r, g, b); np.write()), colours scaled
    by `brightness` (0..255) once here."""
    return StatusLight(None, 1, np, index, brightness)
