"""The pico_mcp board (four MCP23017 expanders on I2C) in the simulator: a game where the
computer answers and its move is made, from the API and from `python -m host_sim --lines`;
a chip lost in the middle of a game; the self-test's sensor map and fault scan naming a
silent chip by its address."""
import io

from host_sim import Simulator
from host_sim.__main__ import build, make_parser
from host_sim.tui import run_lines, square_index

FUN = 0  # the weakest level: quick replies


def test_a_game_on_the_expander_board():
    sim = Simulator(board="pico_mcp", seed=2, level=FUN, book=False)
    try:
        assert sim.hw.faults == []
        for move in ("e2e4", "g1f3"):
            sim.play(move)
            reply = sim.wait_computer()
            assert reply
            sim.play(reply)
        sim.settle()
        assert len(sim.game()) == 4 and sim.game()[0] == "e2e4"
        assert sim.electronics.sensor_bus.reads > 100  # the firmware read the chips, nothing else
    finally:
        sim.close()


def test_the_simulator_command_line_plays_the_board():
    args = make_parser().parse_args(["--board", "pico_mcp", "--lines", "--level", "1", "--seed", "3"])
    table = build(args)
    out = io.StringIO()
    try:
        run_lines(table, io.StringIO("e2e4\nwait 3s\ndo\nwait 1s\nmoves\n"), out, prompt="")
    finally:
        table.sim.close()
    text = out.getvalue()
    assert "board pico_mcp" in text
    assert "made the computer's move" in text, text[-2000:]
    moves = [line for line in text.splitlines() if line.startswith("1. e4 ")]
    assert moves and len(moves[-1].split()) == 3, text[-1500:]  # "1. e4 <the computer's reply>"


def test_a_chip_lost_mid_game_keeps_the_game():
    sim = Simulator(board="pico_mcp", seed=5, level=FUN, book=False)
    try:
        sim.play("e2e4")
        sim.play(sim.wait_computer())
        sim.settle()
        fen = sim.fen()
        elec = sim.electronics
        elec.unplug(0x20)  # ranks 1-2: a loose wire under White's pieces
        sim.run(500)
        assert "0x20 off: ranks 1-2 (MCP23017 ENODEV)" in sim.hw.faults
        assert "fault: 0x20 off: ranks 1-2 (MCP23017 ENODEV)" in sim.log_lines  # the console (print)
        assert sim.display_text()[1] == "0x20 off: ranks 1-2 (", sim.display_text()  # 21 characters
        assert sim.fen() == fen and not sim.lit()  # its squares kept: nothing moved for the firmware
        assert sim.state()["phase"] == "player"
        sim.play("e4e5")  # squares of the chips that answer: the game goes on
        sim.play(sim.wait_computer())
        sim.settle()
        assert len(sim.game()) == 4
        elec.plug(0x20)  # the wire back; the chip starts with its power-on registers
        sim.run(3000)
        assert sim.hw.faults[-1] == "0x20 on again: ranks 1-2 (MCP23017)"
        assert not sim.lit()
        sim.play("g1f3")  # its squares read again
        assert sim.wait_computer()
        assert sim.game()[4] == "g1f3"
    finally:
        sim.close()


def test_the_self_test_names_a_silent_chip():
    sim = Simulator(board="pico_mcp", seed=1, level=FUN, book=False, held_at_boot=("hint",))
    try:
        sim.run(500)
        sim.release("hint")
        sim.run(300)
        assert sim.display_text()[0] == "LED walk"
        sim.hold("new")
        sim.run(sim.config["long_press_ms"] + 100)
        sim.release("new")
        sim.run(200)
        sim.electronics.unplug(0x22)  # ranks 5-6
        sim.run(1500)  # within a retry round: every chip is looked at every 4 x 64 scans
        shown = sim.display_text()
        assert shown[:3] == ["Sensor map", "32 closed", "off: 0x22"], shown
        lit = sim.lit()
        assert all(lit.get(sq) == "blink-fast" for sq in ("a5", "h5", "a6", "h6")), lit
        for _ in range(3):  # fault scan, button test, then leave
            sim.hold("new")
            sim.run(sim.config["long_press_ms"] + 100)
            sim.release("new")
            sim.run(200)
        sim.run(2500)
        assert any(line.startswith("self-test: chip 0x22 (ranks 5-6): no answer") for line in sim.console_lines), \
            sim.console_lines
        assert square_index("a5") == 32
    finally:
        sim.close()
