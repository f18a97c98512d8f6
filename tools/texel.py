"""Texel-style tuning of the evaluation's numbers (pesto.py and tunables.py) on labelled
quiet positions. Host-side only: needs python-chess, Stockfish and numpy
(`pip install -e .[tune]`); nothing here is imported by the firmware.

Recipe (each step reads the previous step's file; all files go to build/texel/, not to git):

    python tools/texel.py gen        # -> build/texel/positions.tsv   (~10 min, 32,218 positions)
    python tools/texel.py gen-fast   # -> build/texel/positions-fast.tsv (~80 positions a second)
    python tools/texel.py features   # -> build/texel/features.npz    (~30 s)
    python tools/texel.py fit        # -> build/texel/fit.json        (~15 s)
    python tools/texel.py write      # fit.json -> pesto.py, tunables.py

`fit --only NAMES` fits just those scalars, everything else kept (the mobility weights,
which count only squares no enemy pawn attacks, are fitted so:
`--only KNIGHT_MOBILITY,BISHOP_MOBILITY,ROOK_MOBILITY_MG,ROOK_MOBILITY_EG`, 2,500 games,
seed 1).

The defaults are the run that made the numbers in the firmware (2026-11-23:
2,500 games, seed 1, Stockfish 15.1). `write` edits the files in place, so a second run
starts from the numbers of the first: to reproduce that run, check out the tables before it
(the commit before "Texel tune") first. Then prove the change with bench/selfplay.py at fixed
nodes before committing it (docs/engine.md, "Tuning the evaluation").

1. `gen` plays games with Stockfish (/usr/games/stockfish, one thread, `--play-nodes` nodes
   a move, one random legal move in `--random-pct` % of the plies so the games spread out)
   from positions 4..16 plies into the lines of the opening book's sources
   (tools/book_data/*.tsv), and keeps positions from ply 12 on with probability
   `--sample-pct` %. A position is kept only if it is quiet: the side to move is not in
   check, no capture or promotion wins material by our static exchange evaluation
   (firmware/engine/see.py), and Stockfish's best move at the labelling depth is neither a
   capture nor a promotion. Positions our evaluation leaves to endgame.py (a side without
   pawns, or phase <= 2) are skipped too. Label: Stockfish's win/draw/loss estimate at
   `--depth` (8) as an expected score for White, (W + D/2) / 1000; the game's result is kept
   in the file as well (`--lam` in `fit` can blend it in). Same seed, same Stockfish, same
   file.
   `--player ours` plays the games with our own engine instead (the MicroPython unix port,
   `--play-nodes` nodes a move; Stockfish still labels): positions of the kind our own games
   reach, e.g. `gen --player ours --play-nodes 1000 --games 700 --seed 2` (about 13 minutes).
   `gen-fast` is the bulk recipe for fitting the 768 piece-square entries, which 32,000
   positions could not (their refits lost in self-play: docs/engine.md): Stockfish plays
   the games at `--play-nodes` (5,000) nodes a move, and the win/draw/loss estimate of the
   search that chose each move labels the position it was asked about, so no second search
   runs; every quiet position from ply 12 on is kept (the tests above). One process a core,
   each with its own `--seed` and `--out`; `features --positions A,B` reads them together.
2. `features` writes, for every position, the evaluation as a linear function of the
   parameters: the material and piece-square entries exactly (a White piece of kind k on
   square s counts +phase/24 for MATERIAL_MG[k] and the middlegame table entry, +(24-phase)/24
   for the endgame ones; a Black piece counts -1 times that on the mirrored square), the
   scalar terms of tunables.py by finite differences of firmware.engine.evaluate.evaluate
   (each number raised by 64, the difference divided by 64), and the remainder (rounding,
   terms not tuned) as a fixed offset, so that the model reproduces evaluate() exactly at the
   current numbers. It evaluates 20,000 positions at a time (a Position is ~12 KB on CPython).
   `--no-scalars` skips the finite differences (the scalar terms' part goes into the offset):
   one evaluation a position instead of 66 (26 times less CPU measured on 30,000 positions),
   for fits of material and tables alone.
3. `fit` minimises the mean squared error between sigmoid(K * eval / 400) and the label
   (Texel's loss): K first, on the current numbers, then every parameter by full-batch Adam
   with an L2 pull toward the current numbers (`--l2`), 10 % of the positions held out to
   watch for over-fitting (`--block N`: whole runs of N consecutive positions, so that a
   held-out game's other positions are not in the training part). Prints the loss before and
   after on both parts. `--no-scalars`, `--no-material` and `--no-pst` keep those numbers;
   `--only NAMES` fits just those scalars. `--features A,B` reads several files of one tree.
4. `write` rounds the fitted numbers to ints and writes them back in place: the same names,
   table sizes and layout (const() ints and small tuples), nothing added.

What is fitted: MATERIAL_MG/EG and the twelve 64-entry tables of pesto.py (pawn ranks 1 and 8
stay 0), and in tunables.py TEMPO, the bishop pair, doubled/isolated/backward pawns,
PASSED_MG (ranks 2-7), PASSED_PROTECTED_EG, the pawn, minor and rook threats, the rook file
and 7th rank terms, the mobility weights, KING_OPEN_FILE and
KING_ATTACK_PENALTY. Left alone: divisors,
mobility bases, attack units, UNSTOPPABLE, endgame knowledge, every search number, and (by
`--freeze`, default) PASSED_EG and PASSED_KING_DIST: fitted freely they flattened the passer
bonus between the 4th and the 6th rank (tests/test_eval.py's passed-pawn test) for a gain
of 0.0003 in the held-out loss.
"""
import argparse
import json
import math
import os
import random
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
OUT = os.path.join(ROOT, "build", "texel")
STOCKFISH = "/usr/games/stockfish"

