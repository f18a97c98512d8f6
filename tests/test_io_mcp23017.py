"""MCP23017 sensors (firmware/io/mcp23017.py) on the modelled expanders (host_sim/pins.py
FakeMcp23017): configuration, one read a chip, cell maps, active-low and active-high sensors,
and the faults: a chip missing at start-up or lost mid-scan, a bus held low, a chip that
lost its configuration. Under MicroPython: a scan allocates nothing with the heap locked."""
import copy
import random

import pytest

from boards.config import BoardConfigError, build_hardware, validate
from boards.pico_mcp import CONFIG as MCP
from firmware.io.matrix import SensorConfigError
from firmware.io.mcp23017 import Mcp23017Sensors, describe_cells
from host_sim.electronics import VirtualBoardElectronics, build_simulated
from host_sim.pins import MCP_GPPU, MCP_IODIR, MCP_IPOL, FakeI2C, FakeMcp23017, FakePinFactory
from tests.mpy import PICO_HEAP, run_mpy


def _bitmap(cells):
    out = bytearray(8)
    for c in cells:
        out[c >> 3] |= 1 << (c & 7)
    return out


def _cells(bitmap):
    return {c for c in range(64) if bitmap[c >> 3] & (1 << (c & 7))}


def _config(**sensor):
    cfg = copy.deepcopy(MCP)
    cfg["sensor"].update(sensor)
    return cfg


def _scan(hw):
    b = bytearray(8)
    hw.sensors.scan_into(b)
    return _cells(b)


@pytest.mark.parametrize("cell_map", ["identity", "rot180", "transpose", "serpentine"])
@pytest.mark.parametrize("addrs", [[0x20, 0x21, 0x22, 0x23], [0x27, 0x20, 0x24, 0x21],
                                   [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27]], ids=["4", "4-mixed", "8"])
def test_scan_reads_random_boards(cell_map, addrs):
    elec, hw = build_simulated(_config(cell_map=cell_map, addrs=addrs))
    rng = random.Random(len(addrs) * 100 + len(cell_map))
    for n in (0, 1, 2, 16, 32, 40, 64):
        cells = set(rng.sample(range(64), n))
        for c in range(64):
            elec.set_cell(c, c in cells)
        assert _scan(hw) == cells, (n, sorted(cells))
    assert hw.faults == []


def test_each_chip_is_configured_once_and_read_in_one_transaction():
    elec, hw = build_simulated(MCP)
    for addr, chip in elec.expanders.items():
        assert bytes(chip.regs[MCP_IODIR:MCP_IODIR + 2]) == b"\xff\xff"  # all inputs
        assert bytes(chip.regs[MCP_IPOL:MCP_IPOL + 2]) == b"\xff\xff"  # active low: a piece reads 1
        assert bytes(chip.regs[MCP_GPPU:MCP_GPPU + 2]) == b"\xff\xff"  # pull-ups on
        assert chip.configured == 2, hex(addr)
    bus = elec.sensor_bus
    before = bus.reads
    hw.sensors.scan_into(bytearray(8))
    assert bus.reads - before == 4  # GPIOA and GPIOB together, one read per chip
    writes = len(bus.log)
    for _ in range(10):
        hw.sensors.scan_into(bytearray(8))
    assert len(bus.log) == writes  # scans write nothing


def test_the_display_keeps_its_own_bus():
    elec, hw = build_simulated(MCP)
    assert MCP["display"]["i2c"] != MCP["sensor"]["i2c"]
    assert set(elec.sensor_bus.devices) == {0x20, 0x21, 0x22, 0x23}
    assert set(elec.i2c.devices) == {0x3C}
    elec.sensor_bus.held_low = True  # the sensor bus dies: the display still shows what happened
    _scan(hw)
    _scan(hw)
    hw.display.show_text(hw.faults[0])
    assert hw.display.fault is None and elec.display.read_text() == [hw.faults[0][:21]]


