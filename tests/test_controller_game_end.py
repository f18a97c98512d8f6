"""Game end through the Simulator: mate, stalemate, insufficient material, draw claims by the
player and by the computer, resignation offers, the computer's mate announcement, and what
the LEDs, display and buzzer say about each."""
import chess

from firmware.engine.levels import find_level
from host_sim import Simulator

GAME_OVER_TONES = {1200, 900, 600}
DEPTH2 = find_level("Depth 2")


def tones(sim):
    return {f for _, f in sim.buzzer_tones()}


def test_checkmate_is_announced_on_leds_display_and_buzzer():
    sim = Simulator(human="both")
    for m in ["f2f3", "e7e5", "g2g4", "d8h4"]:
        sim.play(m)
    st = sim.state()
    assert st["phase"] == "over" and st["result"] == "0-1" and st["reason"] == "checkmate"
    assert sim.lit() == {"e1": "blink-fast", "e8": "on"}  # the mated king blinks
    assert sim.display_text()[:2] == ["0-1", "checkmate"]
    sim.run(1000)
    assert GAME_OVER_TONES <= tones(sim)
    # the game is over: moves on the board are not accepted
    sim.play("e2e4")
    assert sim.game() == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert "[Result \"0-1\"]" in sim.pgn()


def test_stalemate_and_insufficient_material_are_draws():
    sim = Simulator(human="both", fen="7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    sim.play("f1f7")
    st = sim.state()
    assert st["result"] == "1/2-1/2" and st["reason"] == "stalemate"
    assert sim.lit() == {"g6": "blink", "h8": "blink"}  # both kings blink slowly
    assert sim.display_text()[1] == "stalemate"

    sim = Simulator(human="both", fen="8/8/8/4k3/8/8/3n4/4K3 w - - 0 1")
    sim.play("e1d2")
    st = sim.state()
    assert st["result"] == "1/2-1/2" and st["reason"] == "insufficient material"


def test_player_claims_threefold_repetition_with_a_long_hint():
    sim = Simulator(human="both")
    knights = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for m in knights:
        sim.play(m)
    sim.press("hint", long=True)  # only twice so far: no claim
    assert sim.state()["result"] == "*"
    assert sim.display_text()[1] == "No draw to claim"
    for m in knights:
        sim.play(m)
    sim.press("hint", long=True)
    st = sim.state()
    assert st["result"] == "1/2-1/2" and st["reason"] == "threefold repetition"


def test_computer_claims_the_fifty_move_rule_when_worse():
    # Black (the computer) is a rook down; White's quiet move makes 100 half-moves.
    sim = Simulator(fen="7k/8/8/8/8/8/R7/K7 w - - 99 80", level=DEPTH2, book=False)
    sim.play("a2b2")
    sim.run(3000)
    st = sim.state()
    assert st["result"] == "1/2-1/2" and st["reason"] == "50-move rule"
    assert sim.computer_move() is None


def test_computer_offers_resignation_and_the_player_accepts():
    fen = "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR b KQ - 0 1"  # Black (the computer) has a lone king
    sim = Simulator(fen=fen, level=DEPTH2, book=False, ponder=False)
    first = sim.wait_computer()  # first hopeless search: it still plays
    assert first is not None
    sim.execute()
    board = chess.Board(fen)
    board.push_uci(first)
    mine = sorted(m.uci() for m in board.legal_moves if not board.is_capture(m))[0]
    sim.play(mine)
    sim.run(3000)
    st = sim.state()
    assert st["phase"] == "offer"
    king = chess.square_name(chess.Board(sim.fen()).king(chess.BLACK))
    assert sim.lit() == {king: "blink-fast"}
    assert sim.display_text()[0] == "I resign?"
    sim.press("new")  # accept: the game is scored and a new one starts
    assert sim.game() == []
    assert '[Result "1-0"]' in sim.pgn()


def test_declined_resignation_plays_on():
    fen = "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR b KQ - 0 1"
    sim = Simulator(fen=fen, level=DEPTH2, book=False, ponder=False)
    first = sim.wait_computer()
    sim.execute()
    board = chess.Board(fen)
    board.push_uci(first)
    sim.play(sorted(m.uci() for m in board.legal_moves if not board.is_capture(m))[0])
    sim.run(3000)
    assert sim.state()["phase"] == "offer"
    sim.press("move")  # no thanks: show your move
    move = sim.computer_move()
    assert move is not None
    sim.execute()
    assert sim.game()[-1] == move and sim.state()["result"] == "*"


def test_computer_announces_mate_in_two_and_mates():
    fen = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"  # 1. Ra6! and mate next move
    sim = Simulator(fen=fen, human="black", level=find_level("Depth 6"), book=False, ponder=False)
    move = sim.wait_computer()
    assert move == "a1a6"
    st = sim.state()
    assert st["mate_in"] == 2
    assert sim.display_text()[3] == "Mate in 2"
    assert 2500 in tones(sim)  # the alert
    sim.execute()
    board = chess.Board(fen)
    board.push_uci(move)
    sim.play(sorted(m.uci() for m in board.legal_moves)[0])
    sim.wait_computer()
    sim.execute()
    st = sim.state()
    assert st["result"] == "1-0" and st["reason"] == "checkmate"


def test_takeback_after_the_game_ended_reopens_it():
    sim = Simulator(human="both")
    for m in ["f2f3", "e7e5", "g2g4", "d8h4"]:
        sim.play(m)
    assert sim.state()["result"] == "0-1"
    sim.press("takeback")
    assert sim.game() == ["f2f3", "e7e5", "g2g4"] and sim.state()["result"] == "*"
    assert sim.lit() == {"h4": "blink-fast", "d8": "on"}
    sim.play("h4d8")
    assert sim.state()["phase"] == "player"
