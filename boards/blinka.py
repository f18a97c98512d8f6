"""Pin factory for a Raspberry Pi (or any Linux board) running CPython with adafruit-blinka.

Adapters give Blinka's objects the small MicroPython-style API the io drivers use:
- BlinkaPin wraps digitalio.DigitalInOut: value() reads 0/1, value(x) drives;
- BlinkaPWM wraps pwmio.PWMOut: freq(hz), duty_u16(x);
- BlinkaNeoPixel wraps adafruit `neopixel.NeoPixel` (auto_write off): np[i] = rgb, write();
- BlinkaI2C wraps busio.I2C: writeto(addr, buf) with the bus lock taken around it;
- BlinkaSPI wraps busio.SPI: readinto(buf) (for a 74HC165 chain on hardware SPI).
Pin ids in the config are names of `board` attributes ("D17", "SDA"). Blinka's modules are
imported only inside the factory, so this file imports anywhere.
"""


class BlinkaPin:
    def __init__(self, dio):
        self._dio = dio

    def value(self, v=None):
        if v is None:
            return 1 if self._dio.value else 0
        self._dio.value = bool(v)

    def deinit(self):
        self._dio.deinit()


class BlinkaPWM:
    def __init__(self, pwm):
        self._pwm = pwm

    def freq(self, hz):
        self._pwm.frequency = hz

    def duty_u16(self, duty):
        self._pwm.duty_cycle = duty


class BlinkaNeoPixel:
    def __init__(self, pixels):
        self._pixels = pixels

    def __setitem__(self, i, rgb):
        self._pixels[i] = rgb

    def __getitem__(self, i):
        return self._pixels[i]

    def write(self):
        self._pixels.show()


class BlinkaI2C:
    def __init__(self, i2c):
        self._i2c = i2c

    def writeto(self, addr, buf):
        while not self._i2c.try_lock():
            pass
        try:
            self._i2c.writeto(addr, buf)
        finally:
            self._i2c.unlock()


class BlinkaSPI:
    def __init__(self, spi, baudrate):
        self._spi = spi
        self._baudrate = baudrate

    def readinto(self, buf):
        while not self._spi.try_lock():
            pass
        try:
            self._spi.configure(baudrate=self._baudrate, polarity=0, phase=0)
            self._spi.readinto(buf)
        finally:
            self._spi.unlock()


class BlinkaFactory:
    """The boards/config.py factory protocol on Blinka."""

    sleep_us = None  # CPython's own call overhead is longer than any settle time we need

    def __init__(self):
        import board
        import digitalio

        self._board = board
        self._digitalio = digitalio

    def board_pin(self, pin_id):
        try:
            return getattr(self._board, pin_id)
        except (AttributeError, TypeError):
            raise ValueError("Blinka board %s has no pin %r" % (getattr(self._board, "board_id", "?"), pin_id))

    def pin(self, pin_id, mode, pull=None, value=None):
        dio = self._digitalio.DigitalInOut(self.board_pin(pin_id))
        if mode == "out":
            dio.switch_to_output(value=bool(value))
        else:
            dio.switch_to_input(pull=self._digitalio.Pull.UP if pull == "up" else None)
        return BlinkaPin(dio)

    def pwm(self, pin_id):
        import pwmio

        return BlinkaPWM(pwmio.PWMOut(self.board_pin(pin_id), frequency=440, duty_cycle=0, variable_frequency=True))

    def neopixel(self, pin_id, count):
        import neopixel

        return BlinkaNeoPixel(neopixel.NeoPixel(self.board_pin(pin_id), count, auto_write=False))

    def spi(self, bus_id, sck, miso, baudrate):
        import busio

        return BlinkaSPI(busio.SPI(self.board_pin(sck), MISO=self.board_pin(miso)), baudrate)

    def i2c(self, bus_id, scl, sda, freq_hz):
        import busio

        return BlinkaI2C(busio.I2C(self.board_pin(scl), self.board_pin(sda), frequency=freq_hz))


def make_hardware(config):
    """Build `config`'s drivers on this Blinka board."""
    from boards.config import build_hardware

    return build_hardware(config, BlinkaFactory())
