"""Where does Reedchess lose its games? Every move of ours in a PGN judged by full-strength
Stockfish (run by hand; results go to docs/benchmarks.md).

    python bench/match_stockfish.py --nodes 1000 --elo 1800 --games 100 --openings 50 --pgn games.pgn
    python bench/blunders.py games.pgn [--depth 12] [--worst 40]

For each of our moves Stockfish (/usr/games/stockfish, one thread, fixed depth) scores the
position before it (its best move) and after it (our move); the move's loss is the drop in
expected score, 1 / (1 + exp(-0.00368 cp)) (Lichess's curve), so a move that throws away a
won game weighs more than one that goes from +9 to +6. Prints, by phase of the game (the
first 12 moves; then the middlegame while the phase, knights and bishops 1, rooks 2, queens
4, is 12 or more; the endgame down to 4; the late endgame), the number of moves, their mean
loss and the blunders (a loss of 0.15 or more), then the worst moves: loss, game, result,
the position, our move, Stockfish's and both scores. Our side is the player whose name
starts with "Reedchess" (match_stockfish.py's --pgn names it so).
"""
import argparse
import math
import sys

import chess
import chess.engine
import chess.pgn

from tools.texel import phase_and_pawns

BLUNDER = 0.15
PHASES = ("opening", "middlegame", "endgame", "late endgame")


def expected_score(cp):
    return 1.0 / (1.0 + math.exp(-0.00368208 * cp))


def phase_name(board):
    if board.fullmove_number <= 12:
        return PHASES[0]
    phase = phase_and_pawns(board)[0]  # the evaluation's phase, as tools/texel.py counts it
    return PHASES[1] if phase >= 12 else (PHASES[2] if phase >= 4 else PHASES[3])


def judge(pgn_file, score):
    """Yield (game number, result, phase name, FEN, our move, best move, best cp, ours cp,
    loss) for every move of ours in the open PGN file. `score(board)` returns (centipawns
    for the side to move, best move) of a position."""
    number = 0
    while True:
        game = chess.pgn.read_game(pgn_file)
        if game is None:
            return
        number += 1
        ours = chess.WHITE if game.headers.get("White", "").startswith("Reedchess") else chess.BLACK
        board = game.board()
        for move in game.mainline_moves():
            if board.turn != ours:
                board.push(move)
                continue
            best, best_move = score(board)
            fen = board.fen()
            name = phase_name(board)
            board.push(move)
            after, _ = score(board)
            played = -after
            loss = max(0.0, expected_score(best) - expected_score(played))
            yield number, game.headers.get("Result", "*"), name, fen, move, best_move, best, played, loss


def stockfish_scorer(path, depth):
    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Threads": 1, "Hash": 64})

    def score(board):
        if board.is_game_over():
            outcome = board.outcome()
            return (0 if outcome.winner is None else -10000), None
        info = engine.analyse(board, chess.engine.Limit(depth=depth))
        pv = info.get("pv") or [None]
        return info["score"].pov(board.turn).score(mate_score=10000), pv[0]

    return engine, score


def report(judged, worst=40, out=sys.stdout):
    """Print the table by phase and the `worst` biggest losses; return the table
    {phase: (moves, loss sum, blunders)}."""
    table = {name: [0, 0.0, 0] for name in PHASES}
    bad = []
    for number, result, name, fen, move, best_move, best, played, loss in judged:
        row = table[name]
        row[0] += 1
        row[1] += loss
        if loss >= BLUNDER:
            row[2] += 1
            bad.append((loss, number, result, fen, move.uci(), best_move.uci() if best_move else "-", best, played))
    for name in PHASES:
        moves, total, blunders = table[name]
        if moves:
            print("%-12s moves %5d  mean loss %.4f  blunders %4d (%.1f %%)" % (
                name, moves, total / moves, blunders, 100.0 * blunders / moves), file=out)
    bad.sort(key=lambda row: -row[0])
    for row in bad[:worst]:
        print("%.2f  game %d %s  %s  played %s best %s  (%d -> %d)" % row, file=out)
    return {name: tuple(row) for name, row in table.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pgn")
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--worst", type=int, default=40, help="list this many of the worst moves")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args(argv)
    engine, score = stockfish_scorer(args.stockfish, args.depth)
    try:
        with open(args.pgn) as pgn_file:
            report(judge(pgn_file, score), args.worst)
    finally:
        engine.quit()


if __name__ == "__main__":
    main()
