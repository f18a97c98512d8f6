"""`python -m host_sim --eboard dgt|millennium --serial-link PATH` as a chess program meets it:
PATH is a pseudo-terminal the host opens like a board's USB port, while a person types moves
into the line UI. The hosts are tests/eboard_hosts.py (written from the protocol descriptions).
"""
import os
import subprocess
import sys
import time
import tty

import pytest

from tests.eboard_hosts import ChessLinkHost, DgtHost, corner_leds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals on this system")


class Session:
    def __init__(self, tmp_path, kind):
        self.path = str(tmp_path / "reedchess")
        self.proc = subprocess.Popen([sys.executable, "-m", "host_sim", "--eboard", kind, "--serial-link", self.path,
                                      "--lines"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not os.path.islink(self.path):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("no link at %s: %s" % (self.path, self.proc.stderr.read()))
            time.sleep(0.05)
        self.fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)

    def send(self, data):
        os.write(self.fd, data)

    def receive_until(self, host, done, timeout=20):
        """Feed the board's bytes to `host` until done() (polling; the wait is a limit, not a measure)."""
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError("the board did not answer in %d s" % timeout)
            try:
                host.feed(os.read(self.fd, 4096))
            except BlockingIOError:
                time.sleep(0.02)

    def type(self, line):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def close(self):
        os.close(self.fd)
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def test_millennium_on_the_simulators_link(tmp_path):
    s = Session(tmp_path, "millennium")
    try:
        host = ChessLinkHost()
        s.send(host.encode("V") + host.encode("S"))
        s.receive_until(host, lambda: [m[0] for m in host.messages] == ["v", "s"])
        assert host.placement(host.messages[1]) == START
        host.messages = []
        s.type("e2e4")  # the person at the board plays 1.e4 in the line UI
        s.receive_until(host, lambda: host.messages and host.placement(host.messages[-1]) == AFTER_E4)
        host.messages = []
        s.send(host.encode("S"))
        s.receive_until(host, lambda: host.messages)
        assert host.placement(host.messages[-1]) == AFTER_E4
        host.messages = []
        s.send(host.encode("L32" + corner_leds(("e7", "e5"))) + host.encode("X"))
        s.receive_until(host, lambda: [m[0] for m in host.messages if m[0] in "lx"] == ["l", "x"])
        s.send(b"\x00\xffjunk Z9 L1" + bytes(range(256)))
        time.sleep(0.7)  # longer than a half message may wait
        s.send(host.encode("V"))
        s.receive_until(host, lambda: "v" in [m[0] for m in host.messages])
        assert host.bad == 0
    finally:
        s.close()


def test_dgt_on_the_simulators_link(tmp_path):
    s = Session(tmp_path, "dgt")
    try:
        host = DgtHost()
        s.send(bytes((0x42, 0x4D)))
        s.receive_until(host, lambda: len(host.messages) == 2)
        assert [i for i, _ in host.messages] == [0x86, 0x93] and host.placement() == START
        host.messages = []
        s.send(b"\x44")  # update mode
        time.sleep(0.3)
        s.type("e2e4")
        s.receive_until(host, lambda: host.placement() == AFTER_E4)  # built from field updates alone
        assert [i for i, _ in host.messages] == [0x8E, 0x8E]  # e2 empty, a white pawn on e4
        s.send(b"\x42")
        s.receive_until(host, lambda: host.take(0x86))
        assert host.placement() == AFTER_E4
    finally:
        s.close()
