"""The book reader (firmware/engine/book.py): file checks, lookups, selection, MicroPython.

Books for these tests are built on the fly with tools/book_build.py from a few lines; the
shipped book is tested in test_book_data.py.
"""

import os
import random
import struct
import zlib

import pytest

from firmware.engine import zobrist
from firmware.engine.book import (
    ENTRY_SIZE,
    HEADER_SIZE,
    MAGIC,
    MAX_BOOK_MOVES,
    BookError,
    default_book_path,
    encode_move,
    open_book,
    open_book_or_none,
)
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.san_parse import parse_san
from firmware.engine.position import Position
from firmware.engine.rules import legal_moves
from tests.mpy import PICO_HEAP, ROOT, run_mpy
from tools.book_build import BookBuilder, parse_movetext

LINES = [
    (100, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"),
    (60, "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5"),
    (40, "1. e4 c5 2. Nf3 d6"),
    (80, "1. d4 d5 2. c4 e6"),
    (20, "1. c4 e5"),
]


def build_bytes(lines=LINES, max_ply=12):
    builder = BookBuilder(max_ply)
    for weight, text in lines:
        builder.add_line(parse_movetext(text), weight, "max")
    return builder.to_bytes()


def write(tmp_path, data, name="book.bin"):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def play(*sans):
    pos = Position()
    for s in sans:
        pos.make(parse_san(pos, s))
    return pos


def book_uci(book, pos):
    return [(uci(m), w) for m, w in book.moves(pos)]


def rebuild(entries, version=1, scheme=None, max_ply=12):
    """A book file from raw (key, check, move16, weight) tuples with a correct header."""
    body = b"".join(struct.pack(">IBHB", *e) for e in entries)
    scheme = zobrist.KEY_SCHEME if scheme is None else scheme
    header = MAGIC + struct.pack(">BBBBII", version, scheme, ENTRY_SIZE, max_ply, len(entries), zlib.adler32(body))
    return header + body


def entries_of(data):
    count = (len(data) - HEADER_SIZE) // ENTRY_SIZE
    return [struct.unpack(">IBHB", data[HEADER_SIZE + i * 8 : HEADER_SIZE + i * 8 + 8]) for i in range(count)]


# ---- lookups ------------------------------------------------------------------------------
def test_moves_are_the_lines_moves_heaviest_first(tmp_path):
    with open_book(write(tmp_path, build_bytes())) as book:
        assert book_uci(book, Position()) == [("e2e4", 100), ("d2d4", 80), ("c2c4", 20)]
        assert book_uci(book, play("e4")) == [("e7e5", 100), ("c7c5", 40)]
        assert book_uci(book, play("e4", "e5", "Nf3", "Nc6")) == [("f1b5", 100), ("f1c4", 60)]
        assert book.moves(play("a3")) == []  # not in book
        assert book.moves(play("e4", "e5", "Nf3", "Nc6", "Bb5", "a6")) == []  # end of the line


def test_transposition_is_found_because_keys_are_positions(tmp_path):
    with open_book(write(tmp_path, build_bytes())) as book:
        transposed = play("Nf3", "Nc6", "e4", "e5")
        assert [m for m, _ in book_uci(book, transposed)] == ["f1b5", "f1c4"]


def test_probe_counts_raw_entries_and_header_fields(tmp_path):
    data = build_bytes()
    with open_book(write(tmp_path, data)) as book:
        assert book.entries == len(entries_of(data)) == 17
        assert book.max_ply == 6
        assert book.key_scheme == zobrist.KEY_SCHEME
        assert book.probe(Position()) == 3
        assert sorted(book.found_weights[i] for i in range(3)) == [20, 80, 100]
        key, check, move16, weight = book.entry(0)
        assert 0 <= key < 1 << 30 and 0 <= check < 256 and weight >= 1
        with pytest.raises(IndexError):
            book.entry(book.entries)


def test_encode_move_round_trips_through_the_book_for_every_kind_of_move(tmp_path):
    # Castling, promotion (incl. under-promotion), e.p. and double pushes all survive the
    # 16-bit encoding: build a book of every legal move in tricky positions.
    fens = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/1P4k1/8/8/8/8/6K1/8 w - - 0 1",
    ]
    for fen in fens:
        pos = Position(fen)
        moves = sorted(legal_moves(pos))
        for start in range(0, len(moves), MAX_BOOK_MOVES):  # a position holds MAX_BOOK_MOVES
            chunk = moves[start : start + MAX_BOOK_MOVES]
            slots = sorted((pos.hash_lo, pos.hash_hi & 255, encode_move(m), 1) for m in chunk)
            with open_book(write(tmp_path, rebuild(slots))) as book:
                assert sorted(m for m, _ in book.moves(pos)) == chunk


