"""Perft equals the reference counts on all seven positions, under MicroPython (the full
depth), under CPython (one depth less: the same code, five times slower there) and through the
UCI `go perft` path."""
import pytest

from firmware.engine.position import Position
from firmware.engine.perft import perft
from firmware.uci import UciSession
from tests.mpy import run_mpy, run_mpy_module
from tests.positions import PERFT, PERFT_DEPTH


@pytest.mark.parametrize("name", sorted(PERFT))
def test_perft_cpython_one_depth_less(name):
    fen, counts = PERFT[name]
    depth = PERFT_DEPTH[name] - 1
    position = Position(fen)
    assert perft(position, depth) == counts[depth - 1]
    # make/unmake restored everything
    assert position.ply == 0
    from firmware.engine.fen import fen as fen_of

    assert fen_of(position).split()[:4] == fen.split()[:4]


@pytest.mark.parametrize("name", sorted(PERFT))
def test_perft_micropython(name):
    fen, counts = PERFT[name]
    depth = PERFT_DEPTH[name]
    code = (
        "from firmware.engine.position import Position\n"
        "from firmware.engine.perft import perft\n"
        "print(perft(Position(%r), %d))\n" % (fen, depth)
    )
    assert int(run_mpy(code, timeout=600)) == counts[depth - 1]


def _parse_perft_output(lines):
    moves = {}
    i = 0
    while lines[i] != "":
        move, count = lines[i].split(": ")
        moves[move] = int(count)
        i += 1
    assert lines[i + 1].startswith("Nodes searched: ")
    return moves, int(lines[i + 1].split(": ")[1])


def test_uci_go_perft_cpython_session():
    out = []
    session = UciSession(out.append)
    fen, counts = PERFT["kiwipete"]
    session.handle("position fen " + fen)
    session.handle("go perft 3")
    moves, total = _parse_perft_output(out)
    assert total == counts[2]
    assert len(moves) == counts[0]
    assert sum(moves.values()) == total


def test_uci_go_perft_micropython_process():
    fen, counts = PERFT["pos5"]
    out = run_mpy_module("firmware.uci", stdin="uci\nposition fen %s\ngo perft 2\nquit\n" % fen)
    lines = out.split("\n")
    assert "uciok" in lines
    start = lines.index("uciok") + 1
    moves, total = _parse_perft_output(lines[start:])
    assert total == counts[1]
    assert len(moves) == counts[0]


def test_uci_go_perft_with_moves():
    out = []
    session = UciSession(out.append)
    session.handle("position startpos moves e2e4 e7e5 g1f3")
    session.handle("go perft 1")
    moves, total = _parse_perft_output(out)
    assert total == 29 and "b8c6" in moves and "e8e7" in moves
