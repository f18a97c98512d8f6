"""Strength: a match against Debian's Stockfish limited with UCI_LimitStrength/UCI_Elo.

    make match                                   # defaults below; installs stockfish if missing
    python bench/match_stockfish.py --games 30 --elo 1500 --movetime-ms 1000
    python bench/match_stockfish.py --device-ms 1000 --factor 60   # a device level, scaled
    python bench/match_stockfish.py --nodes 1000 --elo 1800 --games 100 --openings 50
    python bench/match_stockfish.py --our-elo 1400 --elo 1500 --games 40 --openings 50
    python bench/match_stockfish.py --fun 4 --elo 1350 --movetime-ms 100 --games 80 --openings 50
    python bench/match_stockfish.py --fun 1 --their-fun 2 --their-rating 1053 --games 100 --openings 50

Our engine runs as `micropython -m firmware.uci` (or `--cpython`), Stockfish as
/usr/games/stockfish with UCI_LimitStrength true and UCI_Elo set. Both get the same time per
move: `--movetime-ms`, or a device level's time divided by the host/device speed factor
(`--device-ms` / `--factor`; docs/benchmarks.md documents the factor). With `--nodes N` our
engine searches exactly N nodes a move (`go nodes N`: the same games on any host and under
any load) while Stockfish keeps its time per move; with `--our-elo E` our engine plays with
its own UCI_LimitStrength/UCI_Elo (a rated level: node budget and noise) and is sent the same
time per move as Stockfish, which a rated level ignores; with `--fun N` it plays the fun level
"Fun N" (1-4: its UCI option Fun Level; depth, node cap and noise, the time ignored too).

Below Stockfish's lowest UCI_Elo (1350) the opponent can be our engine instead: `--their-fun
N` (a fun level) or `--their-nodes N` (exactly N nodes a move, no noise: an anchor of the
rated levels' calibration, whose rating on this yardstick docs/levels.md gives), under the
same interpreter as our side; `--their-rating R` is that opponent's rating on the UCI_Elo
scale, for the implied rating (without it only the difference is printed); two seeded
configurations of ours repeat moves, so their games end in many draws by repetition.

Games start from a fixed list of balanced opening positions (`--openings`: the first 15 of
them, as before, or all 50 with OPENING_LINES), each played with both colours, so the result
does not hang on one opening; a game still running after 300 plies is scored a draw.
`--pgn FILE` appends every game to FILE (for bench/blunders.py, or to replay one).

`--reference classical` (or `nnue`) seats Stockfish itself in our chair, at full strength with
exactly `--nodes` nodes a move and its hand-written evaluation (`Use NNUE` false: Stockfish
15.1 still has it) or its network: what the best-known engine makes of the same node budget
on the same yardstick, so our figures can be read against what is possible at that budget.

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
import chess.pgn

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

# 35 more openings (main lines, 1-5 moves in), as SAN from the start position; with the 15
# above they make the 50 of `--openings 50` (100 games: every opening once with each colour).
OPENING_LINES = (
    "e4 e5 Nf3 Nc6 Bb5 a6",  # Ruy Lopez, Morphy
    "e4 c5 Nf3 e6",  # Sicilian, ...e6
    "e4 c5 Nc3 Nc6",  # Closed Sicilian
    "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4",  # Open Sicilian, ...Nc6
    "e4 e6 d4 d5 Nc3 Bb4",  # French, Winawer
    "e4 e6 d4 d5 e5",  # French, advance
    "e4 c6 d4 d5 e5",  # Caro-Kann, advance
    "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Bf5",  # Caro-Kann, classical
    "e4 d6 d4 Nf6 Nc3 g6",  # Pirc
    "e4 Nf6 e5 Nd5",  # Alekhine
    "e4 e5 Nf3 Nf6",  # Petrov
    "e4 e5 Nf3 Nc6 d4 exd4",  # Scotch
    "e4 e5 f4",  # King's Gambit
    "e4 e5 Nc3",  # Vienna
    "e4 e5 Nf3 Nc6 Bc4 Bc5",  # Giuoco Piano
    "e4 e5 Nf3 Nc6 Bc4 Nf6",  # Two Knights
    "d4 d5 c4 c6",  # Slav
    "d4 d5 c4 dxc4",  # Queen's Gambit Accepted
    "d4 Nf6 c4 e6 Nf3 b6",  # Queen's Indian
    "d4 Nf6 c4 g6 Nc3 d5",  # Grünfeld
    "d4 Nf6 c4 c5 d5",  # Benoni
    "d4 f5",  # Dutch
    "d4 Nf6 Bg5",  # Trompowsky
    "d4 d5 Nf3 Nf6 Bf4",  # London
    "c4 e5 Nc3 Nf6",  # English, reversed Sicilian
    "c4 c5 Nf3 Nc6",  # English, symmetrical
    "Nf3 d5 g3",  # Réti
    "Nf3 Nf6 c4 g6",  # English / King's Indian
    "e4 g6 d4 Bg7",  # Modern
    "f4 d5",  # Bird
    "b3 e5",  # Larsen
    "d4 Nf6 c4 e6 g3",  # Catalan
    "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6",  # Najdorf
    "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 g6",  # Dragon
    "d4 d5 c4 e6 Nc3 Nf6 Bg5",  # Queen's Gambit Declined
)


def openings(count=15):
    """The first `count` (1..50) opening positions as FENs: OPENINGS, then OPENING_LINES."""
    fens = list(OPENINGS)
    for line in OPENING_LINES:
        board = chess.Board()
        for san in line.split():
            board.push_san(san)
        fens.append(board.fen())
    if not 1 <= count <= len(fens):
        raise ValueError("openings must be 1..%d, got %d" % (len(fens), count))
    return tuple(fens[:count])


def our_command(cpython):
    if cpython:
        return [sys.executable, "-m", "firmware.uci"]
    micro = os.path.join(os.path.dirname(sys.executable), "micropython")
    return [micro if os.path.exists(micro) else "micropython", "-m", "firmware.uci"]


def elo_from_score(p):
    p = min(max(p, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / p - 1.0)


# Adjudication (selfplay.py; off unless asked): a game both engines call won for one side
# by at least RESIGN_CP for RESIGN_PLIES plies in a row is scored won; one both call level
# within DRAW_CP for DRAW_PLIES plies in a row, from ply DRAW_FROM_PLY on, is scored drawn.
RESIGN_CP = 1000
RESIGN_PLIES = 6
DRAW_CP = 5
DRAW_PLIES = 10
DRAW_FROM_PLY = 100
_MATE_CP = 100000
# how play_match prints our score of a game (selfplay.py --pool reads it back)
RESULT_WORDS = {1.0: "win", 0.5: "draw", 0.0: "loss"}


def adjudicate(white_scores, plies):
    """chess.WHITE or chess.BLACK (scored won), None (drawn) or False (play on), from the
    engines' scores of the game so far (White's view, cp, one per ply) and its length."""
    last = white_scores[-RESIGN_PLIES:]
    if len(last) == RESIGN_PLIES:
        if min(last) >= RESIGN_CP:
            return chess.WHITE
        if max(last) <= -RESIGN_CP:
            return chess.BLACK
    last = white_scores[-DRAW_PLIES:]
    if plies >= DRAW_FROM_PLY and len(last) == DRAW_PLIES and max(abs(s) for s in last) <= DRAW_CP:
        return None
    return False


def play_game(ours, theirs, fen, ours_white, limit, max_plies=300, their_limit=None, adjudicated=False):
    """One game from `fen`; `limit` for our engine, `their_limit` (default: the same) for
    theirs; `adjudicated`: ended early by `adjudicate`. Returns (our score, final board,
    how it ended)."""
    board = chess.Board(fen)
    for engine in (ours, theirs):
        engine.protocol.send_line("ucinewgame")
    white_scores = []
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < max_plies:
        ours_to_move = (board.turn == chess.WHITE) == ours_white
        engine = ours if ours_to_move else theirs
        mover_limit = limit if ours_to_move or their_limit is None else their_limit
        info = chess.engine.INFO_SCORE if adjudicated else chess.engine.INFO_NONE
        result = engine.play(board, mover_limit, info=info)
        board.push(result.move)
        if not adjudicated:
            continue
        score = result.info.get("score")
        # a move without a score (a book move, a stop before depth 1) breaks the run
        white_scores.append(score.white().score(mate_score=_MATE_CP) if score is not None else RESIGN_CP // 2)
        verdict = adjudicate(white_scores, len(board.move_stack))
        if verdict is not False:
            if verdict is None:
                return 0.5, board, "adjudicated draw"
            return (1.0 if verdict == (chess.WHITE if ours_white else chess.BLACK) else 0.0), board, "adjudicated"
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
    parser.add_argument("--nodes", type=int, default=0, help="our engine: exactly N nodes a move")
    parser.add_argument("--our-elo", type=int, default=0, help="our engine: UCI_LimitStrength with this UCI_Elo")
    parser.add_argument("--fun", type=int, default=0, choices=range(5), metavar="N",
                        help="our engine: the fun level Fun N (1-4), over its UCI option Fun Level")
    parser.add_argument("--their-fun", type=int, default=0, choices=range(5), metavar="N",
                        help="the opponent is our engine at fun level Fun N (1-4), not Stockfish")
    parser.add_argument("--their-nodes", type=int, default=0,
                        help="the opponent is our engine at exactly N nodes a move, not Stockfish")
    parser.add_argument("--their-rating", type=float, default=0,
                        help="with --their-fun/--their-nodes: the opponent's rating on the UCI_Elo scale")
    parser.add_argument("--openings", type=int, default=15, help="how many opening positions (15 or up to 50)")
    parser.add_argument("--hash-mb", type=int, default=4)
    parser.add_argument("--cpython", action="store_true", help="run our engine under CPython")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--first-game", type=int, default=0,
                        help="start at this game of the set (split one match over two processes)")
    parser.add_argument("--pgn", default="", help="append every game to this PGN file")
    parser.add_argument("--reference", choices=("classical", "nnue"), default="",
                        help="not our engine: full-strength Stockfish at --nodes, with this evaluation")
    args = parser.parse_args(argv)
    movetime_ms = args.movetime_ms
    if args.device_ms:
        movetime_ms = max(1, int(round(args.device_ms / args.factor)))
    their_limit = chess.engine.Limit(time=movetime_ms / 1000.0)
    limit = chess.engine.Limit(nodes=args.nodes) if args.nodes else their_limit
    if args.their_nodes:
        their_limit = chess.engine.Limit(nodes=args.their_nodes)
    mirror = bool(args.their_fun or args.their_nodes)  # the opponent is our engine
    fens = openings(args.openings)
    if args.reference and (not args.nodes or args.our_elo or args.cpython):
        parser.error("--reference needs --nodes and takes neither --our-elo nor --cpython")
    if args.fun and (args.nodes or args.our_elo or args.reference):
        parser.error("--fun takes neither --nodes, --our-elo nor --reference")
    if args.their_fun and args.their_nodes:
        parser.error("--their-fun and --their-nodes exclude each other")
    env = dict(os.environ, MICROPYPATH=ROOT + ":" + os.path.join(ROOT, ".frozen"))
    command = [args.stockfish] if args.reference else our_command(args.cpython)
    ours = chess.engine.SimpleEngine.popen_uci(command, cwd=ROOT, env=env)
    options = {"Hash": args.hash_mb}
    if args.our_elo:
        options.update({"UCI_LimitStrength": True, "UCI_Elo": args.our_elo})
    if args.fun:
        options["Fun Level"] = args.fun
    if args.reference:
        options.update({"Threads": 1, "Use NNUE": args.reference == "nnue"})
    ours.configure(options)
    if mirror:
        theirs = chess.engine.SimpleEngine.popen_uci(our_command(args.cpython), cwd=ROOT, env=env)
        theirs.configure({"Hash": args.hash_mb, "Fun Level": args.their_fun} if args.their_fun
                         else {"Hash": args.hash_mb})
        opponent = "Reedchess (%s)" % ("Fun %d" % args.their_fun if args.their_fun
                                       else "%d nodes per move" % args.their_nodes)
    else:
        theirs = chess.engine.SimpleEngine.popen_uci(args.stockfish)
        theirs.configure({"UCI_LimitStrength": True, "UCI_Elo": args.elo, "Threads": 1, "Hash": 16})
        opponent = "Stockfish UCI_Elo %d (%d ms per move)" % (args.elo, movetime_ms)
    how = "%d nodes per move" % args.nodes if args.nodes else "%d ms per move" % movetime_ms
    if args.our_elo:
        how = "its UCI_Elo %d" % args.our_elo
    if args.fun:
        how = "Fun %d" % args.fun
    player = "Reedchess (%s, %s)" % ("CPython" if args.cpython else "MicroPython", how)
    if args.reference:
        player = "Stockfish, %s evaluation (%s)" % (args.reference, how)
    print("%s vs %s, %d games, %d openings" % (player, opponent, args.games, len(fens)))
    t0 = time.time()
    pgn = None
    if args.pgn:
        pgn = {"file": args.pgn, "us": player, "them": opponent}
    results = play_match(ours, theirs, limit, args.games, fens, their_limit, args.first_game, pgn=pgn)
    diff, lo, hi = summarize(results)
    base = args.their_rating if mirror else args.elo
    if base:
        print("estimated rating %.0f (%.0f .. %.0f) on Stockfish's UCI_Elo scale%s; %.0f s" % (
            base + diff, base + lo, base + hi, " (the opponent's %.0f + the difference; its own"
            " uncertainty not included)" % base if mirror else "", time.time() - t0))
    else:
        print("%.0f s (no --their-rating: no rating implied)" % (time.time() - t0))
    return results


def play_match(ours, theirs, limit, games, openings=OPENINGS, their_limit=None, first=0, stop=None, pgn=None,
               adjudicated=False):
    """`games` games from `openings` (FENs), each opening with both colours; print each game;
    quit both engines at the end. `limit` is ours, `their_limit` (default the same) theirs.
    `first`: the number of the first game (so two processes can share one set of openings).
    `stop(results)`, if given, is asked after every game and ends the match early when true
    (selfplay.py's SPRT). `pgn`, if given, is {"file", "us", "them"}: every game is appended
    to that file, the players named so. `adjudicated`: games end early by `adjudicate`.
    Returns our score of every game (1, 0.5 or 0)."""
    results = []
    try:
        for i in range(first, first + games):
            fen = openings[(i // 2) % len(openings)]
            ours_white = i % 2 == 0
            score, board, how = play_game(ours, theirs, fen, ours_white, limit, their_limit=their_limit,
                                          adjudicated=adjudicated)
            results.append(score)
            print("game %2d  %s  %-5s %-22s %3d plies  running score %.1f/%d" % (
                i + 1, "white" if ours_white else "black", RESULT_WORDS[score],
                how, len(board.move_stack), sum(results), len(results)), flush=True)
            if pgn is not None:
                write_pgn(pgn, board, i + 1, ours_white, how)
            if stop is not None and stop(results):
                break
    finally:
        ours.quit()
        theirs.quit()
    return results


def write_pgn(pgn, board, number, ours_white, how):
    """Append one finished game (its start position and moves) to pgn["file"]."""
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = "match_stockfish"
    game.headers["Round"] = str(number)
    game.headers["White"] = pgn["us"] if ours_white else pgn["them"]
    game.headers["Black"] = pgn["them"] if ours_white else pgn["us"]
    game.headers["Termination"] = how
    with open(pgn["file"], "a") as out:
        print(game, file=out, end="\n\n")


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
