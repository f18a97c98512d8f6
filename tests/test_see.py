"""Static exchange evaluation (firmware/engine/see.py): known exchanges, an independent
oracle built on python-chess over random positions, the board left as it was, and no
allocation under MicroPython."""
import chess
import pytest

from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from firmware.engine.see import see
from tests.mpy import run_mpy
from tests.randomgames import random_positions

KNOWN = [
    # (FEN, capture, SEE)
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),  # undefended pawn
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220),  # N for P, x-rays behind
    ("4k3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100),  # two rooks against one defender
    ("3rk3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", -400),  # two against two: R for P
    ("4k3/8/2b5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", -850),  # Q takes a pawn guarded by a bishop
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", 100),  # en passant
    ("4k3/3p4/8/8/8/8/8/3RK3 w - - 0 1", "d1d7", -400),  # the king takes back
    ("4k3/3p4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7", 100),  # not when the square is still guarded
    ("4k3/8/8/3q4/8/8/3R4/3RK3 b - - 0 1", "d5d2", -450),  # Q takes R, R takes back
]


@pytest.mark.parametrize("fen_text,move_text,expected", KNOWN)
def test_known_exchanges(fen_text, move_text, expected):
    position = Position(fen_text)
    before = bytes(position.board)
    assert see(position, parse_uci(position, move_text)) == expected
    assert bytes(position.board) == before


def _oracle(board, move):
    """The same rules on python-chess, written as a plain recursion: the cheapest attacker
    takes, each side may stop, a king takes only an undefended piece; pins ignored."""
    board = board.copy(stack=False)
    values = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 950,
              chess.KING: 2000}
    to = move.to_square
    mover = board.piece_at(move.from_square)
    if board.is_en_passant(move):
        captured = 100
        board.remove_piece_at(to + (-8 if mover.color == chess.WHITE else 8))
    else:
        captured = values[board.piece_at(to).piece_type]
    board.remove_piece_at(move.from_square)

    def cheapest(side):
        squares = list(board.attackers(side, to))
        return min(squares, key=lambda s: values[board.piece_at(s).piece_type]) if squares else None

    def swap(on_square, side):
        sq = cheapest(side)
        if sq is None:
            return 0
        piece = board.remove_piece_at(sq)
        if piece.piece_type == chess.KING and cheapest(not side) is not None:
            board.set_piece_at(sq, piece)
            return 0
        result = max(0, on_square - swap(values[piece.piece_type], not side))
        board.set_piece_at(sq, piece)
        return result

    return captured - swap(values[mover.piece_type], not mover.color)


def test_agrees_with_an_independent_oracle_on_random_positions():
    checked = 0
    for board in random_positions(500, seed=31):
        position = Position(board.fen())
        for move in board.legal_moves:
            if not board.is_capture(move) or move.promotion:
                continue
            before = bytes(position.board)
            assert see(position, parse_uci(position, move.uci())) == _oracle(board, move), (board.fen(), move)
            assert bytes(position.board) == before
            checked += 1
    assert checked > 500


def test_allocates_nothing_under_micropython():
    out = run_mpy(
        "from firmware.compat import heap_lock, heap_unlock\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine.see import see\n"
        "from firmware.engine.uci_parse import parse_uci\n"
        "def main():\n"
        "    p = Position('1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1')\n"
        "    m = parse_uci(p, 'd3e5')\n"
        "    total = 0\n"
        "    outcome = 'allocated'\n"
        "    heap_lock()\n"
        "    try:\n"
        "        for _ in range(100):\n"
        "            total += see(p, m)\n"
        "        outcome = 'ok'\n"
        "    except MemoryError:\n"
        "        pass\n"
        "    heap_unlock()\n"
        "    print(outcome, total)\n"
        "main()\n"
    )
    assert out.split() == ["ok", str(-220 * 100)]