KINDS = ("", "PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING")

# Scalar parameters fitted by finite differences: (name in tunables.py, index or None).
SCALARS = (
    [("TEMPO", None), ("BISHOP_PAIR_MG", None), ("BISHOP_PAIR_EG", None),
     ("DOUBLED_MG", None), ("DOUBLED_EG", None), ("ISOLATED_MG", None), ("ISOLATED_EG", None),
     ("BACKWARD_MG", None), ("BACKWARD_EG", None)]
    + [("PASSED_MG", i) for i in range(1, 7)]
    + [("PASSED_EG", i) for i in range(1, 7)]
    + [("PASSED_PROTECTED_EG", None), ("PAWN_THREAT_MG", None), ("PAWN_THREAT_EG", None),
       ("THREAT_MINOR_MG", None), ("THREAT_MINOR_EG", None), ("THREAT_ROOK_MG", None), ("THREAT_ROOK_EG", None),
       ("WEAK_BY_MINOR_MG", None), ("WEAK_BY_MINOR_EG", None), ("WEAK_BY_ROOK_MG", None), ("WEAK_BY_ROOK_EG", None),
       ("KING_THREAT_MG", None), ("KING_THREAT_EG", None)]
    + [("PASSED_KING_DIST", i) for i in range(2, 7)]
    + [("ROOK_OPEN_MG", None), ("ROOK_OPEN_EG", None), ("ROOK_HALF_OPEN_MG", None),
       ("ROOK_HALF_OPEN_EG", None), ("ROOK_SEVENTH_MG", None), ("ROOK_SEVENTH_EG", None),
       ("BISHOP_MOBILITY", None), ("ROOK_MOBILITY_MG", None), ("ROOK_MOBILITY_EG", None),
       ("KNIGHT_MOBILITY", None), ("KING_OPEN_FILE", None)]
    + [("KING_ATTACK_PENALTY", i) for i in range(2, 17)]
)


# ---- 1. positions ----------------------------------------------------------------------------
def book_lines():
    from bench.selfplay import book_lines as lines

    return lines()


def phase_and_pawns(board):
    import chess

    phase = 0
    for kind, w in ((chess.KNIGHT, 1), (chess.BISHOP, 1), (chess.ROOK, 2), (chess.QUEEN, 4)):
        phase += w * len(board.pieces(kind, chess.WHITE)) + w * len(board.pieces(kind, chess.BLACK))
    return min(phase, 24), len(board.pieces(chess.PAWN, chess.WHITE)), len(board.pieces(chess.PAWN, chess.BLACK))


def _book_start(rng, lines):
    """A python-chess board 4..16 plies into a random line of the opening book's sources."""
    import chess

    line = rng.choice(lines)
    board = chess.Board()
    for move in line[:rng.randint(4, min(16, len(line)))]:
        board.push(move)
    return board


