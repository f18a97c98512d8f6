"""The full-screen terminal UI in a real terminal: tmux runs `python -m host_sim`, we type a
move and read the screen, then quit. Skipped only when tmux is not installed."""
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")


def _tmux(sock, *args, check=True):
    return subprocess.run([TMUX, "-L", sock] + list(args), capture_output=True, text=True, check=check)


def _screen(sock):
    return _tmux(sock, "capture-pane", "-p", "-t", "sim").stdout


def _wait_for(sock, predicate, timeout_s):
    deadline = time.monotonic() + timeout_s
    text = ""
    while time.monotonic() < deadline:
        text = _screen(sock)
        if predicate(text):
            return text
        time.sleep(0.2)
    raise AssertionError("screen never showed what was expected:\n" + text)


def test_full_screen_ui_plays_a_move_and_quits_cleanly(tmp_path):
    sock = "reedchess-test-%d" % os.getpid()
    log = tmp_path / "game.log"
    cmd = "cd %s && TERM=xterm-256color %s -m host_sim --speed 4 --record %s; echo EXIT=$?; sleep 30" % (
        ROOT, sys.executable, log)
    _tmux(sock, "new-session", "-d", "-s", "sim", "-x", "110", "-y", "40", cmd)
    try:
        first = _wait_for(sock, lambda t: "Reedchess simulator" in t and " 1 |" in t, 60)
        assert "R  N  B  Q  K  B  N  R" in first and "Display:" in first
        _tmux(sock, "send-keys", "-t", "sim", "e2e4", "Enter")
        text = _wait_for(sock, lambda t: "Computer: " in t and "Computer: -" not in t, 120)
        assert "1. e4" in text
        rows = [r for r in text.splitlines() if r.startswith(" 4 |")]
        assert rows and " P " in rows[0].replace("[", " ").replace("]", " ")
        _tmux(sock, "send-keys", "-t", "sim", "quit", "Enter")
        done = _wait_for(sock, lambda t: "EXIT=" in t, 30)
        assert "EXIT=0" in done and "Traceback" not in done
        assert "lift e2" in log.read_text() and "place e4" in log.read_text()
    finally:
        _tmux(sock, "kill-server", check=False)


# ---- a whole game, as a person plays it ------------------------------------------------------
_DISPLAY_LINE = re.compile(r"\|(.{21})\|\s*$")
_COMPUTER = re.compile(r"Computer: ([a-h][1-8][a-h][1-8][qrbn]?)  \(make it")
_HINT = re.compile(r"Hint:? ([a-h][1-8][a-h][1-8][qrbn]?)")


def _display(text):
    """The first two lines of the board's display, as drawn in the side panel."""
    rows = text.splitlines()
    for i, row in enumerate(rows):
        if "Display: +" in row:
            lines = [_DISPLAY_LINE.search(r) for r in rows[i + 1:i + 3]]
            return tuple(m.group(1).strip() if m else "" for m in lines)
    return ("", "")


def _our_turn(top):
    """The display's first line says it is our move ("Your move", "Your move +" in check)."""
    return top.startswith("Your move")


def _type(sock, line):
    _tmux(sock, "send-keys", "-t", "sim", line, "Enter")


