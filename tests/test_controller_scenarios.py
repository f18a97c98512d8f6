"""Scenario tests of the chess computer, all through the Simulator: the real controller, board
sync, engine and io drivers on simulated pins, with simulated time.

Covered here: take back (several moves, captures, castling; by button and by hand), hint,
level change, new game (button, long press, setting up the start position), promotion choice,
wrong execution of the computer's move, recovery from an impossible board, lifted-piece
targets. Game end, pondering, draws and the rest: test_controller_game_end.py and
test_controller_engine.py.
"""
import chess
import pytest

from firmware.engine.levels import find_level
from host_sim import Simulator

DEPTH2 = find_level("Depth 2")


def touch(sim, *steps, gap_ms=250):
    """Physical touches: "-e2" lifts, "+e4" places (a captured piece comes from the box)."""
    for i, step in enumerate(steps):
        if i:
            sim.run(gap_ms)
        if step[0] == "-":
            sim.lift(step[1:])
        else:
            sim.place(step[1:])
    sim.settle()


def replay_fen(moves, start=chess.STARTING_FEN):
    board = chess.Board(start)
    for m in moves:
        board.push_uci(m)
    return board.fen()


def board_field(fen):
    return fen.split()[0]


def computer_game(**kw):
    kw.setdefault("level", DEPTH2)
    kw.setdefault("book", False)
    kw.setdefault("ponder", False)
    return Simulator(**kw)


# ---- take back ---------------------------------------------------------------------------------
def test_takeback_button_guides_captures_and_castling_back():
    sim = Simulator(human="both")
    moves = ["e2e4", "d7d5", "e4d5", "d8d5", "g1f3", "b8c6", "f1e2", "c8g4", "e1g1", "e8c8"]
    for m in moves:
        sim.play(m)
    assert sim.game() == moves

    # Black's queen-side castling: king and rook squares to empty, home squares to fill.
    sim.press("takeback")
    assert sim.game() == moves[:-1]
    assert sim.state()["phase"] == "verify"
    assert sim.lit() == {"c8": "blink-fast", "d8": "blink-fast", "e8": "on", "a8": "on"}
    touch(sim, "-c8", "+e8", "-d8", "+a8")
    assert sim.state()["phase"] == "player" and sim.lit() == {}

    # Two presses: White's castling and Black's Bg4 at once.
    sim.press("takeback")
    sim.press("takeback")
    assert sim.game() == moves[:-3]
    assert sim.lit() == {"g1": "blink-fast", "f1": "blink-fast", "e1": "on", "h1": "on", "g4": "blink-fast", "c8": "on"}
    touch(sim, "-g1", "+e1", "-f1", "+h1", "-g4", "+c8")
    assert sim.state()["phase"] == "player"

    # Captures: the captured piece must reappear on the capture square.
    for _ in range(3):
        sim.press("takeback")
        sim.run(200)
    assert sim.game() == moves[:4]
    assert sim.lit() == {"f3": "blink-fast", "g1": "on", "c6": "blink-fast", "b8": "on", "e2": "blink-fast", "f1": "on",
                         }
    touch(sim, "-f3", "+g1", "-c6", "+b8", "-e2", "+f1")
    sim.press("takeback")  # Qxd5: the queen goes home, White's pawn comes back to d5
    assert sim.lit() == {"d8": "on", "d5": "blink"}
    touch(sim, "-d5", "+d8")
    assert sim.state()["phase"] == "verify"  # the pawn is still missing on d5
    assert sim.lit() == {"d5": "on"}
    touch(sim, "+d5")
    sim.press("takeback")  # exd5: Black's pawn reappears on d5
    assert sim.lit() == {"e4": "on", "d5": "blink"}
    touch(sim, "-d5", "+e4", "+d5")
    assert sim.game() == moves[:2]
    assert sim.state()["phase"] == "player"
    assert sim.fen() == replay_fen(moves[:2])
    assert sim.board_fen() == board_field(sim.fen())
    # and play goes on from there
    sim.play("g1f3")
    assert sim.game() == moves[:2] + ["g1f3"]


def test_takeback_by_reversing_moves_on_the_board():
    sim = computer_game()
    sim.play("e2e4")
    reply = sim.wait_computer()
    sim.execute()
    assert sim.game() == ["e2e4", reply]
    # Reverse the computer's move by hand: taken back, and the computer waits.
    victim = reply[2:4]
    assert chess.Board(replay_fen(["e2e4"])).piece_at(chess.parse_square(victim)) is None
    sim.play(reply[2:4] + reply[0:2])
    assert sim.game() == ["e2e4"]
    st = sim.state()
    assert st["paused"] and st["phase"] == "player"
    sim.run(3000)
    assert sim.computer_move() is None
    # Reverse my own move too, then play another one: the computer answers it.
    sim.play("e4e2")
    assert sim.game() == []
    sim.play("d2d4")
    reply2 = sim.wait_computer()
    assert reply2 is not None and chess.Move.from_uci(reply2) in chess.Board(replay_fen(["d2d4"])).legal_moves


