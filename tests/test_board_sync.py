"""Board sync scenarios: events and occupancy with a fake clock, one test per physical order.

`Rig` is a physical board plus a minimal controller: it lifts/places pieces (feeding the
events and the occupancy to BoardSync with the time), calls update() every 10 ms like a main
loop, records every code, and acknowledges reports the way the real controller must (MOVE /
EXECUTED: make the move and set_position; TAKEBACK: unmake; START_POSITION: new game).
"""
import pytest

from firmware.controller import board_sync as bs
from firmware.controller.board_sync import BoardSync, SyncError
from firmware.controller.board_sync import occupancy_of, diff_cells, START_OCCUPANCY
from firmware.engine.constants import parse_square, square_name, to_sq64, from_sq64
from firmware.engine.fen import fen
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position

TICK_MS = 10


def cell(name):
    return to_sq64(parse_square(name))


def name(c):
    return square_name(from_sq64(c))


class Rig:
    def __init__(self, fen_text=None, moves=(), stable_ms=400, unexplained_ms=3000, auto=True):
        self.pos = Position(fen_text)
        for text in moves:
            self.pos.make(parse_uci(self.pos, text))
        self.sync = BoardSync(stable_ms=stable_ms, unexplained_ms=unexplained_ms)
        self.occ = occupancy_of(self.pos)
        self.now = 1000
        self.log = []
        self.auto = auto
        self.sync.set_position(self.pos)
        self.run(50)

    # physical actions ------------------------------------------------------------------
    def lift(self, sq, after_ms=80):
        self._act(sq, bs.LIFT, after_ms)

    def place(self, sq, after_ms=80):
        self._act(sq, bs.PLACE, after_ms)

    def _act(self, sq, kind, after_ms):
        self.run(after_ms)
        c = cell(sq)
        bit = 1 << (c & 7)
        if kind == bs.PLACE:
            self.occ[c >> 3] |= bit
        else:
            self.occ[c >> 3] &= 255 ^ bit
        self.sync.event(c, kind, self.now)
        self.tick()

    def play(self, *steps, gap_ms=80):
        """Steps like "-e2" (lift) and "+e4" (place)."""
        for step in steps:
            if step[0] == "-":
                self.lift(step[1:], gap_ms)
            else:
                self.place(step[1:], gap_ms)

    # the main loop ---------------------------------------------------------------------
    def run(self, ms):
        end = self.now + ms
        while self.now < end:
            self.now = min(self.now + TICK_MS, end)
            self.tick()

    def tick(self):
        for _ in range(10):
            code = self.sync.update(self.occ, self.now)
            if code == bs.IDLE:
                return
            self.handle(code)
        raise AssertionError("update() kept reporting: %r" % self.log[-10:])

    def handle(self, code):
        s = self.sync
        label = bs.CODE_NAMES[code]
        if code in (bs.MOVE, bs.EXECUTED, bs.TAKEBACK):
            entry = (label, uci(s.move))
        elif code in (bs.LIFTED, bs.PUT_BACK):
            entry = (label, name(s.lifted_cell))
        elif code in (bs.WRONG, bs.ILLEGAL):
            entry = (label, sorted(name(c) for c in s.wrong_cells))
        elif code == bs.UNEXPLAINED:
            entry = (label, sorted(name(c) for c in s.to_clear), sorted(name(c) for c in s.to_fill))
        else:
            entry = (label,)
        self.log.append(entry)
        if not self.auto:
            return
        if code in (bs.MOVE, bs.EXECUTED):
            self.pos.make(s.move)
            s.set_position(self.pos)
        elif code == bs.TAKEBACK:
            assert self.pos.hist_move[self.pos.ply - 1] == s.move
            self.pos.unmake()
            s.set_position(self.pos)
        elif code == bs.START_POSITION:
            self.pos = Position()
            s.set_position(self.pos)

    def expect(self, text):
        self.sync.expect_move(parse_uci(self.pos, text))

    def codes(self, *skip):
        return [e for e in self.log if e[0] not in skip]

    def main(self):
        """The log without LIFTED/PUT_BACK."""
        return self.codes("LIFTED", "PUT_BACK")

    def game(self):
        return [uci(self.pos.hist_move[i]) for i in range(self.pos.ply)]


CASTLE_FEN = "r3k2r/pppq1ppp/2n2n2/2bpp3/2BPP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1"


