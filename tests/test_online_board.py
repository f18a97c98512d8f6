"""The board's side of online play (firmware/features/online.py), driven through the console
as the USB bridge drives it: under CPython in the simulator (the firmware sees the pieces only
through its sensor scan) and under the MicroPython unix port (the App on fake pins, fed board)."""
from host_sim import Simulator
from tests.mpy import run_mpy
from tests.test_controller_mpy import SETUP


def one(sim, line, ms=20):
    out = sim.console(line, ms)
    assert len(out) == 1, (line, out)
    return out[0]


def online_lines(sim, start):
    return [line for line in sim.console_lines[start:] if line.startswith("online ")]


def board(human="both"):
    return Simulator(seed=1, book=False, ponder=False, human=human)


def test_opponent_moves_light_like_the_computers_and_the_players_moves_are_reported():
    sim = board(human="white")
    assert one(sim, "online status") == "online off"
    assert one(sim, "online start b g1") == "ok"
    assert one(sim, "online status") == "online g1 b ply 0 thinking"
    assert one(sim, "settings").startswith("level 5, computer White")  # the opponent's part
    searches = sim.app.searches
    sim.run(3000)
    assert sim.computer_move() is None and sim.app.searches == searches  # no engine move for the opponent
    assert one(sim, "online moves 0 e2e4") == "ok"
    assert sim.computer_move() == "e2e4" and sim.lit() == {"e2": "on", "e4": "on"}
    assert one(sim, "online moves 0 e2e4") == "ok"  # sent again: nothing changes
    assert sim.computer_move() == "e2e4"
    mark = len(sim.console_lines)
    sim.execute()
    assert sim.game() == ["e2e4"] and online_lines(sim, mark) == []  # the opponent's move is not sent back
    sim.play("c7c5")
    assert online_lines(sim, mark) == ["online played c7c5 2"]
    assert sim.game() == ["e2e4", "c7c5"]
    assert sim.app.searches == searches
    sim.run(2000)
    assert sim.app.searches == searches and sim.computer_move() is None


def test_clocks_and_offers_on_the_display_and_buttons_online():
    sim = board()
    assert one(sim, "online start w g2") == "ok"
    assert one(sim, "online clock 300000 295000 w") == "ok"
    assert sim.display_text()[1] == "W 5:00 B 4:55"
    sim.run(2100)
    assert sim.display_text()[1] == "W 4:58 B 4:55"  # the running side counts down between updates
    mark = len(sim.console_lines)
    sim.press("hint")  # online: offer a draw, never an engine hint
    sim.run(50)
    assert online_lines(sim, mark) == ["online draw"]
    assert sim.controller.hint_move == 0 and not sim.controller.hint_wanted
    sim.press("level")  # no menu online
    sim.press("move")  # no side swap online
    sim.press("new")  # nothing to decline: only says how to resign
    sim.run(50)
    assert sim.state()["menu"] == "" and online_lines(sim, mark) == ["online draw"]
    assert one(sim, "settings").startswith("level 5, computer Black")
    assert one(sim, "online offer takeback") == "ok"
    assert sim.display_text()[1].endswith("Back?")
    sim.press("new")  # declines the offer
    sim.run(50)
    assert online_lines(sim, mark)[-1] == "online decline"
    sim.run(1100)
    assert not sim.display_text()[1].endswith("Back?")
    sim.press("takeback")
    sim.press("new", long=True)
    sim.run(50)
    assert online_lines(sim, mark)[-2:] == ["online takeback 0", "online resign"]
    assert sim.game() == []


def test_server_take_back_and_catch_up_guide_the_pieces_with_the_leds():
    sim = board()
    assert one(sim, "online start w g3") == "ok"
    sim.play("e2e4")
    assert one(sim, "online moves 0 e2e4 e7e5") == "ok"
    sim.execute()
    sim.play("g1f3")
    assert sim.game() == ["e2e4", "e7e5", "g1f3"]
    # the server took back two moves (a take back was accepted): the board is guided back
    assert one(sim, "online moves 1") == "ok"
    assert sim.game() == ["e2e4"] and sim.state()["phase"] == "verify"
    assert sim.lit() == {"f3": "blink-fast", "g1": "on", "e5": "blink-fast", "e7": "on"}
    mark = len(sim.console_lines)
    sim.play("f3g1")
    sim.play("e5e7")
    sim.run(600)
    assert sim.state()["phase"] == "thinking" and online_lines(sim, mark) == []  # put back: nothing sent
    # a reconnection brings several moves at once, in two lines: set up with the LEDs
    assert one(sim, "online add 1 e7e5 g1f3") == "ok"
    assert one(sim, "online moves 3 b8c6 f1b5") == "ok"
    assert sim.game() == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"] and sim.state()["phase"] == "verify"
    for m in ("e7e5", "g1f3", "b8c6", "f1b5"):
        sim.play(m)
    sim.run(600)
    assert sim.state()["phase"] == "thinking" and sim.game()[-1] == "f1b5"  # Black (the opponent) to move
    assert online_lines(sim, mark) == []


