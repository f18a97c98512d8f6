"""Reed switches read through a chain of eight 74HC165 parallel-in/serial-out registers.

Wiring: every square's reed switch connects one 74HC165 input to ground; each input has a
10k pull-up (resistor networks). Eight chips are chained (QH of chip k+1 -> SER of chip k);
chip 0's QH goes to the microcontroller's data pin. All chips share SH/LD (the load pin,
active low) and CLK; CLK INH is tied to ground. Three pins read 64 squares, no diodes.

Physical position of a switch: `chip * 8 + input` with inputs A..H = 0..7 and chip 0 the
one next to the microcontroller; `cell_map` maps it to a board cell.

Read sequence: pulse load low (inputs latched), then 64 times: read QH, pulse CLK. After
loading, QH shows chip 0 input H, then G, ..., A, then chip 1 input H, and so on.

Faster option: pass `spi` (an object with `readinto(buf)`, SPI mode 0, CLK on SCK, QH on
MISO): after the load pulse the chain is read as 8 bytes by the SPI peripheral (MSB first,
so bit i of byte k is chip k input i) instead of 192 pin calls.

Sensors that drive their input high when a piece stands on them (push-pull Hall-effect
sensors, `active=1`) read the other way round; the default `active=0` is a sensor that pulls
its input low (a reed switch to ground, an open-drain Hall sensor with the input's pull-up).
"""
from firmware.io.matrix import SensorConfigError


class Shift165:
    """Scans 64 switches through eight chained 74HC165s into an occupancy bitmap.

    load_pin, clock_pin: outputs (idle high / idle low); data_pin: input (QH of chip 0).
    pulse_us: optional wait after the load pulse (sleep_us(pulse_us)); the chip needs only
        ~20 ns, so MicroPython's own call overhead is normally enough (pulse_us=0).
    cell_map: spec or bytearray(64) mapping `chip * 8 + input` to a board cell.
    active: 0 = an input reads low where a piece stands (the default), 1 = it reads high.
    """

    def __init__(self, load_pin, clock_pin, data_pin, pulse_us=0, sleep_us=None, cell_map=None, spi=None, active=0):
        if active not in (0, 1):
            raise SensorConfigError("active must be 0 (low) or 1 (high), got %r" % (active,))
        pins = (("load", load_pin),) if spi is not None else (("load", load_pin), ("clock", clock_pin),
                                                               ("data", data_pin))
        for name, pin in pins:
            if pin is None:
                raise SensorConfigError("74HC165 chain needs a %s pin" % name)
        self._spi = spi
        self._present = active  # the level of an input under a piece
        self._flip = 0xFF if active == 0 else 0  # SPI bytes: XOR so that 1 = piece
        self._spi_buf = bytearray(8)
        self._load = load_pin.value
        self._clock = clock_pin.value if spi is None else None
        self._data = data_pin.value if spi is None else None
        self.pulse_us = pulse_us
        self._sleep_us = sleep_us if pulse_us else None
        from firmware.io.cellmap import make_cell_map  # build time only: a board releases it after

        cmap = make_cell_map(cell_map)
        # Reorder once so the scan walks the map in shift-out order (H first).
        self._cell_in_order = bytearray(64)
        for k in range(64):
            self._cell_in_order[k] = cmap[(k >> 3) * 8 + 7 - (k & 7)]
        self._cell = cmap
        self._load(1)
        if spi is None:
            self._clock(0)

    def scan_into(self, bitmap):
        """Fill the caller-owned bytearray(8) `bitmap` (byte r = rank r, bit f = file f,
        1 = closed switch). Allocates nothing."""
        load = self._load
        clock = self._clock
        data = self._data
        order = self._cell_in_order
        present = self._present
        for i in range(8):
            bitmap[i] = 0
        load(0)
        if self._sleep_us is not None:
            self._sleep_us(self.pulse_us)
        load(1)
        if self._spi is not None:
            self._scan_spi(bitmap)
            return
        for k in range(64):
            if data() == present:
                cell = order[k]
                bitmap[cell >> 3] |= 1 << (cell & 7)
            clock(1)
            clock(0)

    def _scan_spi(self, bitmap):
        buf = self._spi_buf
        self._spi.readinto(buf)
        cmap = self._cell
        phys = 0
        flip = self._flip
        for byte in buf:
            closed = byte ^ flip
            i = 0
            while closed:
                if closed & 1:
                    cell = cmap[phys + i]
                    bitmap[cell >> 3] |= 1 << (cell & 7)
                closed >>= 1
                i += 1
            phys += 8
