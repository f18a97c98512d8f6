"""The UCI front in a board-sized heap: `micropython -X heapsize=128K -m firmware.uci`, run
from the .mpy files `make flash` builds (compiled for x64, machine code kept), answers `go
perft 3` on kiwipete and plays a whole game with `go movetime`, every move legal by
python-chess. Before the search modules were imported lazily and the default table sized for
the heap, perft needed 143 KB and a search 171 KB. The tree is built into a temporary folder
and the engine started there: MicroPython's '' path entry must not find the .py sources.
"""
import os
import random
import subprocess

import chess
import pytest

from tests.mpy import micropython_path

HEAP = "128K"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
MOVETIME_MS = 30
MAX_PLIES = 600  # the games end well before (mate, or a draw python-chess can claim)
RANDOM_OPENING_PLIES = 6


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    from tools import flash

    folder = str(tmp_path_factory.mktemp("uci-x64"))
    flash.build("pico", arch="x64", out_dir=folder, write_main=False, log=None)
    return folder


class Engine:
    """`micropython -X heapsize=HEAP -m firmware.uci` over pipes, one line at a time."""

    def __init__(self, tree, heap=HEAP):
        env = dict(os.environ, MICROPYPATH=tree)
        self.proc = subprocess.Popen([micropython_path(), "-X", "heapsize=" + heap, "-m", "firmware.uci"],
                                     cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.seen = []

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix, errors=False):
        """Lines up to and including the first that starts with `prefix`; an `info string
        error` line on the way fails the test unless `errors`."""
        lines = []
        while True:
            line = self.proc.stdout.readline()
            assert line, "engine ended; last lines: %r" % (self.seen[-20:] + lines,)
            line = line.rstrip("\n")
            lines.append(line)
            assert "Traceback" not in line and "MemoryError" not in line, lines
            assert errors or not line.startswith("info string error"), self.seen[-20:] + lines
            if line.startswith(prefix):
                self.seen.extend(lines)
                return lines

    def close(self):
        if self.proc.poll() is None:
            self.send("quit")
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def test_perft_3_kiwipete_in_128k(tree):
    engine = Engine(tree)
    try:
        engine.send("uci")
        engine.until("uciok")
        engine.send("isready")
        engine.until("readyok")
        engine.send("position fen " + KIWIPETE)
        engine.send("go perft 3")
        lines = engine.until("Nodes searched:")
        assert lines[-1] == "Nodes searched: 97862"
        counts = {line.split(":")[0]: int(line.split(":")[1]) for line in lines[:-2]}
        assert len(counts) == 48 and sum(counts.values()) == 97862
        assert lines[-2] == ""
    finally:
        assert engine.close() == 0


def _play(engine, board, rng, engine_plays):
    """Play `board` to its end: the engine (`position startpos moves ...` and `go movetime`)
    moves when engine_plays(board), python-chess's random legal moves otherwise."""
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        if engine_plays(board):
            moves = " ".join(m.uci() for m in board.move_stack)
            engine.send("position startpos" + (" moves " + moves if moves else ""))
            engine.send("go movetime %d" % MOVETIME_MS)
            words = engine.until("bestmove")[-1].split()
            move = chess.Move.from_uci(words[1])
            assert move in board.legal_moves, (board.fen(), words)
        else:
            move = rng.choice(list(board.legal_moves))
        board.push(move)
    assert board.is_game_over(claim_draw=True), board.fen()
    # the engine's idea of the final position is python-chess's
    engine.send("position startpos moves " + " ".join(m.uci() for m in board.move_stack))
    engine.send("d")
    fen_line = engine.until("info string fen")[-1]
    assert fen_line.split(" ", 3)[3].split()[:4] == board.fen().split()[:4]
    assert any(line.startswith("info depth") for line in engine.seen), "no search ran"


@pytest.mark.parametrize("opponent", ["random", "itself"])
def test_whole_game_with_go_movetime_in_128k(tree, opponent):
    """Against random moves (a short game, ends in mate) and against itself after a few random
    opening moves (a long game: the `position` lines grow to hundreds of moves)."""
    rng = random.Random(13)
    board = chess.Board()
    engine = Engine(tree)
    try:
        engine.send("uci")
        engine.until("uciok")
        engine.send("ucinewgame")
        engine.send("isready")
        engine.until("readyok")
        if opponent == "random":
            _play(engine, board, rng, lambda b: b.turn == chess.WHITE)
        else:
            _play(engine, board, rng, lambda b: b.ply() >= RANDOM_OPENING_PLIES)
    finally:
        assert engine.close() == 0


def test_hash_that_does_not_fit_keeps_the_table(tree):
    engine = Engine(tree)
    try:
        engine.send("position startpos")
        engine.send("go depth 2")
        engine.until("bestmove")
        engine.send("setoption name Hash value 64")  # 64 MB: not in a 128 KB heap
        engine.send("isready")
        lines = engine.until("readyok", errors=True)
        assert len(lines) == 2 and lines[0].startswith("info string error: Hash 64 MB does not fit"), lines
        engine.send("go depth 3")
        assert engine.until("bestmove")[-1].split()[1] in {m.uci() for m in chess.Board().legal_moves}
    finally:
        assert engine.close() == 0
