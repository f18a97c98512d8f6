"""The Millennium ChessLink protocol on the emulated stock Pico (host_sim/rp2040/, docs/pin-model.md)
through its USB serial: the firmware as `make flash BOARD=pico` leaves it (from the saved flash,
PicoBoard.saved_flash), powered on with the start position on the reed switches, switched into
the e-board mode with the buttons (a long *level* opens the options, *takeback* steps back to
the last item, *E-board*, two *hint* presses choose Millennium, *ok* closes the menu). A host
written from the protocol's description (tests/eboard_hosts.py) then asks V and S, sees 1.e4
made on the switches, lights the reply e7-e5 with L (read back from the WS2812 data pin), turns
it off with X, sends a message with odd parity in bit 7 as 7-bit hosts do, and is still
answered after junk (Ctrl-C among it: a byte of the protocol in this mode).

Skipped, with the reason, without node or the emulator (`make emulators`).
"""
import time

import chess
import pytest

from tests.eboard_hosts import ChessLinkHost, corner_leds
from tools.emulated_pico import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"


def odd(byte):
    return bin(byte).count("1") % 2 == 1


def wait_display(b, accept, what, timeout_ms=8000, step_ms=150):
    """Run until the SSD1306's text satisfies accept(lines) (None after timeout_ms emulated)."""
    waited = 0
    while True:
        lines = b.display_text()
        if lines and accept(lines):
            return lines
        if waited >= timeout_ms:
            return None
        b.run(step_ms)
        waited += step_ms


def press_until(b, name, accept, what, tries=3, **kw):
    """Press `name` until the display shows what accept() takes: a press can fall into a long
    main-loop pass on the chip (a feature module loading), so one that changed nothing is
    pressed again."""
    for _ in range(tries):
        b.press(name, **kw)
        if wait_display(b, accept, what) is not None:
            return
    raise AssertionError("%s: the display shows %s" % (what, b.display_text()))


class Link:
    """The host's end of the board's USB serial (the runner's TCP port)."""

    def __init__(self, pico):
        self.pico = pico
        self.raw = b""  # every byte the board sent since the last clear()
        pico.buf = b""

    def clear(self):
        self.raw = b""

    def send(self, data):
        self.pico.write(data)

    def receive(self, host, done, timeout=60):
        """Feed the board's bytes to `host` until done() (the timeout is a limit, not a measure)."""
        p = self.pico
        p.connect()
        deadline = time.monotonic() + timeout
        while True:
            if p.buf:
                self.raw += p.buf
                host.feed(p.buf)
                p.buf = b""
            if done():
                return
            assert b"Traceback" not in self.raw, self.raw
            if not p._fill(deadline):
                raise AssertionError("no answer in %d s; the board sent %r" % (timeout, self.raw[-300:]))


def status_after(link, host, placement, timeout=60):
    """Ask S until the answer shows `placement` (the report follows the switches at once; the
    board is asked again only when an answer showed something else)."""
    deadline = time.monotonic() + timeout
    while True:
        host.messages = []
        link.send(host.encode("S"))
        link.receive(host, lambda: any(m[0] == "s" for m in host.messages), timeout=max(1, deadline - time.monotonic()))
        shown = [host.placement(m) for m in host.messages if m[0] == "s"]
        if placement in shown:
            return
        assert time.monotonic() < deadline, "S shows %s, not %s" % (shown, placement)


def test_chesslink_through_the_usb_serial_of_the_emulated_pico():
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard, wait_lit

    b = PicoBoard()
    try:
        image, _ = b.saved_flash()  # this build's flash, saved once (make flash BOARD=pico)
        b.power_on(image, occupied={sq for sq in chess.SQUARES if b.board.piece_at(sq)})  # main.py runs
        # the options menu: E-board is the last item, one *takeback* back from the first
        press_until(b, "level", lambda t: t[0].startswith("Options 1/"), "a long level", long=True)
        press_until(b, "takeback", lambda t: t[1] == "E-board:", "takeback to E-board")
        assert b.display_text()[2] == "off"
        press_until(b, "hint", lambda t: t[2] == "DGT", "hint: DGT")
        press_until(b, "hint", lambda t: t[2] == "Millennium", "hint: Millennium")
        press_until(b, "ok", lambda t: t[-1] == "E-board: Millennium", "ok closes the menu")

        link = Link(b.pico)
        host = ChessLinkHost()
        link.send(host.encode("V") + host.encode("S"))
        link.receive(host, lambda: [m[0] for m in host.messages] == ["v", "s"])
        assert host.messages[0] == "v0100"
        assert host.placement(host.messages[1]) == START
        host.bad = 0  # what came before were the console's answers while the board booted
        # the console's commands are not read: "status" is junk to the protocol
        link.clear()
        host.messages = []
        link.send(b"status\r\n" + host.encode("V"))
        link.receive(host, lambda: "v0100" in host.messages)
        assert b"ply" not in link.raw, link.raw

        # 1.e4 made on the switches: the report follows
        b.lift("e2")
        b.run(250)
        b.place("e4")
        status_after(link, host, AFTER_E4)

        # the host lights its reply e7-e5 (its four corners each, steady): those two squares light
        host.messages = []
        link.send(host.encode("L32" + corner_leds(("e7", "e5"))))
        link.receive(host, lambda: "l" in host.messages)
        lit = wait_lit(b, lambda lit: set(lit) == {"e7", "e5"}, timeout=60)
        assert lit == {"e7": ("on", "move"), "e5": ("on", "move")}
        host.messages = []
        link.send(host.encode("X"))
        link.receive(host, lambda: "x" in host.messages)
        wait_lit(b, lambda lit: not lit, timeout=60)

        # a host that sends 7 data bits with odd parity: answered with the parity bit set
        link.clear()
        host.messages = []
        link.send(host.encode("V", parity=True))
        link.receive(host, lambda: "v0100" in host.messages)
        start = [byte & 0x7F for byte in link.raw].index(ord("v"))
        reply = link.raw[start:start + 7]  # v, four digits, the check
        assert len(reply) == 7 and all(odd(byte) for byte in reply), reply
        assert any(byte & 0x80 for byte in reply), reply  # "0100" and the check need the bit

        # junk, Ctrl-C among it, then a valid V: still answered, and the board still follows
        host.messages = []
        link.send(b"\x03\x03junk\xff\x00ZZ" + host.encode("V"))
        link.receive(host, lambda: "v0100" in host.messages)
        status_after(link, host, AFTER_E4)
        assert host.bad == 0
    finally:
        b.stop()
