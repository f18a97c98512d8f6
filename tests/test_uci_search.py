"""UCI searching: go/stop/ponderhit/setoption, in-process and as a real engine process for
python-chess under CPython and MicroPython."""
import os
import re
import subprocess
import sys
import time

import chess
import chess.engine
import pytest

from firmware.uci import UciSession, parse_go
from tests.mpy import ROOT, micropython_path

INFO_RE = re.compile(
    r"^info depth (\d+) seldepth \d+ score (cp -?\d+|mate -?\d+) nodes \d+ nps \d+ time \d+"
    r" pv( [a-h][1-8][a-h][1-8][nbrq]?)+$"
)


class ScriptedInput:
    """A non-blocking line source: returns the scripted lines, one per poll, after `delay`
    empty polls; records how many polls happened."""

    def __init__(self, lines, delay=0):
        self.lines = list(lines)
        self.delay = delay
        self.polls = 0

    def __call__(self):
        self.polls += 1
        if self.polls <= self.delay or not self.lines:
            return None
        return self.lines.pop(0)


def _session(lines=(), delay=0, poll_nodes=100):
    out = []
    reader = ScriptedInput(lines, delay)
    session = UciSession(out.append, read_line=reader, poll_nodes=poll_nodes)
    return session, out, reader


def _bestmove(out):
    lines = [line for line in out if line.startswith("bestmove")]
    assert len(lines) == 1, out
    return lines[0].split()


def test_go_depth_prints_info_lines_and_a_legal_bestmove():
    session, out, _ = _session()
    session.handle("position startpos moves e2e4 e7e5")
    session.handle("go depth 4")
    infos = [line for line in out if line.startswith("info depth")]
    assert [int(INFO_RE.match(line).group(1)) for line in infos] == [1, 2, 3, 4], out
    words = _bestmove(out)
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(words[1]) in board.legal_moves
    if len(words) == 4:
        assert words[2] == "ponder"
        board.push_uci(words[1])
        assert chess.Move.from_uci(words[3]) in board.legal_moves


def test_stop_during_go_infinite_answers_within_bounded_nodes():
    session, out, reader = _session(["stop"], delay=30, poll_nodes=100)
    session.handle("go infinite")
    assert reader.polls == 31
    assert session.searcher.nodes <= 31 * 100 + 1
    _bestmove(out)
    totals = [line for line in out if line.startswith("info nodes")]
    assert totals and int(totals[-1].split()[2]) == session.searcher.nodes


def test_bare_go_is_infinite_and_quit_during_search_ends_the_session():
    session, out, _ = _session(["quit"], delay=5)
    assert session.handle("go") is False
    _bestmove(out)


def test_ponder_waits_for_ponderhit_then_keeps_its_time():
    session, out, reader = _session(["ponderhit"], delay=40, poll_nodes=50)
    seen_before = []

    original = reader.__call__

    def spy():
        line = original()
        if line == "ponderhit":
            seen_before.extend(out)
        return line

    session.read_line = spy
    session.handle("go ponder movetime 100")
    assert not any(line.startswith("bestmove") for line in seen_before)
    _bestmove(out)


def test_ponder_stop_gives_a_bestmove_too():
    session, out, _ = _session(["stop"], delay=10, poll_nodes=50)
    session.handle("go ponder wtime 1000 btime 1000")
    _bestmove(out)


def test_isready_is_answered_during_search_and_other_lines_wait():
    session, out, _ = _session(["isready", "position startpos moves d2d4", "stop"], delay=3, poll_nodes=100)
    session.handle("go infinite")
    ready = out.index("readyok")
    best = next(i for i, line in enumerate(out) if line.startswith("bestmove"))
    assert ready < best
    # the queued position command ran after the search
    assert session.position.ply == 1


def test_go_mate_and_nodes_and_movetime():
    session, out, _ = _session()
    session.handle("position fen r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1")
    session.handle("go mate 3")
    assert "score mate 3" in [line for line in out if line.startswith("info depth")][-1]
    assert _bestmove(out)[1] == "f6a6"
    out.clear()
    session.handle("position startpos")
    session.handle("go nodes 500")
    assert session.searcher.nodes <= 501
    _bestmove(out)
    out.clear()
    session.handle("go movetime 50")
    _bestmove(out)
    out.clear()
    session.handle("go wtime 2000 btime 2000 winc 10 binc 10 movestogo 5")
    _bestmove(out)


