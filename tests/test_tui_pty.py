"""The full-screen terminal UI in a real terminal: tmux runs `python -m host_sim`, we type a
move and read the screen, then quit. Skipped only when tmux is not installed."""
import os
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
