"""LEDs in board-cell terms: one API for every LED design.

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
- firmware.io.leds_neopixel.NeoPixelLeds: 64 WS2812 pixels, colours per role, brightness.
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

MODE_NAMES = ("off", "on", "blink", "blink_fast")
ROLE_NAMES = ("move", "hint", "error", "info")


LedError = IoError  # A cell outside 0..63, an unknown pattern or a bad LED option.


def pattern_name(pattern):
    """'off', 'on', 'blink' (slow) or 'blink_fast' for a pattern (the role is ignored)."""
    return MODE_NAMES[pattern & MODE_MASK]


def role_name(pattern):
    return ROLE_NAMES[(pattern & ROLE_MASK) >> 2]


def mode_lit_into(table, now_ms):
    """Fill bytearray(4) `table[mode]` = 1 if that mode is lit at `now_ms`."""
    table[OFF] = 0
    table[ON] = 1
    table[BLINK_SLOW] = 0 if now_ms & _SLOW_HALF else 1
    table[BLINK_FAST] = 0 if now_ms & _FAST_HALF else 1


class LedDriver:
    """Common state and API; subclasses implement update(now_ms).

    `supports_brightness` tells whether set_brightness() changes anything on this design.
    """

    supports_brightness = False

    def __init__(self):
        self._patterns = bytearray(64)
        self._mode_lit = bytearray(4)
        self._dirty = True
        self.brightness = 255

    def set(self, cell, pattern):
        if not 0 <= cell < 64:
            raise LedError("LED cell must be 0..63, got %r" % (cell,))
        if not 0 <= pattern <= 15:
            raise LedError("LED pattern must be a mode (OFF/ON/BLINK_SLOW/BLINK_FAST) plus a role, got %r"
                           % (pattern,))
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
        if not 0 <= level <= 255:
            raise LedError("brightness must be 0..255, got %r" % (level,))
        self.brightness = level
        self._dirty = True

    def update(self, now_ms):
        raise NotImplementedError

    def off(self):
        """Everything dark now (clear() + update)."""
        self.clear()
        self.update(0)