def test_active_high_sensors_read_through_the_polarity_register():
    elec, hw = build_simulated(_config(active=1, pullups=False))
    for chip in elec.expanders.values():
        assert bytes(chip.regs[MCP_IPOL:MCP_IPOL + 2]) == b"\x00\x00"
        assert bytes(chip.regs[MCP_GPPU:MCP_GPPU + 2]) == b"\x00\x00"
    for c in (0, 9, 33, 63):
        elec.set_cell(c, True)
    assert _scan(hw) == {0, 9, 33, 63}


def test_forgotten_pull_ups_are_seen_by_the_model():
    # Active-low sensors without pull-ups float: the model refuses to guess a level.
    i2c = FakeI2C()
    i2c.attach(0x20, FakeMcp23017(lambda pin: None, 0x20))
    for a in (0x21, 0x22, 0x23):
        i2c.attach(a, FakeMcp23017(lambda pin: None, a))
    with pytest.raises(RuntimeError, match="floats"):
        Mcp23017Sensors(i2c, [0x20, 0x21, 0x22, 0x23], pullups=False)


def test_a_chip_missing_at_start_up_is_reported_by_address_and_the_rest_plays():
    cfg = copy.deepcopy(MCP)
    elec = VirtualBoardElectronics(cfg)
    elec.unplug(0x22)  # nothing answers at 0x22 from power-on
    hw = build_hardware(cfg, FakePinFactory(elec))
    assert hw.faults == ["0x22 off: ranks 5-6 (MCP23017 ENODEV)"]
    assert hw.sensors.missing == 1 << 2
    elec.set_cell(3, True)
    elec.set_cell(40, True)  # rank 6: on the missing chip
    assert _scan(hw) == {3}
    assert hw.sensors.chip_of(40) == 0x22


def test_a_chip_lost_mid_game_keeps_its_squares_and_comes_back():
    elec, hw = build_simulated(_config(retry_scans=4))
    start = set(range(16)) | set(range(48, 64))
    for c in start:
        elec.set_cell(c, True)
    assert _scan(hw) == start
    elec.unplug(0x20)  # ranks 1-2 go dark: a wire came loose
    elec.set_cell(8, False)
    elec.set_cell(20, True)
    assert _scan(hw) == start | {20}  # 0x20's squares as they were; the others still read
    assert hw.faults == [] and hw.sensors.missing == 0  # one failed read: noise, said nothing
    assert _scan(hw) == start | {20}
    assert hw.faults == ["0x20 off: ranks 1-2 (MCP23017 ENODEV)"]  # the second: a lost chip
    asked = []
    plain = elec.sensor_bus.readfrom_mem_into
    elec.sensor_bus.readfrom_mem_into = lambda addr, reg, buf: (asked.append(addr), plain(addr, reg, buf))
    tried = []
    plain_write = elec.sensor_bus.writeto_mem
    elec.sensor_bus.writeto_mem = lambda addr, reg, buf: (tried.append(addr), plain_write(addr, reg, buf))
    for _ in range(40):
        assert _scan(hw) == start | {20}
    assert 0x20 not in asked and asked.count(0x21) >= 40  # the lost chip is not read between retries
    assert tried == [0x20] * 3  # retried (a configuration write) once every 4 chips x 4 scans
    assert hw.faults == ["0x20 off: ranks 1-2 (MCP23017 ENODEV)"]  # said once
    elec.plug(0x20)  # back, with its registers at power-on values (pull-ups off)
    for _ in range(16):
        _scan(hw)
    assert _scan(hw) == (start - {8}) | {20}
    assert hw.faults[-1] == "0x20 on again: ranks 1-2 (MCP23017)"
    assert bytes(elec.expanders[0x20].regs[MCP_GPPU:MCP_GPPU + 2]) == b"\xff\xff"


