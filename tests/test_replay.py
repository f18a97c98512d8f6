"""Sensor-log replay on the real Simulator: a recorded session replayed on a fresh simulator
reproduces the same game (moves, firmware position, physical pieces); the command line's
--record / --replay; a log the board cannot perform is refused with its line number."""
import io
import os
import subprocess
import sys

import pytest

from host_sim import Simulator
from host_sim.replay import LogFormatError, Recorder, SensorLog, replay
from host_sim.tui import Table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _session(table):
    """A short game with a hint, a take back and a capture, whatever the computer plays."""
    import chess

    for move in ("e2e4", "d2d4", "g1f3"):
        board = chess.Board(table.sim.fen())
        legal = sorted(m.uci() for m in board.legal_moves)
        caps = [m for m in legal if board.is_capture(chess.Move.from_uci(m))]
        table.execute(caps[0] if caps else (move if move in legal else legal[0]))
        table.execute("do")
    table.execute("hint")
    table.execute("takeback")
    table.execute("sync")
    table.execute("wait 1s")


def test_a_recorded_session_replays_to_the_same_game():
    stream = io.StringIO()
    with Simulator(seed=5, level=1) as sim:
        t = Table(sim, recorder=Recorder(stream, {"board": "pico", "seed": 5, "level": 2}))
        _session(t)
        game, fen, pieces = sim.game(), sim.fen(), sim.board_fen()
    assert len(game) == 5  # three moves each, one taken back
    log = SensorLog.parse(stream.getvalue())
    assert {"lift", "place", "press"} <= {e.action for e in log.events}
    with Simulator(seed=5, level=1) as sim2:
        t2 = Table(sim2)
        seen = []
        assert replay(t2, log, on_event=lambda ev, reply: seen.append(ev.command())) == len(log.events)
        t2.settle()
        assert seen[:2] == ["lift e2", "place e4 P"]
        assert (sim2.game(), sim2.fen(), sim2.board_fen()) == (game, fen, pieces)


def test_replay_refuses_what_the_board_cannot_do():
    log = SensorLog.parse("# board: esp32s3\n0 lift e2\n300 place e4\n900 press ok\n")
    with Simulator(seed=0, board="esp32s3", level=0) as sim:
        with pytest.raises(LogFormatError, match=r"line 4 \(900 press ok\).*no 'ok' button"):
            replay(Table(sim), log)
    log = SensorLog.parse("0 lift e5\n")
    with Simulator(seed=0, level=0) as sim:
        with pytest.raises(LogFormatError, match="line 1.*no piece on e5"):
            replay(Table(sim), log)


def test_command_line_record_then_replay(tmp_path):
    path = tmp_path / "game.log"
    rec = subprocess.run([sys.executable, "-m", "host_sim", "--seed", "4", "--level", "1", "--record", str(path)],
                         input="e2e4\ndo\nd2d4\nmoves\nquit\n", capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert rec.returncode == 0, rec.stderr
    header = SensorLog.load(str(path)).header
    assert header == {"board": "pico", "human": "white", "seed": "4", "level": "1", "source": "simulator"}
    moves = [ln for ln in rec.stdout.splitlines() if ln.startswith("> 1. e4")][-1]
    rep = subprocess.run([sys.executable, "-m", "host_sim", "--replay", str(path)], input="moves\nquit\n",
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert rep.returncode == 0, rep.stderr
    assert "replaying 6 events" in rep.stdout and "lift e2" in rep.stdout
    assert [ln for ln in rep.stdout.splitlines() if ln.startswith("> 1. e4")][-1] == moves
    bad = tmp_path / "bad.log"
    bad.write_text("0 lift e2\n5 teleport e4\n")
    out = subprocess.run([sys.executable, "-m", "host_sim", "--replay", str(bad)], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert out.returncode == 2 and "line 2" in out.stderr and "teleport" in out.stderr


def test_a_log_written_by_the_firmware_logger_replays():
    """The firmware's own logger (run here under MicroPython on debounced events of a scripted
    move) writes what the simulator replays: the same move reaches the replayed firmware."""
    from tests.mpy import run_mpy

    code = r"""
import io
from firmware.io.debounce import OccupancyDebouncer, event_cell, event_kind
from firmware.features.sensor_log import SensorLog
deb = OccupancyDebouncer(30)
raw = bytearray(b"\xff\xff\x00\x00\x00\x00\xff\xff")
deb.reset(raw, 0)
out = io.StringIO()
log = SensorLog(out, "pico", start_ms=0)
t = 0
def feed(ms):
    global t
    for _ in range(ms // 2):
        t += 2
        deb.update(raw, t)
        ev = deb.pop()
        while ev >= 0:
            log.sensor(event_cell(ev), event_kind(ev), deb.event_ms)
            ev = deb.pop()
feed(500)
raw[1] &= ~(1 << 3)      # lift d2
feed(250)
raw[3] |= 1 << 3         # place d4
feed(1500)
log.button("hint", 1, t)
print(out.getvalue())
"""
    log = SensorLog.parse(run_mpy(code))
    assert [e.command() for e in log.events] == ["lift d2", "place d4", "press hint"]
    with Simulator(seed=0, level=0) as sim:
        t = Table(sim)
        replay(t, log)
        t.settle()
        assert sim.game()[0] == "d2d4" and t.pieces[27] == "P"


def test_the_app_logs_every_sensor_event_and_the_log_replays_to_the_same_game():
    """The App's sensor-log hook (a board setting on a real unit) records what the firmware
    saw; replaying that file in a fresh simulator gives the same game."""
    from firmware.features.sensor_log import SensorLog as FirmwareLog

    stream = io.StringIO()
    with Simulator(seed=3, level=0, sensor_log=FirmwareLog(stream, "pico", start_ms=0)) as sim:
        t = Table(sim)
        t.execute("e2e4")
        t.execute("do")
        t.execute("hint")
        t.execute("wait 1s")
        game = sim.game()
    log = SensorLog.parse(stream.getvalue())
    commands = [e.command() for e in log.events]
    assert commands[:2] == ["lift e2", "place e4"]
    assert "press hint" in commands
    assert len(game) == 2  # e2e4 and the computer's reply, executed on the board
    with Simulator(seed=3, level=0) as sim:
        t = Table(sim)
        replay(t, log)
        t.settle()
        assert sim.game() == game
