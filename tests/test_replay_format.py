"""Sensor-log format: parser errors, round trip, and the firmware-side logger on both
interpreters (its lines must parse with the simulator's reader)."""
import io

import pytest

from firmware.features.sensor_log import SensorLog as FirmwareLog, SensorLogError, cell_name, open_sensor_log
from host_sim.replay import Event, LogFormatError, Recorder, SensorLog, parse_event
from tests.mpy import run_mpy


def test_every_cell_name_round_trips_through_the_parser():
    for cell in range(64):
        ev = parse_event("5 lift %s" % cell_name(cell))
        assert ev.arg == cell_name(cell)
        assert (int(ev.arg[1]) - 1) * 8 + "abcdefgh".index(ev.arg[0]) == cell


@pytest.mark.parametrize("text, words", [
    ("12 lift", "expected '<time_ms> <action> <argument>'"),
    ("x lift e2", "not a whole number"),
    ("-5 lift e2", "negative"),
    ("5 jump e2", "unknown action 'jump'"),
    ("5 lift e9", "not a square"),
    ("5 place zz", "not a square"),
    ("5 press hi!nt", "not a button name"),
    ("5 lift e2 Q", "expected 'lift <square>'"),
    ("5 place e4 X", "expected 'place <square> [piece letter]'"),
    ("5 place e4 Q q", "expected 'place <square> [piece letter]'"),
])
def test_bad_event_lines_name_the_problem(text, words):
    with pytest.raises(LogFormatError) as e:
        parse_event(text, 7)
    assert words in str(e.value) and "line 7" in str(e.value)


def test_log_parse_checks_order_version_and_header():
    with pytest.raises(LogFormatError, match="line 3: time 5 goes back before 10"):
        SensorLog.parse("# reedchess sensor log 1\n10 lift e2\n5 place e4\n")
    with pytest.raises(LogFormatError, match="version 2"):
        SensorLog.parse("# reedchess sensor log 2\n")
    with pytest.raises(LogFormatError, match="seed"):
        SensorLog.parse("# seed: many\n")
    with pytest.raises(LogFormatError, match="human"):
        SensorLog.parse("# human: purple\n")
    log = SensorLog.parse("# reedchess sensor log 1\n# board: esp32\n\n0 lift e2\n# comment: later\n300 place e4\n"
                          "400 note pawn slid over e3\n")
    assert log.header == {"board": "esp32"}
    assert [e.text() for e in log.events] == ["0 lift e2", "300 place e4", "400 note pawn slid over e3"]
    assert parse_event("7 place E4 q").arg == "e4 q"
    assert SensorLog.parse(log.text()).events == log.events


def test_load_reports_missing_file_and_bad_line_with_path(tmp_path):
    with pytest.raises(LogFormatError, match="cannot read"):
        SensorLog.load(str(tmp_path / "missing.log"))
    p = tmp_path / "bad.log"
    p.write_text("0 lift e2\n1 fly e4\n")
    with pytest.raises(LogFormatError, match=r"bad.log: line 2"):
        SensorLog.load(str(p))


def test_recorder_writes_what_the_parser_reads():
    out = io.StringIO()
    rec = Recorder(out, {"board": "pico", "seed": 3})
    rec.event(0, "lift", "e2")
    rec.event(250, "place", "e4")
    rec.event(900, "hold", "level")
    with pytest.raises(LogFormatError):
        rec.event(100, "lift", "d2")
    log = SensorLog.parse(out.getvalue())
    assert log.header == {"board": "pico", "seed": "3"}
    assert log.events == [Event(0, "lift", "e2"), Event(250, "place", "e4"), Event(900, "hold", "level")]


def test_firmware_logger_lines_parse_and_survive_a_full_flash(tmp_path):
    path = tmp_path / "sensors.log"
    log = open_sensor_log(str(path), "pico", now_ms=(1 << 30) - 100)  # just before the tick wrap
    log.sensor(12, 0, (1 << 30) - 50)
    log.sensor(28, 1, 200)  # after the wrap: 300 ms after the start
    log.button("hint", 1, 900)
    log.button("level", 2, 2000)
    log.note("moved\nslowly", 2100)
    log.close()
    parsed = SensorLog.load(str(path))
    assert parsed.header == {"board": "pico", "source": "firmware"}
    assert [e.text() for e in parsed.events] == ["50 lift e2", "300 place e4", "1000 press hint",
                                                 "2100 hold level", "2200 note moved slowly"]
    for bad in ((64, 0), (-1, 1), (3, 2)):
        with pytest.raises(SensorLogError):
            log.sensor(bad[0], bad[1], 0)
    with pytest.raises(SensorLogError):
        log.button("hint", 3, 0)

    class FullFlash(io.StringIO):
        def write(self, s):
            if self.tell() > 60:
                raise OSError(28, "no space")
            return super().write(s)

    full = FirmwareLog(FullFlash(), "pico")
    for t in range(5):
        full.sensor(t, 0, t)
    assert not full.enabled and full.dropped >= 1 and full.lines >= 2


def test_firmware_logger_runs_under_micropython_on_debounced_events():
    code = r"""
import io
from firmware.io.debounce import OccupancyDebouncer, event_cell, event_kind
from firmware.features.sensor_log import SensorLog
deb = OccupancyDebouncer(30)
board = bytearray(8)
board[1] = 0xFF
deb.reset(board, 0)
out = io.StringIO()
log = SensorLog(out, "pico", start_ms=0)
raw = bytearray(board)
t = 0
def feed(ms):
    global t
    for _ in range(ms // 10):
        t += 10
        deb.update(raw, t)
        ev = deb.pop()
        while ev >= 0:
            log.sensor(event_cell(ev), event_kind(ev), deb.event_ms)
            ev = deb.pop()
feed(100)
raw[1] &= ~(1 << 4)      # lift e2
feed(300)
raw[3] |= 1 << 4         # place e4
feed(300)
log.button("hint", 1, t)
print(out.getvalue())
"""
    text = run_mpy(code)
    log = SensorLog.parse(text)
    assert log.header["source"] == "firmware"
    assert [e.command() for e in log.events] == ["lift e2", "place e4", "press hint"]
    assert [e.time_ms for e in log.events] == [110, 410, 700]