def test_a_bus_held_low_stops_nothing():
    elec, hw = build_simulated(_config(retry_scans=2))
    elec.set_cell(5, True)
    assert _scan(hw) == {5}
    elec.sensor_bus.held_low = True
    for _ in range(20):
        assert _scan(hw) == {5}
    assert hw.sensors.missing == 0b1111
    assert [f.split(" (")[0] for f in hw.faults] == ["0x20 off: ranks 1-2", "0x21 off: ranks 3-4",
                                                      "0x22 off: ranks 5-6", "0x23 off: ranks 7-8"]
    assert all("ETIMEDOUT" in f for f in hw.faults)
    elec.sensor_bus.held_low = False
    elec.set_cell(60, True)
    for _ in range(16):
        _scan(hw)
    assert _scan(hw) == {5, 60} and hw.sensors.missing == 0


def test_a_chip_that_lost_its_configuration_is_set_up_again():
    # A brown-out resets a chip without it ever missing a read: pull-ups off, polarity plain.
    elec, hw = build_simulated(_config(retry_scans=2))
    elec.set_cell(17, True)
    chip = elec.expanders[0x21]
    chip.floating = 0
    chip.power_cycle()
    assert 17 not in _scan(hw)  # polarity and pull-ups gone: the chip reads nonsense for now
    for _ in range(8):  # every chip gets its check within retry_scans * 4 scans
        _scan(hw)
    assert bytes(chip.regs[MCP_IPOL:MCP_IPOL + 2]) == b"\xff\xff"
    assert bytes(chip.regs[MCP_GPPU:MCP_GPPU + 2]) == b"\xff\xff"
    assert _scan(hw) == {17}


def test_no_i2c_bus_at_all_is_a_fault_not_a_crash():
    elec = VirtualBoardElectronics(MCP)
    factory = FakePinFactory(elec)

    def refuse(bus_id, scl, sda, freq_hz):
        if bus_id == 0:
            raise ValueError("bad SCL pin")
        return elec.bus(bus_id)

    factory.i2c = refuse
    hw = build_hardware(copy.deepcopy(MCP), factory)
    assert hw.faults[0] == "sensors: no I2C bus 0 (bad SCL pin)"
    assert any("0x20 off" in f for f in hw.faults)
    assert _scan(hw) == set()


def test_describe_cells():
    assert describe_cells(list(range(16, 32))) == "ranks 3-4"
    assert describe_cells(list(range(8))) == "rank 1"
    assert describe_cells(sorted(r * 8 + f for r in range(8) for f in (0, 1))) == "files a-b"
    assert describe_cells([0, 9, 18, 27, 36]) == "a1 b2 c3 +2"


BAD = [
    ("no sda", lambda s: s.pop("sda"), "sensor mcp23017 needs an 'sda' pin"),
    ("three chips", lambda s: s.update(addrs=[0x20, 0x21, 0x22]), "'addrs' needs 4 addresses"),
    ("address twice", lambda s: s.update(addrs=[0x20, 0x21, 0x21, 0x23]), "address 0x21 given twice"),
    ("address off range", lambda s: s.update(addrs=[0x20, 0x21, 0x22, 0x3C]), "address 60 is not 0x20..0x27"),
    ("active", lambda s: s.update(active="low"), "sensor 'active' must be 0"),
    ("pull-ups", lambda s: s.update(pullups=1), "'pullups' must be True or False"),
    ("bus speed", lambda s: s.update(freq_hz=5), "'freq_hz' must be an int"),
    ("sda used twice", lambda s: s.update(sda=16), "pin 16 used twice"),
]


@pytest.mark.parametrize("what,change,message", BAD, ids=[b[0] for b in BAD])
def test_a_bad_sensor_entry_is_refused_naming_board_and_entry(what, change, message):
    cfg = copy.deepcopy(MCP)
    change(cfg["sensor"])
    with pytest.raises(BoardConfigError) as e:
        validate(cfg)
    assert str(e.value).startswith("board pico_mcp: ") and message in str(e.value), str(e.value)