@pytest.mark.slow
def test_a_whole_game_with_pondering_in_the_full_screen_ui(tmp_path):
    """`make sim` as a person uses it: 40+ plies against the computer with pondering on,
    each of our moves taken from a hint, the computer's made on the board (`do`), and on the
    way: hint while it ponders, the level menu opened and closed, a take back with the pieces
    put back, and *move* pressed while it ponders (it then plays our side). Any traceback or
    UI error on the screen fails the test."""
    sock = "reedchess-game-%d" % os.getpid()
    pgn = tmp_path / "game.pgn"
    cmd = "cd %s && TERM=xterm-256color %s -m host_sim --speed 10 --seed 5; echo EXIT=$?; sleep 60" % (
        ROOT, sys.executable)
    _tmux(sock, "new-session", "-d", "-s", "sim", "-x", "120", "-y", "45", cmd)
    done = set()  # the special actions already made
    seen_ponder = False
    try:
        _wait_for(sock, lambda t: "Reedchess simulator" in t and "Your move" in t, 60)
        deadline = time.monotonic() + 600
        last_change, last_text = time.monotonic(), ""
        plies = 0
        last_ply, last_ply_at = 0, time.monotonic()
        while time.monotonic() < deadline:
            text = _screen(sock)
            assert "Traceback" not in text and "EXIT=" not in text, text
            assert "UI error" not in text and "internal error" not in text, text
            if text != last_text:
                last_change, last_text = time.monotonic(), text
            elif time.monotonic() - last_change > 45:
                raise AssertionError("the screen stood still for 45 s:\n" + text)
            if plies != last_ply:
                last_ply, last_ply_at = plies, time.monotonic()
            elif time.monotonic() - last_ply_at > 120:  # the clock ticks, but the game does not go on
                raise AssertionError("no move for 120 s at ply %d:\n%s" % (plies, text))
            if "Result:" in text:
                break
            top, second = _display(text)
            pondering = "Thinking: pondering" in text
            seen_ponder = seen_ponder or pondering
            computer = _COMPUTER.search(text)
            if computer:
                _type(sock, "do")
                _wait_for(sock, lambda t: not _COMPUTER.search(t) or "Traceback" in t, 30)
                plies += 1
            elif top.startswith("I resign?"):  # the computer, lost, offers to resign: *move* plays on
                _type(sock, "move")
                _wait_for(sock, lambda t: not _display(t)[0].startswith("I resign?"), 30)
            elif top.startswith("Paused"):  # after the take back: the computer's side to move
                _type(sock, "move")
                _wait_for(sock, lambda t: not _display(t)[0].startswith("Paused"), 30)
            elif _our_turn(top):
                if pondering and plies >= 10 and "hint-while-pondering" not in done:
                    done.add("hint-while-pondering")
                elif plies >= 14 and "level-menu" not in done:
                    done.add("level-menu")
                    _type(sock, "level")
                    _wait_for(sock, lambda t: _display(t)[0].startswith("Level"), 20)
                    _type(sock, "level")  # the next level, then back: the game stays on its level
                    _type(sock, "takeback")
                    _type(sock, "ok")
                    _wait_for(sock, lambda t: _our_turn(_display(t)[0]), 20)
                    continue
                elif plies >= 20 and "takeback" not in done:
                    done.add("takeback")
                    _type(sock, "takeback")
                    _wait_for(sock, lambda t: "Check board" in t or "Paused" in t, 30)
                    _type(sock, "sync")  # the person puts the pieces back as the LEDs show
                    _wait_for(sock, lambda t: "Check board" not in t, 30)
                    plies -= 1
                    continue
                elif pondering and plies >= 26 and "move-while-pondering" not in done:
                    done.add("move-while-pondering")
                    _type(sock, "move")  # the computer plays our side now
                    _wait_for(sock, lambda t: _COMPUTER.search(t) or "Traceback" in t, 60)
                    continue
                _type(sock, "hint")
                hinted = _wait_for(sock, lambda t: _HINT.search(t) or "Traceback" in t, 60)
                move = _HINT.search(hinted).group(1)
                before = _display(hinted)[0]
                _type(sock, move)
                _wait_for(sock, lambda t, before=before: _display(t)[0] != before or "Traceback" in t, 30)
                plies += 1
            else:
                time.sleep(0.2)
            if plies >= 41:
                break
        else:
            raise AssertionError("the game stopped at ply %d after 600 s:\n%s" % (plies, _screen(sock)))
        _type(sock, "save %s" % pgn)
        _wait_for(sock, lambda t: "saved the game" in t, 20)
        _type(sock, "quit")
        end = _wait_for(sock, lambda t: "EXIT=" in t, 30)
        assert "EXIT=0" in end and "Traceback" not in end
    finally:
        _tmux(sock, "kill-server", check=False)
    assert seen_ponder, "the computer never pondered"
    assert done == {"hint-while-pondering", "level-menu", "takeback", "move-while-pondering"}, done
    import chess.pgn

    with open(pgn) as f:
        game = chess.pgn.read_game(f)
    board = game.board()
    for move in game.mainline_moves():  # every move is legal, in the firmware's own record
        assert move in board.legal_moves
        board.push(move)
    assert board.ply() >= 40 or board.is_game_over(), board.ply()
