"""Seeded random games with python-chess (the test oracle): positions for differential tests."""
import random

import chess


def random_positions(count, seed, max_plies=120):
    """`count` python-chess Boards (with move stacks) from seeded random games. Moves are biased
    to captures and promotions now and then so endgames, promotions and e.p. show up."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        plies = rng.randrange(1, max_plies)
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over(claim_draw=False):
                break
            special = [m for m in moves if board.is_capture(m) or m.promotion or board.is_castling(m)]
            move = rng.choice(special) if special and rng.random() < 0.4 else rng.choice(moves)
            board.push(move)
            if rng.random() < 0.15:
                boards.append(board.copy())
        boards.append(board)
    return boards[:count]
