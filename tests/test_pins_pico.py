"""The chess computer on an emulated Pico, pin for pin (host_sim/rp2040/, docs/pin-model.md).

`make flash BOARD=pico` (tools.flash over mpremote) into the emulated stock Pico whose pins
carry the `pico` board's electronics (host_sim/rp2040/board.mjs: the reed matrix with its
diodes, the WS2812 chain decoded from its data pin, the buttons, the buzzer's PWM, the SSD1306
on I2C), main.py boots, and games are played through the pins alone: every move is lifts and
placements of reed switches, the computer's moves are read from the LEDs' colours, the hint
from the blue squares, the promotion piece is chosen with the *level* button, a long press of
*move* turns two-player mode on (the SSD1306's RAM read back says so). The console
(USB serial) only caps the searches (`nodes N`), starts set-up positions (`new FEN`) and is
asked for the game record and the phase. Records are checked with python-chess.

Skipped, with the reason, without node or the emulator (`make emulators` installs it).
"""
import time

import chess
import pytest

from tests.emulated_helper import undo_touches
from tools.emulated_pico import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

NODES = 40  # every search's node cap (test time: the chip does ~170 nodes/s, 3-4x slower in host time)
MAX_HUMAN_MOVES = 8  # game 1: the human's moves after the opening, hint and take back, until both capture orders
CASTLING_FEN = "r3k2r/ppp2ppp/2n5/3pp3/8/5N2/PPPPBPPP/RNBQK2R w KQkq - 0 1"
EN_PASSANT_FEN = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
PROMOTION_FEN = "6k1/P4ppp/8/8/8/8/5PPP/6K1 w - - 0 1"


@pytest.fixture(scope="module")
def board():
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard

    b = PicoBoard()
    try:
        t0 = time.monotonic()
        b.image = b.saved_flash()[0]  # make flash's, once per build
        b.flash_s = time.monotonic() - t0
        yield b
    finally:
        b.stop()


def _replays(fen, record):
    """python-chess replays `record` from `fen` (raises on an illegal move); returns the board."""
    ref = chess.Board(fen)
    for text in record:
        ref.push_uci(text)
    return ref


def _offers(board, move):
    """After `move` the other side can capture something."""
    board.push(move)
    try:
        return any(board.is_capture(m) for m in board.legal_moves)
    finally:
        board.pop()


def _wait_display(b, text, timeout_ms=3000):
    """Until a line of the SSD1306 (read back from its RAM) shows `text`."""
    waited = 0
    while not any(text in line for line in b.display_text()):
        assert waited < timeout_ms, "display: %s" % b.display_text()
        b.run(100)
        waited += 100


def _new_game(b, fen):
    """`new FEN` on the console, the pieces set up on the switches, until the player's turn."""
    from host_sim.rp2040.pico_board import wait_status

    b.console("new " + fen, lambda line: True)
    b.board = chess.Board(fen)
    b.run(200)
    b.arrange(b.board)
    wait_status(b, lambda s: s[0] == "player" and s[1] == 0)


def test_whole_game_through_the_pins(board):
    from host_sim.rp2040.pico_board import play, wait_computer, wait_lit, wait_status

    b = board
    t0 = time.monotonic()
    # main.py runs, as after plugging in
    boot = b.power_on(b.image, occupied={sq for sq in chess.SQUARES if b.board.piece_at(sq)})
    assert not any("Traceback" in line for line in boot), boot
    assert b.console("nodes %d" % NODES, lambda line: line == "ok") == "ok"
    wait_status(b, lambda s: s[0] == "player")
    print("boot: %s" % [line for line in boot if line.strip()])
    captures = {"natural": 0, "mover-first": 0}

    def execute(move, order=None):
        if order is None and b.board.is_capture(move) and not b.board.is_en_passant(move):
            order = min(captures, key=captures.get)  # alternate the two capture orders
            captures[order] += 1
        play(b, move, order or "natural")

    # ---- game 1: from the start; the computer's moves read from the LEDs
    play(b, "e2e4")
    execute(wait_computer(b))
    # the hint: blue squares, played as shown
    b.press("hint")
    lit = wait_lit(b, lambda lit: sum(1 for v in lit.values() if v[1] == "hint") == 2)
    hint_sq = {chess.parse_square(sq) for sq, v in lit.items() if v[1] == "hint"}
    hint = next(m for m in b.board.legal_moves if {m.from_square, m.to_square} == hint_sq)
    play(b, hint)
    execute(wait_computer(b))
    # take back the computer's move: put it back by hand as the LEDs guide, then *move*
    ply = len(b.board.move_stack)
    undone = b.board.pop()
    b.press("takeback")
    back = {chess.square_name(undone.from_square), chess.square_name(undone.to_square)}
    wait_lit(b, lambda lit: back <= {sq for sq, (_, role) in lit.items() if role == "info"})  # the LEDs guide
    for action, sq in undo_touches(b.board, undone):
        getattr(b, action)(sq)
        b.run(250)
    wait_status(b, lambda s: s[1] == ply - 1 and s[0] == "player")
    b.press("move")
    execute(wait_computer(b))
    # captures: the hand takes what it can, else offers a piece; the computer takes; both
    # orders of lifting (victim first, mover first) are used, for either side's captures
    human = 0
    while not b.board.is_game_over() and human < MAX_HUMAN_MOVES and not all(captures.values()):
        moves = list(b.board.legal_moves)
        caps = [m for m in moves if b.board.is_capture(m)]
        execute(caps[0] if caps else next((m for m in moves if _offers(b.board, m)), moves[0]))
        human += 1
        if b.board.is_game_over():
            break
        execute(wait_computer(b))
    record = b.game()
    assert record == [m.uci() for m in b.board.move_stack]
    _replays(chess.STARTING_FEN, record)
    game1 = len(record)

    # ---- game 2: castling, the rook first
    _new_game(b, CASTLING_FEN)
    play(b, "e1g1", order="rook-first")
    execute(wait_computer(b))
    record2 = b.game()
    assert record2[0] == "e1g1" and record2 == [m.uci() for m in b.board.move_stack]
    _replays(CASTLING_FEN, record2)

    # ---- game 3: en passant (the passed pawn taken off after the move)
    _new_game(b, EN_PASSANT_FEN)
    play(b, "e5f6")
    assert b.game() == ["e5f6"]
    assert _replays(EN_PASSANT_FEN, ["e5f6"]).piece_at(chess.F5) is None

    # ---- game 4: a promotion to a rook chosen with the level button: mate
    _new_game(b, PROMOTION_FEN)
    play(b, "a7a8r")
    assert wait_status(b, lambda s: s[0] == "over")[2] == "1-0"
    assert b.game() == ["a7a8r"]
    assert _replays(PROMOTION_FEN, ["a7a8r"]).is_checkmate()
    _wait_display(b, "checkmate")
    # a long press: *move* held turns two-player mode on (the display says so)
    b.press("move", long=True)
    _wait_display(b, "Two players")
    assert any(hz and duty for _, hz, duty in b.buzzer_tones()), "no beep from the buzzer's PWM"

    host_s = time.monotonic() - t0
    print("flash %.0f s; games %.0f s host, %.1f s emulated; game 1 %d plies, captures %s; %d tones; display %s"
          % (b.flash_s, host_s, b.now_ms() / 1000, game1, captures, len(b.buzzer_tones()), b.display_text()))
    assert captures["natural"] and captures["mover-first"], captures
