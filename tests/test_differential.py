"""Differential test against python-chess over thousands of positions from seeded random
games: legal move sets, check/mate/stalemate/draw status, FEN round trip, SAN both ways, and
the same under MicroPython for a sample."""
import json

import pytest

from firmware.engine import rules
from firmware.engine.fen import fen as fen_of
from firmware.engine.notation import san, uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.san_parse import parse_san
from firmware.engine.position import Position
from tests.mpy import run_mpy
from tests.randomgames import random_positions


def _engine_position(board):
    """Our Position from the python-chess board, replaying the game so repetition history exists."""
    root = board.root()
    position = Position(root.fen())
    for move in board.move_stack:
        position.make(parse_uci(position, move.uci()))
    return position


def _status(board):
    if board.is_checkmate():
        return rules.CHECKMATE
    if board.is_stalemate():
        return rules.STALEMATE
    if board.is_insufficient_material():
        return rules.INSUFFICIENT_MATERIAL
    if board.is_seventyfive_moves():
        return rules.SEVENTYFIVE_MOVES
    if board.is_fivefold_repetition():
        return rules.FIVEFOLD_REPETITION
    return rules.ONGOING


@pytest.mark.parametrize("seed", range(4))
def test_against_python_chess(seed):
    boards = random_positions(800, seed=1000 + seed)
    for board in boards:
        position = _engine_position(board)
        ours = sorted(uci(m) for m in rules.legal_moves(position))
        theirs = sorted(m.uci() for m in board.legal_moves)
        assert ours == theirs, board.fen()
        assert position.in_check() == board.is_check(), board.fen()
        assert rules.status(position) == _status(board), board.fen()
        assert (rules.repetitions(position) >= 3) == board.is_repetition(3), board.fen()
        assert fen_of(position) == board.fen(), board.fen()
        # FEN round trip through a fresh Position
        assert fen_of(Position(board.fen())) == board.fen()
        # hashes equal for the same position reached two ways (replayed vs set from FEN)
        fresh = Position(board.fen())
        assert (fresh.hash_lo, fresh.hash_hi) == (position.hash_lo, position.hash_hi), board.fen()


@pytest.mark.parametrize("seed", range(2))
def test_san_against_python_chess(seed):
    for board in random_positions(400, seed=2000 + seed):
        position = Position(board.fen())
        for move in board.legal_moves:
            expected = board.san(move)
            ours = parse_uci(position, move.uci())
            assert san(position, ours) == expected, (board.fen(), move.uci())
            assert parse_san(position, expected) == ours, (board.fen(), expected)


def test_micropython_agrees_on_a_sample():
    boards = random_positions(150, seed=77)
    cases = [(b.fen(), sorted(m.uci() for m in b.legal_moves), _status(b)) for b in boards]
    code = (
        "import json\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine import rules\n"
        "from firmware.engine.notation import uci, san\n"
        "from firmware.engine.fen import fen\n"
        "cases = json.loads(%r)\n"
        "bad = 0\n"
        "for f, moves, status in cases:\n"
        "    p = Position(f)\n"
        "    ours = sorted(uci(m) for m in rules.legal_moves(p))\n"
        "    if ours != moves or rules.status(p) != status or fen(p) != f:\n"
        "        bad += 1\n"
        "        print('MISMATCH', f)\n"
        "    for m in rules.legal_moves(p):\n"
        "        san(p, m)\n"
        "print('checked', len(cases), 'bad', bad)\n"
    ) % json.dumps(cases)
    out = run_mpy(code)
    assert "checked %d bad 0" % len(cases) in out, out
