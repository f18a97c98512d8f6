"""Basic mates are won from random positions within the 50-move rule at small node budgets.

python-chess referees every game (legality, checkmate, 50-move rule and threefold repetition
as claimable draws). The defending king plays the move that keeps it nearest the centre
(ties broken by a seeded coin), which is how a lone king resists best in these endings.
Each parametrized chunk is a separate test so pytest-xdist spreads them over the cores."""
import random

import chess
import pytest

from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from firmware.engine.search import Limits, Searcher


def random_bare_king_position(rng, pieces):
    """White king + `pieces` (python-chess piece types) vs a bare black king, White to move."""
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + len(pieces))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq, kind in zip(squares[2:], pieces):
            board.set_piece_at(sq, chess.Piece(kind, chess.WHITE))
        board.turn = chess.WHITE
        if board.is_valid() and not board.is_game_over():
            return board


def _centre_distance(sq):
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return max(3 - f, f - 4) + max(3 - r, r - 4)


def play_out(board, nodes, rng, searcher):
    """Engine (White, `nodes` per move) against the centralising defender; returns the
    final python-chess board."""
    position = Position(board.fen())
    searcher.new_game()
    while not board.is_game_over(claim_draw=True):
        if board.turn == chess.WHITE:
            result = searcher.search(position, Limits(nodes=nodes))
            move = chess.Move.from_uci(uci(result.best_move))
        else:
            moves = list(board.legal_moves)
            best = min(_centre_distance(m.to_square) for m in moves)
            move = rng.choice([m for m in moves if _centre_distance(m.to_square) == best])
        board.push(move)  # python-chess raises on an illegal move
        position.make(parse_uci(position, move.uci()))
    return board


def _assert_all_won(pieces, seed, count, nodes):
    rng = random.Random(seed)
    searcher = Searcher(tt_entries=1 << 13, poll_nodes=256)
    for _ in range(count):
        start = random_bare_king_position(rng, pieces)
        board = play_out(start.copy(), nodes, rng, searcher)
        outcome = board.outcome(claim_draw=True)
        assert outcome.winner == chess.WHITE and outcome.termination == chess.Termination.CHECKMATE, (
            start.fen(), outcome.termination, len(board.move_stack))
        assert len(board.move_stack) < 100  # well inside the 50-move rule


@pytest.mark.parametrize("chunk", range(5))
def test_krk_won_from_random_positions(chunk):
    _assert_all_won([chess.ROOK], seed=100 + chunk, count=10, nodes=400)


@pytest.mark.parametrize("chunk", range(5))
def test_kqk_won_from_random_positions(chunk):
    _assert_all_won([chess.QUEEN], seed=200 + chunk, count=10, nodes=400)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kbnk_won_from_random_positions(seed):
    _assert_all_won([chess.BISHOP, chess.KNIGHT], seed=300 + seed, count=1, nodes=6000)


def test_kqk_won_where_the_strong_king_must_come_all_the_way():
    """Seed 308's ten KQK play-outs include 2K1Q3/8/8/8/7k/8/8/8 w, which the engine drew by
    the 50-move rule while the endgame piece-square sum was in the bare-king score: its king
    stood off, pulled to the centre as hard as toward the lone king (docs/engine.md)."""
    _assert_all_won([chess.QUEEN], seed=308, count=10, nodes=400)
