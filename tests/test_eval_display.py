"""The evaluation display: the computer's score in pawns, depth, nodes and principal variation
(in SAN) on the display, switchable off in the options menu (mate announcements stay)."""
import chess

from firmware.controller import ui
from firmware.controller.settings import OPTION_NAMES
from firmware.engine.levels import find_level
from host_sim import Simulator


def eval_lines(sim):
    """Lines 4 and 5 of the display (read back from its RAM; blank lines read as "")."""
    return (sim.display_text() + [""] * 5)[3:5]


def test_score_depth_nodes_and_line_are_shown_and_the_line_follows_the_game():
    sim = Simulator(level=find_level("Depth 4"), book=False, ponder=False)
    sim.play("e2e4")
    move = sim.wait_computer()
    st = sim.state()
    score, pv = eval_lines(sim)
    sign = "+" if st["score_cp"] >= 0 else "-"
    assert score == "%s%d.%02d d4 n%s" % (sign, abs(st["score_cp"]) // 100, abs(st["score_cp"]) % 100,
                                           st["nodes"] if st["nodes"] < 10000 else "%dk" % (st["nodes"] // 1000))
    board = chess.Board()
    board.push_uci("e2e4")
    words = pv.split()
    assert 2 <= len(words) <= 4 and board.parse_san(words[0]).uci() == move
    for w in words:
        board.push_san(w)  # a legal line from the position, in SAN
    sim.execute()
    assert eval_lines(sim)[1] == " ".join(words[1:])  # the line from here on
    sim.play(chess.Board(sim.fen()).parse_san(words[1]).uci() if len(words) > 1 else "d2d4")
    sim.wait_computer()
    assert eval_lines(sim)[0].endswith(("k", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"))


def test_switched_off_in_the_options_menu_but_mates_are_still_announced():
    sim = Simulator(level=find_level("Depth 2"), book=False, ponder=False,
                    fen="6k1/5ppp/8/8/8/8/r4PPP/1R4K1 w - - 0 1")
    sim.press("level", long=True)
    for _ in range(OPTION_NAMES.index("show_eval")):
        sim.press("level")
    assert sim.display_text()[1:3] == ["Eval info:", "on"]
    sim.press("hint")
    sim.press("ok")
    assert sim.controller.settings.show_eval is False
    sim.play("b1c1")
    sim.wait_computer()
    assert eval_lines(sim) == ["", ""]
    sim.execute()
    sim.play("c1b1")
    sim.wait_computer()
    assert eval_lines(sim) == ["", ""] and sim.state()["score_cp"] is not None
    sim.console("new 6k1/5ppp/8/8/3N4/8/r4PPP/6K1 w - - 0 1")
    sim.arrange("6k1/5ppp/8/8/3N4/8/r4PPP/6K1")
    sim.settle()
    sim.play("d4b5")  # Black mates next move: announced all the same
    assert sim.wait_computer() == "a2a1"
    assert eval_lines(sim)[0] == "Mate in 1"


def test_score_text_formats():
    class C:
        mate_in = None
        depth = 7

        class settings:
            show_eval = True

    c = C()
    for cp, nodes, text in ((35, 812, "+0.35 d7 n812"), (-250, 12345, "-2.50 d7 n12k"), (0, 0, "+0.00 d7"),
                            (1, 25000000, "+0.01 d7 n25M")):
        c.score_cp = cp
        c.nodes = nodes
        assert ui._score_text(c) == text
    c.settings.show_eval = False
    assert ui._score_text(c) == ""
    c.mate_in = -3
    assert ui._score_text(c) == "Mated in 3"
