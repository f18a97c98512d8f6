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
