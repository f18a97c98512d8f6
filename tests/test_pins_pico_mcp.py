"""The pico_mcp board on an emulated Pico, pin for pin: `make flash BOARD=pico_mcp` into the
emulated stock Pico whose I2C0 carries four modelled MCP23017s (host_sim/rp2040/board.mjs:
registers, polarity, pull-ups, every byte timed at the bus's clock) and whose I2C1 carries the
SSD1306. main.py boots and configures the chips; a game is played by closing and opening the
sensors behind the expanders, the computer's move read from the LEDs; a lifted piece lights its
targets; a chip unplugged and a bus held low are reported by address on the console and the
display while the game is kept.

Skipped, with the reason, without node or the emulator (`make emulators` installs it).
"""
import time

import pytest

from tools.emulated_pico import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

NODES = 40


@pytest.fixture(scope="module")
def board():
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard

    b = PicoBoard("pico_mcp")
    b.start()
    try:
        b.flash_or_reuse()
        yield b
    finally:
        b.stop()


def test_game_faults_and_reaction_on_the_expanders(board):
    from host_sim.rp2040.pico_board import play, wait_computer, wait_status
    from host_sim.rp2040.reaction import lift_to_targets

    b = board
    t0 = time.monotonic()
    boot = b.boot()
    assert not any("Traceback" in line or "fault" in line for line in boot), boot
    regs = b.expander_registers()
    assert sorted(regs) == [0x20, 0x21, 0x22, 0x23]
    for addr, r in regs.items():  # inputs, polarity inverted (active low), pull-ups on
        assert r[0:4] == [0xFF] * 4 and r[0x0C:0x0E] == [0xFF, 0xFF], (hex(addr), r)
    b.console("nodes %d" % NODES, lambda line: line == "ok")
    wait_status(b, lambda s: s[0] == "player")
    # a game: the human's moves and the computer's, all through the expanders' inputs
    play(b, "e2e4")
    play(b, wait_computer(b))
    play(b, "g1f3")
    play(b, wait_computer(b))
    record = b.game()
    assert record == [m.uci() for m in b.board.move_stack] and len(record) == 4
    # a lifted piece lights its targets (the emulated ms go to docs/benchmarks.md via
    # host_sim.rp2040.reaction --board pico_mcp)
    b.run(500)
    hit, _gap = lift_to_targets(b, "b1")
    assert hit is not None, "b1's targets never lit"
    b.run(500)
    # a chip unplugged: said by address, its squares kept, the game goes on
    b.unplug(0x22)  # ranks 5-6
    b.run(1500)
    wait_status(b, lambda s: s[0] == "player")
    lines = b.pico.transcript
    assert any("fault: 0x22 off: ranks 5-6 (MCP23017" in line for line in lines), lines[-12:]
    assert b.game() == record
    play(b, "d2d3")  # ranks 2-3: the chips that answer
    reply = wait_computer(b)  # it may land on the silent ranks: made once the chip is back
    b.plug(0x22)
    b.run(2500)
    play(b, reply)
    assert any("fault: 0x22 on again: ranks 5-6" in line for line in b.pico.transcript), b.pico.transcript[-12:]
    # the whole bus held low: every chip said, nothing stops
    ply = len(b.board.move_stack)
    b.hold_bus(0)
    b.run(2500)
    assert wait_status(b, lambda s: True)[1] == ply
    said = [line for line in b.pico.transcript if "fault: 0x2" in line and " off: " in line]
    assert {line.split("fault: ")[1][:4] for line in said} >= {"0x20", "0x21", "0x23"}, said
    b.hold_bus(0, low=False)
    b.run(4000)
    play(b, next(m for m in b.board.legal_moves if not (b.board.is_capture(m) or b.board.is_castling(m)
                                                        or m.promotion)))  # the chips read again
    assert b.game() == [m.uci() for m in b.board.move_stack]
    print("pico_mcp at the pins: %.0f s host, %.1f s emulated; lift to targets %.0f ms" %
          (time.monotonic() - t0, b.now_ms() / 1000, hit))
