"""64 WS2812/NeoPixel LEDs: NeoPixelLeds lives in firmware.io.leds (one module holds less
RAM); this name stays for existing imports."""
from firmware.io.leds import NeoPixelLeds  # noqa: F401
