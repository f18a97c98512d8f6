"""A status light: one LED on a pin (single colour) or one RGB pixel (an extra WS2812 at the
end of the board's chain).

    light = PinStatusLight(pin, active=1)
    light = PixelStatusLight(np, index=64, brightness=64)
    light.set(YELLOW, PULSE)       # a colour (RGB designs) and a mode
    light.update(now_ms)           # every pass: blinking; writes only on change, no allocation
    light.colour, light.mode       # what it was told; light.is_lit(now_ms): lit right now?

Modes: firmware.io.leds' OFF, ON, BLINK_SLOW, BLINK_FAST (the same phases, so the light
blinks in step with the board) and PULSE (a short flash every 1024 ms). Colours: WHITE, BLUE,
YELLOW, GREEN, RED; a single-colour LED shows only the mode. What they mean is the
controller's business (docs/playing.md).
"""
from firmware.compat import const
from firmware.io.leds import OFF, LedError, mode_lit_into

PULSE = const(4)
_PULSE_MS = const(96)

WHITE = const(0)
BLUE = const(1)
YELLOW = const(2)
GREEN = const(3)
RED = const(4)
COLOUR_NAMES = ("white", "blue", "yellow", "green", "red")
MODE_NAMES = ("off", "on", "blink", "blink-fast", "pulse")
RGB = ((255, 255, 255), (0, 60, 255), (255, 170, 0), (0, 255, 0), (255, 0, 0))
_BLACK = (0, 0, 0)


class StatusLight:
    """One class for both kinds (one class costs less RAM than three): a pin LED when `np`
    is None, else pixel `index` of `np`. Build it with PinStatusLight / PixelStatusLight."""

    def __init__(self, pin, active, np, index, brightness):
        if not 0 <= brightness <= 255:
            raise LedError("brightness must be 0..255, got %r" % (brightness,))
        self.colour = WHITE
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
            self._rgb = tuple((r * brightness // 255, g * brightness // 255, b * brightness // 255)
                              for r, g, b in RGB)

    def set(self, colour, mode):
        if not 0 <= colour <= RED or not 0 <= mode <= PULSE:
            raise LedError("status light: colour 0..%d and mode 0..%d, got %r and %r" % (RED, PULSE, colour, mode))
        self.colour = colour
        self.mode = mode

    def is_lit(self, now_ms):
        mode = self.mode
        if mode == PULSE:
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