def test_a_move_with_the_opponents_pieces_is_taken_back_and_never_sent():
    sim = board()
    assert one(sim, "online start w g4") == "ok"
    sim.play("e2e4")
    mark = len(sim.console_lines)
    sim.play("e7e5")  # the player moves for the opponent
    sim.run(100)
    assert sim.game() == ["e2e4"] and online_lines(sim, mark) == []
    assert sim.state()["phase"] == "verify" and sim.lit() == {"e5": "blink-fast", "e7": "on"}
    sim.play("e5e7")
    sim.run(600)
    assert sim.state()["phase"] == "thinking"
    # a move taken back by hand asks the server for a take back
    sim.play("e4e2")
    sim.run(300)
    assert online_lines(sim, mark) == ["online takeback 0"] and sim.game() == []


def test_the_end_from_the_server_then_new_leaves_online_play():
    sim = board(human="white")
    stats = sim.console("stats")
    assert one(sim, "online start w g5") == "ok"
    sim.play("f2f3")
    assert one(sim, "online moves 0 f2f3 e7e5") == "ok"
    sim.execute()
    sim.play("g2g4")
    assert one(sim, "online moves 3 d8h4") == "ok"  # mate: lit like any move
    assert one(sim, "online end 0-1 mate") == "ok"  # before it is made: recorded, then guided
    assert sim.game() == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert sim.state()["phase"] == "verify" and sim.lit() == {"d8": "blink-fast", "h4": "on"}
    sim.play("d8h4")
    sim.run(600)
    assert sim.state()["phase"] == "over" and sim.state()["reason"] == "checkmate"
    assert '[Result "0-1"]' in sim.pgn()
    assert sim.console("stats") == stats  # not a game against the computer
    mark = len(sim.console_lines)
    sim.press("new")
    sim.run(50)
    assert online_lines(sim, mark) == ["online left"]
    assert one(sim, "online status") == "online off"
    assert one(sim, "settings").startswith("level 5, computer Black")  # as before
    from firmware.controller.flow import HELD

    assert sim.game() == [] and not sim.app.controller._holding & 1 << HELD.index("online")  # let go


def test_resignation_abort_and_stop():
    sim = board()
    assert one(sim, "online start b g6") == "ok"
    assert one(sim, "online moves 0 d2d4") == "ok"
    sim.execute()
    assert one(sim, "online end 1-0 resign") == "ok"
    assert sim.state()["result"] == "1-0" and sim.state()["reason"] == "resignation"
    assert one(sim, "online start w g7") == "ok"
    assert sim.game() == []
    assert one(sim, "online end * aborted") == "ok"  # dropped: normal play again
    assert one(sim, "online status") == "online off"
    assert one(sim, "online start w g8") == "ok"
    assert one(sim, "online start w g8") == "ok resume 0"  # the same game again: goes on
    assert one(sim, "online stop") == "ok"
    assert one(sim, "online status") == "online off"


def test_malformed_online_lines_change_nothing():
    sim = board()
    for bad in ("online", "online moves 0 e2e4", "online start", "online start x g", "online start w",
                "online start w g fen/bad"):
        assert one(sim, bad).startswith("error: "), bad
    assert one(sim, "online start w g9") == "ok"
    for bad in ("online moves", "online moves x", "online moves 5 e2e4", "online moves 0 e2e5",
                "online clock 1 2", "online clock a b w", "online offer maybe", "online end 2-0 mate",
                "online frob"):
        assert one(sim, bad).startswith("error: "), bad
    assert sim.game() == [] and one(sim, "online status") == "online g9 w ply 0 player"


