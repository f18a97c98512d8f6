"""Power cuts through the Simulator: a 40-move game is recorded once; then for every single
flash operation the journal made, the flash is rebuilt as a cut at that moment would leave it
(a write torn after a random number of bytes), the firmware "reboots" on it with the pieces
where they stood, and must resume exactly at the last move whose record was complete - never
a corrupt game - and show the differences between board and game on the LEDs."""
import random

import chess

from firmware.controller.journal import Journal
from firmware.engine.levels import find_level
from host_sim import Simulator
from host_sim.flash import FakeFlash
from host_sim.physical import PhysicalBoard, cell_name

FUN = find_level("Fun 2")
PASS_US = 5000  # a coarser main loop than the device (2 ms) keeps this long game quick


def record_game():
    """Play the game; return (ops, snapshots, final moves). snapshots[i] = (moves, board
    field, level) right after flash operation i completed."""
    flash = FakeFlash()
    snaps = []
    holder = []

    def observer(i):
        sim = holder[0] if holder else None
        if sim is None:
            snaps.append(([], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", None))
        else:
            snaps.append((sim.controller.game.uci_moves(), sim.board_fen(), sim.controller.settings.level))

    flash.observer = observer
    sim = Simulator(seed=11, level=FUN, book=False, ponder=False, flash=flash, pass_us=PASS_US)
    holder.append(sim)
    rng = random.Random(2024)
    board = chess.Board()

    def player_move():
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        rng.shuffle(moves)
        for m in moves:  # keep the game going: no move that ends it
            board.push(m)
            ends = board.is_game_over(claim_draw=True)
            board.pop()
            if not ends:
                return m
        return moves[0]

    # Three moves against the computer, then a level change, then both sides by hand.
    for _ in range(3):
        m = player_move()
        sim.play(m.uci())
        board.push(m)
        reply = sim.wait_computer()
        sim.execute()
        board.push_uci(reply)
    sim.press("level")
    sim.press("level")
    sim.run(7000)
    sim.press("move", long=True)  # two players from here
    took_back = False
    while len(board.move_stack) < 82:
        m = player_move()
        sim.play(m.uci())
        board.push(m)
        if len(board.move_stack) == 40 and not took_back:  # a take back by button, pieces restored by hand
            took_back = True
            sim.press("takeback")
            last = board.pop()
            sim.lift(chess.square_name(last.to_square))
            sim.run(200)
            sim.place(chess.square_name(last.from_square))
            if board.is_capture(last):  # the victim comes back from the box to where it stood
                victim = last.to_square
                if board.is_en_passant(last):
                    victim = chess.square(chess.square_file(last.to_square), chess.square_rank(last.from_square))
                sim.run(200)
                sim.place(chess.square_name(victim))
            sim.settle()
    assert sim.game() == [m.uci() for m in board.move_stack]
    assert sim.state()["result"] == "*"
    return flash.ops, snaps, sim.game()


def test_power_cut_at_every_journal_write_resumes_at_the_last_complete_move():
    ops, snaps, final = record_game()
    assert len(final) >= 80 and len(ops) >= 85
    assert any(op[0] == "rename" for op in ops) and any(op[0] == "truncate" for op in ops)
    rng = random.Random(99)
    resumed_mid_move = 0
    for k in range(len(ops) + 1):
        torn = None
        if k < len(ops) and ops[k][0] == "write":
            torn = rng.randrange(0, len(ops[k][2]))
        flash = FakeFlash.replay(ops, k, torn)
        moves, _, level = snaps[k - 1] if k else ([], None, None)
        pieces = snaps[k][1] if k < len(snaps) else snaps[-1][1]
        sim = Simulator(seed=11, flash=flash, pieces=pieces, book=False, ponder=False, pass_us=PASS_US)
        try:
            assert sim.game() == moves, "cut at operation %d (%s)" % (k, ops[k][0] if k < len(ops) else "end")
            if level is not None:
                assert sim.state()["level"] == level
            # never corrupt: the firmware's position is the game replayed by python-chess
            board = chess.Board()
            for m in moves:
                board.push_uci(m)
            assert sim.fen() == board.fen()
            # LEDs show exactly where the board differs from the resumed game
            want = _diff(sim.board_fen(), board)
            if want:
                resumed_mid_move += 1
                assert sim.state()["phase"] == "verify"
                assert sim.lit() == want
            else:
                assert sim.state()["phase"] in ("player", "thinking", "showing")
        finally:
            sim.close()
    assert resumed_mid_move >= 10  # cuts that fell between a move on the board and its record


def _diff(board_field, board):
    """{square: pattern} the verify mode should light: pieces to remove blink fast, empty
    squares to fill are on."""
    physical = set(PhysicalBoard(board_field).pieces)
    game = set(board.piece_map())
    out = {}
    for c in physical - game:
        out[cell_name(c)] = "blink-fast"
    for c in game - physical:
        out[cell_name(c)] = "on"
    return out


def test_a_cut_between_the_mating_move_and_its_result_resumes_with_the_game_over():
    """Fool's mate by hand; the flash is cut after every operation from the mating move on.
    Whenever the mating move survived, the rebooted unit sees the game is over (it does not
    wait for a move in a mated position) and writes the end itself."""
    flash = FakeFlash()
    sim = Simulator(seed=3, level=FUN, book=False, ponder=False, flash=flash, pass_us=PASS_US)
    try:
        sim.press("move", long=True)  # two players
        for m in ("f2f3", "e7e5", "g2g4", "d8h4"):
            sim.play(m)
        assert sim.state()["result"] == "0-1"
        pieces = sim.board_fen()
    finally:
        sim.close()
    ops = list(flash.ops)
    over = 0
    for k in range(len(ops) + 1):
        sim = Simulator(seed=3, flash=FakeFlash.replay(ops, k, None), pieces=pieces, book=False, ponder=False,
                        pass_us=PASS_US)
        try:
            if len(sim.game()) == 4:
                over += 1
                assert sim.state()["result"] == "0-1" and sim.state()["phase"] == "over", k
                sim.close()
                again = Simulator(seed=3, flash=sim.flash, pieces=pieces, book=False, ponder=False, pass_us=PASS_US)
                try:
                    assert again.state()["result"] == "0-1"  # the end is in the journal now
                    assert Journal("", open_fn=again.flash.open, fs=again.flash).load().result == "0-1"
                finally:
                    again.close()
        finally:
            sim.close()
    assert over >= 2  # at least one cut fell between the mating move and its result
