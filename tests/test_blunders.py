"""bench/blunders.py: our moves' losses, judged by a scorer (here material, not Stockfish)."""
import io

import chess

from bench.blunders import judge, report

VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 0}


def material(board):
    """Material for the side to move, after its best capture (a one-ply look), and that capture."""
    def count(b):
        return sum(VALUES[p.piece_type] * (1 if p.color == b.turn else -1) for p in b.piece_map().values())

    best, best_move = count(board), None
    for move in board.legal_moves:
        if board.is_capture(move):
            board.push(move)
            s = -count(board)
            board.pop()
            if s > best:
                best, best_move = s, move
    return best, best_move


# White (us) hangs the queen on move 3; Black, not us, takes it; our other moves lose nothing.
PGN = """[White "Reedchess (1000 nodes per move)"]
[Black "Stockfish UCI_Elo 1800"]
[Result "0-1"]

1. e4 e5 2. Qh5 Nc6 3. Qxe5+ Nxe5 0-1
"""


def test_only_our_moves_are_judged_and_the_hung_queen_is_the_blunder():
    judged = list(judge(io.StringIO(PGN), material))
    assert [row[4].uci() for row in judged] == ["e2e4", "d1h5", "h5e5"]  # White's moves only
    losses = [row[8] for row in judged]
    assert losses[0] == 0 and losses[1] == 0
    assert losses[2] > 0.5  # a pawn won, a queen lost
    assert judged[2][5] != judged[2][4] and judged[2][2] == "opening"  # a safe capture was better


def test_report_counts_moves_and_blunders_by_phase():
    out = io.StringIO()
    table = report(judge(io.StringIO(PGN), material), out=out)
    moves, total, blunders = table["opening"]
    assert (moves, blunders) == (3, 1) and total > 0.5
    assert table["middlegame"] == (0, 0.0, 0)
    assert "played h5e5" in out.getvalue()