MPY = r"""
out = []
class Lines:
    def __init__(s): s.q = []
    def readline(s): return s.q.pop(0) if s.q else None
lines = Lines()
for i in range(64):
    b.closed[i] = 0
T = [0]
app = App(hw, Searcher(tt_entries=256, poll_nodes=64, clock_ms=lambda: T[0]), ticks_ms=ticks, console=lines,
          write=out.append)
app.boot(ticks())
def say(line, ms=30):
    del out[:]
    lines.q.append(line)
    run(ms)
    print(line, "->", " | ".join(out))
def touch(what, sq, ms=300):
    del out[:]
    lines.q.append(what + " " + sq)
    run(ms)
    print(what, sq, "->", " | ".join(out))
run(200)
say("feed")
run(800)
say("online start w m1")
touch("lift", "e2")
touch("place", "e4", 800)
say("online moves 0 e2e4 e7e5")
say("computer")
touch("lift", "e7")
touch("place", "e5", 800)
say("moves")
say("online clock 60000 59000 w")
say("press hint")
say("online status")
say("online end 1/2-1/2 draw")
say("status")
say("press new")
say("online status")
print("searches", app.searches)
"""


def test_online_protocol_under_micropython():
    out = run_mpy(SETUP + MPY, timeout=300)
    got = {}
    for line in out.split("\n"):
        if " -> " in line:
            key, _, value = line.partition(" -> ")
            got.setdefault(key, []).append(value)
    assert got["online start w m1"] == ["ok"], out
    assert got["place e4"] == ["ok | online played e2e4 1"], out
    assert got["computer"] == ["e7e5"], out
    assert got["moves"] == ["e2e4 e7e5"], out
    assert got["press hint"] == ["online draw | ok"], out
    assert got["online status"] == ["online m1 w ply 2 player", "online off"], out
    assert got["online end 1/2-1/2 draw"] == ["ok"] and got["status"] == ["over ply 2 1/2-1/2"], out
    assert got["press new"] == ["online left | ok"], out
    assert "searches 0" in out, out


def test_promotions_both_ways_from_a_start_position():
    fen = "8/P7/4k3/8/8/8/7p/4K3 w - - 0 1"
    sim = Simulator(seed=1, book=False, ponder=False, human="both", pieces=fen)
    assert one(sim, "online start w g10 " + fen) == "ok"
    sim.run(600)
    assert sim.state()["phase"] == "player"
    mark = len(sim.console_lines)
    sim.play("a7a8")
    assert sim.state()["phase"] == "promote" and online_lines(sim, mark) == []  # sent once chosen
    sim.press("level")  # queen -> rook
    sim.press("move")
    sim.run(50)
    assert online_lines(sim, mark) == ["online played a7a8r 1"]
    assert one(sim, "online moves 1 h2h1n") == "ok"
    assert sim.computer_move() == "h2h1n"
    sim.execute()
    assert sim.game() == ["a7a8r", "h2h1n"] and sim.fen().startswith("R7/8/4k3/8/8/8/8/4K2n w")


def test_the_display_says_opponents_move_not_thinking():
    sim = board(human="white")
    assert one(sim, "online start w g11") == "ok"
    sim.play("e2e4")
    sim.run(100)
    text = sim.display_text()
    assert text[0] == "Opponent's move" and text[2] == "Lichess g11", text
    assert one(sim, "online clock 60000 60000 b") == "ok"
    assert sim.display_text()[1] == "W 1:00 B 1:00"
    assert one(sim, "online moves 1 e7e5") == "ok"
    text = sim.display_text()
    assert text[0].startswith("Play e7e5") and text[1] == "W 1:00 B 1:00", text


def test_a_power_cut_during_an_online_game_waits_for_the_server():
    """The engine never plays the opponent's side after a restart: the game waits for the
    bridge (or the board's own client) to come back with the same game id."""
    sim = board(human="white")
    assert one(sim, "online start w g12") == "ok"
    sim.play("e2e4")
    assert one(sim, "online moves 0 e2e4 e7e5") == "ok"
    sim.execute()
    sim.play("g1f3")
    assert sim.game() == ["e2e4", "e7e5", "g1f3"]
    again = Simulator(seed=1, book=False, ponder=False, human="white", flash=sim.flash.copy(),
                      pieces=sim.fen())
    again.run(3000)
    assert again.game() == ["e2e4", "e7e5", "g1f3"]
    assert again.computer_move() is None and again.app.searches == 0  # the engine stays quiet
    assert one(again, "online status") == "online g12 w ply 3 thinking"
    assert again.display_text()[0] == "Opponent's move"
    assert one(again, "online start w g12") == "ok resume 3"  # the bridge is back
    assert one(again, "online moves 3 b8c6") == "ok" and again.computer_move() == "b8c6"
    assert one(again, "online end 1/2-1/2 draw") == "ok"
    third = Simulator(seed=1, book=False, ponder=False, human="white", flash=again.flash.copy(),
                      pieces=again.fen())
    assert one(third, "online status") == "online off"  # the end clears the mark
