"""The Computer's book on demand (a path): the same moves as an open Book seeded once, and the
book module is off the heap again after every lookup."""
import sys

from firmware.controller.computer import Computer
from firmware.engine import levels
from firmware.engine.book import default_book_path, open_book
from firmware.engine.fen import START_FEN, set_fen
from firmware.engine.position import Position


def _deep_book_level():
    best = max(range(len(levels.LEVELS)), key=lambda i: levels.LEVELS[i].book_plies)
    assert levels.LEVELS[best].book_plies >= 6
    return best


def _play(comp, level, games=4):
    out = []
    for _ in range(games):
        pos = Position(None, 64)
        set_fen(pos, START_FEN)
        while True:
            move = comp.book_move(pos, level)
            out.append(move)
            if not move:
                break
            pos.make(move)
    return out


def test_path_book_plays_the_same_moves_as_an_open_book():
    level = _deep_book_level()
    path = default_book_path()
    for seed in (0, 7, 12345):
        with open_book(path) as book:
            held = _play(Computer(None, book, seed), level)
        on_demand = _play(Computer(None, path, seed), level)
        assert on_demand == held
        assert len(set(held)) > 3  # really in book, several different moves


def test_path_book_releases_the_module():
    level = _deep_book_level()
    saved = sys.modules.pop("firmware.engine.book")
    import firmware.engine as engine_pkg

    had = engine_pkg.__dict__.pop("book", None)
    try:
        comp = Computer(None, default_book_path(), 3)
        pos = Position(None, 64)
        set_fen(pos, START_FEN)
        assert comp.book_move(pos, level)
        assert "firmware.engine.book" not in sys.modules
        assert not hasattr(engine_pkg, "book")
    finally:
        sys.modules["firmware.engine.book"] = saved
        if had is not None:
            engine_pkg.book = had


def test_missing_book_file_means_no_book():
    comp = Computer(None, "/nonexistent/book.bin", 0)
    pos = Position(None, 64)
    set_fen(pos, START_FEN)
    assert comp.book_move(pos, _deep_book_level()) == 0
    assert comp.book is None
