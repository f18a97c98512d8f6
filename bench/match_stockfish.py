"""Strength: a match against Debian's Stockfish limited with UCI_LimitStrength/UCI_Elo.

    make match                                   # defaults below; installs stockfish if missing
    python bench/match_stockfish.py --games 30 --elo 1500 --movetime-ms 1000
    python bench/match_stockfish.py --device-ms 1000 --factor 60   # a device level, scaled

Our engine runs as `micropython -m firmware.uci` (or `--cpython`), Stockfish as
/usr/games/stockfish with UCI_LimitStrength true and UCI_Elo set. Both get the same time per
move: `--movetime-ms`, or a device level's time divided by the host/device speed factor
(`--device-ms` / `--factor`; docs/benchmarks.md documents the factor). Games start from a
fixed list of balanced opening positions, each played with both colours, so the result does
not hang on one opening; a game still running after 300 plies is scored a draw.

Prints every game and then the score, the Elo difference with a 95% interval and the
implied rating (Stockfish's UCI_Elo + difference). The Elo estimate uses the logistic model
d = -400 log10(1/p - 1); the interval comes from the standard error of the mean game result.
Stockfish's UCI_Elo scale is calibrated for long time controls (CCRL 40/4); at short times
it is only a rough yardstick, said so in the docs. Not part of `make test`.
"""
import argparse
import math
import os
import sys
import time

import chess
import chess.engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OPENINGS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",  # 1.e4 e5
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",  # Sicilian
    "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2",  # 1.d4 d5
    "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2",  # 1.d4 Nf6
    "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",  # French
    "rnbqkbnr/pp1ppppp/2p5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",  # Caro-Kann
    "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1",  # English
    "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",  # Ruy Lopez
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",  # Open Sicilian
    "rnbqk2r/pppp1ppp/4pn2/8/1bPP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",  # Nimzo-Indian
    "rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 3",  # QGD
    "rnbqkb1r/pppppp1p/5np1/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 3",  # King's Indian
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",  # Italian
    "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",  # Scandinavian
)


def our_command(cpython):
    if cpython:
        return [sys.executable, "-m", "firmware.uci"]
    micro = os.path.join(os.path.dirname(sys.executable), "micropython")
    return [micro if os.path.exists(micro) else "micropython", "-m", "firmware.uci"]


def elo_from_score(p):
    p = min(max(p, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / p - 1.0)


def play_game(ours, theirs, fen, ours_white, limit, max_plies=300):
    board = chess.Board(fen)
    for engine in (ours, theirs):
        engine.protocol.send_line("ucinewgame")
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < max_plies:
        engine = ours if (board.turn == chess.WHITE) == ours_white else theirs
        result = engine.play(board, limit)
        board.push(result.move)
    outcome = board.outcome(claim_draw=True)
    if outcome is None or outcome.winner is None:
        return 0.5, board, "draw" if outcome is None else outcome.termination.name.lower()
    won = outcome.winner == (chess.WHITE if ours_white else chess.BLACK)
    return (1.0 if won else 0.0), board, outcome.termination.name.lower()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--elo", type=int, default=1500, help="Stockfish UCI_Elo (1350..2850)")
    parser.add_argument("--movetime-ms", type=int, default=1000)
    parser.add_argument("--device-ms", type=int, default=0, help="a device level's time per move")
    parser.add_argument("--factor", type=float, default=60.0, help="host/device speed factor")
    parser.add_argument("--hash-mb", type=int, default=4)
    parser.add_argument("--cpython", action="store_true", help="run our engine under CPython")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args(argv)
    movetime_ms = args.movetime_ms
    if args.device_ms:
        movetime_ms = max(1, int(round(args.device_ms / args.factor)))
    limit = chess.engine.Limit(time=movetime_ms / 1000.0)
    env = dict(os.environ, MICROPYPATH=ROOT + ":" + os.path.join(ROOT, ".frozen"))
    ours = chess.engine.SimpleEngine.popen_uci(our_command(args.cpython), cwd=ROOT, env=env)
    ours.configure({"Hash": args.hash_mb})
    theirs = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    theirs.configure({"UCI_LimitStrength": True, "UCI_Elo": args.elo, "Threads": 1, "Hash": 16})
    print("Reedchess (%s) vs Stockfish UCI_Elo %d, %d ms per move, %d games" % (
        "CPython" if args.cpython else "MicroPython", args.elo, movetime_ms, args.games))
    t0 = time.time()
    results = play_match(ours, theirs, limit, args.games)
    diff, lo, hi = summarize(results)
    print("estimated rating %.0f (%.0f .. %.0f) on Stockfish's UCI_Elo scale; %.0f s" % (
        args.elo + diff, args.elo + lo, args.elo + hi, time.time() - t0))


def play_match(ours, theirs, limit, games, openings=OPENINGS):
    """`games` games from `openings` (FENs), each opening with both colours; print each game;
    quit both engines at the end. Returns our score of every game (1, 0.5 or 0)."""
    results = []
    try:
        for i in range(games):
            fen = openings[(i // 2) % len(openings)]
            ours_white = i % 2 == 0
            score, board, how = play_game(ours, theirs, fen, ours_white, limit)
            results.append(score)
            print("game %2d  %s  %-5s %-22s %3d plies  running score %.1f/%d" % (
                i + 1, "white" if ours_white else "black", {1.0: "win", 0.5: "draw", 0.0: "loss"}[score],
                how, len(board.move_stack), sum(results), len(results)), flush=True)
    finally:
        ours.quit()
        theirs.quit()
    return results


def summarize(results):
    """Print the score and the Elo difference with its 95 % interval; return (diff, lo, hi)."""
    n = len(results)
    mean = sum(results) / n
    var = sum((r - mean) ** 2 for r in results) / max(1, n - 1)
    se = math.sqrt(var / n)
    lo, hi = elo_from_score(mean - 1.96 * se), elo_from_score(mean + 1.96 * se)
    diff = elo_from_score(mean)
    wins = results.count(1.0)
    draws = results.count(0.5)
    losses = results.count(0.0)
    print("score %.1f/%d (+%d =%d -%d) = %.1f%%" % (sum(results), n, wins, draws, losses, 100 * mean))
    print("elo difference %+.0f (95%% interval %+.0f .. %+.0f)" % (diff, lo, hi))
    return diff, lo, hi


if __name__ == "__main__":
    main()
