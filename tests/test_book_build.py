"""The host book builder (tools/book_build.py): inputs, filters, determinism, errors."""

import random
import struct

import chess
import chess.polyglot
import pytest

from firmware.engine.book import open_book
from firmware.engine.notation import san
from firmware.engine.san_parse import parse_san
from firmware.engine.position import Position
from tools.book_build import BookBuilder, BuildError, main, parse_movetext


def sans_at(path, *moves):
    pos = Position()
    for m in moves:
        pos.make(parse_san(pos, m))
    with open_book(str(path)) as book:
        return [(san(pos, m), w) for m, w in book.moves(pos)]


def test_parse_movetext_reads_numbers_annotations_and_results():
    assert parse_movetext("1. e4 e5 2. Nf3 Nc6 3... a6 1-0") == [
        ("e4", False),
        ("e5", False),
        ("Nf3", False),
        ("Nc6", False),
        ("a6", False),
    ]
    assert parse_movetext("1. g4? d5! 2. Bg2 c6 3.f4?! e5 4. h3?? *") == [
        ("g4", True),
        ("d5", False),
        ("Bg2", False),
        ("c6", False),
        ("f4", True),
        ("e5", False),
        ("h3", True),
    ]


def test_tsv_with_weights_takes_the_largest_line_weight(tmp_path):
    tsv = tmp_path / "lines.tsv"
    tsv.write_text(
        "# comment\nweight\tname\tpgn\n"
        "50\tA\t1. e4 e5 2. Nf3\n"
        "30\tB\t1. e4 e5 2. Bc4\n"
        "30\tC\t1. e4 c5 2. Nf3\n"
        "20\tD\t1. d4 d5\n"
    )
    out = tmp_path / "b.bin"
    assert main(["build", "-o", str(out), "--tsv", str(tsv)]) == 0
    assert sans_at(out) == [("e4", 50), ("d4", 20)]
    assert sans_at(out, "e4") == [("e5", 50), ("c5", 30)]
    assert sans_at(out, "e4", "e5") == [("Nf3", 50), ("Bc4", 30)]


def test_tsv_without_weights_counts_lines_like_the_lichess_files(tmp_path):
    tsv = tmp_path / "a.tsv"
    tsv.write_text(
        "eco\tname\tpgn\n"
        "C60\tRuy\t1. e4 e5 2. Nf3 Nc6 3. Bb5\n"
        "C50\tItalian\t1. e4 e5 2. Nf3 Nc6 3. Bc4\n"
        "B20\tSicilian\t1. e4 c5\n"
    )
    out = tmp_path / "b.bin"
    assert main(["build", "-o", str(out), "--tsv", str(tsv)]) == 0
    assert sans_at(out, "e4") == [("e5", 2), ("c5", 1)]
    assert sorted(sans_at(out, "e4", "e5", "Nf3", "Nc6")) == [("Bb5", 1), ("Bc4", 1)]


def test_avoid_marks_answer_a_move_without_playing_it(tmp_path):
    builder = BookBuilder()
    builder.add_line(parse_movetext("1. g4? d5 2. Bg2 c6"), 10, "max")
    builder.add_line(parse_movetext("1. e4 e5"), 10, "max")
    out = tmp_path / "b.bin"
    out.write_bytes(builder.to_bytes())
    assert sans_at(out) == [("e4", 10)]
    assert sans_at(out, "g4") == [("d5", 10)]
    assert sans_at(out, "g4", "d5") == [("Bg2", 10)]
    assert len(builder.entries()) == 5


def test_pgn_counts_games_and_min_count_filters(tmp_path):
    pgn = tmp_path / "games.pgn"
    games = ["1. e4 e5 2. Nf3 Nc6 1-0", "1. e4 e5 2. Nf3 Nf6 0-1", "1. e4 c5 2. Nf3 d6 1/2-1/2", "1. d4 d5 *"]
    pgn.write_text("\n\n".join('[Event "t%d"]\n\n%s' % (i, g) for i, g in enumerate(games)) + "\n")
    out = tmp_path / "b.bin"
    assert main(["build", "-o", str(out), "--pgn", str(pgn)]) == 0
    assert sans_at(out) == [("e4", 3), ("d4", 1)]
    assert sans_at(out, "e4", "e5", "Nf3") == [("Nc6", 1), ("Nf6", 1)]
    assert main(["build", "-o", str(out), "--pgn", str(pgn), "--min-count", "2"]) == 0
    assert sans_at(out) == [("e4", 3)]
    assert sans_at(out, "e4") == [("e5", 2)]
    assert sans_at(out, "e4", "e5") == [("Nf3", 2)]


