"""The self-test from the buttons on the emulated Pico, pin for pin (host_sim/rp2040/,
docs/pin-model.md): `make flash BOARD=pico`, a game begun, then *hint* held while the board
restarts. The LED walk is read from the WS2812 data pin, the sensor map follows the reed
switches, the fault scan names a switch left closed, the button test names a press on the
SSD1306 (its RAM read back); a long press of *new* after the last test starts the chess
computer with the saved game.

Skipped, with the reason, without node or the emulator (`make emulators` installs it)."""
import chess
import pytest

from tools.emulated_pico import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]


def _wait_display(b, text, timeout_ms=15000, line=0):
    waited = 0
    while not b.display_text() or not b.display_text()[line].startswith(text):
        assert waited < timeout_ms, "display: %s" % b.display_text()
        b.run(200)
        waited += 200
    return b.display_text()


def test_the_self_test_from_the_buttons_on_the_chip():
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard, play, wait_computer, wait_status

    b = PicoBoard()
    try:
        image = b.saved_flash()[0]  # make flash's, once per build
        b.power_on(image, occupied={sq for sq in chess.SQUARES if b.board.piece_at(sq)})
        assert b.console("nodes 40", lambda line: line == "ok") == "ok"
        play(b, "e2e4")
        play(b, wait_computer(b))
        saved = b.game()
        assert len(saved) == 2
        # the power goes, and comes back with *hint* held: main.py enters the self-test
        image = b.power_cut()
        b._runner_from(image)  # a new runner from the kept flash, the pieces where they stand
        b.hold("hint")  # held from the first moments on, long before main.py reads it
        _wait_display(b, "Self-test", timeout_ms=60000)
        b.release("hint")
        _wait_display(b, "LED walk")
        walked = []
        for _ in range(8):
            frame = b.leds()  # the latest frame on the WS2812 data pin
            assert len(frame) <= 1, frame  # one LED at a time
            walked += [sq for sq in frame if sq not in walked]
            b.run(200)
        assert len(walked) >= 4, walked
        chain = [chess.square_name(c) for c in b._pixel_cell[:64]]  # the LEDs in chain order
        assert [chain.index(sq) for sq in walked] == sorted(chain.index(sq) for sq in walked), walked
        b.press("new", long=True)
        shown = _wait_display(b, "Sensor map")
        assert shown[1] == "%d closed" % len(b.occupied)
        b.run(300)
        assert set(b.leds()) == {chess.square_name(c) for c in b.occupied}
        # the fault scan on an empty board, one switch left closed
        b.arrange(chess.Board("8/8/8/8/8/8/8/8 w - - 0 1"))
        b.place("c3")
        b.press("new", long=True)
        _wait_display(b, "Faults")
        b.run(500)
        assert b.display_text()[1] == "1 stuck c3", b.display_text()
        b.press("new", long=True)
        _wait_display(b, "Button test")
        b.press("level")
        _wait_display(b, "level", line=1)
        b.press("new", long=True)  # leaves the self-test
        _wait_display(b, "Self-test done")
        b.lift("c3")
        b.board = chess.Board()
        for move in saved:
            b.board.push_uci(move)
        b.arrange(b.board)  # the pieces back where the saved game has them
        b.wait_console(240)
        wait_status(b, lambda s: s[0] == "player" and s[1] == 2)
        assert b.game() == saved  # the saved game is untouched
    finally:
        b.stop()
