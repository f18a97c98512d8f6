"""Statistics in flash (a feature on demand: loaded for a count or a look, released after):
wins, draws and losses per level against the computer, and the mate trainer's results per
set (tries, successes, fewest moves, best time).

    stats = Stats("/", open_fn=open, fs=os, levels=26, sets=6)
    stats.load()                               # False: no (valid) file yet, all zero
    stats.record_game(level, WIN)              # WIN / DRAW / LOSS from the player's view
    stats.record_game(level, WIN, -1)          # ... taken back (the game goes on)
    stats.record_trainer(set_index, True, moves, time_ms)
    stats.games(level) -> (wins, draws, losses); stats.trainer(i) -> (tries, ok, best_moves, best_ms)
    stats.lines(level_names, set_names)        # text for the console and the display

One small file, `stats.bin`, rewritten whole after every change, atomically: the new content
goes to `stats.bin.new`, the old file is removed and the new one renamed into place; on load a
`.new` next to the old file is an unfinished rewrite (dropped), a `.new` alone was complete
(renamed). A CRC-16 guards the content; a damaged file counts as none.

    "RCS1", levels (1 byte), sets (1 byte), per level: wins, draws, losses (2 bytes each),
    per set: tries, successes, best moves (2 bytes each), best time ms (4 bytes), CRC-16

Storage comes in like the journal's (`open_fn`, `fs` with rename/remove); a failing flash
raises OSError to the caller, which plays on without statistics.
"""
from array import array

from firmware.compat import const
from firmware.controller.journal import crc16
from firmware.controller.flashfile import FlashFiles
from firmware.loader import call

WIN = const(0)
DRAW = const(1)
LOSS = const(2)
STATS_FILE = "stats.bin"
_MAGIC = b"RCS1"
_MAX = const(0xFFFF)


class StatsError(ValueError):
    """A bad level, set or outcome passed to Stats."""


