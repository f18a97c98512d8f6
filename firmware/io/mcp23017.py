"""Squares read through MCP23017 16-bit I2C port expanders: two wires for 64 squares.

Wiring: every square's sensor connects one expander input to ground when a piece stands on it
(a reed switch, or the open-drain output of a digital Hall-effect sensor); the expander's
internal 100k pull-ups hold the other inputs high. Four chips (16 inputs each) or eight
(8 inputs each, port A only) share one I2C bus at 0x20-0x27 (pins A2 A1 A0 set the address,
RESET tied to 3.3 V). docs/wiring.md has the drawing; docs/io.md the Hall-effect sensors.

Physical position of a sensor: `chip * pins + input`, chip k being the k-th address of
`addrs`, input 0..7 = GPA0..GPA7 and 8..15 = GPB0..GPB7; `cell_map` maps it to a board cell.

Start-up writes each chip once: all pins inputs (IODIR), pull-ups on (GPPU, unless the board
has its own resistors), and the input polarity (IPOL) so that a GPIO bit reads 1 where a piece
stands: inverted for active-low sensors (`active=0`, the default: reeds, open-drain Halls),
as read for active-high ones (`active=1`, push-pull Halls that drive high near a magnet).
A scan then reads GPIOA and GPIOB of each chip in one transaction (`readfrom_mem_into` into a
buffer allocated here) and maps the set bits to cells: no allocation while the chips answer.

Faults never stop the scan. A chip whose read raises OSError twice in a row, or which does not
answer its configuration (nothing at its address, a loose wire, the bus held low; a single
failed read counts as noise) keeps its squares at their last reading, so the game in progress sees no
change there; its bit in `missing` is set and one line naming the chip's address and squares
goes to `faults` (the board's hw.faults, which the main loop reports). A missing chip is
retried, one chip every `retry_scans` scans, so a dead bus costs one failed transaction now
and then rather than one per chip per scan; the same slot checks that an answering chip still
has its configuration (a chip that lost power comes back with pull-ups off) and writes it
again. A chip that answers again is configured again, and `faults` says it is back.
"""
from firmware.compat import const
from firmware.io.matrix import SensorConfigError

_IODIRA = const(0x00)  # IOCON.BANK = 0 (the power-on default): A and B registers side by side
_IPOLA = const(0x02)
_GPPUA = const(0x0C)
_GPIOA = const(0x12)
_FIRST_ADDR = const(0x20)
_LAST_ADDR = const(0x27)
_MOST_FAULTS = const(24)  # faults lines kept at most (a flapping wire must not fill the heap)


