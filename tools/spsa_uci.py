"""The UCI engine with every tuned number as a UCI option, for tools/spsa.py (the way
Stockfish's TUNE() exposes its numbers): a tuner sets numbers by `setoption` between games
and keeps its engines running instead of starting (and compiling) them again.

    micropython -m tools.spsa_uci        (MICROPYPATH: the project's root)

A host tool, never flashed: it runs the firmware's own UciSession (on MicroPython or CPython)
and changes numbers where the engine reads them at run time. Options (`uci` lists them with
their values at start; each is a spin, 0..65535):

- `RFP_MARGIN`: a number of tunables.py. search.py, evaluate.py and endgame.py read the
  ones they import as module globals (changed there); the evaluation's terms are packed into
  its array again (evaluate.pack_terms) from tunables.py with the new value.
- `FUTILITY_MARGIN[2]`: one entry of a table of tunables.py.
- `KING_ATTACK_PENALTY%`: a whole table of tunables.py, scaled to this percentage of its
  value at start (rounded).
- `MATERIAL_MG[2]`: a piece's material (pesto.py, kind 1 pawn .. 5 queen): the difference to
  the value in force is added to all of that piece's piece-square cells.
- `KNIGHT_MG%`: a piece-square table of pesto.py (PAWN_MG .. KING_EG) scaled about its mean to
  this percentage (`scale_about_mean`), so the piece's material stays what it was.

The next `position` builds a new Position, so its incremental sums use the new material.
Not options: ORDER_VALUE (move ordering's piece values, copied into an array at import) and
HISTORY_MAX (the bound of the 16-bit history cells).
"""
from firmware import uci
from firmware.engine import endgame, evaluate, search

_KINDS = 6  # pawn .. king; material is tuned for 1..5
_MAX = 65535  # the evaluation's terms are unsigned 16-bit cells
_UNTUNED = ("ORDER_VALUE", "HISTORY_MAX")  # an array copy at import; 16-bit history cells
_PST_NAMES = ("PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING")  # pesto.py's tables, kind 1..6
_PAWN_RANKS = (8, 56)  # a pawn's table: only ranks 7..2 (rank 8 first) hold a pawn


def _rounded(x, d):
    """x / d (d > 0) rounded half away from zero, so a table and its negation scale alike."""
    return (2 * x + d) // (2 * d) if x >= 0 else -((d - 2 * x) // (2 * d))


def scale_about_mean(cells, percent, pawn=False):
    """A piece-square table (64 cells) with every cell's distance from the table's mean scaled
    to `percent`; a pawn's first and last ranks stay 0. Also tools/spsa.py's `write`."""
    low, high = _PAWN_RANKS if pawn else (0, 64)
    mean = _rounded(sum(cells[low:high]), high - low)
    return tuple(mean + _rounded((v - mean) * percent, 100) if low <= i < high else v
                 for i, v in enumerate(cells))


