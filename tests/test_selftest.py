"""The self-test from the buttons, in the simulator: *hint* held while the board is switched on
enters it (firmware/features/selftest.py); the LED walk, the sensor map, the fault scan and
the button test follow one another on a long press of *new*; after the last one the chess
computer starts with its saved game untouched."""
import pytest

from boards.pico import CONFIG as PICO
from host_sim import Simulator
from host_sim.tui import square_index

FUN = 0


@pytest.fixture
def saved_game():
    """A board's flash holding a game of four plies, and that game."""
    sim = Simulator(seed=4, level=FUN, book=False)
    try:
        for move in ("e2e4", "d2d4"):
            sim.play(move)
            reply = sim.wait_computer()
            sim.play(reply)
        sim.settle()
        assert len(sim.game()) == 4
        yield sim.flash.copy(), sim.game(), sim.board_fen()
    finally:
        sim.close()


def _long(sim, name):
    sim.hold(name)
    sim.run(sim.config["long_press_ms"] + 100)
    sim.release(name)
    sim.run(100)


def _short(sim, name):
    sim.hold(name)
    sim.run(120)
    sim.release(name)
    sim.run(100)


def test_hint_held_at_power_on_runs_the_self_test_and_keeps_the_saved_game(saved_game):
    flash, game, pieces = saved_game
    sim = Simulator(seed=4, level=FUN, book=False, flash=flash, pieces=pieces, held_at_boot=("hint",))
    try:
        sim.run(500)
        assert sim.display_text()[:2] == ["Self-test", "release hint"]
        sim.release("hint")
        sim.run(300)  # the hint's own press counts for no test: still the LED walk
        # 1. LED walk: one LED at a time, in chain order
        assert sim.display_text()[0] == "LED walk"
        seen = []
        for _ in range(12):
            lit = sim.lit()
            assert len(lit) == 1
            seen.append(next(iter(lit)))
            sim.run(150)
        assert len(set(seen)) >= 10
        # 2. sensor map: every closed switch lights its square, live
        _long(sim, "new")
        assert sim.display_text()[:2] == ["Sensor map", "%d closed" % pieces_count(pieces)]
        assert set(sim.lit()) == occupied_squares(sim)
        sim.lift("e1")
        sim.run(200)
        assert "e1" not in sim.lit() and set(sim.lit()) == occupied_squares(sim)
        # 3. fault scan on an empty board: one switch stuck closed, one chattering
        sim.arrange("8/8/8/8/8/8/8/8")
        sim.electronics.stick(square_index("c3"), True)
        _long(sim, "new")
        now = sim.now_ms()
        for k in range(16):
            sim.electronics.schedule(square_index("f6"), now + 20 + 15 * k, k % 2 == 0)
        sim.run(600)
        shown = sim.display_text()
        assert shown[:3] == ["Faults", "1 stuck c3", "1 chatter f6"], shown
        assert sim.lit() == {"c3": "blink", "f6": "blink-fast"}
        # 4. button test: the display names each press
        _long(sim, "new")
        assert sim.display_text()[0] == "Button test"
        _short(sim, "level")
        assert sim.display_text()[1:3] == ["level", "short"]
        _long(sim, "move")  # shown, not acted on
        assert sim.display_text()[:3] == ["Button test", "move", "long"]
        # leaving: the findings on the console, then the saved game
        _long(sim, "new")
        sim.run(2500)
        assert any(line.startswith("self-test: cell 18 (c3): switch closed") and "cell 45 (f6): chattering" in line
                   for line in sim.console_lines), sim.console_lines
        assert sim.game() == game
        sim.electronics.stick(square_index("c3"), None)
        sim.arrange(pieces)  # the pieces back where the saved game has them
        sim.run(1500)
        assert not sim.lit()
        sim.play("g1f3")  # and the game goes on
        assert sim.wait_computer()
        assert sim.game()[:5] == game + ["g1f3"]
    finally:
        sim.close()


def test_without_the_button_held_the_game_starts_at_once(saved_game):
    flash, game, pieces = saved_game
    sim = Simulator(seed=4, level=FUN, book=False, flash=flash, pieces=pieces)
    try:
        sim.run(500)
        assert sim.display_text()[0] != "Self-test" and not any("self-test" in ln for ln in sim.console_lines)
        assert sim.game() == game
        assert "firmware.features.selftest" not in __import__("sys").modules
    finally:
        sim.close()


def pieces_count(board_fen):
    return sum(1 for ch in board_fen if ch.isalpha())


def occupied_squares(sim):
    occ = set()
    for cell in range(64):
        if sim.electronics.cell_occupied(cell):
            occ.add("abcdefgh"[cell & 7] + str((cell >> 3) + 1))
    return occ


def test_buttons_that_all_read_pressed_start_no_self_test(saved_game):
    """Lines with no pull-ups float low: every button reads pressed, which no hand does."""
    flash, game, pieces = saved_game
    sim = Simulator(seed=4, level=FUN, book=False, flash=flash, pieces=pieces,
                    held_at_boot=tuple(PICO["buttons"]))
    try:
        sim.run(500)
        assert sim.display_text()[0] != "Self-test"
        assert sim.game() == game
    finally:
        sim.close()
