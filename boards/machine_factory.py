"""Pin factory for MicroPython boards (machine.Pin, machine.PWM, machine.I2C, neopixel).

Imports `machine` only when constructed, so this module can be imported anywhere; see the
factory protocol in boards/config.py.
"""


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
    """Build `config`'s drivers on this MicroPython board, then release the config checking
    and building code (boards.config, this module): the board keeps only the drivers, the
    config dict and boards.Hardware (~10 KB less heap on a Pico)."""
    from boards import release
    from boards.config import build_hardware

    try:
        return build_hardware(config, MachineFactory())
    finally:
        release("boards.config", "boards.machine_factory", "firmware.io.cellmap")
