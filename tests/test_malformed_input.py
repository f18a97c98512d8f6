"""Malformed FEN and UCI input: each gives a clear error naming what is wrong, never a crash,
on CPython, under MicroPython, and through the UCI front (which keeps its previous state)."""
import json

import pytest

from firmware.engine.fen import FenError, fen, set_fen
from firmware.engine.uci_parse import MoveSyntaxError, parse_uci
from firmware.engine.position import Position
from firmware.engine.rules import IllegalMoveError
from firmware.engine.san_parse import parse_san
from firmware.uci import UciSession
from tests.mpy import run_mpy_module

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

# (FEN, a word the error message must contain)
BAD_FENS = [
    ("", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks"),
    ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "squares"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "digit"),
    ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "digit"),
    ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece letter"),
    ("rnbqkbnr/pppp.ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece letter"),
    ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "kings"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w kq - 0 1", "kings"),
    ("rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "pieces"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w Qkq - 0 1", "pawn"),
    ("Pnbqkbnr/1ppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQk - 0 1", "pawn"),
    ("rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/QQQQKQQQ w - - 0 1", "promoted"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", "side to move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1", "castling"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "castling"),
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en passant"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "en passant"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1", "en passant"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en passant"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "half-move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "half-move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "full-move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 one", "full-move"),
    ("4k3/8/8/8/8/8/8/4K2R b - - 0 1", "not to move"),  # wait: rook on h1 doesn't attack e8
    ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "not to move"),
]
# The FEN marked "wait" above is legal (h1 rook does not check e8): replace it by a real one.
BAD_FENS[31] = ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "not to move")

# (UCI move text in the start position, expected error class)
BAD_UCI_MOVES = [
    ("", MoveSyntaxError),
    ("e2", MoveSyntaxError),
    ("e2e4e", MoveSyntaxError),
    ("e2e9", MoveSyntaxError),
    ("z2e4", MoveSyntaxError),
    ("e2e4k", MoveSyntaxError),
    ("E2E4", MoveSyntaxError),
    ("e2e5", IllegalMoveError),
    ("e1g1", IllegalMoveError),
    ("a1a1", IllegalMoveError),
    ("e7e5", IllegalMoveError),
    ("e2e4q", IllegalMoveError),
]

BAD_SAN = ["", "Ke3", "Nf4", "O-O", "e5", "Qxh7", "xx", "e8=Q", "Nbd2x", "P"]


@pytest.mark.parametrize("text,word", BAD_FENS)
def test_bad_fen_gives_clear_error_and_keeps_position(text, word):
    position = Position()
    before = fen(position)
    with pytest.raises(FenError) as info:
        set_fen(position, text)
    assert word in str(info.value), str(info.value)
    assert fen(position) == before


def test_there_are_at_least_thirty_malformed_cases():
    assert len(BAD_FENS) + len(BAD_UCI_MOVES) + len(BAD_SAN) >= 30
    assert len({f for f, _ in BAD_FENS}) == len(BAD_FENS)


@pytest.mark.parametrize("text,error", BAD_UCI_MOVES)
def test_bad_uci_move(text, error):
    with pytest.raises(error):
        parse_uci(Position(), text)


@pytest.mark.parametrize("text", BAD_SAN)
def test_bad_san(text):
    with pytest.raises(ValueError):
        parse_san(Position(), text)


def test_uci_session_reports_errors_and_keeps_state():
    out = []
    session = UciSession(out.append)
    session.handle("position startpos moves e2e4")
    good = fen(session.position)
    lines = ["position fen " + f for f, _ in BAD_FENS] + ["position startpos moves " + m for m, _ in BAD_UCI_MOVES if m]
    lines += ["position", "position foo", "position startpos bar", "go perft", "go perft 0", "go perft 99", "bogus"]
    for line in lines:
        out.clear()
        assert session.handle(line) is True
        assert len(out) == 1 and out[0].startswith("info string error: "), (line, out)
        assert fen(session.position) == good


def test_micropython_uci_survives_every_malformed_line():
    lines = ["position fen " + f for f, _ in BAD_FENS] + ["position startpos moves " + m for m, _ in BAD_UCI_MOVES if m]
    stdin = "\n".join(lines + ["isready", "quit"]) + "\n"
    out = run_mpy_module("firmware.uci", stdin=stdin).split("\n")
    errors = [line for line in out if line.startswith("info string error: ")]
    assert len(errors) == len(lines), json.dumps(out[:5])
    assert "readyok" in out
