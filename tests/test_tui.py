"""The terminal UI's command layer on the real Simulator (firmware, io drivers on simulated
pins, simulated clock): a game with a capture, castling, a take back and a hint, typed the way
a person types it; the line UI; `python -m host_sim` in a pipe."""
import io
import os
import subprocess
import sys

import chess
import pytest

from host_sim import Simulator
from host_sim.tui import CommandError, Table, run_lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVELOP = ("e2e4", "g1f3", "f1c4", "f1e2", "d2d3", "b1c3", "c2c3", "h2h3", "a2a3")


@pytest.fixture
def table():
    sim = Simulator(seed=1, level=0)  # the fastest level: the test is about the UI
    yield Table(sim)
    sim.close()


def _our_move(fen, done):
    """Castle when we can, else take something, else develop: a game that shows it all."""
    board = chess.Board(fen)
    legal = {m.uci(): m for m in board.legal_moves}
    if "e1g1" in legal and not done["castled"]:
        return "e1g1"
    if not done["captured"]:
        caps = sorted(u for u, m in legal.items() if board.is_capture(m))
        if caps:
            return caps[0]
    for u in DEVELOP:
        if u in legal:
            return u
    return sorted(legal)[0]


def _physical_matches_firmware(t):
    return t.sim.board_fen() == t.sim.fen().split()[0] == chess.Board(t.sim.fen()).board_fen() and \
        "".join(t.snapshot()["hand"]) == ""


def test_a_game_with_capture_castling_takeback_and_hint(table):
    t = table
    done = {"castled": False, "captured": False}
    for _ in range(14):
        if done["castled"] and done["captured"]:
            break
        fen = t.sim.fen()
        move = _our_move(fen, done)
        board = chess.Board(fen)
        was_capture = board.is_capture(chess.Move.from_uci(move))
        t.execute(move)
        assert t.sim.game()[-2:][0] == move or t.sim.game()[-1] == move
        if move == "e1g1":
            done["castled"] = True
            assert t.pieces[6] == "K" and t.pieces[5] == "R"  # g1, f1
        if was_capture:
            done["captured"] = True
            assert t.box  # the victim is off the board
        cm = t.sim.computer_move()
        assert cm, t.screen_text()
        lit = t.lit()
        assert lit.get(cm[:2]) == "on" and lit.get(cm[2:4]) == "on"
        assert "Computer: " + cm in t.screen_text()
        t.execute("do")
        assert t.sim.game()[-1] == cm and _physical_matches_firmware(t)
    assert done == {"castled": True, "captured": True}
    san_moves = [s for _, s in t.move_list()]
    assert "O-O" in san_moves and any("x" in s for s in san_moves)

    # take back: the firmware drops the last move and guides the pieces back with its LEDs
    before = t.sim.game()
    t.execute("takeback")
    assert t.sim.game() == before[:-1]
    assert t.lit(), "the take back must light the squares to correct"
    t.execute("sync")  # put the pieces back as the LEDs say
    t.settle()
    assert _physical_matches_firmware(t) and not t.lit()

    # hint: two squares blink, naming a legal move; the board is unchanged
    t.execute("hint")
    hint = t.state().get("hint")
    lit = t.lit()
    assert hint and chess.Move.from_uci(hint) in chess.Board(t.sim.fen()).legal_moves
    assert lit == {hint[:2]: "blink", hint[2:4]: "blink"}
    assert t.pgn().count("O-O") == 1


def test_fine_control_capture_by_hand_and_wrong_square_error(table):
    t = table
    t.execute("lift e2")
    t.execute("place e4")
    cm = t.sim.computer_move()
    assert t.sim.game() == ["e2e4"] and cm
    # execute the computer's move on the wrong square: the firmware flags it at once
    wrong_to = "h6" if cm[2:4] != "h6" else "a6"
    t.execute("lift " + cm[:2])
    t.execute("place " + wrong_to)
    assert t.state().get("errors") or set(t.lit().values()) & {"blink", "blink_fast"}
    t.execute("lift " + wrong_to)
    t.execute("place " + cm[2:4])
    assert t.sim.game() == ["e2e4", cm] and t.sim.computer_move() is None


def test_promotion_choice_by_buttons():
    sim = Simulator(seed=0, level=0, fen="8/1P5k/8/8/8/8/8/K7 w - - 0 1", book=False)
    try:
        t = Table(sim)
        t.execute("b7b8n")
        assert t.sim.game()[0] == "b7b8n" and t.pieces[57] == "N"
    finally:
        sim.close()


def test_bad_input_never_crashes_the_session(table):
    out = io.StringIO()
    table.execute("e2e5")  # a hand can make an illegal move: the firmware blinks and waits
    assert table.sim.game() == [] and set(table.lit().values()) & {"blink", "blink_fast"}
    table.execute("e5e2")
    assert not table.lit()
    script = "lift z9\nplace e4\nhold frobnicate\ne2e4\nmoves\nquit\n"
    run_lines(table, io.StringIO(script), out)
    text = out.getvalue()
    assert "error: 'z9' is not a square" in text and "error: your hand is empty" in text
    assert "no 'frobnicate' button" in text and "1. e4" in text
    with pytest.raises(CommandError):
        table.execute("arrange 9/9")


def test_python_m_host_sim_in_a_pipe_plays_and_exits_cleanly(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "host_sim", "--level", "1", "--board", "esp32s3"],
                          input="help\ne2e4\ndo\nfen\nquit\n", capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "board esp32s3 (matrix LEDs)" in out and "Display: (none on this board)" in out
    assert "hold <button>" in out and out.rstrip().endswith("bye")
    fen_line = [ln for ln in out.splitlines() if ln.startswith("> ") and "/" in ln]
    assert fen_line and " w " in fen_line[-1]  # after e4 and the computer's answer: White to move
    bad = subprocess.run([sys.executable, "-m", "host_sim", "--board", "nope"], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and "unknown board 'nope'" in bad.stderr and "pico" in bad.stderr
