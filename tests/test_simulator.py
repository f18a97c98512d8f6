"""The Simulator itself: its API (docs/architecture.md, "Interfaces that stay stable"),
physical move orders through the whole stack (pins -> scan -> debounce -> board sync ->
controller), other boards, the serial console, error reporting, and the simulated
electronics under MicroPython."""
import chess
import pytest

from firmware.engine.levels import find_level
from host_sim import Simulator
from host_sim.simulator import SimulatorError
from tests.mpy import run_mpy

DEPTH2 = find_level("Depth 2")


def test_api_basics():
    sim = Simulator(seed=0, level=DEPTH2, book=False)
    assert sim.lit() == {} and sim.computer_move() is None and sim.game() == []
    assert sim.fen() == chess.STARTING_FEN
    sim.lift("e2")
    sim.place("e4")
    sim.run(600)
    assert sim.game() == ["e2e4"]
    move = sim.wait_computer()
    lit = sim.lit()
    assert lit == {move[:2]: "on", move[2:4]: "on"}
    assert all(p in ("on", "blink", "blink-fast") for p in lit.values())
    assert sim.fen() == chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").fen()
    with pytest.raises(ValueError):
        sim.run(-1)
    with pytest.raises(ValueError):
        Simulator(human="purple")


@pytest.mark.parametrize("moves,order", [
    (["e2e4", "d7d5", "e4d5"], "mover-first"),
    (["e2e4", "d7d5", "e4d5"], "natural"),
    (["e2e4", "g8f6", "g1f3", "e7e6", "f1e2", "f8e7", "e1g1"], "rook-first"),
    (["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"], "victim-first"),
    (["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"], "natural"),
], ids=["capture-mover-first", "capture-victim-first", "castle-rook-first", "ep-victim-first", "ep-victim-after"])
def test_physical_orders_through_the_whole_stack(moves, order):
    sim = Simulator(human="both")
    for m in moves[:-1]:
        sim.play(m)
    sim.play(moves[-1], order=order)
    assert sim.game() == moves
    assert sim.board_fen() == sim.fen().split()[0]


def test_slides_and_contact_bounce_are_one_move():
    sim = Simulator(human="both", bounce=3)
    sim.play("e2e4")
    sim.play("e7e5")
    sim.play("d1h5", path=("e2", "f3", "g4"))  # the queen slides over three squares
    assert sim.game() == ["e2e4", "e7e5", "d1h5"]


def test_other_boards_led_matrix_without_display_and_edge_leds():
    sim = Simulator(board="esp32s3", level=DEPTH2, book=False)
    assert sim.display_text() == []
    sim.play("e2e4")
    move = sim.wait_computer()
    sim.run(50)  # a few multiplex cycles
    assert sim.lit() == {move[:2]: "on", move[2:4]: "on"}
    lit_cells = {chess.square_name(c) for c in sim.electronics.led_cells()}
    assert lit_cells == {move[:2], move[2:4]}  # the matrix really drives those LEDs
    sim = Simulator(board="rpi_blinka", level=DEPTH2, book=False)
    sim.play("d2d4")
    move = sim.wait_computer()
    assert sim.lit() == {move[:2]: "on", move[2:4]: "on"}


def test_serial_console_commands():
    sim = Simulator(level=DEPTH2, book=False)
    assert sim.console("fen") == [chess.STARTING_FEN]
    assert sim.console("level 3") == ["level 3: Fun 3"]
    assert sim.state()["level"] == 2
    assert sim.console("level 99")[0].startswith("error: usage: level N")
    assert sim.console("bogus")[0].startswith("error: unknown command")
    fen = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
    assert sim.console("new " + fen) == ["ok"]
    assert sim.fen() == fen and sim.state()["phase"] == "verify"
    sim.arrange(fen)
    sim.settle()
    assert sim.state()["phase"] == "player"
    assert sim.console("new not-a-fen")[0].startswith("error: FEN")
    assert sim.fen() == fen
    help_text = sim.console("help")
    assert help_text[0] == "commands:" and any("pgn" in line for line in help_text)


def test_console_new_game_runs_with_the_console_code_dropped():
    """`new` starts the game only after features/console.py is released (gone from the heap
    unless a test imported it): on a Pico the button actions it loads need the console's
    6.5 KB (tests/test_fit_pico.py)."""
    from tests.mpy import released

    sim = Simulator(level=DEPTH2, book=False)
    controller = sim.app.controller
    seen = []
    real_new_game = controller.new_game

    def new_game(now_ms, start_fen=None, swap_sides=False):
        seen.append((not released("firmware.features.console"), start_fen))
        return real_new_game(now_ms, start_fen, swap_sides)

    controller.new_game = new_game
    fen = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
    assert sim.console("new  " + fen.replace(" ", "  ")) == ["ok"]
    assert sim.console("new") == ["ok"]
    assert seen == [(False, fen), (False, None)]
    assert sim.fen() == chess.STARTING_FEN


def test_firmware_crash_surfaces_with_its_traceback():
    sim = Simulator(level=DEPTH2, book=False)

    def broken(*args):
        raise RuntimeError("boom in the controller")

    sim.controller.on_button = broken
    with pytest.raises(SimulatorError, match="boom in the controller"):
        sim.press("hint")


def test_simulated_electronics_run_under_micropython():
    out = run_mpy(
        "from boards.pico import CONFIG\n"
        "from host_sim.electronics import build_simulated\n"
        "from host_sim.physical import PhysicalBoard\n"
        "elec, hw = build_simulated(CONFIG)\n"
        "board = PhysicalBoard()\n"
        "for s in board.plan('e2e4'):\n"
        "    board.do(s)\n"
        "elec.set_occupancy(board.occupancy())\n"
        "bm = bytearray(8)\n"
        "hw.sensors.scan_into(bm)\n"
        "print(list(bm))\n"
        "hw.leds.set(28, 1)\n"
        "hw.leds.update(0)\n"
        "print(sorted(elec.led_cells()))\n"
    )
    assert out.split("\n")[:2] == ["[255, 239, 0, 16, 0, 0, 255, 255]", "[28]"]
