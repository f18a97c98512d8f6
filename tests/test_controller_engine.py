"""The engine inside the chess computer, through the Simulator: pondering (hit and miss),
"move now", switching sides, two-player mode, clock levels, and the board staying live while
the engine searches (the search's poll keeps scanning)."""
import chess

from firmware.engine.levels import find_level
from host_sim import Simulator

ONE_SECOND = find_level("1 s/move")


def legal_after(moves, move):
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    return chess.Move.from_uci(move) in board.legal_moves


def pondering_sim():
    sim = Simulator(level=ONE_SECOND, book=False, ponder=True)
    sim.play("e2e4")
    sim.wait_computer()
    sim.execute()
    sim.run(400)
    st = sim.state()
    assert st["pondering"] and st["ponder_move"], st
    return sim


def test_ponder_hit_turns_the_ponder_search_into_the_answer():
    sim = pondering_sim()
    expected = sim.state()["ponder_move"]
    searches = sim.app.searches
    sim.run(5000)  # the player thinks; the engine keeps pondering
    assert sim.state()["pondering"]
    sim.play(expected)
    reply = sim.wait_computer()
    c = sim.controller
    assert c.ponder_hits == 1 and c.ponder_misses == 0
    assert sim.app.searches == searches  # no new search: the ponder search went on
    assert legal_after(sim.game(), reply)


def test_ponder_miss_restarts_the_search_on_the_real_move():
    sim = pondering_sim()
    expected = sim.state()["ponder_move"]
    board = chess.Board()
    for m in sim.game():
        board.push_uci(m)
    other = sorted(m.uci() for m in board.legal_moves if m.uci() != expected and not board.is_capture(m))[0]
    searches = sim.app.searches
    sim.play(other)
    reply = sim.wait_computer()
    c = sim.controller
    assert c.ponder_misses == 1 and c.ponder_hits == 0
    assert sim.app.searches == searches + 1
    assert sim.game()[-1] == other and legal_after(sim.game(), reply)


def test_board_stays_live_while_pondering():
    sim = pondering_sim()
    start = sim.now_ms()
    sim.lift("g1")
    # the lifted knight's targets light while the ponder search runs, well within 100 ms
    for _ in range(20):
        sim.run(5)
        if sim.lit():
            break
    assert sim.lit() == {"f3": "on", "h3": "on"} or set(sim.lit()) >= {"f3"}
    assert sim.now_ms() - start <= 100
    assert sim.state()["pondering"]
    sim.place("g1")
    sim.run(100)
    assert sim.lit() == {}


def test_move_now_while_the_computer_analyses():
    sim = Simulator(level=find_level("Analysis"), book=False, ponder=False)
    sim.play("e2e4")
    sim.run(20000)
    assert sim.computer_move() is None and sim.state()["thinking"]
    sim.press("move")
    move = sim.wait_computer(max_ms=2000)
    assert move is not None and legal_after(["e2e4"], move)


def test_move_button_switches_sides():
    sim = Simulator(level=find_level("Depth 2"), book=False, ponder=False)
    sim.press("move")  # the computer takes White
    first = sim.wait_computer()
    assert sim.state()["computer"] == "white" and legal_after([], first)
    sim.execute()
    sim.run(500)
    assert sim.computer_move() is None  # now it waits for Black (me)


def test_two_player_mode_referees_only():
    sim = Simulator(level=find_level("Depth 2"), book=False, ponder=False)
    sim.press("move", long=True)
    assert sim.state()["computer"] == "nobody"
    for m in ["e2e4", "e7e5", "g1f3", "b8c6"]:
        sim.play(m)
        assert sim.computer_move() is None
    assert sim.game() == ["e2e4", "e7e5", "g1f3", "b8c6"]
    sim.play("e1e3")  # illegal: refereed
    assert sim.state()["errors"]
    sim.play("e3e1")
    sim.press("move", long=True)  # the computer comes back as Black ... but White is to move
    assert sim.state()["computer"] == "black"
    sim.play("f1c4")
    assert legal_after(sim.game(), sim.wait_computer())


def test_blitz_clock_runs_on_the_display_and_runs_out_for_the_player():
    # a coarse 20 ms main-loop pass makes five simulated minutes quick
    sim = Simulator(level=find_level("Blitz 5 min"), book=False, ponder=False, pass_us=20000)
    sim.play("e2e4")
    sim.wait_computer()
    sim.execute()
    sim.run(10000)
    white, black = sim.display_text()[2].split()
    assert 4 * 60 + 40 <= int(white[0]) * 60 + int(white[2:]) < 4 * 60 + 55
    assert black < "5:00"  # the computer used some of its time
    sim.run(300000)  # the player never moves again
    st = sim.state()
    assert st["result"] == "0-1" and st["reason"] == "time"


def test_same_seed_same_game():
    def game(seed):
        sim = Simulator(seed=seed, level=find_level("Fun 2"), book=True, ponder=False)
        for m in ["e2e4", "g1f3", "f1c4"]:
            sim.play(m)
            sim.wait_computer()
            sim.execute()
        return sim.game(), sim.now_ms()

    assert game(3) == game(3)


def test_player_may_make_the_computers_move_while_it_thinks():
    sim = Simulator(level=find_level("Analysis"), book=False, ponder=False)
    sim.play("e2e4")
    sim.run(2000)
    assert sim.state()["thinking"]
    sim.play("e7e5")  # made for the computer: taken as its move, the search is dropped
    st = sim.state()
    assert sim.game() == ["e2e4", "e7e5"] and st["phase"] == "player" and not st["thinking"]
    assert sim.computer_move() is None
    sim.play("g1f3")
    sim.run(2000)
    assert sim.state()["thinking"]