def test_takeback_of_a_capture_by_hand_and_move_button_resumes_the_computer():
    sim = Simulator(human="both")
    for m in ["e2e4", "d7d5", "e4d5"]:
        sim.play(m)
    # Undo exd5 by hand: pawn back to e4, the black pawn back on d5.
    touch(sim, "-d5", "+e4", "+d5")
    assert sim.game() == ["e2e4", "d7d5"]
    assert sim.fen() == replay_fen(["e2e4", "d7d5"])
    # "move": the computer takes over the side to move (White) and plays.
    sim.press("move")
    move = sim.wait_computer()
    assert move is not None and sim.state()["computer"] == "white"
    assert chess.Move.from_uci(move) in chess.Board(replay_fen(["e2e4", "d7d5"])).legal_moves


# ---- hint ----------------------------------------------------------------------------------------
def test_hint_shows_a_legal_move_that_can_be_played():
    sim = computer_game()
    sim.press("hint")
    sim.run(3000)
    hint = sim.state()["hint"]
    assert hint is not None
    assert chess.Move.from_uci(hint) in chess.Board().legal_moves
    assert sim.lit() == {hint[:2]: "blink", hint[2:4]: "blink"}
    sim.play(hint)
    assert sim.game() == [hint]
    assert sim.state()["hint"] is None
    assert hint[:2] not in sim.lit() or sim.computer_move()  # the hint LEDs are gone


def test_hint_while_pondering_is_the_predicted_move_at_once():
    sim = computer_game(ponder=True, level=find_level("1 s/move"))
    sim.play("e2e4")
    sim.wait_computer()
    sim.execute()
    sim.run(300)
    st = sim.state()
    assert st["pondering"] and st["ponder_move"]
    searches = st["searches"]
    sim.press("hint")
    st = sim.state()
    assert st["hint"] == st["ponder_move"]
    assert st["searches"] == searches  # no extra search was needed


def test_hint_button_refused_while_the_computer_must_move():
    sim = computer_game()
    sim.play("e2e4")
    move = sim.wait_computer()
    sim.press("hint")
    assert sim.state()["hint"] is None and sim.computer_move() == move
    assert any(f == 300 for _, f in sim.buzzer_tones())  # the error beep


# ---- levels -------------------------------------------------------------------------------------
def test_level_menu_changes_level_shows_it_and_remembers_it():
    sim = computer_game()
    sim.press("level")
    st = sim.state()
    assert st["menu"] == "level" and st["level"] == DEPTH2
    assert sim.lit() == {"b3": "on"}  # level 18 lights cell 17
    assert sim.display_text()[0] == "Level %d" % (DEPTH2 + 1)
    sim.press("level")
    sim.press("level")
    sim.press("takeback")  # one back
    assert sim.state()["level"] == DEPTH2 + 1
    assert sim.lit() == {"c3": "on"}
    assert sim.display_text()[1] == "Depth 4"
    sim.run(7000)  # the menu closes by itself
    st = sim.state()
    assert st["menu"] == "" and st["level"] == DEPTH2 + 1
    sim.play("e2e4")
    sim.wait_computer()
    assert sim.state()["depth"] == 4  # the new level searched
    # the level survives a power cut (journal)
    again = Simulator(flash=sim.flash.copy(), book=False)
    assert again.state()["level"] == DEPTH2 + 1


def test_options_menu_toggles_an_option():
    sim = computer_game()
    sim.press("level", long=True)
    assert sim.state()["menu"] == "options"
    assert sim.lit() == {"a1": "on", "a2": "on"}  # option 1 (targets) is on
    sim.press("hint")
    assert sim.lit() == {"a1": "on"}
    sim.press("ok")
    assert sim.state()["menu"] == ""
    assert sim.controller.settings.show_targets is False


# ---- new game ----------------------------------------------------------------------------------
def test_new_game_button_then_board_guided_back_to_the_start():
    sim = computer_game()
    sim.play("e2e4")
    sim.wait_computer()
    sim.execute()
    played = sim.game()
    sim.press("new")
    assert sim.game() == []
    assert sim.state()["phase"] == "verify"
    reply = played[1]
    assert sim.lit() == {"e4": "blink-fast", "e2": "on", reply[2:4]: "blink-fast", reply[0:2]: "on"}
    touch(sim, "-e4", "+e2", "-" + reply[2:4], "+" + reply[0:2])
    assert sim.state()["phase"] == "player"
    assert len(sim.pgn().split("[Event")) == 3  # the old game was archived, plus the new one