def test_no_legal_move_answers_0000():
    session, out, _ = _session()
    session.handle("position fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1")
    session.handle("go depth 3")
    assert _bestmove(out) == ["bestmove", "0000"]


@pytest.mark.parametrize("line", [
    "go depth", "go depth x", "go nodes -5", "go frobnicate 3", "go searchmoves e2e4",
    "setoption name Hash value 0", "setoption name Hash value 100000", "setoption name Hash value big",
    "setoption name OwnBook value maybe", "setoption name Nonsense value 1", "setoption Hash 3",
])
def test_bad_go_and_setoption_lines_are_errors(line):
    session, out, _ = _session()
    assert session.handle(line) is True
    assert len(out) == 1 and out[0].startswith("info string error: "), out


def test_negative_clock_counts_as_almost_no_time():
    limits = parse_go(["wtime", "-100", "btime", "5000", "winc", "-3"])
    assert limits.wtime_ms == 1 and limits.winc_ms == 0


def test_hash_option_resizes_the_table_and_options_are_listed():
    session, out, _ = _session()
    session.handle("uci")
    assert any(line.startswith("option name Hash type spin") for line in out)
    assert any(line.startswith("option name OwnBook type check") for line in out)
    assert out[-1] == "uciok"
    session.handle("setoption name Hash value 2")
    session.handle("isready")
    assert session.searcher.tt.size == 131072  # 2 MB / 10 bytes, rounded down to 2^17
    session.handle("setoption name Hash value 1")
    session.handle("isready")
    assert session.searcher.tt.size == 65536


def test_ownbook_plays_a_book_move_or_says_why_not():
    session, out, _ = _session()
    session.handle("setoption name OwnBook value true")
    session.handle("position startpos")
    session.handle("go depth 6")
    words = _bestmove(out)
    assert chess.Move.from_uci(words[1]) in chess.Board().legal_moves
    book_path = os.path.join(ROOT, "firmware", "data", "book.bin")
    if os.path.exists(book_path):
        assert "info string book move" in out  # answered from the book, no search
        assert not any(line.startswith("info depth") for line in out)
    else:
        assert any(line.startswith("info string") for line in out)


def _engine_cmd(interpreter):
    if interpreter == "cpython":
        return [sys.executable, "-m", "firmware.uci"]
    return [micropython_path(), "-m", "firmware.uci"]


@pytest.mark.parametrize("interpreter", ["cpython", "micropython"])
def test_python_chess_drives_the_engine(interpreter):
    env = dict(os.environ, MICROPYPATH=ROOT + ":" + os.path.join(ROOT, ".frozen"))
    engine = chess.engine.SimpleEngine.popen_uci(_engine_cmd(interpreter), cwd=ROOT, env=env, timeout=60)
    try:
        assert engine.id["name"].startswith("Reedchess")
        engine.configure({"Hash": 2})
        board = chess.Board()
        for limit in (chess.engine.Limit(depth=3), chess.engine.Limit(nodes=800), chess.engine.Limit(time=0.1),
                      chess.engine.Limit(white_clock=5, black_clock=5, white_inc=0.05, black_inc=0.05)):
            result = engine.play(board, limit, info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves
            board.push(result.move)
        info = engine.analyse(chess.Board("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1"), chess.engine.Limit(depth=6))
        assert info["score"].relative.mate() == 3
        # pondering: python-chess sends `go ponder` after the move, then stops it
        result = engine.play(board, chess.engine.Limit(time=0.1), ponder=True)
        assert result.move in board.legal_moves
        result = engine.play(board, chess.engine.Limit(time=0.1))
        assert result.move in board.legal_moves
    finally:
        engine.quit()


@pytest.mark.parametrize("interpreter", ["cpython", "micropython"])
def test_stop_during_go_infinite_over_a_pipe(interpreter):
    env = dict(os.environ, MICROPYPATH=ROOT + ":" + os.path.join(ROOT, ".frozen"))
    proc = subprocess.Popen(_engine_cmd(interpreter), cwd=ROOT, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        proc.stdin.write("isready\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "readyok"
        proc.stdin.write("position startpos\ngo infinite\n")
        proc.stdin.flush()
        time.sleep(0.3)
        proc.stdin.write("isready\nstop\n")
        proc.stdin.flush()
        lines = []
        while True:
            line = proc.stdout.readline()
            assert line, lines
            lines.append(line.strip())
            if line.startswith("bestmove"):
                break
        assert "readyok" in lines
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
