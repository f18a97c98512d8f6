"""Pin factory for MicroPython boards (machine.Pin, machine.PWM, machine.I2C, neopixel).

Imports `machine` only when constructed, so this module can be imported anywhere; see the
factory protocol in boards/config.py.
"""


_RP2040_GPIO_IN = 0xD0000004  # SIO GPIO_IN: the levels of GPIO0-29 (RP2040 datasheet 2.3.1.7)


class MachineFactory:
    def __init__(self):
        import machine
        import time

        self._machine = machine
        self.sleep_us = time.sleep_us

    def pin(self, pin_id, mode, pull=None, value=None):
        Pin = self._machine.Pin
        if mode == "out":
            return Pin(pin_id, Pin.OUT, value=1 if value else 0)
        if pull == "up":
            return Pin(pin_id, Pin.IN, Pin.PULL_UP)
        return Pin(pin_id, Pin.IN)

    def cols_port(self, pin_ids):
        """(machine.mem32, GPIO_IN, first pin) when a reed matrix's 8 columns are consecutive
        GPIOs of an RP2040 (boards/pico.py: GP8-15): the scan reads them in one register read
        a row instead of 8 Pin.value() calls. None on other chips or wirings. GPIO_IN holds 30
        GPIOs, so its value is a small int: the read allocates nothing. A tuple, not a function
        of this module: that would keep the module's code in the heap after boot."""
        import sys

        first = pin_ids[0]
        consecutive = list(pin_ids) == list(range(first, first + 8))
        if "RP2040" not in getattr(sys.implementation, "_machine", "") or not consecutive:
            return None
        return (self._machine.mem32, _RP2040_GPIO_IN, first)

    def pwm(self, pin_id):
        return self._machine.PWM(self._machine.Pin(pin_id, self._machine.Pin.OUT))

    def neopixel(self, pin_id, count):
        import neopixel

        return neopixel.NeoPixel(self._machine.Pin(pin_id, self._machine.Pin.OUT), count)

    def spi(self, bus_id, sck, miso, baudrate):
        Pin = self._machine.Pin
        return self._machine.SPI(bus_id, baudrate=baudrate, polarity=0, phase=0, sck=Pin(sck), miso=Pin(miso))

    def i2c(self, bus_id, scl, sda, freq_hz):
        Pin = self._machine.Pin
        return self._machine.I2C(bus_id, scl=Pin(scl), sda=Pin(sda), freq=freq_hz)


def make_hardware(config):
    """Build `config`'s drivers on this MicroPython board, then drop what only building needs,
    so the board keeps the drivers, boards.Hardware and the settings the firmware reads:
    the config checking and building code (boards.config, this module, firmware.io.cellmap:
    out of sys.modules and off their package) and the config's pin sections (sensor, leds,
    buttons, buzzer, display, status, valid_pins, ...: read by nothing after start-up). Once
    per boot: a second call finds no pins and says so."""
    import sys

    from boards.config import build_hardware

    try:
        hw = build_hardware(config, MachineFactory())
        for key in ("sensor", "leds", "buttons", "buzzer", "display", "status", "valid_pins", "input_only_pins",
                    "external_pullups"):
            config.pop(key, None)
        return hw
    finally:
        for name in ("boards.config", "boards.machine_factory", "firmware.io.cellmap"):
            sys.modules.pop(name, None)
            dot = name.rfind(".")
            parent = sys.modules.get(name[:dot])
            if parent is not None:
                parent.__dict__.pop(name[dot + 1:], None)
