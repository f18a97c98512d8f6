"""16 edge LEDs: one beside each rank and one below each file.

A cell is shown by lighting its rank LED and its file LED together. Two or more cells cannot
be shown at once without ambiguity (e2 and g1 would also light e1 and g2), so lit cells take
turns: each is shown for `alternate_ms`, in ascending cell order. Blinking applies per cell
on top. Each LED has its own pin (active level `active`), listed in board order: rank_pins[0]
is rank 1, file_pins[0] is file a. Pins are written only when their level changes.
"""
from firmware.io.leds import LedDriver, LedError, MODE_MASK, mode_lit_into


class EdgeLeds(LedDriver):
    def __init__(self, rank_pins, file_pins, active=1, alternate_ms=500):
        LedDriver.__init__(self)
        if len(rank_pins) != 8 or len(file_pins) != 8:
            raise LedError("edge LEDs need 8 rank pins and 8 file pins, got %d and %d"
                           % (len(rank_pins), len(file_pins)))
        if alternate_ms < 1:
            raise LedError("alternate_ms must be >= 1, got %r" % (alternate_ms,))
        self._rank_set = tuple(p.value for p in rank_pins)
        self._file_set = tuple(p.value for p in file_pins)
        self._on = active
        self.alternate_ms = alternate_ms
        self._lit_cells = bytearray(64)
        self._n_lit = 0
        self.rank_on = -1  # rank LED lit now (0..7) or -1
        self.file_on = -1
        for s in self._rank_set:
            s(1 - active)
        for s in self._file_set:
            s(1 - active)

    def update(self, now_ms):
        """Show the cell whose turn it is (allocates nothing)."""
        pats = self._patterns
        if self._dirty:
            n = 0
            for c in range(64):
                if pats[c] & MODE_MASK:
                    self._lit_cells[n] = c
                    n += 1
            self._n_lit = n
            self._dirty = False
        rank = -1
        file = -1
        n = self._n_lit
        if n:
            cell = self._lit_cells[(now_ms // self.alternate_ms) % n]
            lit = self._mode_lit
            mode_lit_into(lit, now_ms)
            if lit[pats[cell] & MODE_MASK]:
                rank = cell >> 3
                file = cell & 7
        on = self._on
        if rank != self.rank_on:
            if self.rank_on >= 0:
                self._rank_set[self.rank_on](1 - on)
            if rank >= 0:
                self._rank_set[rank](on)
            self.rank_on = rank
        if file != self.file_on:
            if self.file_on >= 0:
                self._file_set[self.file_on](1 - on)
            if file >= 0:
                self._file_set[file](on)
            self.file_on = file