def test_collision_never_yields_an_illegal_move(tmp_path):
    # An entry keyed to the start position but holding e2e5 (not legal) and one for e2e4.
    pos = Position()
    legal = parse_uci(pos, "e2e4")
    bogus = (4 << 3 | 1) << 0 | (4 << 3 | 4) << 6  # e2 -> e5
    data = rebuild(
        sorted([(pos.hash_lo, pos.hash_hi & 255, bogus, 200), (pos.hash_lo, pos.hash_hi & 255, encode_move(legal), 5)])
    )
    with open_book(write(tmp_path, data)) as book:
        assert book.probe(pos) == 2
        assert book.moves(pos) == [(legal, 5)]
        assert {book.choose(pos) for _ in range(50)} == {legal}
        assert book.choose(pos, mode="best") == legal


def test_check_byte_rejects_a_position_sharing_only_hash_lo(tmp_path):
    pos = Position()
    move = encode_move(parse_uci(pos, "e2e4"))
    data = rebuild([(pos.hash_lo, (pos.hash_hi + 1) & 255, move, 9)])
    with open_book(write(tmp_path, data)) as book:
        assert book.probe(pos) == 0
        assert book.choose(pos) == 0


# ---- selection ----------------------------------------------------------------------------
def test_best_mode_and_alt_move(tmp_path):
    with open_book(write(tmp_path, build_bytes())) as book:
        start = Position()
        best = book.choose(start, mode="best")
        assert uci(best) == "e2e4"
        alt = book.choose(start, mode="best", exclude=best)
        assert uci(alt) == "d2d4"
        for seed in range(20):
            book.seed(seed)
            assert book.choose(start, exclude=best) in {parse_uci(start, "d2d4"), parse_uci(start, "c2c4")}
        only = play("e4", "e5", "Nf3", "Nc6", "Bb5")  # a single book move: a6
        a6 = book.choose(only)
        assert uci(a6) == "a7a6"
        assert book.choose(only, exclude=a6) == 0
        assert book.choose(only, mode="best", exclude=a6) == 0


def test_weighted_choice_follows_weights_and_is_seedable(tmp_path):
    with open_book(write(tmp_path, build_bytes())) as book:
        start = Position()
        book.seed(1234)
        first = [book.choose(start) for _ in range(40)]
        book.seed(1234)
        assert [book.choose(start) for _ in range(40)] == first
        book.seed(99)
        counts = {}
        for _ in range(2000):
            m = uci(book.choose(start))
            counts[m] = counts.get(m, 0) + 1
        assert set(counts) == {"e2e4", "d2d4", "c2c4"}
        # weights 100 : 80 : 20 -> expected 1000, 800, 200 of 2000
        assert 900 < counts["e2e4"] < 1100
        assert 700 < counts["d2d4"] < 900
        assert 140 < counts["c2c4"] < 260


def test_rng_callable_and_max_ply(tmp_path):
    with open_book(write(tmp_path, build_bytes())) as book:
        start = Position()
        assert uci(book.choose(start, rng=lambda n: 0)) == "e2e4"
        assert uci(book.choose(start, rng=lambda n: n - 1)) == "c2c4"
        rnd = random.Random(5)
        assert book.choose(start, rng=rnd.randrange) in {m for m, _ in book.moves(start)}
        after = play("e4", "e5")  # ply 2
        assert book.choose(after, max_ply=3) != 0
        assert book.choose(after, max_ply=2) == 0
        assert book.choose(start, max_ply=0) == 0
        with pytest.raises(ValueError):
            book.choose(start, mode="worst")


def test_closed_book_raises_book_error(tmp_path):
    book = open_book(write(tmp_path, build_bytes()))
    book.close()
    book.close()  # idempotent
    with pytest.raises(BookError, match="closed"):
        book.choose(Position())


# ---- bad files ----------------------------------------------------------------------------
def expect_error(tmp_path, data, fragment):
    path = write(tmp_path, data, "bad.bin")
    with pytest.raises(BookError) as info:
        open_book(path)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)
    return str(info.value)


def test_missing_file_or_directory(tmp_path):
    with pytest.raises(BookError, match="not found"):
        open_book(str(tmp_path / "nothing.bin"))
    with pytest.raises(BookError, match="cannot (open|read)"):
        open_book(str(tmp_path))


def test_empty_file(tmp_path):
    expect_error(tmp_path, b"", "empty file")


def test_truncated_files(tmp_path):
    data = build_bytes()
    expect_error(tmp_path, data[:-3], "truncated")
    expect_error(tmp_path, data[: HEADER_SIZE + 8 * 4], "truncated")
    expect_error(tmp_path, data[:10], "truncated header")


def test_foreign_files(tmp_path):
    expect_error(tmp_path, b"1. e4 e5 2. Nf3 Nc6\n" * 10, "not a Reedchess opening book")
    polyglot_like = bytes(range(256)) * 2  # 512 bytes: a multiple of 16
    message = expect_error(tmp_path, polyglot_like, "Polyglot")
    assert "book_build" in message
    expect_error(tmp_path, b"RC", "not a Reedchess opening book")


