"""Pins and devices only: sensor scanning, debouncing, LEDs, buttons, buzzer, display.
Knows nothing of chess; receives pin objects, never imports `machine`."""
