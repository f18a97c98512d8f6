"""Touch-move ("touched, moved"): once a piece of the side to move with a legal move is
lifted, only moves of that piece count; putting it back is flagged. Unit tests of
firmware/features/touch.py and scenarios in the Simulator (default off, on through the
options menu, refusing another piece, captures, rook-first castling)."""
import chess

from firmware.controller.settings import OPTION_NAMES, Settings
from firmware.features.touch import TouchMove
from firmware.engine.constants import to_sq64
from firmware.engine.levels import find_level
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from host_sim import Simulator


def cell(name):
    return chess.parse_square(name)


def test_touch_move_rules():
    pos = Position()
    tm = TouchMove()
    assert tm.allows(parse_uci(pos, "e2e4"))
    assert not tm.lifted(cell("a1"), pos)  # a rook without a legal move binds nothing
    assert not tm.lifted(cell("e7"), pos)  # nor does a piece of the opponent
    assert tm.lifted(cell("g1"), pos) and tm.cell == cell("g1")
    assert not tm.lifted(cell("b1"), pos)  # the first touched piece stays the one
    assert not tm.allows(parse_uci(pos, "e2e4")) and tm.allows(parse_uci(pos, "g1f3"))
    assert not tm.put_back(cell("b1")) and tm.put_back(cell("g1")) and tm.flagged
    tm.clear()
    assert tm.cell == -1 and not tm.flagged and tm.allows(parse_uci(pos, "e2e4"))
    castle = Position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert tm.lifted(cell("h1"), castle)
    assert not tm.allows(parse_uci(castle, "e1g1"))  # FIDE 4.4b: rook first, then no castling
    tm.clear()
    assert tm.lifted(to_sq64(0x04), castle) and tm.allows(parse_uci(castle, "e1g1"))


def touch_sim(on=True, fen=None, board="pico"):
    s = Settings(level=find_level("Depth 2"), computer_side=8)
    s.touch_move = on
    s.ponder = False
    return Simulator(settings=s, fen=fen, book=False, board=board)


def test_touched_piece_must_move_another_is_refused():
    sim = touch_sim()
    sim.lift("g1")
    sim.run(300)
    sim.place("g1")
    sim.settle()
    assert sim.state()["message"] == "Touch move: g1"
    assert sim.lit() == {"g1": "blink"} and sim.display_text()[1] == "Touch move: g1"
    tones = len(sim.buzzer_tones())
    sim.play("e2e4")  # another piece: refused, the board must be put back
    assert sim.game() == [] and len(sim.buzzer_tones()) > tones
    assert sim.lit() == {"e4": "blink-fast", "e2": "blink", "g1": "blink"}
    sim.play("e4e2")
    assert sim.lit() == {"g1": "blink"} and sim.game() == []
    sim.play("g1f3")  # the touched knight moves: fine
    assert sim.game() == ["g1f3"]
    reply = sim.wait_computer()
    sim.execute()
    assert sim.game() == ["g1f3", reply] and sim.lit() == {}
    sim.play("e2e4")  # a new move: nothing is touched any more
    assert sim.game()[-1] == "e2e4"


def test_default_off_and_switched_on_in_the_options_menu():
    sim = touch_sim(on=False)
    assert Settings().touch_move is False
    sim.lift("g1")
    sim.run(300)
    sim.place("g1")
    sim.settle()
    sim.play("e2e4")
    assert sim.game() == ["e2e4"]
    sim.wait_computer()
    sim.execute()
    sim.press("level", long=True)
    for _ in range(OPTION_NAMES.index("touch_move")):
        sim.press("level")
    assert sim.display_text()[1:3] == ["Touch move:", "off"]
    sim.press("hint")
    sim.press("ok")
    assert sim.controller.settings.touch_move
    sim.lift("b1")
    sim.run(300)
    sim.place("b1")
    sim.settle()
    sim.play("d2d4")
    assert len(sim.game()) == 2
    sim.play("d4d2")
    sim.play("b1c3")
    assert len(sim.game()) == 3
    # the setting is saved with the others
    again = Simulator(flash=sim.flash.copy(), pieces=sim.board_fen(), book=False)
    assert again.controller.settings.touch_move


def test_captures_and_castling_under_touch_move():
    sim = touch_sim(fen="r3k2r/pppq1ppp/8/3p4/4P3/8/PPP2PPP/R3K2R w KQkq - 0 1")
    sim.play("e4d5", order="victim-first")  # lifting the victim first binds nothing
    assert sim.game() == ["e4d5"]
    sim.wait_computer()
    sim.execute()
    sim.play("e1g1", order="rook-first")  # the rook was touched first: no castling (FIDE 4.4b)
    assert sim.game()[-1] != "e1g1" and sim.state()["errors"]
    assert sim.display_text()[1] == "Touch move: h1"
    for step in ("-g1", "+e1", "-f1", "+h1"):  # the board back as it was
        (sim.lift if step[0] == "-" else sim.place)(step[1:])
        sim.run(250)
    sim.settle()
    assert not sim.state()["errors"]
    sim.play("h1f1")  # so the rook moves
    assert sim.game()[-1] == "h1f1"