def _quiet(board):
    """The positions both generators keep (besides Stockfish's best move not being a capture
    or a promotion): the side to move not in check, pawns on both sides and phase > 2 (else
    endgame.py decides), and no capture or promotion that wins material by our SEE."""
    phase, white_pawns, black_pawns = phase_and_pawns(board)
    return (not board.is_check() and white_pawns and black_pawns and phase > 2
            and not _winning_capture(board))


def _result(board):
    """The finished game's result for White (0.5 for a draw or a game cut at 300 plies)."""
    outcome = board.outcome(claim_draw=True)
    return 0.5 if outcome is None or outcome.winner is None else (1.0 if outcome.winner else 0.0)


def _winning_capture(board):
    """True if a capture or promotion wins material by our SEE (firmware/engine/see.py)."""
    from firmware.engine.position import Position
    from firmware.engine import see
    from firmware.engine.uci_parse import parse_uci

    captures = [m for m in board.legal_moves if board.is_capture(m) or m.promotion]
    if not captures:
        return False
    if any(m.promotion for m in captures):
        return True
    pos = Position(board.fen())
    for m in captures:
        if see.see(pos, parse_uci(pos, m.uci())) > 0:
            return True
    return False


def cmd_gen(args):
    import chess
    import chess.engine

    rng = random.Random(args.seed)
    lines = book_lines()
    os.makedirs(OUT, exist_ok=True)
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    engine.configure({"Threads": 1, "Hash": 16, "UCI_ShowWDL": True})
    player = engine  # who plays the games; Stockfish labels the positions either way
    if args.player == "ours":
        from bench.selfplay import micropython_path, open_engine

        player = open_engine(ROOT, micropython_path("auto"))
    kept = 0
    t0 = time.time()
    with open(args.out, "w") as out:
        out.write("# fen\tlabel (Stockfish depth %d, W+D/2 for White)\tresult for White\n" % args.depth)
        for g in range(args.games):
            board = _book_start(rng, lines)
            samples = []
            for uci in {engine, player}:
                uci.protocol.send_line("ucinewgame")
            while not board.is_game_over(claim_draw=True) and board.ply() < 300:
                if board.ply() >= 12 and rng.random() * 100 < args.sample_pct:
                    samples.append(board.fen())
                if rng.random() * 100 < args.random_pct:
                    move = rng.choice(list(board.legal_moves))
                else:
                    move = player.play(board, chess.engine.Limit(nodes=args.play_nodes)).move
                board.push(move)
            result = _result(board)
            for fen in samples:
                b = chess.Board(fen)
                if not _quiet(b):
                    continue
                info = engine.analyse(b, chess.engine.Limit(depth=args.depth))
                pv = info.get("pv")
                if not pv or b.is_capture(pv[0]) or pv[0].promotion:
                    continue
                wdl = info["wdl"].white()
                label = (wdl.wins + wdl.draws / 2) / wdl.total()
                out.write("%s\t%.4f\t%.1f\n" % (fen, label, result))
                kept += 1
            if (g + 1) % 50 == 0:
                out.flush()
                print("game %d: %d positions, %.0f s" % (g + 1, kept, time.time() - t0), flush=True)
    engine.quit()
    if player is not engine:
        player.quit()
    print("%d positions -> %s" % (kept, args.out))


def cmd_gen_fast(args):
    """`gen-fast`: Stockfish plays `--games` games at `--play-nodes` nodes a move and the WDL
    of each of its own searches labels the position it searched (no second search), every
    quiet position from ply 12 on kept (the same tests as `gen`). About 20 times as many
    positions a minute as `gen`: the data for fitting the 768 piece-square entries."""
    import chess
    import chess.engine

    rng = random.Random(args.seed)
    lines = book_lines()
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    engine.configure({"Threads": 1, "Hash": 16, "UCI_ShowWDL": True})
    kept = 0
    t0 = time.time()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        out.write("# fen\tlabel (Stockfish %d nodes, W+D/2 for White)\tresult for White\n" % args.play_nodes)
        for g in range(args.games):
            board = _book_start(rng, lines)
            engine.protocol.send_line("ucinewgame")
            samples = []
            while not board.is_game_over(claim_draw=True) and board.ply() < 300:
                if rng.random() * 100 < args.random_pct:
                    board.push(rng.choice(list(board.legal_moves)))
                    continue
                played = engine.play(board, chess.engine.Limit(nodes=args.play_nodes), info=chess.engine.INFO_ALL)
                move = played.move
                wdl = played.info.get("wdl")
                if board.ply() >= 12 and wdl is not None and not (board.is_capture(move) or move.promotion) \
                        and _quiet(board):
                    w = wdl.white()
                    samples.append((board.fen(), (w.wins + w.draws / 2) / w.total()))
                board.push(move)
            result = _result(board)
            for fen, label in samples:
                out.write("%s\t%.4f\t%.1f\n" % (fen, label, result))
            kept += len(samples)
            if (g + 1) % 20 == 0:
                out.flush()
                print("game %d: %d positions, %.0f s" % (g + 1, kept, time.time() - t0), flush=True)
    engine.quit()
    print("%d positions -> %s" % (kept, args.out))


