"""64 WS2812/NeoPixel LEDs, one under each square, colour by role.

`np` is a neopixel-like object injected by the board: `np[i] = (r, g, b)` and `np.write()`
(MicroPython's `neopixel.NeoPixel`; boards/blinka.py adapts Blinka's `show()`). Pixel i sits
at physical position i; `cell_map` maps it to a cell ("serpentine" for zig-zag chains).

Colours come from the pattern's role (MOVE, HINT, ERROR, INFO); `colors` overrides the
defaults as {role: (r, g, b)}. Brightness 0..255 scales every colour. The scaled colour
tuples are built once (constructor, set_brightness), so update() only stores references and
allocates nothing. The chain is rewritten only when a pattern changed or a blink phase
flipped (a 64-pixel write blocks interrupts for ~2 ms).
"""
from firmware.io.leds import ERROR, HINT, INFO, MOVE, LedDriver, LedError, MODE_MASK, mode_lit_into

DEFAULT_COLORS = {MOVE: (0, 255, 0), HINT: (0, 80, 255), ERROR: (255, 0, 0), INFO: (255, 150, 0)}
_BLACK = (0, 0, 0)


class NeoPixelLeds(LedDriver):
    supports_brightness = True

    def __init__(self, np, cell_map=None, colors=None, brightness=64):
        LedDriver.__init__(self)
        if np is None:
            raise LedError("NeoPixel LEDs need a neopixel object")
        self._np = np
        from firmware.io.cellmap import invert, make_cell_map  # build time only: a board releases it after

        self._pixel_of = invert(make_cell_map(cell_map))
        base = dict(DEFAULT_COLORS)
        for role in colors or ():
            rgb = colors[role]
            if role not in DEFAULT_COLORS or len(rgb) != 3 or not all(0 <= v <= 255 for v in rgb):
                raise LedError("bad colour %r for role %r" % (rgb, role))
            base[role] = tuple(rgb)
        self._base = base
        self._rgb = [_BLACK] * 4  # by role >> 2, scaled
        self._phase = -1
        self._modes_present = 0
        self.set_brightness(brightness)

    def set_brightness(self, level):
        LedDriver.set_brightness(self, level)
        for role in self._base:
            r, g, b = self._base[role]
            self._rgb[role >> 2] = (r * level // 255, g * level // 255, b * level // 255)

    def color(self, cell, now_ms):
        """The (r, g, b) this driver gives `cell` at `now_ms` (for tests and the simulator)."""
        lit = bytearray(4)
        mode_lit_into(lit, now_ms)
        p = self._patterns[cell]
        return self._rgb[p >> 2] if lit[p & MODE_MASK] else _BLACK

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
