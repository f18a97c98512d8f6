"""A small stand-in with the Simulator API (ARCHITECTURE.md), for the command layer's own
tests: python-chess plays the firmware's part (occupancy -> move after stable_ms, a computer
that answers with the first legal move after 1 s of "thinking"). The scenario tests in
test_tui.py, test_web.py and test_replay.py use the real host_sim.Simulator; this file only
pins down Table behaviour that does not depend on the firmware (physical pieces, parsing,
errors, recording), quickly."""
import io

import chess
import pytest

from host_sim.replay import Recorder, SensorLog, replay
from host_sim.tui import CommandError, Quit, Table, run_lines


class FakeSim:
    STABLE_MS = 300
    THINK_MS = 1000

    def __init__(self, seed=0, human="white", board="pico"):
        self.board = chess.Board()
        self.human = human
        self.occupied = set(self.board.piece_map())
        self.now_ms = 0
        self.changed_ms = 0
        self.shown = None
        self.think_until = None
        self.presses = []
        self.hint = None

    def lift(self, sq):
        self.occupied.discard(chess.parse_square(sq))
        self.changed_ms = self.now_ms

    def place(self, sq, piece=None):
        self.occupied.add(chess.parse_square(sq))
        self.changed_ms = self.now_ms

    def press(self, name, long=False):
        self.presses.append((name, long))
        if name == "hint":
            self.hint = sorted(m.uci() for m in self.board.legal_moves)[0]
        self.run(100)

    def _computer_turn(self):
        return (self.board.turn == chess.WHITE) != (self.human == "white")

    def run(self, ms):
        end = self.now_ms + ms
        while self.now_ms < end:
            self.now_ms += 10
            self._step()

    def _step(self):
        if self.think_until is not None and self.now_ms >= self.think_until:
            self.think_until = None
            self.shown = sorted(m.uci() for m in self.board.legal_moves)[0]
        if self.now_ms - self.changed_ms < self.STABLE_MS or self.occupied == set(self.board.piece_map()):
            return
        for move in self.board.legal_moves:
            self.board.push(move)
            ok = set(self.board.piece_map()) == self.occupied
            if ok and (self.shown is None or move.uci() == self.shown):
                self.shown = None
                self.hint = None
                if self._computer_turn() and not self.board.is_game_over():
                    self.think_until = self.now_ms + self.THINK_MS
                return
            self.board.pop()

    def lit(self):
        if self.shown:
            return {self.shown[:2]: "on", self.shown[2:4]: "on"}
        if self.hint:
            return {self.hint[:2]: "blink", self.hint[2:4]: "blink"}
        return {}

    def computer_move(self):
        return self.shown

    def game(self):
        return [m.uci() for m in self.board.move_stack]

    def fen(self):
        return self.board.fen()


def table(**kw):
    return Table(FakeSim(), **kw)


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
    t = table()
    t.arrange("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    t.sim.board.set_fen("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    t.execute("e4d5")
    assert t.pieces[square("d5")] == "P" and square("e4") not in t.pieces
    assert "p" in t.box
    assert t.sim.game()[0] == "e4d5"


def square(name):
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


def test_castling_moves_king_then_rook_and_records_every_touch():
    t = Table(FakeSim(), recorder=Recorder(io.StringIO(), {"board": "pico"}))
    t.arrange("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    t.sim.board.set_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    t.recorder.events.clear()
    t.execute("e1g1")
    assert t.pieces[square("g1")] == "K" and t.pieces[square("f1")] == "R"
    assert [e.command() for e in t.recorder.events] == ["lift e1", "place g1 K", "lift h1", "place f1 R"]
    times = [e.time_ms for e in t.recorder.events]
    assert times == sorted(times) and times[1] - times[0] >= 300


def test_en_passant_and_promotion_physically():
    t = table()
    t.arrange("4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1")
    t.play("e5d6")
    assert t.pieces[square("d6")] == "P" and square("d5") not in t.pieces and "p" in t.box
    t.play("b7b8n")
    assert t.pieces[square("b8")] == "N" and "P" in t.box


def test_fine_control_and_put_back():
    t = table()
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
    t.execute("hint", settle=False)
    t.execute("hold level", settle=False)
    t.execute("move long", settle=False)
    assert t.sim.presses == [("hint", False), ("level", True), ("move", True)]
    assert t.snapshot()["lit"]  # the hint is shown


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


def test_recorded_log_replays_to_the_same_game():
    stream = io.StringIO()
    t = Table(FakeSim(), recorder=Recorder(stream, {"board": "pico", "seed": 0}))
    for line in ("e2e4", "do", "d2d4", "do", "hint", "g1f3"):
        t.execute(line)
    log = SensorLog.parse(stream.getvalue())
    assert log.header["board"] == "pico" and len(log.events) == 11
    t2 = Table(FakeSim())
    replay(t2, log)
    t2.settle()
    assert t2.sim.game() == t.sim.game() and len(t.sim.game()) >= 5
    assert t2.pieces == t.pieces