# ---- player moves -------------------------------------------------------------------------
def test_normal_move_counts_only_once_the_board_is_stable():
    r = Rig()
    r.lift("e2")
    assert r.log == [("LIFTED", "e2")]
    r.place("e4")
    r.run(390)
    assert r.main() == []
    r.run(30)
    assert r.main() == [("MOVE", "e2e4")]
    assert r.sync.promotion is False
    r.run(5000)
    assert r.main() == [("MOVE", "e2e4")], "a move is reported once"
    assert r.game() == ["e2e4"]


def test_lifting_only_reports_pieces_of_the_side_to_move():
    r = Rig()
    r.lift("e7")
    r.place("e7")
    r.run(1000)
    assert r.log == []
    r.lift("g1")
    r.place("g1")
    r.run(1000)
    assert r.log == [("LIFTED", "g1"), ("PUT_BACK", "g1")]


def test_slow_slide_over_several_squares_is_one_move():
    r = Rig(moves=["e2e4", "e7e5"])
    r.play("-d1", "+e2", "-e2", "+f3", "-f3", "+g4", "-g4", "+h5", gap_ms=350)
    r.run(500)
    assert r.main() == [("MOVE", "d1h5")]


@pytest.mark.parametrize("steps", [("-d5", "-e4", "+d5"), ("-e4", "-d5", "+d5"), ("-e4", "+e5", "-d5", "-e5", "+d5")],
                         ids=["victim-first", "mover-first", "mover-first-via-slide"])
def test_capture_in_either_order(steps):
    r = Rig(moves=["e2e4", "d7d5"])
    r.play(*steps, gap_ms=300)
    r.run(500)
    assert r.main() == [("MOVE", "e4d5")]


def test_capture_target_is_told_apart_by_the_history():
    # The rook on d8 can take a8 or d2: same occupancy afterwards, the events decide.
    for target in ("a8", "d2"):
        r = Rig("B2rk3/8/8/8/8/8/3P4/4K3 b - - 0 1")
        r.play("-" + target, "-d8", "+" + target)
        r.run(500)
        assert r.main() == [("MOVE", "d8" + target)]


def test_a_piece_touched_before_lifting_the_mover_is_no_capture_target():
    r = Rig("B2rk3/8/8/8/8/8/3P4/4K3 b - - 0 1")
    r.play("-a8", "+a8", "-d2", "-d8", "+d2")  # adjusts a8 first, then takes on d2
    r.run(500)
    assert r.main() == [("MOVE", "d8d2")]


def test_a_lifted_piece_is_never_read_as_a_capture():
    r = Rig("B2rk3/8/8/8/8/8/3P4/4K3 b - - 0 1")
    r.play("-d2", "+d2", "-d8")  # touched the pawn, then lifted the rook: thinking, not capturing
    r.run(10_000)
    assert r.main() == []


def test_ambiguous_captures_are_not_guessed():
    r = Rig("B2rk3/8/8/8/8/8/3P4/4K3 b - - 0 1")
    r.play("-d8", "-a8", "+a8", "-d2", "+d2")  # rook in hand; both targets lifted and put down
    r.run(500)
    assert ("MOVE",) not in [e[:1] for e in r.log]
    assert r.main() == [("ILLEGAL", ["d8"])]
    r.run(3000)
    assert r.main()[-1] == ("UNEXPLAINED", [], ["d8"])
    r.place("d8")
    r.run(500)
    assert r.main()[-1] == ("RESTORED",)
    r.play("-d2", "-d8", "+d2")
    r.run(500)
    assert r.main()[-1] == ("MOVE", "d8d2")


CASTLING_ORDERS = [
    ("w", "king-first", ("-e1", "+g1", "-h1", "+f1"), "e1g1"),
    ("w", "king-slides-first", ("-e1", "+f1", "-f1", "+g1", "-h1", "+f1"), "e1g1"),
    ("w", "rook-first", ("-h1", "+f1", "-e1", "+g1"), "e1g1"),
    ("w", "both-lifted-king-first", ("-e1", "-h1", "+g1", "+f1"), "e1g1"),
    ("w", "both-lifted-rook-first", ("-h1", "-e1", "+f1", "+g1"), "e1g1"),
    ("w", "long-king-first", ("-e1", "+c1", "-a1", "+d1"), "e1c1"),
    ("w", "long-rook-slides-first", ("-a1", "+b1", "-b1", "+c1", "-c1", "+d1", "-e1", "+c1"), "e1c1"),
    ("w", "long-both-lifted", ("-a1", "-e1", "+c1", "+d1"), "e1c1"),
    ("b", "king-first", ("-e8", "+g8", "-h8", "+f8"), "e8g8"),
    ("b", "rook-first", ("-h8", "+f8", "-e8", "+g8"), "e8g8"),
    ("b", "long-both-lifted", ("-e8", "-a8", "+d8", "+c8"), "e8c8"),
    ("b", "long-rook-first", ("-a8", "+d8", "-e8", "+c8"), "e8c8"),
]


