"""Table (the command layer) on the real Simulator: the physical pieces a hand moves
(captures, castling, en passant, promotion, put back), every bad command's message, buttons,
SAN input, the screen, the line UI and the recorder."""
import io

import pytest

from host_sim import Simulator
from host_sim.replay import Recorder
from host_sim.tui import CommandError, Quit, Table, run_lines


@pytest.fixture(autouse=True)
def _close_simulators():
    made = []
    orig = Simulator.__init__

    def init(self, *a, **kw):
        orig(self, *a, **kw)
        made.append(self)

    Simulator.__init__ = init
    yield
    Simulator.__init__ = orig
    for sim in made:
        sim.close()


def table(fen=None, human="white", **kw):
    return Table(Simulator(seed=0, level=0, fen=fen, book=False, human=human), **kw)


def test_move_command_moves_the_pieces_and_waits_for_the_answer():
    t = table()
    t.execute("e2e4")
    snap = t.snapshot()
    assert snap["pieces"]["e4"] == "P" and "e2" not in snap["pieces"]
    assert snap["game"] == ["e2e4"]
    cm = snap["computer_move"]
    assert cm and snap["lit"] == {cm[:2]: "on", cm[2:4]: "on"}
    t.execute("do")
    assert t.sim.game() == ["e2e4", cm]
    assert t.snapshot()["moves"][0] == ["1.", "e4"]


def test_capture_takes_the_victim_off_the_board():
    t = table("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    t.execute("e4d5")
    assert t.pieces[square("d5")] == "P" and square("e4") not in t.pieces
    assert "p" in t.box
    assert t.sim.game()[0] == "e4d5"


def square(name):
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


def test_castling_moves_king_then_rook_and_records_every_touch():
    t = table("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", recorder=Recorder(io.StringIO(), {"board": "pico"}))
    t.execute("e1g1")
    assert t.pieces[square("g1")] == "K" and t.pieces[square("f1")] == "R"
    assert [e.command() for e in t.recorder.events] == ["lift e1", "place g1 K", "lift h1", "place f1 R"]
    times = [e.time_ms for e in t.recorder.events]
    assert times == sorted(times) and times[1] - times[0] >= 300
    assert t.sim.game() == ["e1g1"] and t.sim.board_fen() == t.sim.fen().split()[0] == "r3k2r/8/8/8/8/8/8/R4RK1"


def test_en_passant_and_promotion_physically():
    t = table("4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1", human="both")
    t.execute("e5d6")
    assert t.pieces[square("d6")] == "P" and square("d5") not in t.pieces and "p" in t.box
    assert t.sim.game() == ["e5d6"]
    t.execute("e8f8")
    t.execute("b7b8r")
    assert t.pieces[square("b8")] == "R" and "P" in t.box
    assert t.sim.game() == ["e5d6", "e8f8", "b7b8r"]


def test_fine_control_and_put_back():
    t = table(human="both")
    t.execute("lift g1", settle=False)
    assert t.snapshot()["hand"] == ["N"]
    t.execute("place g1", settle=False)
    assert t.pieces[square("g1")] == "N" and not t.hand
    # capture by hand, mover first: the piece from the other square goes down
    t.arrange("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    t.execute("lift e4", settle=False)
    t.execute("lift d5", settle=False)
    t.execute("place d5", settle=False)
    assert t.pieces[square("d5")] == "P" and t.box[-1] == "p" and not t.hand


@pytest.mark.parametrize("line, words", [
    ("lift e5", "no piece on e5"),
    ("place e1", "occupied"),
    ("place e5", "hand is empty"),
    ("frobnicate", "unknown command"),
    ("lift", "usage"),
    ("press", "usage"),
    ("press turbo", "no 'turbo' button"),
    ("do", "not showing a move"),
    ("wait soon", "not a time"),
    ("arrange nonsense", "not a usable FEN"),
    ("place e5 X", "not a piece letter"),
    ("e2e2", "same square"),
])
def test_bad_commands_say_why(line, words):
    t = table()
    with pytest.raises(CommandError) as e:
        t.execute(line)
    assert words in str(e.value)


def test_quit_and_help_and_buttons():
    t = table()
    with pytest.raises(Quit):
        t.execute("quit")
    assert "takeback" in t.execute("help") and "e2e4" in t.execute("help")
    t.execute("hint")
    hint = t.state()["hint"]
    assert hint and t.lit() == {hint[:2]: "blink", hint[2:4]: "blink"}
    t.execute("hold level")
    assert t.state()["menu"] == "options"  # hold level: the options menu, shown on the squares
    assert t.lit() and t.lit() != {hint[:2]: "blink", hint[2:4]: "blink"}
    t.execute("ok")
    t.execute("move long")
    assert t.state()["computer"] == "nobody"  # two-player mode


def test_san_input_uses_the_firmware_position():
    t = table()
    t.execute("Nf3")
    assert t.sim.game()[0] == "g1f3"


def test_screen_shows_pieces_leds_and_moves():
    t = table()
    t.execute("e2e4")
    cm = t.sim.computer_move()
    text = t.screen_text()
    assert "1. e4" in text and "Computer: " + cm in text
    assert "[" in text and "you play White" in text
    rows = text.splitlines()
    rank1 = next(r for r in rows if r.startswith(" 1 |"))
    assert "R  N  B  Q  K  B  N  R" in rank1


def test_line_ui_runs_a_script():
    out = io.StringIO()
    run_lines(table(), io.StringIO("e2e4\nbogus\nfen\nquit\n"), out)
    text = out.getvalue()
    assert "error: unknown command 'bogus'" in text
    assert "rnbqkbnr/pppppppp/8/8/4P3" in text or "4P3" in text
    assert text.rstrip().endswith("bye")


def test_the_thinking_line_while_the_computer_ponders():
    t = Table(Simulator(seed=1))  # the book answers first; pondering starts out of book
    for move in ("e2e4", "d2d4", "g1f3"):
        t.execute(move)
        t.execute("do")
    snap = t.snapshot()
    assert snap["state"]["pondering"] is True
    assert snap["thinking"].startswith("pondering on " + snap["state"]["ponder_move"])
    assert snap["ui_error"] is None and "UI error" not in t.screen_text()


def test_a_broken_part_of_the_picture_is_named_and_the_game_goes_on():
    t = table()
    t.display_lines = lambda: 1 / 0
    snap = t.snapshot()
    assert snap["display"] == [] and "display failed: ZeroDivisionError" in snap["ui_error"]
    assert "UI error: display failed" in t.screen_text()
    t.execute("e2e4")  # the game goes on
    assert t.snapshot()["moves"][0] == ["1.", "e4"]


def test_the_line_ui_survives_a_bug_in_a_command():
    t = table()
    t.flip = None
    broken = {"n": 0}

    def execute(line, settle=True, _orig=t.execute):
        if line.strip() == "fen" and not broken["n"]:
            broken["n"] = 1
            raise KeyError("boom")
        return _orig(line, settle)

    t.execute = execute
    out = io.StringIO()
    run_lines(t, io.StringIO("fen\ne2e4\nquit\n"), out)
    text = out.getvalue()
    assert "error: internal error KeyError: 'boom'" in text and "(the game goes on)" in text
    assert "1. e4" in text and text.rstrip().endswith("bye")
