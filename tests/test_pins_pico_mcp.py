"""The pico_mcp board on an emulated Pico, pin for pin: the firmware `make flash BOARD=pico_mcp`
writes (powered on from the saved flash of this build, PicoBoard.saved_flash) on the emulated
stock Pico whose I2C0 carries four modelled MCP23017s (host_sim/rp2040/board.mjs: registers,
polarity, pull-ups, every byte timed at the bus's clock) and whose I2C1 carries the SSD1306.

What only the chip shows: main.py configures the expanders through machine.I2C; a short game is
played by closing and opening the sensors behind them, the computer's reply read from the LEDs
and made by hand; a lifted piece lights its targets within 50 ms of emulated time; a chip
unplugged is said by its address on the console and the display; with the whole bus held low
the main loop goes on, every chip is said, the game is kept, and once the bus is free the chips
are configured again and a move is counted. The rest of the board's behaviour (a game with a
missing chip, moves on its squares once it is back, the self-test's map and fault scan, the
command line) is covered in the simulator by tests/test_mcp_board.py.

Skipped, with the reason, without node or the emulator (`make emulators` installs it).
"""
import time

import chess
import pytest

from tools.emulated_pico import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

NODES = 40  # every search's node cap
ADDRS = (0x20, 0x21, 0x22, 0x23)
REACTION_MS = 50  # the project's budget: a lifted piece's targets lit within this (emulated time)


@pytest.fixture(scope="module")
def board():
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard

    b = PicoBoard("pico_mcp")  # no runner until one is needed: saved_flash starts it to flash
    try:
        b.image = b.saved_flash()[0]
        yield b
    finally:
        b.stop()


def _wait_display(b, text, timeout_ms=3000):
    """Until a line of the SSD1306 (its RAM read back) starts with `text`, in emulated time."""
    waited = 0
    while not any(line.startswith(text) for line in b.display_text()):
        assert waited < timeout_ms, "display: %s" % b.display_text()
        b.run(100)
        waited += 100


def _said(b, text):
    return [line for line in b.pico.transcript if text in line]


def _wait_said(b, texts):
    """Until the console printed a line holding each of `texts` (the status queries read the
    firmware's lines into the transcript); returns the status then."""
    from host_sim.rp2040.pico_board import wait_status

    return wait_status(b, lambda s: all(_said(b, t) for t in texts), timeout=180)


def test_game_reaction_and_faults_on_the_expanders(board):
    from host_sim.rp2040.pico_board import play, wait_computer, wait_status
    from host_sim.rp2040.reaction import lift_to_targets

    b = board
    t0 = time.monotonic()
    # power on from the flash: main.py boots with the pieces in the start position
    boot = b.power_on(b.image, occupied=[sq for sq in chess.SQUARES if b.board.piece_at(sq)])
    assert not any("Traceback" in line or "fault" in line for line in boot), boot
    regs = b.expander_registers()
    assert sorted(regs) == list(ADDRS)
    for addr, r in regs.items():  # inputs, polarity inverted (active low), pull-ups on
        assert r[0:4] == [0xFF] * 4 and r[0x0C:0x0E] == [0xFF, 0xFF], (hex(addr), r)
    b.console("nodes %d" % NODES, lambda line: line == "ok")
    wait_status(b, lambda s: s[0] == "player")

    # a short game through the expanders' inputs: the computer answers, its move is made
    play(b, "e2e4")
    play(b, wait_computer(b))
    record = b.game()
    assert record == [m.uci() for m in b.board.move_stack] and len(record) == 2

    # a lifted knight lights its targets within the budget (the LEDs decoded from the data pin)
    b.run(500)
    hit, _gap = lift_to_targets(b, "g1", limit_ms=REACTION_MS)
    assert hit is not None, "g1's targets not lit %d emulated ms after the lift" % REACTION_MS
    wait_status(b, lambda s: s[0] == "player" and s[1] == 2)

    # a chip unplugged: said by its address and squares, on the console and the display
    b.unplug(0x22)  # ranks 5-6
    _wait_display(b, "0x22 off: ranks 5-6")  # shown for a few seconds: looked at first
    _wait_said(b, ["fault: 0x22 off: ranks 5-6 (MCP23017"])
    assert b.game() == record

    # the whole bus held low: the main loop answers, every chip is said, the game is kept
    b.hold_bus(0)
    status = _wait_said(b, ["fault: 0x%02x off" % a for a in ADDRS])
    assert status[:2] == ("player", 2), status
    b.run(500)
    assert b.game() == record
    # the bus free and the chip back: every chip configured again, a move counted
    b.hold_bus(0, low=False)
    b.plug(0x22)
    _wait_said(b, ["fault: 0x%02x on again" % a for a in ADDRS])
    assert all(r[0x0C:0x0E] == [0xFF, 0xFF] for r in b.expander_registers().values())
    move = next(m for m in b.board.legal_moves
                if not (b.board.is_capture(m) or b.board.is_castling(m) or m.promotion)
                and chess.square_rank(m.to_square) in (2, 3))
    play(b, move)
    assert b.game() == record + [move.uci()]
    print("pico_mcp at the pins: %.0f s host, %.1f s emulated; lift to targets %.0f ms emulated"
          % (time.monotonic() - t0, b.now_ms() / 1000, hit))