@pytest.mark.parametrize("stm,order,steps,want", CASTLING_ORDERS, ids=[c[0] + "-" + c[1] for c in CASTLING_ORDERS])
def test_castling_in_every_order(stm, order, steps, want):
    r = Rig(CASTLE_FEN.replace(" w ", " %s " % stm))
    r.play(*steps)
    r.run(500)
    assert r.main() == [("MOVE", want)]


def test_castling_king_first_with_a_long_pause_waits_for_the_rook():
    r = Rig(CASTLE_FEN)
    r.play("-e1", "+g1")
    r.run(2500)  # not a legal board, but half a castling: no alarm
    assert r.main() == []
    r.play("-h1", "+f1")
    r.run(500)
    assert r.main() == [("MOVE", "e1g1")]


def test_castling_king_resting_on_f1_is_corrected():
    # Found by the paused property test: the king slides e1-f1 and rests (Kf1 is legal and
    # gets reported), then goes on to g1 and the rook comes to f1 (with a bounce on f1).
    r = Rig(CASTLE_FEN)
    r.play("-e1", "+f1")
    r.run(2000)
    assert r.main() == [("MOVE", "e1f1")]
    r.play("-f1", "+g1", "-h1", "+f1", "-f1", "+f1", gap_ms=90)
    r.run(500)
    assert r.main() == [("MOVE", "e1f1"), ("TAKEBACK", "e1f1"), ("MOVE", "e1g1")]
    assert r.game() == ["e1g1"]


def test_castling_rook_first_with_a_long_pause_is_corrected():
    # The rook's move alone is legal and gets reported; completing the castling replaces it.
    r = Rig(CASTLE_FEN)
    r.play("-h1", "+f1")
    r.run(1000)
    assert r.main() == [("MOVE", "h1f1")]
    r.play("-e1", "+g1")
    r.run(500)
    assert r.main() == [("MOVE", "h1f1"), ("TAKEBACK", "h1f1"), ("MOVE", "e1g1")]
    assert r.game() == ["e1g1"]


@pytest.mark.parametrize("steps", [("-d5", "-e5", "+d6"), ("-e5", "-d5", "+d6"), ("-e5", "+d6", "-d5")],
                         ids=["victim-removed-before", "victim-removed-between", "victim-removed-after"])
def test_en_passant(steps):
    r = Rig(moves=["e2e4", "a7a6", "e4e5", "d7d5"])
    r.play(*steps, gap_ms=300)
    r.run(500)
    assert r.main() == [("MOVE", "e5d6")]


def test_en_passant_victim_removed_after_a_long_pause():
    r = Rig(moves=["e2e4", "a7a6", "e4e5", "d7d5"])
    r.play("-e5", "+d6")
    r.run(2000)
    assert r.main() == []
    r.lift("d5")
    r.run(500)
    assert r.main() == [("MOVE", "e5d6")]


@pytest.mark.parametrize("steps,want", [(("-a7", "+a8"), "a7a8q"), (("-b8", "-a7", "+b8"), "a7b8q"),
                                        (("-a7", "-b8", "+b8"), "a7b8q")], ids=["push", "capture-victim-first",
                                                                                "capture-mover-first"])