class TuningSession(uci.UciSession):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        evaluate.init()  # installs the tables, drops tunables.py (imported again below)
        from firmware.engine import pesto

        self.material = {"MATERIAL_MG": list(pesto.MATERIAL_MG), "MATERIAL_EG": list(pesto.MATERIAL_EG)}
        from firmware.engine import tunables  # a fresh copy: init() dropped the first

        self.tunables = tunables
        self.pesto = pesto
        self.pst_percent = {}  # e.g. "KNIGHT_MG": 100
        for name in _PST_NAMES:
            self.pst_percent[name + "_MG"] = self.pst_percent[name + "_EG"] = 100
        self.start = {}  # tables as they were, for NAME%
        for name in dir(self.tunables):
            value = getattr(self.tunables, name)
            if name.isupper() and name not in _UNTUNED and isinstance(value, tuple):
                self.start[name] = value

    def option_lines(self):
        lines = super().option_lines()
        spin = "option name %s type spin default %d min 0 max %d"
        for name in sorted(dir(self.tunables)):
            value = getattr(self.tunables, name)
            if name.isupper() and name not in _UNTUNED and isinstance(value, int):
                lines.append(spin % (name, value, _MAX))
        for name in sorted(self.start):
            lines.append(spin % (name + "%", 100, _MAX))
            for i, value in enumerate(self.start[name]):
                lines.append(spin % ("%s[%d]" % (name, i), value, _MAX))
        for name in sorted(self.pst_percent):
            lines.append(spin % (name + "%", 100, _MAX))
        for name in sorted(self.material):
            for kind in range(1, _KINDS):
                lines.append(spin % ("%s[%d]" % (name, kind), self.material[name][kind], _MAX))
        return lines

    def cmd_setoption(self, args):
        if "value" not in args or len(args) < 4 or args[0] != "name":
            return super().cmd_setoption(args)
        split = args.index("value")
        name = " ".join(args[1:split])
        text = " ".join(args[split + 1:])
        if not (name.isupper() or name.startswith("MATERIAL")) or name in _UNTUNED:
            return super().cmd_setoption(args)  # Hash, OwnBook, ...
        if not text.isdigit() or int(text) > _MAX:
            raise uci.UciError("%s must be 0..%d, got %r" % (name, _MAX, text))
        value = int(text)
        if name.endswith("%"):
            self.scale(name[:-1], value)
        elif name.endswith("]"):
            base, _, index = name[:-1].partition("[")
            if not index.isdigit():
                raise uci.UciError("unknown option %r" % name)
            self.set_entry(base, int(index), value)
        else:
            self.set_value(name, value)
        self.head = None  # the next `position` makes a new Position (material in its sums)

    def scale(self, name, percent):
        if name in self.pst_percent:
            self.pst_percent[name] = percent
            self.install_pst(name)
            return
        if name not in self.start:
            raise uci.UciError("unknown option %r" % (name + "%"))
        self.put(name, tuple((v * percent + 50) // 100 for v in self.start[name]))

    def set_entry(self, name, index, value):
        if name in self.material:
            self.set_material(name, index, value)
            return
        if name not in self.start or index >= len(self.start[name]):
            raise uci.UciError("unknown option %r" % ("%s[%d]" % (name, index)))
        table = list(getattr(self.tunables, name))
        table[index] = value
        self.put(name, tuple(table))

    def set_value(self, name, value):
        if name in _UNTUNED or not isinstance(getattr(self.tunables, name, None), int):
            raise uci.UciError("unknown option %r" % name)
        self.put(name, value)

    def put(self, name, value):
        """The new value where the engine reads it (see the module's docstring)."""
        setattr(self.tunables, name, value)
        for module in (search, evaluate, endgame):
            if hasattr(module, name):
                setattr(module, name, value)
        evaluate.pack_terms(self.tunables)

    def set_material(self, name, kind, value):
        if not 1 <= kind < _KINDS:
            raise uci.UciError("unknown option %r" % ("%s[%d]" % (name, kind)))
        from firmware.engine.position import PIECE_BASE, PST_EG, PST_MG

        cells = PST_MG if name == "MATERIAL_MG" else PST_EG
        change = value - self.material[name][kind]
        for sq in range(128):
            if not sq & 0x88:
                cells[PIECE_BASE[kind] + sq] += change
                cells[PIECE_BASE[kind | 8] + sq] -= change
        self.material[name][kind] = value

    def install_pst(self, name):
        """One piece-square table, scaled to its percentage, with the material in force, into
        position.py's cells (as pesto.install writes them)."""
        from firmware.engine.position import PIECE_BASE, PST_EG, PST_MG

        kind = _PST_NAMES.index(name[:-3]) + 1
        stage = name[-2:]
        cells, material = (PST_MG, self.material["MATERIAL_MG"]) if stage == "MG" else (
            PST_EG, self.material["MATERIAL_EG"])
        table = scale_about_mean(getattr(self.pesto, name), self.pst_percent[name], kind == 1)
        bias = self.pesto._BIAS
        for sq64 in range(64):
            rank, file = sq64 >> 3, sq64 & 7
            value = material[kind] + table[(7 - rank) * 8 + file]
            cells[PIECE_BASE[kind] + rank * 16 + file] = bias + value
            cells[PIECE_BASE[kind | 8] + (7 - rank) * 16 + file] = bias - value


def main():
    uci.main(TuningSession)


if __name__ == "__main__":
    main()
