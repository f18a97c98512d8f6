"""Does a change make the engine stronger? Play the working tree against a git revision at a
fixed number of nodes per move (run by hand; results in docs/benchmarks.md).

    python bench/selfplay.py                         # working tree vs HEAD, 2000 nodes/move
    python bench/selfplay.py --base HEAD~3 --nodes 5000 --games 60

Both engines run as `python -m firmware.uci` (CPython: a node-limited search visits the same
nodes on CPython and MicroPython, and CPython is quicker to start), the base one from the
revision's firmware/ exported into a temporary folder. A node limit makes every game exactly
reproducible and independent of the machine's load, so small differences show with fewer
games than a timed match needs; the price is that a change which makes nodes cheaper or
dearer is not rewarded or punished for it here (bench/search_speed.py measures that). Games
start from the openings of match_stockfish.py, each played with both colours, own books off.
Prints every game, the score of the working tree and an Elo difference with a 95 % interval
(match_stockfish.play_match and summarize).

`--micropython PATH` runs both engines under the MicroPython unix port instead
(`PATH -m firmware.uci` with MICROPYPATH set to each engine's folder and its .frozen, as
match_stockfish.py does; `--micropython auto` takes the venv's `micropython`): about 8x the
nodes a second of CPython here, and the same games, since a node-limited search visits the
same nodes on both interpreters (bench/search_speed.py --compare checks that).

    python bench/selfplay.py --micropython auto --base HEAD~1 --nodes 1000 --book-plies 8

Node-limited games are deterministic, so an opening played twice gives the same game twice:
for more than 2 x 15 games, `--book-plies N` starts from the positions N plies into the lines
of the opening book's sources (tools/book_data/*.tsv), each distinct position with both colours.
Several sets, `--book-plies 10,8,12,6`, are taken in turn (the first opening of each set, then
the second of each, ...), so a match stopped early has seen all of them: about 1,300
distinct openings.

`--sprt ELO0,ELO1` stops the match as soon as a sequential probability ratio test decides
(bench/sprt.py: game pairs, alpha = beta = 0.05), `--games` then being the most it plays.
A match never goes past its openings' distinct games (2 x 770 for the four sets below): a
node-limited game played again is the same game, so it would count twice. A bound below zero
needs the `=` form, `--sprt=-10,0` ("no loss of 10": the check that a change made for a larger
budget costs the small ones nothing).

    python bench/selfplay.py --micropython auto --base main --nodes 1000 --book-plies 10,8,12,6 --games 1540 --sprt 0,10

`--pool LOG ...` reads the printed games of several matches (say one per opening group, run
side by side) and prints their pooled score, Elo interval by pairs and the SPRT's verdict.

    python bench/selfplay.py --pool group1.log group2.log --sprt 0,10

Games are adjudicated (match_stockfish.adjudicate): scored won once both engines have called
one side at least 10 pawns up for 6 plies in a row, drawn once both have called it level
within 5 cp for 10 plies in a row from ply 100 on: won endgames at 10,000 nodes take long to
mate. `--no-adjudication` plays every game out.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import chess
import chess.engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.match_stockfish import OPENINGS, RESULT_WORDS, play_match, summarize  # noqa: E402
from bench.sprt import Sprt, SprtError, pair_interval, parse_bounds  # noqa: E402


def export_revision(revision, folder):
    """firmware/ as of `revision`, unpacked under `folder`."""
    archive = subprocess.run(["git", "archive", revision, "firmware"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)


def book_lines():
    """The main lines of tools/book_data/*.tsv as lists of python-chess moves (their order kept)."""
    import io

    import chess.pgn

    lines = []
    for name in ("lines.tsv", "engine_lines.tsv"):
        with open(os.path.join(ROOT, "tools", "book_data", name)) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if line.startswith("#") or len(cols) < 3 or cols[0] == "weight":
                    continue
                lines.append(list(chess.pgn.read_game(io.StringIO(cols[-1])).mainline_moves()))
    return lines


def book_openings(plies):
    """Distinct FENs `plies` plies into the lines of tools/book_data/*.tsv (their order kept)."""
    fens = []
    for moves in book_lines():
        board = chess.Board()
        for move in moves[:plies]:
            board.push(move)
        if board.ply() == plies and board.fen() not in fens:
            fens.append(board.fen())
    return fens


def openings_for(plies_list):
    """The openings of --book-plies "P1,P2,...": each set's distinct FENs, taken in turn (the
    first of every set, then the second, ...), each FEN once."""
    sets = [book_openings(plies) for plies in plies_list]
    fens = []
    seen = set()
    for i in range(max(len(s) for s in sets)):
        for s in sets:
            if i < len(s) and s[i] not in seen:
                seen.add(s[i])
                fens.append(s[i])
    return fens


def parse_plies(text):
    """"10,8,12" -> [10, 8, 12]; a clear error for anything else."""
    try:
        plies = [int(p) for p in text.split(",")]
    except ValueError:
        raise SprtError("--book-plies wants plies like 10 or 10,8,12,6, got %r" % text) from None
    if any(p < 1 for p in plies):
        raise SprtError("--book-plies: every number must be at least 1, got %r" % text)
    return plies


def micropython_path(arg):
    """The MicroPython unix port to run, from --micropython ("auto": the venv's, else PATH's)."""
    if arg != "auto":
        return arg
    micro = os.path.join(os.path.dirname(sys.executable), "micropython")
    return micro if os.path.exists(micro) else "micropython"


def open_engine(folder, micropython=None, module="firmware.uci"):
    """`python -m firmware.uci` in `folder`, or MicroPython's when `micropython` is a path
    (`module`: another UCI engine of the folder, e.g. tools/spsa.py's tools.spsa_uci)."""
    if micropython:
        env = dict(os.environ, MICROPYPATH=folder + ":" + os.path.join(folder, ".frozen"))
        engine = chess.engine.SimpleEngine.popen_uci([micropython, "-m", module], cwd=folder, env=env)
    else:
        engine = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", module], cwd=folder)
    engine.configure({"OwnBook": False, "Hash": 4})
    return engine


_SCORES = {word: score for score, word in RESULT_WORDS.items()}


def read_results(path):
    """Our score of every game a match printed to `path` (play_match's lines), in order; an
    odd last game (its pair unfinished) is left out."""
    results = []
    with open(path) as f:
        for line in f:
            cols = line.split()
            if len(cols) > 3 and cols[0] == "game" and cols[3] in _SCORES:
                results.append(_SCORES[cols[3]])
    return results[:len(results) // 2 * 2]


def pool(paths, sprt=None):
    """Print the pooled result of the matches logged in `paths`: games, pairs, SPRT."""
    results = []
    for path in paths:
        mine = read_results(path)
        print("%s: %d games, %.1f points" % (path, len(mine), sum(mine)))
        results += mine
    if not results:
        raise SprtError("no finished game pairs in " + ", ".join(paths))
    verdict = report(results, sprt)
    if sprt is not None:
        print("SPRT: %s accepted" % verdict if verdict else "SPRT: undecided")
    return results


def report(results, sprt=None):
    """Print a match's score and Elo by games and by pairs, and the SPRT's state; return the
    SPRT's verdict ("H0", "H1", or None: undecided or no SPRT)."""
    summarize(results)
    paired = pair_interval(results)
    if paired:
        print("by pairs (each opening with both colours): %+.0f (95%% interval %+.0f .. %+.0f)" % paired)
    if sprt is None:
        return None
    verdict = sprt.update(results)
    print(sprt.describe())
    return verdict


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="HEAD", help="git revision to play against")
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--games", type=int, default=2 * len(OPENINGS))
    parser.add_argument("--book-plies", default="",
                        help="start from the book lines' positions this many plies in (distinct games); "
                             "several sets as 10,8,12,6")
    parser.add_argument("--sprt", metavar="ELO0,ELO1", default="",
                        help="stop when an SPRT of elo1 against elo0 decides (--games: the most played)")
    parser.add_argument("--first-game", type=int, default=0,
                        help="start at this game of the set (split one match over two processes)")
    parser.add_argument("--pool", nargs="+", metavar="LOG", default=None,
                        help="no match: pool the games these match logs printed")
    parser.add_argument("--no-adjudication", action="store_true",
                        help="play every game to its end (no adjudicated wins or draws)")
    parser.add_argument("--micropython", metavar="PATH", default=None,
                        help="run both engines under this MicroPython unix port ('auto': the venv's)")
    args = parser.parse_args(argv)
    try:
        plies = parse_plies(args.book_plies) if args.book_plies else []
        sprt = Sprt(*parse_bounds(args.sprt)) if args.sprt else None
    except SprtError as err:
        parser.error(str(err))
    if args.pool:
        try:
            return pool(args.pool, sprt)
        except (OSError, SprtError) as err:
            parser.error(str(err))
    micro = micropython_path(args.micropython) if args.micropython else None
    openings = openings_for(plies) if plies else OPENINGS
    if args.first_game + args.games > 2 * len(openings):
        # node-limited games are deterministic: past the last opening they would replay
        # games already played, counting each twice
        parser.error("only %d distinct games from these %d openings (each with both colours), asked for games "
                     "%d..%d: add opening sets to --book-plies or play fewer games" % (
                         2 * len(openings), len(openings), args.first_game + 1, args.first_game + args.games))
    stop = None
    if sprt is not None:
        def stop(results):
            verdict = sprt.update(results)
            if len(results) % 20 == 0 or verdict:
                print(sprt.describe(), flush=True)
            if verdict:
                print("SPRT: %s accepted after %d games" % (verdict, len(results)), flush=True)
            return verdict is not None
    with tempfile.TemporaryDirectory() as base_dir:
        export_revision(args.base, base_dir)
        ours, theirs = open_engine(ROOT, micro), open_engine(base_dir, micro)
        limit = chess.engine.Limit(nodes=args.nodes)
        print("working tree vs %s, %d nodes per move, %d games from %d openings%s" % (
            args.base, args.nodes, args.games, len(openings), ", MicroPython " + micro if micro else ""))
        results = play_match(ours, theirs, limit, args.games, openings, first=args.first_game, stop=stop,
                             adjudicated=not args.no_adjudication)
        report(results, sprt)


if __name__ == "__main__":
    main()