def test_wrong_version_scheme_and_count(tmp_path):
    entries = entries_of(build_bytes())
    expect_error(tmp_path, rebuild(entries, version=2), "format version 2")
    message = expect_error(tmp_path, rebuild(entries, scheme=zobrist.KEY_SCHEME + 1), "hash scheme")
    assert "rebuild" in message
    expect_error(tmp_path, rebuild([]), "no entries")
    expect_error(tmp_path, build_bytes() + b"\x00" * 8, "unexpected bytes")


def test_corrupt_files(tmp_path):
    data = bytearray(build_bytes())
    data[HEADER_SIZE + 8 * 5 + 7] ^= 0x10  # a weight
    expect_error(tmp_path, bytes(data), "checksum")
    with open_book(write(tmp_path, bytes(data), "unverified.bin"), verify=False) as book:
        assert book.entries == 17  # verify=False trusts the body
    swapped = entries_of(build_bytes())
    swapped[0], swapped[-1] = swapped[-1], swapped[0]
    expect_error(tmp_path, rebuild(swapped), "out of order")
    high = entries_of(build_bytes())
    high[-1] = ((1 << 30) | high[-1][0],) + high[-1][1:]
    expect_error(tmp_path, rebuild(high), "above 30 bits")


def test_open_book_or_none_lets_the_engine_play_without_a_book(tmp_path):
    messages = []
    book = open_book_or_none(write(tmp_path, build_bytes()[:-1], "cut.bin"), log=messages.append)
    assert book is None
    assert len(messages) == 1 and "truncated" in messages[0] and "no opening book" in messages[0]
    # The caller's pattern: no book -> no book move -> search (here: any legal move) instead.
    pos = Position()
    move = book.choose(pos) if book else 0
    assert move == 0 and legal_moves(pos)
    assert open_book_or_none(str(tmp_path / "missing.bin")) is None  # log is optional
    good = open_book_or_none(write(tmp_path, build_bytes()), log=messages.append)
    assert good is not None and len(messages) == 1
    good.close()


def test_default_book_path_points_at_firmware_data():
    path = default_book_path()
    assert path.replace("\\", "/").endswith("firmware/data/book.bin")
    assert os.path.exists(path)


# ---- MicroPython --------------------------------------------------------------------------
MPY_LOOKUP = r"""
from firmware.engine.book import open_book, BookError
from firmware.engine.position import Position
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.compat import heap_lock, heap_unlock
book = open_book(%(path)r)
pos = Position()
for text in %(moves)r:
    pos.make(parse_uci(pos, text))
book.seed(7)
book.choose(pos)  # warm up
n = a = b = c = d = 0  # globals exist before the lock (a new global grows the dict)
heap_lock()
try:
    n = book.probe(pos)
    a = book.choose(pos)
    b = book.choose(pos, mode="best")
    c = book.choose(pos, mode="best", exclude=b)
    d = book.choose(pos, max_ply=0)
finally:
    heap_unlock()
print("probe", n)
print("best", uci(b), uci(c), d)
print("moves", " ".join("%%s:%%d" %% (uci(m), w) for m, w in book.moves(pos)))
book.seed(11)
print("seq", " ".join(uci(book.choose(pos)) for _ in range(12)))
try:
    open_book(%(bad)r)
except BookError as err:
    print("error", err)
"""


def test_lookup_under_micropython_allocates_nothing_and_matches_cpython(tmp_path):
    path = write(tmp_path, build_bytes())
    bad = write(tmp_path, build_bytes()[:-5], "cut.bin")
    moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
    out = run_mpy(MPY_LOOKUP % {"path": path, "moves": moves, "bad": bad}, heapsize=PICO_HEAP)
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    with open_book(path) as book:
        pos = Position()
        for text in moves:
            pos.make(parse_uci(pos, text))
        assert lines["probe"] == str(book.probe(pos)) == "2"
        assert lines["best"] == "f1b5 f1c4 0"
        assert lines["moves"] == " ".join("%s:%d" % mw for mw in book_uci(book, pos))
        book.seed(11)
        assert lines["seq"] == " ".join(uci(book.choose(pos)) for _ in range(12))
    assert "truncated" in lines["error"]


def test_shipped_book_under_micropython_pico_heap():
    code = MPY_LOOKUP % {
        "path": os.path.join(ROOT, "firmware", "data", "book.bin"),
        "moves": ["d2d4"],
        "bad": "/nonexistent/book.bin",
    }
    out = run_mpy(code, heapsize=PICO_HEAP)
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    with open_book(default_book_path()) as book:
        pos = play("d4")
        assert lines["moves"] == " ".join("%s:%d" % mw for mw in book_uci(book, pos))
        assert int(lines["probe"]) == len(book.moves(pos)) >= 4
    assert "not found" in lines["error"]
