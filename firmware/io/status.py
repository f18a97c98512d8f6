"""The status light's colours and modes; the driver (StatusLight, PinStatusLight,
PixelStatusLight) lives in firmware.io.leds (one module holds less RAM) and is re-exported
here. What the colours mean is the controller's business (docs/playing.md)."""
from firmware.io.leds import OFF, PinStatusLight, PixelStatusLight, StatusLight  # noqa: F401

PULSE = 4
WHITE = 0
BLUE = 1
YELLOW = 2
GREEN = 3
RED = 4
COLOUR_NAMES = ("white", "blue", "yellow", "green", "red")
MODE_NAMES = ("off", "on", "blink", "blink-fast", "pulse")