class Stats:
    def __init__(self, path="", open_fn=None, fs=None, levels=26, sets=6):
        if not 0 < levels < 256 or not 0 <= sets < 256:
            raise StatsError("levels 1..255 and sets 0..255, got %r and %r" % (levels, sets))
        self.files = FlashFiles(path, open_fn, fs)
        self.path = path
        self.levels = levels
        self.sets = sets
        self.wdl = array("H", bytes(2 * 3 * levels))
        self.tries = array("H", bytes(2 * 4 * sets))  # tries, successes, best moves, spare
        self.best_ms = array("i", bytes(4 * sets))
        self.repaired = False

    def _name(self):
        return self.files.name(STATS_FILE)

    # ---- reading ---------------------------------------------------------------------------
    def load(self):
        """Read the file (finishing or dropping an interrupted rewrite). Returns True when a
        valid file was read; otherwise every count is zero."""
        name = self._name()
        self.files.recover_rewrite(name)
        self.clear(save=False)
        try:
            f = self.files.open(name, "rb")
        except OSError:
            return False
        try:
            data = f.read()
        finally:
            f.close()
        if len(data) < 8 or data[:4] != _MAGIC:
            self.repaired = True
            return False
        n_lv = data[4]
        n_sets = data[5]
        size = 6 + 6 * n_lv + 10 * n_sets
        if len(data) != size + 2:
            self.repaired = True
            return False
        c = crc16(data[:size])
        if data[size] != c >> 8 or data[size + 1] != c & 0xFF:
            self.repaired = True
            return False
        i = 6
        for lv in range(n_lv):
            for k in range(3):
                if lv < self.levels:
                    self.wdl[3 * lv + k] = data[i] << 8 | data[i + 1]
                i += 2
        for s in range(n_sets):
            if s < self.sets:
                for k in range(3):
                    self.tries[4 * s + k] = data[i + 2 * k] << 8 | data[i + 2 * k + 1]
                self.best_ms[s] = data[i + 6] << 24 | data[i + 7] << 16 | data[i + 8] << 8 | data[i + 9]
            i += 10
        return True

    def games(self, level):
        """(wins, draws, losses) of the player against the computer on `level`."""
        self._check_level(level)
        return self.wdl[3 * level], self.wdl[3 * level + 1], self.wdl[3 * level + 2]

    def trainer(self, index):
        """(tries, successes, fewest moves to mate, best time ms) of trainer set `index`
        (fewest moves and best time 0 until the first success)."""
        self._check_set(index)
        t = self.tries
        return t[4 * index], t[4 * index + 1], t[4 * index + 2], self.best_ms[index]

    # ---- changing -----------------------------------------------------------------------------
    def _check_level(self, level):
        if not isinstance(level, int) or not 0 <= level < self.levels:
            raise StatsError("level must be 0..%d, got %r" % (self.levels - 1, level))

    def _check_set(self, index):
        if not isinstance(index, int) or not 0 <= index < self.sets:
            raise StatsError("trainer set must be 0..%d, got %r" % (self.sets - 1, index))

    def record_game(self, level, outcome, delta=1):
        """Count a game's end on `level` (delta -1: uncount it, it was taken back); saves."""
        self._check_level(level)
        if outcome not in (WIN, DRAW, LOSS):
            raise StatsError("outcome must be WIN, DRAW or LOSS, got %r" % (outcome,))
        i = 3 * level + outcome
        v = self.wdl[i] + delta
        self.wdl[i] = 0 if v < 0 else (_MAX if v > _MAX else v)
        self.save()

    def record_trainer(self, index, success, moves, time_ms):
        """Count a trainer exercise of set `index`; a success may set a new best; saves."""
        self._check_set(index)
        t = self.tries
        j = 4 * index
        if t[j] < _MAX:
            t[j] += 1
        if success:
            if t[j + 1] < _MAX:
                t[j + 1] += 1
            if moves > 0 and (t[j + 2] == 0 or moves < t[j + 2]):
                t[j + 2] = moves if moves < _MAX else _MAX
            if time_ms > 0 and (self.best_ms[index] == 0 or time_ms < self.best_ms[index]):
                self.best_ms[index] = time_ms if time_ms < 0x3FFFFFFF else 0x3FFFFFFF
        self.save()

    def clear(self, save=True):
        for i in range(len(self.wdl)):
            self.wdl[i] = 0
        for i in range(len(self.tries)):
            self.tries[i] = 0
        for i in range(self.sets):
            self.best_ms[i] = 0
        if save:
            self.save()

    def to_bytes(self):
        out = bytearray(_MAGIC)
        out.append(self.levels)
        out.append(self.sets)
        for v in self.wdl:
            out.append(v >> 8)
            out.append(v & 0xFF)
        for s in range(self.sets):
            for k in range(3):
                v = self.tries[4 * s + k]
                out.append(v >> 8)
                out.append(v & 0xFF)
            v = self.best_ms[s]
            for shift in (24, 16, 8, 0):
                out.append((v >> shift) & 0xFF)
        c = crc16(out)
        out.append(c >> 8)
        out.append(c & 0xFF)
        return bytes(out)

    def save(self):
        """Rewrite the file atomically (see flashfile.py)."""
        self.files.rewrite(self._name(), self.to_bytes())

    # ---- showing ---------------------------------------------------------------------------------
    def lines(self, level_names=(), set_names=()):
        """Text lines (<= 21 characters): every level with games, then every trainer set."""
        out = []
        for lv in range(self.levels):
            w, d, lo = self.games(lv)
            if w or d or lo:
                name = level_names[lv] if lv < len(level_names) else ""
                out.append(("L%d %s" % (lv + 1, name))[:21])
                out.append("  +%d =%d -%d" % (w, d, lo))
        for s in range(self.sets):
            tries, ok, moves, ms = self.trainer(s)
            name = set_names[s] if s < len(set_names) else str(s + 1)
            line = "%s %d/%d" % (name, ok, tries)
            if ok:
                line += " %dmv %s" % (moves, call("firmware.features.clock", "format_ms", ms))
            out.append(line[:21])
        return out