def test_new_game_by_setting_up_the_start_position():
    sim = computer_game()
    sim.play("d2d4")
    sim.wait_computer()
    sim.execute()
    sim.play("c2c4")
    sim.wait_computer()
    assert len(sim.game()) == 3
    sim.arrange("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
    sim.settle()
    assert sim.game() == []
    assert sim.computer_move() is None and sim.state()["phase"] == "player"


def test_long_new_swaps_sides_and_the_computer_opens():
    sim = computer_game()
    sim.press("new", long=True)
    first = sim.wait_computer()
    assert sim.state()["computer"] == "white"
    assert chess.Move.from_uci(first) in chess.Board().legal_moves


# ---- promotion -----------------------------------------------------------------------------------
PROMO_FEN = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"


def test_promotion_choice_by_buttons():
    sim = computer_game(fen=PROMO_FEN)
    sim.play("e7e8r")
    assert sim.state()["phase"] == "promote"
    assert sim.lit() == {"e8": "blink-fast", "d8": "on"}  # queen by default: d8
    sim.press("level")
    assert sim.lit() == {"e8": "blink-fast", "a8": "on"}  # rook
    assert sim.display_text()[0] == "Promote: Rook"
    sim.press("level")
    assert sim.lit()["c8"] == "on"  # bishop
    sim.press("level")
    assert sim.lit()["b8"] == "on"  # knight
    sim.press("level")
    sim.press("level")  # queen, rook
    sim.press("ok")
    assert sim.game() == ["e7e8r"]
    reply = sim.wait_computer()
    assert reply is not None
    board = chess.Board(PROMO_FEN)
    board.push_uci("e7e8r")
    assert chess.Move.from_uci(reply) in board.legal_moves


def test_promotion_defaults_to_a_queen():
    sim = computer_game(fen=PROMO_FEN)
    sim.play("e7e8q")
    sim.run(6000)
    assert sim.game()[0] == "e7e8q"


# ---- the computer's move executed wrongly -------------------------------------------------------------
def _other_move(fen, shown, same_piece):
    board = chess.Board(fen)
    s = chess.Move.from_uci(shown)
    for m in sorted(board.legal_moves, key=lambda m: m.uci()):
        if m == s or board.is_capture(m) or board.is_castling(m):
            continue
        if same_piece and m.from_square == s.from_square:
            return m.uci()
        if not same_piece and m.from_square != s.from_square and m.to_square != s.to_square:
            return m.uci()
    raise AssertionError("no other move")


@pytest.mark.parametrize("same_piece", [True, False], ids=["wrong-square", "wrong-piece"])
def test_wrong_execution_of_the_computer_move_is_flagged_and_recovered(same_piece):
    sim = computer_game()
    sim.play("e2e4")
    shown = sim.wait_computer()
    wrong = _other_move(replay_fen(["e2e4"]), shown, same_piece)
    sim.play(wrong)
    st = sim.state()
    assert st["errors"] and sim.game() == ["e2e4"]
    lit = sim.lit()
    assert lit[wrong[2:4]] == "blink-fast"
    assert lit[shown[2:4]] in ("on", "blink-fast")  # the move to make stays lit
    assert sim.computer_move() == shown
    sim.play(wrong[2:4] + wrong[0:2])  # undo the mistake
    assert not sim.state()["errors"]
    assert sim.lit() == {shown[:2]: "on", shown[2:4]: "on"}
    sim.execute()
    assert sim.game() == ["e2e4", shown]
    assert sim.lit() == {}


# ---- an impossible board -----------------------------------------------------------------------------
def test_illegal_move_then_unexplained_board_shows_what_to_fix():
    sim = computer_game()
    sim.play("a2a5")  # no pawn can do that
    assert sim.state()["errors"]
    assert sim.lit() == {"a2": "blink-fast", "a5": "blink-fast"}
    sim.run(3500)  # unexplained for a while: which square to clear, which to fill
    assert sim.lit() == {"a5": "blink-fast", "a2": "blink"}
    assert sim.display_text()[1] == "Board? fix lit"
    sim.play("a5a2")
    assert sim.lit() == {} and not sim.state()["errors"]
    sim.play("e2e4")
    assert sim.game() == ["e2e4"]


def test_extra_piece_on_the_board_is_reported_and_removal_restores():
    sim = computer_game()
    sim.place("d4", "Q")
    sim.run(4000)
    assert sim.lit() == {"d4": "blink-fast"}
    assert sim.state()["errors"]
    sim.lift("d4")
    sim.settle()
    assert sim.lit() == {} and not sim.state()["errors"]


# ---- lifted piece ----------------------------------------------------------------------------------
def test_lifting_a_piece_lights_its_targets_and_putting_it_back_clears_them():
    sim = computer_game()
    sim.lift("g1")
    sim.run(100)
    assert sim.lit() == {"f3": "on", "h3": "on"}
    sim.place("g1")
    sim.run(100)
    assert sim.lit() == {}
    assert sim.game() == []
