"""Physical wiring position -> board cell, as data.

io speaks of *cells* 0..63 of an 8x8 grid in board orientation: `cell = rank * 8 + file`,
cell 0 is the a1 corner, 7 is h1, 63 is h8 (the controller maps cells to chess squares).

A driver reads or drives 64 *physical* positions (matrix row*8+col, 74HC165 chip*8+input,
NeoPixel index, LED matrix row*8+col). A cell map is a bytearray(64) with
`cell_map[physical] = cell`; `make_cell_map(spec)` builds one from:

- None or "identity": physical p is cell p;
- "rot180": the board is turned round (p -> 63 - p);
- "mirror_files": file order reversed (h..a);
- "mirror_ranks": rank order reversed (8..1);
- "transpose": rows of the wiring are files, columns are ranks;
- "serpentine": a zig-zag LED chain (odd rows run right to left);
- "serpentine_rot180": a zig-zag chain entering at the h8 end;
- any sequence of 64 ints that is a permutation of 0..63.

A spec that is not a permutation raises CellMapError naming the problem.
"""


class CellMapError(ValueError):
    """A cell map is not a permutation of 0..63, or its name is unknown."""


NAMES = ("identity", "rot180", "mirror_files", "mirror_ranks", "transpose", "serpentine", "serpentine_rot180")


def _named(name, p):
    row = p >> 3
    col = p & 7
    if name == "identity":
        return p
    if name == "rot180":
        return 63 - p
    if name == "mirror_files":
        return row * 8 + 7 - col
    if name == "mirror_ranks":
        return (7 - row) * 8 + col
    if name == "transpose":
        return col * 8 + row
    if name == "serpentine":
        return row * 8 + (col if row % 2 == 0 else 7 - col)
    if name == "serpentine_rot180":
        return 63 - (row * 8 + (col if row % 2 == 0 else 7 - col))
    raise CellMapError("unknown cell map %r (known: %s)" % (name, ", ".join(NAMES)))


def make_cell_map(spec=None):
    """Return a new bytearray(64) with `map[physical] = cell` for `spec` (see module doc)."""
    out = bytearray(64)
    if spec is None or isinstance(spec, str):
        name = spec or "identity"
        for p in range(64):
            out[p] = _named(name, p)
        return out
    try:
        values = list(spec)
    except TypeError:
        raise CellMapError("cell map must be a name or 64 cells, not %r" % (spec,))
    if len(values) != 64:
        raise CellMapError("cell map needs 64 entries, got %d" % len(values))
    seen = bytearray(64)
    for p in range(64):
        c = values[p]
        if not isinstance(c, int) or c < 0 or c > 63:
            raise CellMapError("cell map entry %d is %r, not a cell 0..63" % (p, c))
        if seen[c]:
            raise CellMapError("cell map gives cell %d twice (second time at position %d)" % (c, p))
        seen[c] = 1
        out[p] = c
    return out


def invert(cell_map):
    """Return a new bytearray(64) with `inv[cell] = physical`."""
    inv = bytearray(64)
    for p in range(64):
        inv[cell_map[p]] = p
    return inv