def test_promotion_is_reported_as_queen_with_a_flag(steps, want):
    r = Rig("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    r.play(*steps)
    r.run(500)
    assert r.main() == [("MOVE", want)]
    assert r.sync.promotion is True
    # Swapping the pawn for a queen afterwards is no new move.
    r.play("-" + want[2:4], "+" + want[2:4], gap_ms=600)
    r.run(1000)
    assert r.main() == [("MOVE", want)]


def test_lifted_and_put_back_is_no_move():
    r = Rig()
    r.play("-g1", "+f3", "-f3", "+g1")
    r.run(5000)
    assert r.log == [("LIFTED", "g1"), ("PUT_BACK", "g1")]
    assert r.game() == []


def test_holding_a_piece_for_long_is_thinking_not_an_error():
    r = Rig(moves=["e2e4", "d7d5"])
    r.play("-d5", "-e4")  # both in hand
    r.run(20_000)
    assert r.main() == []
    r.place("d5")
    r.run(500)
    assert r.main() == [("MOVE", "e4d5")]


def test_fast_moves_of_both_players_are_both_found():
    # Two-player mode: Black answers before White's move was stable.
    r = Rig()
    r.play("-e2", "+e4", "-e7", "+e5", gap_ms=150)
    r.run(500)
    assert r.main() == [("MOVE", "e2e4"), ("MOVE", "e7e5")]


def test_fast_reply_under_way_reports_the_first_move():
    r = Rig()
    r.play("-e2", "+e4", "-e7", gap_ms=150)
    r.run(1000)
    assert r.main() == [("MOVE", "e2e4")]
    r.place("e5")
    r.run(500)
    assert r.main() == [("MOVE", "e2e4"), ("MOVE", "e7e5")]


def test_long_pause_mid_slide_after_removing_the_victim_ends_as_the_capture():
    # Found by the paused property test: Black removes the b4 pawn, slides the bishop from e7
    # and rests on c5 for seconds. That reads as Bc5 (with White's pawn in hand); going on to
    # b4 must turn it into Bxb4, never into "b4xc5" by the same PLACE on c5.
    r = Rig("1n2k1r1/r1p1bpqp/6p1/1p6/1P5P/5PQ1/P1PP4/1RK4R b - - 3 22", moves=())
    r.play("-b4", "-e7", "+c5")
    r.run(6000)
    r.play("-c5", "+b4")
    r.run(4000)
    assert r.game() == ["e7b4"]
    assert r.main()[-1] == ("MOVE", "e7b4")


def test_slow_slide_resting_twice_after_removing_the_victim():
    # Found by the paused property test: victim removed first, then the rook slides down
    # the file and rests on g7 and on g4. The opponent's pawn (lifted as the victim before
    # the rook left) must never be taken for a pawn that moved to g4.
    r = Rig("6r1/p2k4/5p2/8/4P2P/3B2P1/P1PNQP2/2R2KR1 b - - 0 31", moves=())
    r.play("-g3", "-g8", "+g7")
    r.run(3000)
    r.play("-g7", "+g6", "-g6", "+g5", "-g5", "+g4")
    r.run(3000)
    r.play("-g4", "+g3")
    r.run(4000)
    assert r.game() == ["g8g3"]
    assert r.main()[-1] == ("MOVE", "g8g3")


def test_a_long_gesture_beyond_the_event_ring_still_reads_right():
    # The mover is lifted, then another piece is fidgeted with for 140 events (more than
    # the 128 remembered in order), then the capture is made: the mover's departure has left
    # the ring, its last-event record still says where it is.
    r = Rig(moves=["e2e4", "d7d5"])
    r.lift("e4")
    for _ in range(70):
        r.play("-h2", "+h2", gap_ms=60)
    r.play("-d5", "+d5")
    r.run(500)
    assert r.main() == [("MOVE", "e4d5")]


def test_lost_events_are_recovered_from_the_occupancy():
    r = Rig()
    r.occ[1] &= 255 ^ (1 << 4)  # e2 empty, e4 full, no events at all
    r.occ[3] |= 1 << 4
    r.run(600)
    assert r.main() == [("MOVE", "e2e4")]


# ---- the computer's move ------------------------------------------------------------------
def test_computer_move_executed():
    r = Rig(moves=["e2e4"])
    r.expect("e7e5")
    assert diff_cells(r.sync.expected, occupancy_of(r.pos)) == [cell("e5"), cell("e7")]
    r.play("-e7", "+e6", "-e6", "+e5")
    r.run(390)
    assert r.main() == []
    r.run(30)
    assert r.log == [("EXECUTED", "e7e5")], "no LIFTED for the computer's pieces"


def test_computer_move_with_the_wrong_piece_then_corrected():
    r = Rig(moves=["e2e4"])
    r.expect("e7e5")
    r.play("-d7", "+d5")
    r.run(500)
    assert r.main() == [("WRONG", ["d5", "d7"])]
    r.play("-d5", "+d7")
    r.run(500)
    assert r.main()[-1] == ("RESTORED",)
    r.play("-e7", "+e5")
    r.run(500)
    assert r.main()[-1] == ("EXECUTED", "e7e5")
    assert r.game() == ["e2e4", "e7e5"]


def test_computer_move_wrong_piece_lifted_is_flagged_at_once():
    r = Rig(moves=["e2e4"])
    r.expect("e7e5")
    r.lift("d7")
    r.run(500)
    assert r.main() == [("WRONG", ["d7"])]
    r.place("d7")
    r.run(500)
    assert r.main() == [("WRONG", ["d7"]), ("RESTORED",)]


def test_computer_move_to_the_wrong_square():
    r = Rig(moves=["e2e4"])
    r.expect("e7e5")
    r.play("-e7", "+e6")
    r.run(500)
    assert r.main() == [("WRONG", ["e6"])]
    r.run(3000)
    assert r.main()[-1] == ("UNEXPLAINED", ["e6"], ["e5"])
    r.play("-e6", "+e5")
    r.run(500)
    assert r.main()[-1] == ("EXECUTED", "e7e5")


def test_computer_capture_on_the_wrong_target_with_the_same_occupancy():
    r = Rig("B2rk3/8/8/8/8/8/3P4/4K3 b - - 0 1")
    r.expect("d8d2")
    r.play("-d8", "-a8", "+a8")
    r.run(500)
    assert r.main() == [("WRONG", ["a8"])]


def test_computer_castling_rook_first_with_a_pause_is_not_wrong():
    r = Rig(CASTLE_FEN.replace(" w ", " b "))
    r.expect("e8g8")
    r.play("-h8", "+f8")
    r.run(1500)
    assert r.main() == []
    r.play("-e8", "+g8")
    r.run(500)
    assert r.main() == [("EXECUTED", "e8g8")]


def test_computer_underpromotion_executed():
    r = Rig("4k3/8/8/8/8/8/p7/4K3 b - - 0 1")
    r.expect("a2a1n")
    r.play("-a2", "+a1")
    r.run(500)
    assert r.main() == [("EXECUTED", "a2a1n")]


def test_fast_reply_right_after_the_computer_move():
    r = Rig(moves=["e2e4"])
    r.expect("e7e5")
    r.play("-e7", "+e5", "-g1", "+f3", gap_ms=120)
    r.run(500)
    assert r.main() == [("EXECUTED", "e7e5"), ("MOVE", "g1f3")]
    assert r.game() == ["e2e4", "e7e5", "g1f3"]


def test_fast_recapture_on_the_computer_square():
    r = Rig(moves=["e2e4", "d7d5", "b1c3", "d5d4", "g1f3"])
    r.expect("d4c3")
    r.play("-c3", "-d4", "+c3", "-c3", "-b2", "+c3", gap_ms=120)
    r.run(500)
    assert r.main() == [("EXECUTED", "d4c3"), ("MOVE", "b2c3")]


def test_fast_recapture_sliding_over_the_computer_origin():
    # The reply slides over the square the computer's rook came from and recaptures on the
    # square it went to: both "later touches" must not hide where each piece came from.
    r = Rig("r3k3/R7/8/8/8/8/8/4K3 w - - 0 1")
    r.expect("a7a4")
    r.play("-a7", "+a6", "-a6", "+a5", "-a5", "+a4",
           "-a8", "+a7", "-a7", "+a6", "-a6", "+a5", "-a4", "-a5", "+a4", gap_ms=150)
    r.run(500)
    assert r.main() == [("EXECUTED", "a7a4"), ("MOVE", "a8a4")]


def test_reply_piece_lifted_before_the_computer_move_is_never_misread():
    # Holding one's knight while making the computer's move with the other hand: the knight
    # left before the computer's pawn did, so its landing is not taken as a complete reply
    # (it might be the computer move's own PLACE); the board is explained after a redo.
    r = Rig(moves=["e2e4"])
    r.expect("e7e5")
    r.play("-g1", "-e7", "+e5", "+f3", gap_ms=100)
    r.run(4000)
    assert r.main()[0] == ("EXECUTED", "e7e5")
    assert r.game() == ["e2e4", "e7e5"], "nothing is guessed"
    assert r.main()[-1] == ("UNEXPLAINED", ["f3"], ["g1"])
    r.play("-f3", "+g1")
    r.run(500)
    r.play("-g1", "+f3")
    r.run(500)
    assert r.main()[-2:] == [("RESTORED",), ("MOVE", "g1f3")]


def test_hesitation_before_a_slow_recapture_is_no_correction():
    # Found by the paused property test: after the computer's Rg6 the player touches the g2
    # pawn, lifts the rook off g6 and only seconds later puts the king there. The computer's
    # rook must not be "corrected" to Rxg2 by the earlier touch of g2.
    r = Rig("6R1/8/7k/8/8/2QP4/3NR1p1/6K1 w - - 12 49", moves=())
    r.expect("g8g6")
    r.play("-g8", "+g7", "-g7", "+g6", "-g2", "+g2", "-g6")
    r.run(4000)
    r.play("-h6", "+g6")
    r.run(500)
    assert r.game() == ["g8g6", "h6g6"]
    assert r.main() == [("EXECUTED", "g8g6"), ("MOVE", "h6g6")]


def test_fast_reply_still_in_hand_executes_the_computer_move():
    r = Rig(moves=["e2e4"])
    r.expect("e7e5")
    r.play("-e7", "+e5", "-g1", gap_ms=120)
    r.run(2000)
    assert r.main() == [("EXECUTED", "e7e5")]
    r.place("f3")
    r.run(500)
    assert r.main() == [("EXECUTED", "e7e5"), ("MOVE", "g1f3")]


def test_expect_move_zero_cancels():
    r = Rig(moves=["e2e4"])
    r.expect("e7e5")
    r.sync.expect_move(0)
    assert r.sync.expected == occupancy_of(r.pos)
    r.play("-d7", "+d5")
    r.run(500)
    assert r.main() == [("MOVE", "d7d5")]


# ---- take back ------------------------------------------------------------------------------
def test_reversing_the_last_move_is_a_takeback():
    r = Rig(moves=["e2e4", "g8f6"])
    r.play("-f6", "+g8")
    r.run(500)
    assert r.main() == [("TAKEBACK", "g8f6")]
    assert r.game() == ["e2e4"]
    r.play("-e4", "+e2")  # and again: take backs repeat
    r.run(500)
    assert r.main() == [("TAKEBACK", "g8f6"), ("TAKEBACK", "e2e4")]
    assert r.game() == []


def test_takeback_of_a_capture_needs_the_victim_back():
    r = Rig(moves=["e2e4", "d7d5", "e4d5"])
    r.play("-d5", "+e4")
    r.run(2000)
    assert r.main() == [], "mover back but the victim still missing: half a take back, wait"
    r.place("d5")
    r.run(500)
    assert r.main() == [("TAKEBACK", "e4d5")]
    assert r.game() == ["e2e4", "d7d5"]


def test_takeback_of_castling():
    r = Rig(CASTLE_FEN, moves=["e1g1"])
    r.play("-g1", "-f1", "+e1", "+h1")
    r.run(500)
    assert r.main() == [("TAKEBACK", "e1g1")]


def test_two_moves_reversed_at_once():
    r = Rig(moves=["e2e4", "d7d5", "e4d5", "d8d5"])
    r.play("-d5", "+d8", "+d5", "-d5", "+e4", "+d5", gap_ms=150)  # queen back, pawn back, pawn back
    r.run(500)
    assert r.main() == [("TAKEBACK", "d8d5"), ("TAKEBACK", "e4d5")]
    assert r.game() == ["e2e4", "d7d5"]


def test_replacing_the_last_move_by_another():
    r = Rig(moves=["e2e4", "e7e5", "g1f3"])
    r.expect("b8c6")  # the computer already shows its reply
    r.play("-f3", "+e2")  # the player changes their mind: Nf3 becomes Ne2
    r.run(500)
    assert r.main() == [("TAKEBACK", "g1f3"), ("MOVE", "g1e2")]
    assert r.game() == ["e2e4", "e7e5", "g1e2"]


# ---- impossible boards ------------------------------------------------------------------
def test_illegal_move_is_flagged_then_explained_then_restored():
    r = Rig()
    r.play("-e2", "+e5")
    r.run(500)
    assert r.main() == [("ILLEGAL", ["e2", "e5"])]
    r.run(2400)
    assert r.main()[-1] == ("ILLEGAL", ["e2", "e5"])
    r.run(200)
    assert r.main()[-1] == ("UNEXPLAINED", ["e5"], ["e2"])
    r.lift("e5")  # in hand, still wrong: the lists follow the board
    r.run(500)
    assert r.main()[-1] == ("UNEXPLAINED", [], ["e2"])
    r.place("e2")
    r.run(500)
    assert r.main()[-1] == ("RESTORED",)
    r.play("-e2", "+e4")
    r.run(500)
    assert r.main()[-1] == ("MOVE", "e2e4")


def test_knocked_over_pieces_are_shown_after_unexplained_ms():
    r = Rig(unexplained_ms=2000)
    for sq in ("c2", "d2", "e2", "f2", "g2"):
        r.lift(sq, after_ms=30)
    r.place("d4", after_ms=30)
    r.run(1900)
    assert r.main() == [], "six cells changed: no ILLEGAL buzz, it is not a move"
    r.run(200)
    assert r.main() == [("UNEXPLAINED", ["d4"], ["c2", "d2", "e2", "f2", "g2"])]


def test_board_different_from_a_new_position_is_shown_and_restored():
    r = Rig(moves=["e2e4"])
    r.sync.set_position(Position())  # e.g. resumed after power loss: verify the board
    r.run(3100)
    assert r.main() == [("UNEXPLAINED", ["e4"], ["e2"])]
    r.play("-e4", "+e2")
    r.run(500)
    assert r.main()[-1] == ("RESTORED",)


def test_start_position_on_the_board_is_a_new_game():
    r = Rig(moves=["e2e4", "e7e5", "g1f3", "b8c6"])
    r.play("-e4", "+e2", "-e5", "+e7", "-f3", "+g1", "-c6", "+b8", gap_ms=150)
    r.run(500)
    assert r.main() == [("START_POSITION",)]
    assert r.game() == []
    assert r.sync.expected == START_OCCUPANCY


def test_without_acknowledgement_nothing_more_is_reported():
    r = Rig(auto=False)
    r.play("-e2", "+e4")
    r.run(500)
    r.play("-e7", "+e5")
    r.run(5000)
    assert r.main() == [("MOVE", "e2e4")]
    r.pos.make(r.sync.move)
    r.sync.set_position(r.pos)
    r.run(500)
    assert r.main() == [("MOVE", "e2e4"), ("MOVE", "e7e5")], "a reply made before the acknowledgement is kept"


# ---- contract details ---------------------------------------------------------------------
def test_callers_position_is_never_modified():
    pos = Position()
    for text in ("e2e4", "e7e5", "g1f3"):
        pos.make(parse_uci(pos, text))
    before = (fen(pos), pos.hash_lo, pos.hash_hi, pos.ply, list(pos.hist_move[: pos.ply]))
    sync = BoardSync()
    sync.set_position(pos)
    sync.expect_move(parse_uci(pos, "b8c6"))
    occ = occupancy_of(pos)
    for t, (sq, kind) in enumerate([("f3", 0), ("g1", 1), ("b8", 0), ("c6", 1)]):
        c = cell(sq)
        occ[c >> 3] ^= 1 << (c & 7)
        sync.event(c, kind, t * 50)
        sync.update(occ, t * 50)
    for now in range(200, 2000, 10):
        sync.update(occ, now)
    assert (fen(pos), pos.hash_lo, pos.hash_hi, pos.ply, list(pos.hist_move[: pos.ply])) == before


def test_bad_arguments_raise_sync_error():
    with pytest.raises(SyncError):
        BoardSync(stable_ms=0)
    with pytest.raises(SyncError):
        BoardSync(stable_ms=400, unexplained_ms=100)
    sync = BoardSync()
    with pytest.raises(SyncError, match="set_position"):
        sync.expect_move(1)
    with pytest.raises(SyncError):
        sync.set_position("not a position")
    pos = Position()
    sync.set_position(pos)
    with pytest.raises(SyncError, match="cell"):
        sync.event(64, bs.LIFT, 0)
    with pytest.raises(SyncError, match="kind"):
        sync.event(3, 2, 0)
    with pytest.raises(SyncError, match="not legal"):
        sync.expect_move(parse_uci(Position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), "a1a8"))
    assert issubclass(SyncError, ValueError)


def test_codes_and_names_agree():
    names = {getattr(bs, n): n for n in bs.CODE_NAMES}
    assert sorted(names) == list(range(len(bs.CODE_NAMES)))
    assert all(bs.CODE_NAMES[code] == n for code, n in names.items())