def _polyglot_bytes(tree):
    """A Polyglot book from {tuple of SAN moves: [(san, weight), ...]}."""
    rows = []
    for prefix, moves in tree.items():
        board = chess.Board()
        for m in prefix:
            board.push_san(m)
        for text, weight in moves:
            move = board.parse_san(text)
            raw = move.to_square | move.from_square << 6
            rows.append((chess.polyglot.zobrist_hash(board), raw, weight))
    rows.sort()
    return b"".join(struct.pack(">QHHI", key, raw, weight, 0) for key, raw, weight in rows)


def test_polyglot_books_are_walked_with_their_weights(tmp_path):
    poly = tmp_path / "poly.bin"
    poly.write_bytes(
        _polyglot_bytes(
            {
                (): [("e4", 40), ("d4", 30), ("a3", 2)],
                ("e4",): [("c5", 20), ("e5", 10)],
                ("e4", "c5"): [("Nf3", 5)],
                ("d4",): [("Nf6", 7)],
            }
        )
    )
    out = tmp_path / "b.bin"
    assert main(["build", "-o", str(out), "--polyglot", str(poly)]) == 0
    assert sans_at(out) == [("e4", 40), ("d4", 30), ("a3", 2)]
    assert sans_at(out, "e4") == [("c5", 20), ("e5", 10)]
    assert sans_at(out, "e4", "c5") == [("Nf3", 5)]
    assert main(["build", "-o", str(out), "--polyglot", str(poly), "--min-weight", "10"]) == 0
    assert sans_at(out) == [("e4", 40), ("d4", 30)]
    assert sans_at(out, "d4") == []


def test_max_ply_limits_depth_and_is_recorded(tmp_path):
    builder = BookBuilder(max_ply=3)
    builder.add_line(parse_movetext("1. e4 e5 2. Nf3 Nc6 3. Bb5"), 5, "max")
    out = tmp_path / "b.bin"
    out.write_bytes(builder.to_bytes())
    assert sans_at(out, "e4", "e5") == [("Nf3", 5)]
    assert sans_at(out, "e4", "e5", "Nf3") == []
    with open_book(str(out)) as book:
        assert book.max_ply == 3 and book.entries == 3


def test_output_is_deterministic_whatever_the_input_order(tmp_path):
    lines = [
        (w, t)
        for w, t in [(9, "1. e4 e5 2. Nf3"), (7, "1. d4 Nf6 2. c4"), (5, "1. e4 c6"), (3, "1. c4 e5"), (2, "1. Nf3 d5")]
    ]
    outputs = set()
    for seed in range(4):
        order = lines[:]
        random.Random(seed).shuffle(order)
        builder = BookBuilder()
        for weight, text in order:
            builder.add_line(parse_movetext(text), weight, "max")
        outputs.add(builder.to_bytes())
    assert len(outputs) == 1


def test_bad_inputs_give_clear_errors(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("weight\tname\tpgn\n5\tx\t1. e4 e5 2. Ke3\n")
    out = tmp_path / "b.bin"
    assert main(["build", "-o", str(out), "--tsv", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.tsv:2" in err and "Ke3" in err
    assert not out.exists()
    for text, fragment in [
        ("weight\tname\n5\tx\n", "'pgn' column"),
        ("weight\tname\tpgn\n500\tx\t1. e4\n", "1..255"),
        ("weight\tname\tpgn\nfive\tx\t1. e4\n", "integer"),
        ("weight\tname\tpgn\n5\t1. e4\n", "columns"),
    ]:
        bad.write_text(text)
        with pytest.raises(BuildError, match=fragment):
            BookBuilder().add_tsv(str(bad))
    with pytest.raises(BuildError, match="no book entries"):
        BookBuilder().to_bytes()
    big = BookBuilder()
    big.add_line(parse_movetext("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"), 5, "max")
    with pytest.raises(BuildError, match="budget"):
        big.to_bytes(max_bytes=40)


def test_stats_and_dump_commands(tmp_path, capsys):
    builder = BookBuilder()
    builder.add_line(parse_movetext("1. e4 e5 2. Nf3 Nc6"), 5, "max")
    builder.add_line(parse_movetext("1. d4 d5"), 3, "max")
    out = tmp_path / "b.bin"
    out.write_bytes(builder.to_bytes())
    assert main(["stats", str(out)]) == 0
    text = capsys.readouterr().out
    assert "entries: 6" in text and "reachable_positions: 7" in text
    assert main(["dump", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == ["1. e4{5} e5{5} 2. Nf3{5} Nc6{5}", "1. d4{3} d5{3}"]
