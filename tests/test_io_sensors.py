"""Sensor drivers read the modelled electronics correctly: reed matrix, 74HC165 chain, cell maps."""
import random

import pytest

from boards.esp32 import CONFIG as ESP32
from boards.pico import CONFIG as PICO
from firmware.io.cellmap import CellMapError, NAMES, invert, make_cell_map
from firmware.io.matrix import ReedMatrix, SensorConfigError
from firmware.io.shift165 import Shift165
from host_sim.electronics import build_simulated


def _bitmap(cells):
    out = bytearray(8)
    for c in cells:
        out[c >> 3] |= 1 << (c & 7)
    return out


def _with(config, **sensor):
    cfg = dict(config)
    cfg["sensor"] = dict(config["sensor"], **sensor)
    return cfg


@pytest.mark.parametrize("config", [PICO, ESP32], ids=["matrix", "shift165"])
@pytest.mark.parametrize("cell_map", ["identity", "rot180", "transpose", "mirror_files"])
def test_scan_reads_random_boards(config, cell_map):
    elec, hw = build_simulated(_with(config, cell_map=cell_map))
    rng = random.Random(hash(cell_map) & 0xFFFF)
    bitmap = bytearray(8)
    for n in (0, 1, 2, 16, 32, 40, 64):
        cells = set(rng.sample(range(64), n))
        for c in range(64):
            elec.set_cell(c, c in cells)
        hw.sensors.scan_into(bitmap)
        assert bitmap == _bitmap(cells), (n, sorted(cells))


def test_matrix_cell_map_routes_physical_switch_to_cell():
    # With the board turned round, the switch at wiring row 0 col 0 sits under cell 63.
    elec, hw = build_simulated(_with(PICO, cell_map="rot180"))
    elec.set_cell(63, True)
    assert elec._sensor_phys[63] == 0
    bitmap = bytearray(8)
    hw.sensors.scan_into(bitmap)
    assert bitmap == _bitmap([63])


def test_matrix_leaves_rows_idle_high_and_reads_only_driven_row():
    elec, hw = build_simulated(PICO)
    elec.set_cell(0, True)  # row 0, col 0
    rows = PICO["sensor"]["rows"]
    assert all(elec.levels[p] == 1 for p in rows)
    col0 = elec.pins[PICO["sensor"]["cols"][0]]
    assert col0.value() == 1  # no row driven: the pull-up wins
    hw.sensors.scan_into(bytearray(8))
    assert all(elec.levels[p] == 1 for p in rows)


def test_no_ghosting_with_diodes():
    # Three corners of a rectangle closed: without diodes the fourth would read closed.
    elec, hw = build_simulated(PICO)
    for c in (0, 1, 8):
        elec.set_cell(c, True)
    bitmap = bytearray(8)
    hw.sensors.scan_into(bitmap)
    assert bitmap == _bitmap([0, 1, 8])


class _RowPin:
    def __init__(self, board, r):
        self.board, self.r = board, r

    def value(self, v=None):
        self.board.row_levels[self.r] = v


class _PortBoard:
    """Fake with a one-register column read, for ReedMatrix(cols_port=(board, 0, 0))."""

    def __init__(self, cells):
        self.cells = set(cells)
        self.row_levels = [1] * 8
        self.reads = 0

    def __getitem__(self, address):
        assert address == 0
        self.reads += 1
        v = 0xFF
        for r in range(8):
            if self.row_levels[r] == 0:
                for c in range(8):
                    if r * 8 + c in self.cells:
                        v &= ~(1 << c)
        return v


def test_cols_port_fast_path_matches():
    cells = [3, 17, 40, 41, 63]
    board = _PortBoard(cells)
    dummy_cols = [_RowPin(board, 0)] * 8  # never read when cols_port is given
    m = ReedMatrix([_RowPin(board, r) for r in range(8)], dummy_cols, settle_us=0, cols_port=(board, 0, 0))
    bitmap = bytearray(8)
    m.scan_into(bitmap)
    assert bitmap == _bitmap(cells)
    assert board.reads == 8


def test_cols_port_with_a_rearranged_cell_map():
    # a map whose rows are not files a..h of one rank in order takes the bit-by-bit path
    from firmware.io.cellmap import make_cell_map

    cells = [0, 7, 9, 30, 33, 56, 62]
    for spec in ("serpentine", "rot180", "mirror_files", "transpose"):
        cmap = make_cell_map(spec)
        board = _PortBoard(cells)
        m = ReedMatrix([_RowPin(board, r) for r in range(8)], [_RowPin(board, 0)] * 8, settle_us=0,
                       cell_map=spec, cols_port=(board, 0, 0))
        assert m._row_rank is None, spec
        bitmap = bytearray(8)
        m.scan_into(bitmap)
        assert bitmap == _bitmap([cmap[p] for p in cells]), spec
    # ranks in another order, files in order: one store a row, still the right ranks
    flipped = make_cell_map("mirror_ranks")
    board = _PortBoard(cells)
    m = ReedMatrix([_RowPin(board, r) for r in range(8)], [_RowPin(board, 0)] * 8, settle_us=0,
                   cell_map="mirror_ranks", cols_port=(board, 0, 0))
    assert bytes(m._row_rank) == bytes(range(7, -1, -1))
    bitmap = bytearray(8)
    m.scan_into(bitmap)
    assert bitmap == _bitmap([flipped[p] for p in cells])


