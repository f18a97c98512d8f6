"""The shipped book (firmware/data/book.bin): reproducible, small, legal, and a good book.

Each test states what an owner probing a chess computer's book expects (see
../shared/reference/chess-computer-notes.md): instant replies to the main openings, variety,
transpositions kept, sensible answers to odd first moves.
"""

import os

import chess
import pytest

from firmware.engine.book import default_book_path, encode_move, open_book, position_ply
from firmware.engine.fen import fen
from firmware.engine.notation import san, uci
from firmware.engine.san_parse import parse_san
from firmware.engine.position import Position
from tests.mpy import ROOT
from tools import book_build

SOURCES = ["tools/book_data/lines.tsv", "tools/book_data/engine_lines.tsv"]
SHIPPED_MAX_PLY = 14  # keep in sync with the Makefile's `book` target


@pytest.fixture(scope="module")
def book():
    with open_book(default_book_path()) as b:
        yield b


def play(*sans):
    pos = Position()
    for s in sans:
        pos.make(parse_san(pos, s))
    return pos


def book_sans(book, pos):
    return [san(pos, m) for m, _ in book.moves(pos)]


@pytest.fixture(scope="module")
def built():
    builder = book_build.BookBuilder(SHIPPED_MAX_PLY)
    for path in SOURCES:
        builder.add_tsv(os.path.join(ROOT, path))
    return builder


def test_shipped_book_is_rebuilt_byte_for_byte_from_the_committed_sources(built):
    with open(default_book_path(), "rb") as f:
        shipped = f.read()
    assert built.to_bytes() == shipped, "firmware/data/book.bin is stale: run `make book`"
    assert len(shipped) <= 32 * 1024


def test_every_entry_is_a_legal_move_of_its_position(book, built):
    # Every entry, via the build data: the position it was entered for (engine FEN), whose
    # key must be the entry's key; every raw entry there resolves to a legal engine move,
    # and python-chess agrees each is legal.
    per_place = {}
    for key, check, move16, _weight in built.entries():
        per_place.setdefault((key, check), []).append(move16)
    checked = 0
    for place, move16s in sorted(per_place.items()):
        ident = built.idents[place]
        pos = Position(ident + " 0 1")
        assert (pos.hash_lo, pos.hash_hi & 255) == place, ident
        moves = book.moves(pos)
        assert book.probe(pos) == len(moves) == len(move16s), ident
        board = chess.Board(ident + " 0 1")
        for move, weight in moves:
            assert chess.Move.from_uci(uci(move)) in board.legal_moves
            assert encode_move(move) in move16s and 1 <= weight <= 255
            checked += 1
    assert checked == book.entries


def test_book_tree_walk_reaches_every_entry_and_finds_only_legal_moves(book):
    # The same from the other side: walk every position reachable by book moves (and by one
    # answered-but-never-played move): together they hold every entry of the file.
    seen = []

    def visit(pos, moves, raw):
        assert raw == len(moves), "illegal or unresolvable entry at %s" % fen(pos)
        seen.append(raw)

    book_build.walk_book(book, visit)
    assert sum(seen) == book.entries


def test_transposed_ruy_lopez_stays_in_book(book):
    transposed = play("Nf3", "Nc6", "e4", "e5")
    assert "Bb5" in book_sans(book, transposed)
    usual = play("e4", "e5", "Nf3", "Nc6")
    assert (transposed.hash_lo, transposed.hash_hi) == (usual.hash_lo, usual.hash_hi)
    after = play("Nf3", "Nc6", "e4", "e5", "Bb5")
    assert {"a6", "Nf6"} <= set(book_sans(book, after))
    deeper = play("Nf3", "Nc6", "e4", "e5", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7")
    assert "Re1" in book_sans(book, deeper)


def test_main_first_moves_and_varied_replies(book):
    firsts = {san(Position(), m): w for m, w in book.moves(Position())}
    assert set(firsts) == {"e4", "d4", "c4", "Nf3"}  # the computer opens soundly
    assert firsts["e4"] >= firsts["c4"] and firsts["d4"] >= firsts["Nf3"]
    expected = {
        "e4": {"e5", "c5", "e6", "c6", "d5", "d6", "g6", "Nf6"},
        "d4": {"d5", "Nf6", "e6", "f5", "g6"},
        "c4": {"e5", "c5", "Nf6", "e6", "c6", "g6"},
        "Nf3": {"d5", "Nf6", "c5", "g6"},
    }
    for first, replies in expected.items():
        got = set(book_sans(book, play(first)))
        assert replies <= got, (first, replies - got)


def test_odd_first_moves_get_sensible_answers_but_are_never_played(book):
    sensible = {
        "g4": {"d5", "e5", "Nc6"},
        "b4": {"e5", "d5", "Nf6"},
        "a3": {"d5", "e5", "Nf6", "c5", "g6"},
        "f4": {"d5", "Nf6", "g6", "e6"},
        "b3": {"e5", "d5", "Nf6", "c5"},
        "Nc3": {"d5", "e5", "c5", "Nf6"},
        "h4": {"d5", "e5", "Nf6", "c5"},
    }
    for first, good in sensible.items():
        replies = book_sans(book, play(first))
        assert replies, first
        assert set(replies) <= good, (first, replies)
    played = {san(Position(), m) for m, _ in book.moves(Position())}
    assert not played & set(sensible)
    # Odd replies to 1.e4 are answered too, with a sound move.
    assert set(book_sans(book, play("e4", "g5"))) <= {"d4", "Nc3", "Nf3", "h4"}
    assert book_sans(book, play("e4", "b5"))


def test_main_lines_run_deep_and_mainline_moves_weigh_most(book):
    # Follow the heaviest move from the start: a main line at least 12 plies long.
    pos = Position()
    line = []
    while True:
        move = book.choose(pos, mode="best")
        if not move:
            break
        line.append(san(pos, move))
        pos.make(move)
    assert len(line) >= 12, line
    najdorf = play("e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6")
    assert position_ply(najdorf) == 10 and book.moves(najdorf)
    ruy = play("e4", "e5", "Nf3", "Nc6")
    weights = {san(ruy, m): w for m, w in book.moves(ruy)}
    assert max(weights, key=weights.get) == "Bb5"
    assert len(weights) >= 3


def test_max_ply_gives_a_level_a_shallower_book(book):
    pos = play("e4", "e5", "Nf3", "Nc6")  # ply 4
    assert book.choose(pos, max_ply=8) != 0
    assert book.choose(pos, max_ply=4) == 0
