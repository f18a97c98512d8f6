"""Board configurations: pin maps, device kinds, memory and engine limits per board.
The only place that imports `machine`, `neopixel`, `rp2` or Blinka (inside functions).

`Hardware` lives here, not in boards.config, so a board can drop the config checking and
building code after start-up (boards.machine_factory releases it) and keep only this small
class and the drivers."""


class Hardware:
    """Every driver of one board: sensors (scan_into), leds, buttons, buzzer (or None),
    display (or None), status light (or None), the config they were built from, and
    `faults`: short human strings for devices that did not answer at start-up or since
    (e.g. "display: no SSD1306 at I2C 0x3C"); empty when all is well. Drivers append to the
    same list, once per device; a failed device's driver then does nothing."""

    def __init__(self, config, sensors, leds, buttons, buzzer=None, display=None, status=None, faults=None):
        self.config = config
        self.sensors = sensors
        self.leds = leds
        self.buttons = buttons
        self.buzzer = buzzer
        self.display = display
        self.status = status
        self.faults = [] if faults is None else faults

    def make_debouncer(self, capacity=64):
        """An OccupancyDebouncer with this board's debounce_ms."""
        from firmware.io.debounce import OccupancyDebouncer

        return OccupancyDebouncer(self.config["debounce_ms"], capacity=capacity)

    def soft_reset_function(self):
        """What restarts MicroPython so main.py runs again (machine.soft_reset on a board; it
        does not return), or None where there is no such thing (CPython, the unix port)."""
        try:
            import machine

            return machine.soft_reset
        except (ImportError, AttributeError):
            return None