class Mcp23017Sensors:
    """Scans up to eight MCP23017s on one I2C bus into an occupancy bitmap.

    i2c: an object with `readfrom_mem_into(addr, reg, buf)` and `writeto_mem(addr, reg, buf)`
        (machine.I2C; the bus is made by the board, never here).
    addrs: the chips' 7-bit addresses (0x20..0x27, no repeats): 4 chips of 16 inputs or 8 chips
        of 8 inputs (port A), so that they carry exactly 64 sensors.
    active: 0 = a sensor pulls its input low when a piece stands on it (reed switch to ground,
        open-drain Hall sensor); 1 = it drives its input high (push-pull Hall sensor).
    pullups: True = the expanders' internal pull-ups on (the default); False = the board has
        its own resistors (or active-high sensors drive both levels).
    cell_map: spec or bytearray(64) for firmware.io.cellmap, mapping `chip * pins + input`.
    faults: a list the driver appends its fault lines to (the board's hw.faults), or None.
    retry_scans: every this many scans one chip is retried (missing) or checked (answering).
    """

    def __init__(self, i2c, addrs, active=0, pullups=True, cell_map=None, faults=None, retry_scans=64):
        n = len(addrs)
        if n not in (4, 8):
            raise SensorConfigError("MCP23017 sensors need 4 chips (16 inputs each) or 8 (8 inputs each), got %d" % n)
        for i in range(n):
            a = addrs[i]
            if not isinstance(a, int) or a < _FIRST_ADDR or a > _LAST_ADDR:
                raise SensorConfigError("MCP23017 address %r is not 0x20..0x27" % (a,))
            if a in addrs[:i]:
                raise SensorConfigError("MCP23017 address 0x%02x given twice" % a)
        if active not in (0, 1):
            raise SensorConfigError("active must be 0 (low) or 1 (high), got %r" % (active,))
        if not isinstance(retry_scans, int) or retry_scans < 1:
            raise SensorConfigError("retry_scans must be an int >= 1, got %r" % (retry_scans,))
        self._i2c = i2c
        self.addrs = bytes(addrs)
        self.pins = 64 // n
        self.active = active
        self.faults = faults
        self.missing = 0  # bit k set: chip k does not answer now
        self.errors = 0  # failed transactions so far
        self.retry_scans = retry_scans
        self._scans = 0
        self._next = 0  # the chip the next retry slot looks at
        self._rx = bytearray(2 if self.pins == 16 else 1)
        self._regs = bytearray(_GPPUA + 2)  # IODIRA..GPPUB, for the check of a chip's configuration
        self._last = bytearray(2 * n)  # per chip: GPIOA, GPIOB as last read (1 = piece)
        self._strikes = bytearray(n)  # per chip: 1 after a failed read, until one succeeds
        # What each chip's configuration registers must hold: IODIR, IPOL, GPPU as A/B pairs.
        inv = 0xFF if active == 0 else 0
        pull = 0xFF if pullups else 0
        self._config = ((_IODIRA, b"\xff\xff"), (_IPOLA, bytes((inv, inv))), (_GPPUA, bytes((pull, pull))))
        from firmware.io.cellmap import make_cell_map  # build time only: a board releases it after

        self._cell = make_cell_map(cell_map)
        for k in range(n):
            if self._configure(k):
                self._read(k)

    # ---- one chip ---------------------------------------------------------------------------
    def _configure(self, k):
        """Write chip k's configuration; False (and the chip marked missing) if it does not answer."""
        try:
            for reg, value in self._config:
                self._i2c.writeto_mem(self.addrs[k], reg, value)
        except OSError as exc:
            self._lost(k, exc)
            return False
        return True

    def _read(self, k):
        """Read chip k's inputs into its slot of the last readings (kept if it does not answer)."""
        rx = self._rx
        try:
            self._i2c.readfrom_mem_into(self.addrs[k], _GPIOA, rx)
        except OSError as exc:
            # One failed read is a glitch (noise on a long bus): the squares keep their last
            # reading this once; the second failure in a row is a lost chip.
            if self._strikes[k] or self.missing & (1 << k):
                self._lost(k, exc)
            else:
                self._strikes[k] = 1
                self.errors += 1
            return
        self._strikes[k] = 0
        last = self._last
        last[2 * k] = rx[0]
        if self.pins == 16:
            last[2 * k + 1] = rx[1]
        if self.missing & (1 << k):
            self.missing &= ~(1 << k)
            self._note("0x%02x on again: %s (MCP23017)" % (self.addrs[k], self.squares(k)))

    def _lost(self, k, exc):
        self.errors += 1
        if not self.missing & (1 << k):
            self.missing |= 1 << k
            # The address and the squares first: a display line holds 21 characters.
            self._note("0x%02x off: %s (MCP23017 %s)" % (self.addrs[k], self.squares(k), _why(exc)))

    def _note(self, line):
        if self.faults is not None and len(self.faults) < _MOST_FAULTS:
            self.faults.append(line)

    def _check(self, k):
        """The retry slot: configure a missing chip again (then read it), or check that an
        answering chip still holds its configuration (one 14-byte read: IODIR, IPOL, GPPU)
        and write it again if not."""
        if self.missing & (1 << k):
            if self._configure(k):
                self._read(k)
            return
        regs = self._regs
        try:
            self._i2c.readfrom_mem_into(self.addrs[k], _IODIRA, regs)
        except OSError as exc:
            self._lost(k, exc)
            return
        for reg, value in self._config:
            if regs[reg] != value[0] or regs[reg + 1] != value[1]:
                self._configure(k)
                return

    # ---- the scan ---------------------------------------------------------------------------
    def scan_into(self, bitmap):
        """Fill the caller-owned bytearray(8) `bitmap` (byte r = rank r, bit f = file f,
        1 = piece present). Allocates nothing while the chips answer. A missing chip's squares
        keep their last reading."""
        n = len(self.addrs)
        self._scans += 1
        if self._scans >= self.retry_scans:
            self._scans = 0
            self._check(self._next)
            self._next = (self._next + 1) % n
        missing = self.missing
        for k in range(n):
            if not missing & (1 << k):
                self._read(k)
        for i in range(8):
            bitmap[i] = 0
        cmap = self._cell
        last = self._last
        wide = self.pins == 16
        phys = 0
        for k in range(n):
            bits = last[2 * k]
            if wide:
                bits |= last[2 * k + 1] << 8
            i = phys
            while bits:
                if bits & 1:
                    cell = cmap[i]
                    bitmap[cell >> 3] |= 1 << (cell & 7)
                bits >>= 1
                i += 1
            phys += self.pins

    # ---- for people -------------------------------------------------------------------------
    def cells_of(self, k):
        """The cells chip k reads, ascending (allocates)."""
        pins = self.pins
        return sorted(self._cell[p] for p in range(k * pins, k * pins + pins))

    def squares(self, k):
        """Chip k's squares in a few words: 'ranks 3-4', 'file b', or 'a1 b1 c1 +13' (allocates)."""
        return describe_cells(self.cells_of(k))

    def chip_of(self, cell):
        """The address of the chip that reads `cell`."""
        for p in range(64):
            if self._cell[p] == cell:
                return self.addrs[p // self.pins]
        raise SensorConfigError("no cell %r" % (cell,))


def _why(exc):
    """A short reason from an OSError: its errno name where known ('ENODEV', 'ETIMEDOUT')."""
    code = exc.args[0] if exc.args else -1
    return {19: "ENODEV", 5: "EIO", 110: "ETIMEDOUT", 116: "ETIMEDOUT"}.get(code, "error %s" % (code,))


def describe_cells(cells):
    """Whole ranks or files in a few words, else the first squares and a count (allocates)."""
    ranks = []
    files = []
    for r in range(8):
        if all(r * 8 + f in cells for f in range(8)):
            ranks.append(r)
    for f in range(8):
        if all(r * 8 + f in cells for r in range(8)):
            files.append(f)
    for group, word, names in ((ranks, "rank", "12345678"), (files, "file", "abcdefgh")):
        if len(group) * 8 == len(cells) and group:
            if len(group) == 1:
                return "%s %s" % (word, names[group[0]])
            if group[-1] - group[0] == len(group) - 1:
                return "%ss %s-%s" % (word, names[group[0]], names[group[-1]])
            return "%ss %s" % (word, " ".join(names[g] for g in group))
    text = " ".join("abcdefgh"[c & 7] + str((c >> 3) + 1) for c in cells[:3])
    return text + (" +%d" % (len(cells) - 3) if len(cells) > 3 else "")