def test_machine_factory_reads_consecutive_rp2040_columns_in_one_register(monkeypatch):
    import sys
    import types

    from boards.machine_factory import MachineFactory

    fake = types.ModuleType("machine")
    fake.mem32 = object()
    monkeypatch.setitem(sys.modules, "machine", fake)
    monkeypatch.setattr("time.sleep_us", lambda us: None, raising=False)
    monkeypatch.setattr(sys.implementation, "_machine", "Raspberry Pi Pico with RP2040", raising=False)
    factory = MachineFactory()
    mem, address, shift = factory.cols_port([8, 9, 10, 11, 12, 13, 14, 15])
    assert (mem, address, shift) == (fake.mem32, 0xD0000004, 8)
    assert factory.cols_port([8, 9, 10, 11, 12, 13, 15, 14]) is None  # not in GPIO order
    monkeypatch.setattr(sys.implementation, "_machine", "ESP32 module with ESP32", raising=False)
    assert factory.cols_port([8, 9, 10, 11, 12, 13, 14, 15]) is None  # another chip


def test_settle_time_is_waited_per_row():
    waits = []
    board = _PortBoard([])
    m = ReedMatrix([_RowPin(board, r) for r in range(8)], [_RowPin(board, 0)] * 8, settle_us=15,
                   sleep_us=waits.append, cols_port=(board, 0, 0))
    m.scan_into(bytearray(8))
    assert waits == [15] * 8


def test_shift165_reads_in_chain_order():
    elec, hw = build_simulated(ESP32)
    # chip 1 input A = physical 8 = cell 8; chip 7 input H = physical 63
    for c in (8, 63, 7):
        elec.set_cell(c, True)
    bitmap = bytearray(8)
    clock = elec.pins[ESP32["sensor"]["clock"]]
    before = clock.writes
    hw.sensors.scan_into(bitmap)
    assert bitmap == _bitmap([7, 8, 63])
    assert clock.writes - before == 2 * 64  # 64 rising + 64 falling edges


def test_sensor_pin_count_errors():
    with pytest.raises(SensorConfigError, match="8 row pins and 8 column pins"):
        ReedMatrix([object()] * 7, [object()] * 8)
    with pytest.raises(SensorConfigError, match="data pin"):
        Shift165(_RowPin(None, 0), _RowPin(None, 0), None)


@pytest.mark.parametrize("name", NAMES)
def test_named_cell_maps_are_permutations_and_invert(name):
    cmap = make_cell_map(name)
    assert sorted(cmap) == list(range(64))
    inv = invert(cmap)
    assert all(inv[cmap[p]] == p for p in range(64))


def test_cell_map_examples():
    assert make_cell_map("serpentine")[8] == 15  # second row runs right to left
    assert make_cell_map("transpose")[1] == 8
    assert make_cell_map("mirror_ranks")[0] == 56
    assert make_cell_map(list(range(63, -1, -1))) == make_cell_map("rot180")


@pytest.mark.parametrize("spec,msg", [
    ("sideways", "unknown cell map"),
    (list(range(63)), "needs 64 entries"),
    ([0] * 64, "cell 0 twice"),
    (list(range(63)) + [64], "not a cell"),
    (42, "must be a name or 64 cells"),
])
def test_bad_cell_maps_fail_clearly(spec, msg):
    with pytest.raises(CellMapError, match=msg):
        make_cell_map(spec)


def test_shift165_over_hardware_spi_reads_the_same():
    cfg = _with(ESP32, spi={"id": 2, "baudrate": 2000000}, cell_map="rot180")
    elec, hw = build_simulated(cfg)
    cells = [0, 7, 8, 33, 62, 63]
    for c in cells:
        elec.set_cell(c, True)
    bitmap = bytearray(8)
    hw.sensors.scan_into(bitmap)
    assert bitmap == _bitmap(cells)
    assert elec.spi.reads == 1 and ESP32["sensor"]["clock"] not in elec.pins  # SCK belongs to SPI


def test_bad_spi_entry_fails_clearly():
    from boards.config import BoardConfigError, validate

    with pytest.raises(BoardConfigError, match="'spi' must be a dict with the bus 'id'"):
        validate(_with(ESP32, spi=2))