def test_a_display_on_the_sensor_bus_shares_it_but_not_an_address():
    cfg = copy.deepcopy(MCP)
    cfg["display"].update(i2c=0, sda=4, scl=5)
    elec, hw = build_simulated(cfg)  # one bus: the chips and the display on it
    assert set(elec.sensor_bus.devices) == {0x20, 0x21, 0x22, 0x23, 0x3C}
    hw.display.show_text("ok")
    elec.set_cell(1, True)
    assert _scan(hw) == {1} and elec.display.read_text() == ["ok"]
    cfg["display"]["addr"] = 0x21
    with pytest.raises(BoardConfigError, match="board pico_mcp: display address 0x21 is also an MCP23017"):
        validate(cfg)
    cfg["display"].update(addr=0x3C, sda=8, scl=9)
    with pytest.raises(BoardConfigError, match="both on I2C0 with different pins"):
        validate(cfg)


def test_driver_arguments_are_checked():
    with pytest.raises(SensorConfigError, match="4 chips"):
        Mcp23017Sensors(FakeI2C(), [0x20, 0x21])
    with pytest.raises(SensorConfigError, match="given twice"):
        Mcp23017Sensors(FakeI2C(), [0x20, 0x21, 0x22, 0x20])
    with pytest.raises(SensorConfigError, match="active"):
        Mcp23017Sensors(FakeI2C(), [0x20, 0x21, 0x22, 0x23], active=2)


# ---- under MicroPython ------------------------------------------------------------------------
MPY_SCAN = r"""
from firmware.compat import heap_lock, heap_unlock
from firmware.io.mcp23017 import Mcp23017Sensors
class Bus:
    # allocation-free: 4 chips' registers in one bytearray, a missing chip raises a
    # preallocated OSError (as a real bus's error is the chip's business, not the scan's)
    def __init__(s):
        s.regs = bytearray(22 * 4)
        s.pins = bytearray(8)  # GPIOA, GPIOB per chip as the sensors drive them (1 = high)
        for i in range(8): s.pins[i] = 0xFF
        s.gone = -1
        s.err = OSError(19)
    def writeto_mem(s, addr, reg, buf):
        k = addr - 0x20
        if k == s.gone: raise s.err
        for i in range(len(buf)): s.regs[22 * k + reg + i] = buf[i]
    def readfrom_mem_into(s, addr, reg, buf):
        k = addr - 0x20
        if k == s.gone: raise s.err
        for i in range(len(buf)):
            r = reg + i
            if r == 0x12 or r == 0x13:
                buf[i] = s.pins[2 * k + r - 0x12] ^ s.regs[22 * k + 2 + r - 0x12]
            else:
                buf[i] = s.regs[22 * k + r]
bus = Bus()
faults = []
m = Mcp23017Sensors(bus, [0x20, 0x21, 0x22, 0x23], faults=faults, retry_scans=3)
bus.pins[0] = 0xFE   # a1 (chip 0 GPA0) pulled low: a piece
bus.pins[7] = 0x7F   # h8 (chip 3 GPB7)
b = bytearray(8)
r = "ok"

def locked_scans():  # 30 scans with the heap locked: "ok", or "allocated"
    r = "ok"
    heap_lock()
    try:
        for i in range(30):
            m.scan_into(b)
    except MemoryError:
        r = "allocated"
    heap_unlock()
    return r

print(locked_scans(), list(b))
bus.gone = 1
m.scan_into(b)
m.scan_into(b)
print(faults)
print(locked_scans(), list(b))
"""


def test_scan_allocates_nothing_under_micropython():
    out = run_mpy(MPY_SCAN, heapsize=PICO_HEAP).splitlines()
    assert out[0] == "ok [1, 0, 0, 0, 0, 0, 0, 128]", out
    assert out[1] == "['0x21 off: ranks 3-4 (MCP23017 ENODEV)']", out
    # a missing chip: the others are still read without allocating, and its retries (every 3
    # scans, one chip a slot) raise the bus's own preallocated error
    assert out[2] == "ok [1, 0, 0, 0, 0, 0, 0, 128]", out


def test_allocation_in_a_scan_would_be_seen():
    code = MPY_SCAN.split("b = bytearray(8)")[0] + r"""
r = "no allocation"
heap_lock()
try:
    m.scan_into(bytearray(8))
except MemoryError:
    r = "allocated"
heap_unlock()
print(r)
"""
    assert run_mpy(code).strip() == "allocated"
