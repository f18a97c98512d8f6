"""8x8 multiplexed LED matrix: one LED per square, one row lit at a time.

Wiring: row lines drive the LED anodes through a high-side transistor (row active level
`row_active`, usually 1), column lines sink the cathodes through a resistor (column active
level `col_active`, usually 0, or 1 with a ULN2803 sink driver). update(now_ms) turns the
current row off, sets the eight column lines for the next row and turns that row on, so a
full picture takes 8 calls: call it every 1-2 ms for a flicker-free 60+ Hz picture.

Physical position `row * 8 + col` is mapped to a cell with `cell_map`.
"""
from firmware.io.leds import LedDriver, LedError, MODE_MASK, mode_lit_into


class LedMatrix(LedDriver):
    def __init__(self, row_pins, col_pins, row_active=1, col_active=0, cell_map=None):
        LedDriver.__init__(self)
        if len(row_pins) != 8 or len(col_pins) != 8:
            raise LedError("LED matrix needs 8 row pins and 8 column pins, got %d and %d"
                           % (len(row_pins), len(col_pins)))
        if row_active not in (0, 1) or col_active not in (0, 1):
            raise LedError("row_active and col_active must be 0 or 1")
        self._row_set = tuple(p.value for p in row_pins)
        self._col_set = tuple(p.value for p in col_pins)
        self._row_on = row_active
        self._col_on = col_active
        from firmware.io.cellmap import make_cell_map  # build time only: a board releases it after

        self._cell_at = make_cell_map(cell_map)
        self.row = 7  # the row lit now; update() moves to the next one
        for s in self._row_set:
            s(1 - row_active)
        for s in self._col_set:
            s(1 - col_active)

    def update(self, now_ms):
        """Show the next row (allocates nothing)."""
        lit = self._mode_lit
        mode_lit_into(lit, now_ms)
        pats = self._patterns
        cell_at = self._cell_at
        self._row_set[self.row](1 - self._row_on)  # old row dark before columns change
        row = (self.row + 1) & 7
        self.row = row
        phys = row << 3
        on = self._col_on
        for set_col in self._col_set:
            if lit[pats[cell_at[phys]] & MODE_MASK]:
                set_col(on)
            else:
                set_col(1 - on)
            phys += 1
        self._row_set[row](self._row_on)
        self._dirty = False