# ---- 2. features -----------------------------------------------------------------------------
def _get(name, index):
    from firmware.engine import tunables as T

    v = getattr(T, name)
    return v if index is None else v[index]


def _set(name, index, value):
    """Set a tunable where evaluate() reads it: tunables.py's module (packed into the
    evaluation's array by pack_terms), and evaluate's own global for the few it imports."""
    from firmware.engine import evaluate as E
    from firmware.engine import tunables as T

    if index is not None:
        t = list(getattr(T, name))
        t[index] = value
        value = tuple(t)
    setattr(T, name, value)
    if hasattr(E, name):
        setattr(E, name, value)
    E.pack_terms(T)


_CHUNK = 20000  # positions evaluated at a time (a Position is ~12 KB on CPython)


def _chunk_features(fens, np, E, P, Position, scalars=True):
    """The linear model's columns for one chunk of positions (see cmd_features)."""
    n = len(fens)
    positions = [Position(fen) for fen in fens]

    def white_view():
        return np.array([E.evaluate(p) * (1 if p.stm == 0 else -1) for p in positions], dtype=np.float64)

    e0 = white_view()
    # PST + material: 12 x 64 table entries (index kind-1, mg/eg, diagram square) + 2 x 6 material.
    # Stored sparsely: per position, up to 32 pieces x (mg column, eg column, weights).
    cols = np.zeros((n, 32, 2), dtype=np.int32)
    wts = np.zeros((n, 32, 2), dtype=np.float32)
    mat = np.zeros((n, 12), dtype=np.float32)
    linear = np.zeros(n)
    for i, pos in enumerate(positions):
        c = pos.counts
        phase = min(24, c[2] + c[3] + c[10] + c[11] + 2 * (c[4] + c[12]) + 4 * (c[5] + c[13]))
        wm, we = phase / 24.0, (24 - phase) / 24.0
        k = 0
        for sq in range(128):
            if sq & 0x88:
                continue
            p = pos.board[sq]
            if not p:
                continue
            kind = p & 7
            rank, file = sq >> 4, sq & 7
            if p & 8:
                sign, diagram = -1.0, rank * 8 + file
            else:
                sign, diagram = 1.0, (7 - rank) * 8 + file
            base = (kind - 1) * 128
            cols[i, k] = (base + diagram, base + 64 + diagram)
            wts[i, k] = (sign * wm, sign * we)
            mg = P.MATERIAL_MG[kind] + P.PST_MG_BY_KIND[kind][diagram]
            eg = P.MATERIAL_EG[kind] + P.PST_EG_BY_KIND[kind][diagram]
            linear[i] += sign * (wm * mg + we * eg)
            k += 1
        # material columns: (kind-1) for mg, 6 + (kind-1) for eg, counted per position
        for kind in range(1, 7):
            d = c[kind] - c[kind | 8]
            mat[i, kind - 1] = d * wm
            mat[i, 6 + kind - 1] = d * we
    # scalars by finite differences
    delta = 64
    sc = np.zeros((n, len(SCALARS)), dtype=np.float32)
    for j, (name, index) in enumerate(SCALARS if scalars else ()):
        v = _get(name, index)
        _set(name, index, v + delta)
        sc[:, j] = (white_view() - e0) / delta
        _set(name, index, v)
        linear += sc[:, j] * v
    return cols, wts, mat, sc, e0 - linear, e0


