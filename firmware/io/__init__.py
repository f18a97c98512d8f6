"""Pins and devices only: sensor scanning, debouncing, LEDs, buttons, buzzer, display.
Knows nothing of chess; receives pin objects, never imports `machine`.

Cells 0..63 (`rank * 8 + file`, 0 = a1 corner), occupancy bitmaps bytearray(8).
Modules: cellmap, matrix (ReedMatrix), shift165 (Shift165), debounce (OccupancyDebouncer),
leds (+ leds_matrix, leds_edge, leds_neopixel), buttons, buzzer, ssd1306 (+ font5x7),
diagnostics. API reference: docs/io.md."""


class IoError(ValueError):
    """Every io error: a bad driver option, pattern or text (one class for all io modules:
    each class costs RAM on a board; the old names, LedError, SensorConfigError,
    ButtonConfigError, BuzzerError, DisplayError, DebounceConfigError, are this class)."""
