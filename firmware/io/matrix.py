"""8x8 reed-switch matrix: 8 driven rows (active low), 8 sensed columns with pull-ups.

Wiring: each square has a reed switch in series with a diode between its row line and its
column line (cathode towards the row). The scanner drives one row low at a time, the other
rows stay high; a closed switch pulls its column low through the diode. The diodes stop
current flowing backwards through other closed switches, so any number of pieces reads
without ghosts.

Pin protocol (what the pins passed in must do, see boards/config.py): `pin.value(x)` drives
an output, `pin.value()` reads an input as 0/1. Row pins must already be outputs, column
pins inputs with pull-ups (the pin factory configures them).
"""
from firmware.compat import const
from firmware.io import IoError

_IDLE = const(1)
_ACTIVE = const(0)


SensorConfigError = IoError  # Wrong number of pins or a bad option for a sensor driver.


class ReedMatrix:
    """Scans an 8x8 diode matrix into an occupancy bitmap.

    row_pins, col_pins: 8 pins each (rows outputs, columns inputs with pull-ups).
    settle_us: microseconds to wait after driving a row before reading the columns (line
        capacitance and the pull-up form an RC delay; 5-20 us is typical with 10k pull-ups).
    sleep_us: function(us) used for that wait (`time.sleep_us` on a board); None = no wait.
    cell_map: spec or bytearray(64) for `firmware.io.cellmap.make_cell_map`, mapping the
        physical position `row * 8 + col` to a board cell.
    cols_port: optional (mem, address, shift) for boards whose 8 column pins are consecutive
        bits of one input register: bit shift + c of mem[address] is the level of column c
        (machine.mem32 and the GPIO input register): one read a row instead of 8 pin reads.
    """

    def __init__(self, row_pins, col_pins, settle_us=10, sleep_us=None, cell_map=None, cols_port=None):
        if len(row_pins) != 8 or len(col_pins) != 8:
            raise SensorConfigError("reed matrix needs 8 row pins and 8 column pins, got %d and %d"
                                    % (len(row_pins), len(col_pins)))
        if settle_us < 0:
            raise SensorConfigError("settle_us must be >= 0, got %r" % (settle_us,))
        # Bound methods are created once here so the scan loop only calls them.
        rows = []
        cols = []
        for i in range(8):
            rows.append(row_pins[i].value)
            cols.append(col_pins[i].value)
        self._row_set = tuple(rows)
        self._col_get = tuple(cols)
        self._cols_port = cols_port
        self.settle_us = settle_us
        self._sleep_us = sleep_us if settle_us else None
        from firmware.io.cellmap import make_cell_map  # build time only: a board releases it after

        cmap = self._cell_map = make_cell_map(cell_map)
        # With a one-register column read and the usual wiring (each row's columns are files
        # a..h of one rank, in order), a row's reading is its rank's byte: one store a row.
        ranks = bytearray(cmap[row * 8] >> 3 for row in range(8))
        for phys in range(64):
            if cmap[phys] != ranks[phys >> 3] * 8 + (phys & 7):
                ranks = None
                break
        self._row_rank = ranks if cols_port is not None else None
        for set_row in self._row_set:
            set_row(_IDLE)

    def scan_into(self, bitmap):
        """Fill the caller-owned bytearray(8) `bitmap`: byte r = rank r, bit f = file f,
        1 = switch closed (piece present). Allocates nothing."""
        cmap = self._cell_map
        sleep_us = self._sleep_us
        settle_us = self.settle_us
        port = self._cols_port
        ranks = self._row_rank
        col_get = self._col_get
        for i in range(8):
            bitmap[i] = 0
        phys = 0
        for set_row in self._row_set:
            set_row(_ACTIVE)
            if sleep_us is not None:
                sleep_us(settle_us)
            if port is None:
                c = phys
                for get in col_get:
                    if not get():
                        cell = cmap[c]
                        bitmap[cell >> 3] |= 1 << (cell & 7)
                    c += 1
            else:
                mem, address, shift = port
                closed = ~(mem[address] >> shift) & 0xFF
                if ranks is not None:
                    bitmap[ranks[phys >> 3]] |= closed
                else:
                    c = 0
                    while closed:
                        if closed & 1:
                            cell = cmap[phys + c]
                            bitmap[cell >> 3] |= 1 << (cell & 7)
                        closed >>= 1
                        c += 1
            set_row(_IDLE)
            phys += 8