def cmd_features(args):
    import numpy as np
    from firmware.engine import evaluate as E
    from firmware.engine import pesto as P
    from firmware.engine.position import Position

    E.init()
    fens, labels, results = [], [], []
    for path in args.positions.split(","):
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                fen, label, result = line.rstrip("\n").split("\t")
                fens.append(fen)
                labels.append(float(label))
                results.append(float(result))
    n = len(fens)
    parts = []
    t0 = time.time()
    for start in range(0, n, _CHUNK):
        parts.append(_chunk_features(fens[start:start + _CHUNK], np, E, P, Position, not args.no_scalars))
        print("%d of %d positions (%.0f s)" % (min(n, start + _CHUNK), n, time.time() - t0), flush=True)
    cols, wts, mat, sc, offset, e0 = (np.concatenate([part[i] for part in parts]) for i in range(6))
    for j, (name, index) in enumerate(SCALARS if not args.no_scalars else ()):
        print("%-22s %-4s mean |coef| %.3f" % (name, "" if index is None else index, float(np.abs(sc[:, j]).mean())))
    print("offset (rounding, untuned terms): mean |.| %.2f cp, max %.1f" % (
        np.abs(offset).mean(), np.abs(offset).max()))
    theta_s = [_get(name, index) for name, index in SCALARS]
    theta_pst = np.zeros(12 * 64)
    for kind in range(1, 7):
        theta_pst[(kind - 1) * 128:(kind - 1) * 128 + 64] = P.PST_MG_BY_KIND[kind]
        theta_pst[(kind - 1) * 128 + 64:(kind - 1) * 128 + 128] = P.PST_EG_BY_KIND[kind]
    theta_mat = np.array(list(P.MATERIAL_MG[1:7]) + list(P.MATERIAL_EG[1:7]), dtype=np.float64)
    np.savez(args.out, cols=cols, wts=wts, mat=mat, sc=sc, offset=offset, e0=e0,
             labels=np.array(labels), results=np.array(results),
             theta_pst=theta_pst, theta_mat=theta_mat, theta_s=np.array(theta_s, dtype=np.float64))
    print("%d positions -> %s" % (n, args.out))


# ---- 3. fit ----------------------------------------------------------------------------------
class Model:
    def __init__(self, d, idx):
        import numpy as np

        self.np = np
        self.cols = d["cols"][idx]
        self.wts = d["wts"][idx].astype(np.float64)
        self.mat = d["mat"][idx].astype(np.float64)
        self.sc = d["sc"][idx].astype(np.float64)
        self.offset = d["offset"][idx]
        self.n = len(idx)
        self.npst = 12 * 64

    def evals(self, pst, mat, s):
        np = self.np
        return (np.sum(pst[self.cols] * self.wts, axis=(1, 2)) + self.mat @ mat + self.sc @ s + self.offset)

    def grads(self, g):
        """Gradients of sum(g * evals) by parameter block."""
        np = self.np
        gp = np.bincount(self.cols.ravel(), (self.wts * g[:, None, None]).ravel(), minlength=self.npst)
        return gp, self.mat.T @ g, self.sc.T @ g


def sigmoid(x):
    import numpy as np

    return 1.0 / (1.0 + np.exp(-x))


def loss(e, y, k):
    import numpy as np

    return float(np.mean((sigmoid(k * e / 400.0 * math.log(10)) - y) ** 2))


def fit_k(e, y):
    lo, hi = 0.1, 3.0
    for _ in range(60):  # golden-section search on a unimodal loss
        a = hi - (hi - lo) / 1.618
        b = lo + (hi - lo) / 1.618
        if loss(e, y, a) < loss(e, y, b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def cmd_fit(args):
    import numpy as np

    loaded = [np.load(path) for path in args.features.split(",")]
    d = {key: loaded[0][key] for key in ("theta_pst", "theta_mat", "theta_s")}
    for key in ("cols", "wts", "mat", "sc", "offset", "e0", "labels", "results"):
        d[key] = np.concatenate([part[key] for part in loaded])
    y_all = (1 - args.lam) * d["labels"] + args.lam * d["results"]
    n = len(y_all)
    if args.block > 1:
        # whole blocks of consecutive positions held out: a file keeps each game's positions
        # together, so a held-out game's neighbours in time are not in the training part
        blocks = np.random.default_rng(args.seed).permutation((n + args.block - 1) // args.block)
        order = np.concatenate([np.arange(b * args.block, min(n, (b + 1) * args.block)) for b in blocks])
    else:
        order = np.random.default_rng(args.seed).permutation(n)
    n_valid = n // 10
    valid, train = order[:n_valid], order[n_valid:]
    mt, mv = Model(d, train), Model(d, valid)
    yt, yv = y_all[train], y_all[valid]
    p0, m0, s0 = d["theta_pst"].copy(), d["theta_mat"].copy(), d["theta_s"].copy()
    e_check = mt.evals(p0, m0, s0)
    assert np.allclose(e_check, d["e0"][train], atol=1e-3), "the linear model does not reproduce evaluate()"
    k = fit_k(e_check, yt)
    c = math.log(10) / 400.0
    print("K = %.4f; loss train %.6f valid %.6f" % (k, loss(e_check, yt, k), loss(mv.evals(p0, m0, s0), yv, k)))
    frozen = np.array([name in args.freeze.split(",") or args.no_scalars for name, _ in SCALARS])
    if args.only:
        unknown = set(args.only.split(",")) - {name for name, _ in SCALARS}
        if unknown:
            raise SystemExit("fit --only: not fitted terms of tunables.py: %s" % ", ".join(sorted(unknown)))
        frozen = np.array([name not in args.only.split(",") for name, _ in SCALARS])
    theta = [p0.copy(), m0.copy(), s0.copy()]
    prior = [p0, m0, s0]
    m = [np.zeros_like(t) for t in theta]
    v = [np.zeros_like(t) for t in theta]
    b1, b2, lr = 0.9, 0.999, args.lr
    for step in range(1, args.steps + 1):
        e = mt.evals(*theta)
        p = sigmoid(k * c * e)
        g = 2 * (p - yt) * p * (1 - p) * k * c / mt.n
        grads = mt.grads(g)
        grads[2][frozen] = 0.0
        if args.no_pst or args.only:
            grads[0][:] = 0.0
        if args.only or args.no_material:
            grads[1][:] = 0.0
        for i in range(3):
            gi = grads[i] + args.l2 * (theta[i] - prior[i]) / mt.n
            m[i] = b1 * m[i] + (1 - b1) * gi
            v[i] = b2 * v[i] + (1 - b2) * gi * gi
            theta[i] -= lr * (m[i] / (1 - b1 ** step)) / (np.sqrt(v[i] / (1 - b2 ** step)) + 1e-12)
        theta[0][0:8] = 0  # pawn rank 8
        theta[0][56:64] = 0  # pawn rank 1
        theta[0][64:72] = 0
        theta[0][120:128] = 0
        if step % 100 == 0 or step == args.steps:
            print("step %4d  loss train %.6f valid %.6f" % (step, loss(mt.evals(*theta), yt, k),
                                                           loss(mv.evals(*theta), yv, k)), flush=True)
    r = [np.round(t) for t in theta]
    print("rounded: loss train %.6f valid %.6f (before: %.6f / %.6f)" % (
        loss(mt.evals(*r), yt, k), loss(mv.evals(*r), yv, k),
        loss(mt.evals(p0, m0, s0), yt, k), loss(mv.evals(p0, m0, s0), yv, k)))
    out = {"K": k, "pst": [int(x) for x in r[0]], "material": [int(x) for x in r[1]],
           "scalars": [[name, index, int(x)] for (name, index), x in zip(SCALARS, r[2])]}
    for (name, index), x0, x in zip(SCALARS, s0, r[2]):
        print("  %-22s %-4s %5d -> %5d" % (name, "" if index is None else index, x0, x))
    print("  material mg", [int(x) for x in m0[:5]], "->", out["material"][:5])
    print("  material eg", [int(x) for x in m0[6:11]], "->", out["material"][6:11])
    with open(args.out, "w") as f:
        json.dump(out, f)
    print("-> %s" % args.out)


# ---- 4. write --------------------------------------------------------------------------------
def _table_text(values):
    rows = []
    for r in range(8):
        rows.append("    " + ", ".join(str(v) for v in values[r * 8:r * 8 + 8]) + ",")
    return "(\n" + "\n".join(rows) + "\n)"


def cmd_write(args):
    with open(args.fit) as f:
        fit = json.load(f)
    path = os.path.join(ROOT, "firmware", "engine", "pesto.py")
    text = open(path).read()
    mat = fit["material"]
    for name, values in (("MATERIAL_MG", mat[:5]), ("MATERIAL_EG", mat[6:11])):
        new = "%s = (0, %s, 0)" % (name, ", ".join(map(str, values)))
        text = re.sub(r"^%s = \(.*\)$" % name, new, text, flags=re.M)
    pst = fit["pst"]
    for kind in range(1, 7):
        for half, off in (("MG", 0), ("EG", 64)):
            base = (kind - 1) * 128 + off
            name = "%s_%s" % (KINDS[kind], half)
            text, count = re.subn(r"^%s = \([^)]*\)" % name, "%s = %s" % (name, _table_text(pst[base:base + 64])),
                                  text, flags=re.M)
            assert count == 1, name
    open(path, "w").write(text)
    path = os.path.join(ROOT, "firmware", "engine", "tunables.py")
    text = open(path).read()
    values = {}
    for name, index, x in fit["scalars"]:
        # the terms are magnitudes (evaluate.py gives the sign; evaluate.pack_terms refuses < 0)
        values.setdefault(name, {})[index] = max(0, x)
    from firmware.engine import tunables as T

    for name, by_index in values.items():
        if None in by_index:
            new = "%s = const(%d)" % (name, by_index[None])
            text, count = re.subn(r"^%s = const\(-?\d+\)" % name, new, text, flags=re.M)
        else:
            t = list(getattr(T, name))
            for i, x in by_index.items():
                t[i] = x
            new = "%s = (%s)" % (name, ", ".join(map(str, t)))
            text, count = re.subn(r"^%s = \([^)]*\)" % name, new, text, flags=re.M)
        assert count == 1, name
    open(path, "w").write(text)
    print("written: firmware/engine/pesto.py, firmware/engine/tunables.py")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("gen")
    p.add_argument("--games", type=int, default=2500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--play-nodes", type=int, default=600)
    p.add_argument("--random-pct", type=float, default=4.0)
    p.add_argument("--sample-pct", type=float, default=35.0)
    p.add_argument("--player", choices=("stockfish", "ours"), default="stockfish",
                   help="who plays the games: Stockfish, or our engine (MicroPython unix port, "
                        "--play-nodes a move): positions of the kind our own games reach")
    p.add_argument("--out", default=os.path.join(OUT, "positions.tsv"))
    p = sub.add_parser("gen-fast")
    p.add_argument("--games", type=int, default=5000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--play-nodes", type=int, default=5000)
    p.add_argument("--random-pct", type=float, default=4.0)
    p.add_argument("--out", default=os.path.join(OUT, "positions-fast.tsv"))
    p = sub.add_parser("features")
    p.add_argument("--positions", default=os.path.join(OUT, "positions.tsv"),
                   help="the positions file, or several separated by commas")
    p.add_argument("--no-scalars", action="store_true",
                   help="no columns for tunables.py's terms (their part goes to the fixed offset): "
                        "one evaluation a position instead of 66, for `fit --no-scalars`")
    p.add_argument("--out", default=os.path.join(OUT, "features.npz"))
    p = sub.add_parser("fit")
    p.add_argument("--features", default=os.path.join(OUT, "features.npz"),
                   help="the features file, or several (of the same tree) separated by commas")
    p.add_argument("--lam", type=float, default=0.0, help="weight of the game result in the label")
    p.add_argument("--l2", type=float, default=0.002, help="pull toward the current numbers")
    p.add_argument("--no-scalars", action="store_true",
                   help="keep every tunables.py term; fit material and the piece-square entries")
    p.add_argument("--no-material", action="store_true", help="keep the material values")
    p.add_argument("--block", type=int, default=1,
                   help="hold out whole blocks of this many consecutive positions (1: single positions)")
    p.add_argument("--no-pst", action="store_true",
                   help="keep the 768 piece-square entries; fit material and the scalar terms only")
    p.add_argument("--lr", type=float, default=1.0)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--freeze", default="PASSED_KING_DIST,PASSED_EG",
                   help="comma-separated tunables.py names kept at their current values")
    p.add_argument("--only", default="",
                   help="comma-separated tunables.py names: fit these alone (material, tables and the rest kept)")
    p.add_argument("--out", default=os.path.join(OUT, "fit.json"))
    p = sub.add_parser("write")
    p.add_argument("--fit", default=os.path.join(OUT, "fit.json"))
    args = parser.parse_args(argv)
    commands = {"gen": cmd_gen, "gen-fast": cmd_gen_fast, "features": cmd_features, "fit": cmd_fit, "write": cmd_write}
    commands[args.cmd](args)


if __name__ == "__main__":
    main()
