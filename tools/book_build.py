"""Build, inspect and extend Reedchess opening books (host tool, CPython + python-chess).

    python tools/book_build.py build -o firmware/data/book.bin --max-ply 12 \\
        --tsv tools/book_data/lines.tsv --tsv tools/book_data/engine_lines.tsv
    python tools/book_build.py build -o my.bin --pgn games.pgn --min-count 3
    python tools/book_build.py build -o my.bin --polyglot other.bin --min-weight 10
    python tools/book_build.py stats firmware/data/book.bin
    python tools/book_build.py dump firmware/data/book.bin          # every book line
    python tools/book_build.py engine-lines --roots R.txt -o out.tsv  # lines from a UCI engine
    python tools/book_build.py check firmware/data/book.bin           # engine audit of book moves

Every move is validated twice: with python-chess (the reference rules) and with the engine's
own Position, whose hash gives the keys (so a book always matches the firmware's KEY_SCHEME).
Output is deterministic: the same inputs give the same bytes. See docs/book.md.

Inputs and weights
- TSV of lines (`--tsv`): a header row naming the columns; `pgn` (SAN movetext, e.g.
  "1. e4 e5 2. Nf3") is required, `weight` (1..255) optional, other columns (eco, name) are
  ignored. With a weight column, a move's weight is the largest weight of any line through it
  (so the number of lines written per opening does not matter); without one (e.g. the
  lichess chess-openings files) it is the number of lines through it. A move marked `?` or
  `?!` (e.g. "1. g4? d5") is followed but not entered: the book answers it but never plays it.
  Lines starting with # are comments.
- PGN (`--pgn`): a move's weight is the number of games that played it; `--min-count` drops
  rarer moves.
- Polyglot (`--polyglot`): the book's tree is walked from the start position; a move's
  weight is its Polyglot weight; `--min-weight` drops lighter moves.
Only moves made before ply `--max-ply` (White's first move is ply 0) are entered. Weights
are finally scaled per position to 1..255, the heaviest move keeping 255 when it exceeds it.
"""

import argparse
import io
import os
import re
import struct
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import chess  # noqa: E402
import chess.pgn  # noqa: E402
import chess.polyglot  # noqa: E402

from firmware.engine import fen as efen  # noqa: E402
from firmware.engine import notation, zobrist  # noqa: E402
from firmware.engine.uci_parse import parse_uci  # noqa: E402
from firmware.engine.book import (  # noqa: E402
    ENTRY_SIZE,
    FORMAT_VERSION,
    HEADER_SIZE,
    MAGIC,
    MAX_BOOK_MOVES,
    encode_move,
    open_book,
    position_ply,
)
from firmware.engine.position import Position  # noqa: E402
from firmware.engine.rules import legal_moves  # noqa: E402

DEFAULT_MAX_PLY = 12
DEFAULT_MAX_BYTES = 32 * 1024
_MOVE_NUMBER = re.compile(r"^\d+\.+")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class BuildError(ValueError):
    """Bad input data (illegal move, malformed TSV, book too large, key collision)."""


def _avoid_mark(token):
    """(san, avoid) for a SAN token with optional annotation: '?', '?!', '??' mean avoid."""
    san = token.rstrip("!?")
    return san, "?" in token[len(san) :]


def parse_movetext(text):
    """SAN movetext ('1. e4 e5 2. Nf3', annotations allowed) -> list of (san, avoid)."""
    result = []
    for token in text.split():
        token = _MOVE_NUMBER.sub("", token)
        if not token or token in _RESULTS:
            continue
        result.append(_avoid_mark(token))
    return result


class BookBuilder:
    """Accumulates weighted (position, move) pairs from lines, games and books, then writes a
    book. `max_ply`: only moves made before this ply of the game are entered."""

    def __init__(self, max_ply=DEFAULT_MAX_PLY):
        self.max_ply = max_ply
        self.weights = {}  # (key, check, move16) -> raw weight
        self.counts = {}  # (key, check, move16) -> lines/games through it
        self.idents = {}  # (key, check) -> position identity (engine FEN without clocks)
        self.max_seen_ply = 0
        self._pos = Position()

    # ---- one move ---------------------------------------------------------------------
    def _start(self, board):
        efen.set_fen(self._pos, board.fen())
        return self._pos

    def _play(self, board, pos, move, weight, combine, avoid=False):
        """Validate `move` (python-chess Move) in both models, enter it unless `avoid`, and
        play it on both."""
        if not board.is_legal(move):
            raise BuildError("illegal move %s in %s" % (move.uci(), board.fen()))
        try:
            emove = parse_uci(pos, move.uci())
        except ValueError as err:  # the engine disagrees with python-chess: a real bug
            raise BuildError("engine rejects %s in %s: %s" % (move.uci(), board.fen(), err)) from err
        ply = position_ply(pos)
        if not avoid and ply < self.max_ply:
            self._enter(pos, emove, weight, combine)
            self.max_seen_ply = max(self.max_seen_ply, ply + 1)
        board.push(move)
        pos.make(emove)

    def _enter(self, pos, emove, weight, combine):
        place = (pos.hash_lo, pos.hash_hi & 255)
        ident = " ".join(efen.fen(pos).split()[:4])
        other = self.idents.setdefault(place, ident)
        if other != ident:
            raise BuildError("hash collision between %s and %s: drop one of them" % (other, ident))
        slot = place + (encode_move(emove),)
        old = self.weights.get(slot, 0)
        self.weights[slot] = max(old, weight) if combine == "max" else old + weight
        self.counts[slot] = self.counts.get(slot, 0) + 1

    # ---- sources ----------------------------------------------------------------------
    def add_line(self, sans, weight=1, combine="sum", where="line"):
        """Enter a line given as [(san, avoid), ...] from the start position."""
        board = chess.Board()
        pos = self._start(board)
        for san, avoid in sans:
            if position_ply(pos) >= self.max_ply:
                break
            try:
                move = board.parse_san(san)
            except ValueError as err:
                raise BuildError("%s: bad move %r after %s: %s" % (where, san, board.fen(), err)) from err
            self._play(board, pos, move, weight, combine, avoid)

    def add_tsv(self, path):
        """Enter every line of a TSV file (see the module docstring). Returns the line count."""
        with open(path, encoding="utf-8") as f:
            rows = [line.rstrip("\n") for line in f]
        header = None
        lines = 0
        for number, row in enumerate(rows, 1):
            if not row.strip() or row.startswith("#"):
                continue
            cells = row.split("\t")
            if header is None:
                header = cells
                if "pgn" not in header:
                    raise BuildError("%s:%d: the header must name a 'pgn' column" % (path, number))
                continue
            if len(cells) != len(header):
                raise BuildError("%s:%d: %d columns, the header has %d" % (path, number, len(cells), len(header)))
            record = dict(zip(header, cells))
            where = "%s:%d" % (path, number)
            if "weight" in record:
                try:
                    weight = int(record["weight"])
                except ValueError:
                    raise BuildError("%s: weight must be an integer" % where) from None
                if not 1 <= weight <= 255:
                    raise BuildError("%s: weight must be 1..255" % where)
                self.add_line(parse_movetext(record["pgn"]), weight, "max", where)
            else:
                self.add_line(parse_movetext(record["pgn"]), 1, "sum", where)
            lines += 1
        return lines

    def add_pgn(self, path):
        """Enter the first max_ply plies of every game in a PGN file. Returns the game count."""
        games = 0
        with open(path, encoding="utf-8", errors="replace") as f:
            while True:
                game = chess.pgn.read_game(f)
                if game is None:
                    break
                if game.errors:
                    raise BuildError("%s: game %d: %s" % (path, games + 1, game.errors[0]))
                board = game.board()
                pos = self._start(board)
                for move in game.mainline_moves():
                    if position_ply(pos) >= self.max_ply:
                        break
                    self._play(board, pos, move, 1, "sum")
                games += 1
        return games

    def add_polyglot(self, path, min_weight=1):
        """Walk a Polyglot book from the start position (transpositions visited once) and
        enter its moves with their weights. Returns the number of positions visited."""
        seen = set()
        with chess.polyglot.open_reader(path) as reader:
            board = chess.Board()
            pos = self._start(board)

            def walk():
                key = chess.polyglot.zobrist_hash(board)
                if key in seen or position_ply(pos) >= self.max_ply:
                    return
                seen.add(key)
                entries = sorted(reader.find_all(board, minimum_weight=min_weight), key=lambda e: e.move.uci())
                for entry in entries:
                    move = entry.move
                    self._play(board, pos, move, max(1, entry.weight), "max")
                    walk()
                    board.pop()
                    pos.unmake()

            walk()
        return len(seen)

    # ---- output -----------------------------------------------------------------------
    def entries(self, min_count=1, min_weight=1):
        """Sorted list of (key, check, move16, weight 1..255): filtered by count and raw
        weight, scaled per position, heaviest first within a position, at most
        MAX_BOOK_MOVES per position."""
        by_place = {}
        for slot, weight in self.weights.items():
            if self.counts[slot] >= min_count and weight >= min_weight:
                by_place.setdefault(slot[:2], []).append((slot[2], weight))
        result = []
        for place in sorted(by_place):
            moves = by_place[place]
            top = max(w for _, w in moves)
            scaled = []
            for move16, weight in moves:
                if top > 255:
                    weight = max(1, (weight * 255 + top // 2) // top)
                scaled.append((-weight, move16))
            scaled.sort()
            for neg_weight, move16 in scaled[:MAX_BOOK_MOVES]:
                result.append(place + (move16, -neg_weight))
        return result

    def to_bytes(self, min_count=1, min_weight=1, max_bytes=DEFAULT_MAX_BYTES):
        """The book file's bytes. Raises BuildError when empty or larger than max_bytes."""
        entries = self.entries(min_count, min_weight)
        if not entries:
            raise BuildError("no book entries (check --max-ply, --min-count, --min-weight)")
        body = b"".join(struct.pack(">IBHB", key, check, move16, weight) for key, check, move16, weight in entries)
        header = MAGIC + struct.pack(
            ">BBBBII",
            FORMAT_VERSION,
            zobrist.KEY_SCHEME,
            ENTRY_SIZE,
            self.max_seen_ply,
            len(entries),
            zlib.adler32(body),
        )
        data = header + body
        if len(data) != HEADER_SIZE + len(entries) * ENTRY_SIZE:
            raise BuildError("internal error: bad record size")
        if max_bytes and len(data) > max_bytes:
            raise BuildError(
                "book is %d bytes, over the %d-byte budget: lower --max-ply or raise --min-count"
                % (len(data), max_bytes)
            )
        return data


# ---- reading a book back ------------------------------------------------------------------
def walk_book(book, visit, position=None, max_depth=64, detours=True):
    """Depth-first walk of every book position reachable from `position` (default: the
    start), each transposition once. With `detours`, a book position reached by a non-book
    move (the book answers a move it never plays, marked ? in the lines) is walked too.
    `visit(position, moves, raw_count)` sees the legal book moves and the number of raw
    entries found; returns the set of visited (lo, hi)."""
    pos = position if position is not None else Position()
    seen = set()

    def rec(depth):
        key = (pos.hash_lo, pos.hash_hi)
        if key in seen or depth > max_depth:
            return
        seen.add(key)
        raw = book.probe(pos)
        moves = book.moves(pos)
        visit(pos, moves, raw)
        book_moves = [m for m, _ in moves]
        for move in book_moves:
            pos.make(move)
            rec(depth + 1)
            pos.unmake()
        if detours:
            for move in legal_moves(pos):
                if move not in book_moves:
                    pos.make(move)
                    if book.probe(pos):
                        rec(depth + 1)
                    pos.unmake()

    rec(0)
    return seen


def book_lines(book):
    """Every maximal line of book moves from the start (SAN strings), each transposition
    expanded once."""
    lines = []
    seen = set()
    pos = Position()

    def rec(prefix):
        key = (pos.hash_lo, pos.hash_hi)
        moves = book.moves(pos) if key not in seen else []
        seen.add(key)
        if not moves:
            if prefix:
                lines.append(" ".join(prefix))
            return
        for move, weight in moves:
            ply = position_ply(pos)
            label = ("%d. " % (ply // 2 + 1) if ply % 2 == 0 else "") + notation.san(pos, move) + "{%d}" % weight
            pos.make(move)
            rec(prefix + [label])
            pos.unmake()

    rec([])
    return lines


def book_stats(book, playouts=1000, seed=1):
    """Figures for docs/benchmarks.md: entries, positions, max ply, and the average number of
    plies a game stays in book when both sides pick weighted book moves."""
    positions = []
    walk_book(book, lambda pos, moves, raw: positions.append(len(moves)))
    book.seed(seed)
    total = 0
    longest = 0
    pos = Position()
    for _ in range(playouts):
        plies = 0
        while True:
            move = book.choose(pos)
            if not move:
                break
            pos.make(move)
            plies += 1
        total += plies
        longest = max(longest, plies)
        for _ in range(plies):
            pos.unmake()
    return {
        "entries": book.entries,
        "reachable_positions": len(positions),
        "max_ply": book.max_ply,
        "average_book_plies": total / playouts,
        "longest_playout": longest,
    }


# ---- engine helpers (need a UCI engine, e.g. Debian's stockfish) --------------------------
def _engine(path, hash_mb=64):
    import chess.engine

    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Threads": 1, "Hash": hash_mb})
    return engine


def _movetext(board_moves, marks):
    board = chess.Board()
    out = []
    for i, move in enumerate(board_moves):
        if board.turn == chess.WHITE:
            out.append("%d." % board.fullmove_number)
        out.append(board.san(move) + marks.get(i, ""))
        board.push(move)
    return " ".join(out)


def engine_lines(engine_path, roots, depth, multipv, margin_cp, plies, weights):
    """Lines that continue each root movetext with a UCI engine: the `multipv` best replies
    within `margin_cp` of the best, each followed by the engine's best moves for `plies` - 1
    more plies. Deterministic for a given engine binary (one thread, fixed hash, hash cleared
    per root). Returns TSV rows (weight, name, pgn)."""
    import chess.engine

    rows = []
    engine = _engine(engine_path)
    try:
        for root in roots:
            board = chess.Board()
            marks = {}
            for i, (san, avoid) in enumerate(parse_movetext(root)):
                move = board.parse_san(san)
                if avoid:
                    marks[i] = "?!"
                board.push(move)
            engine.configure({"Clear Hash": None})
            infos = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=multipv)
            best = infos[0]["score"].relative.score(mate_score=100000)
            for rank, info in enumerate(infos):
                if best - info["score"].relative.score(mate_score=100000) > margin_cp:
                    break
                line = board.copy()
                line.push(info["pv"][0])
                for _ in range(plies - 1):
                    if line.is_game_over():
                        break
                    reply = engine.play(line, chess.engine.Limit(depth=depth)).move
                    line.push(reply)
                moves = list(line.move_stack)
                weight = weights[min(rank, len(weights) - 1)]
                rows.append((weight, "engine d%d" % depth, _movetext(moves, marks)))
    finally:
        engine.quit()
    return rows


def check_book(book, engine_path, depth, threshold_cp):
    """Audit: for every reachable book position, the engine's score loss of each book move
    against the engine's best move. Returns [(loss_cp, fen, san)] above threshold, worst
    first."""
    import chess.engine

    bad = []
    engine = _engine(engine_path)
    try:

        def visit(pos, moves, raw):
            if not moves:
                return
            board = chess.Board(efen.fen(pos))
            best = engine.analyse(board, chess.engine.Limit(depth=depth))["score"].relative.score(mate_score=100000)
            roots = [chess.Move.from_uci(notation.uci(m)) for m, _ in moves]
            infos = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=len(roots), root_moves=roots)
            for info in infos:
                loss = best - info["score"].relative.score(mate_score=100000)
                if loss > threshold_cp:
                    bad.append((loss, board.fen(), board.san(info["pv"][0])))

        walk_book(book, visit)
    finally:
        engine.quit()
    bad.sort(key=lambda row: (-row[0], row[1], row[2]))
    return bad


# ---- command line -------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build a book from TSV lines, PGN games and Polyglot books")
    b.add_argument("-o", "--output", required=True)
    b.add_argument("--tsv", action="append", default=[])
    b.add_argument("--pgn", action="append", default=[])
    b.add_argument("--polyglot", action="append", default=[])
    b.add_argument("--max-ply", type=int, default=DEFAULT_MAX_PLY)
    b.add_argument("--min-count", type=int, default=1, help="drop moves seen in fewer lines/games")
    b.add_argument("--min-weight", type=int, default=1, help="drop moves with a smaller raw weight")
    b.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES)
    s = sub.add_parser("stats", help="entries, positions, depth of a book")
    s.add_argument("book")
    d = sub.add_parser("dump", help="print every book line from the start position")
    d.add_argument("book")
    e = sub.add_parser("engine-lines", help="write TSV lines continuing root lines with a UCI engine")
    e.add_argument("--roots", required=True, help="file with one SAN movetext per line (# comments)")
    e.add_argument("-o", "--output", required=True)
    e.add_argument("--engine", default="/usr/games/stockfish")
    e.add_argument("--depth", type=int, default=16)
    e.add_argument("--multipv", type=int, default=3)
    e.add_argument("--margin", type=int, default=40, help="centipawns behind the best reply")
    e.add_argument("--plies", type=int, default=4, help="plies added after each root")
    e.add_argument("--weights", default="12,8,5", help="line weight by reply rank")
    c = sub.add_parser("check", help="engine audit: book moves losing more than --threshold cp")
    c.add_argument("book")
    c.add_argument("--engine", default="/usr/games/stockfish")
    c.add_argument("--depth", type=int, default=14)
    c.add_argument("--threshold", type=int, default=70)
    args = parser.parse_args(argv)

    try:
        if args.command == "build":
            builder = BookBuilder(args.max_ply)
            for path in args.tsv:
                print("%s: %d lines" % (path, builder.add_tsv(path)))
            for path in args.pgn:
                print("%s: %d games" % (path, builder.add_pgn(path)))
            for path in args.polyglot:
                print("%s: %d positions" % (path, builder.add_polyglot(path, args.min_weight)))
            data = builder.to_bytes(args.min_count, args.min_weight, args.max_bytes)
            with open(args.output, "wb") as f:
                f.write(data)
            print("%s: %d entries, %d bytes" % (args.output, (len(data) - HEADER_SIZE) // ENTRY_SIZE, len(data)))
        elif args.command == "stats":
            with open_book(args.book) as book:
                for name, value in book_stats(book).items():
                    print("%s: %s" % (name, value))
        elif args.command == "dump":
            with open_book(args.book) as book:
                for line in book_lines(book):
                    print(line)
        elif args.command == "engine-lines":
            with open(args.roots, encoding="utf-8") as f:
                roots = [r.strip() for r in f if r.strip() and not r.startswith("#")]
            weights = [int(w) for w in args.weights.split(",")]
            rows = engine_lines(args.engine, roots, args.depth, args.multipv, args.margin, args.plies, weights)
            out = io.StringIO()
            out.write(
                "# Generated by tools/book_build.py engine-lines --depth %d --multipv %d --margin %d --plies %d\n"
                % (args.depth, args.multipv, args.margin, args.plies)
            )
            out.write("weight\tname\tpgn\n")
            for weight, name, pgn in rows:
                out.write("%d\t%s\t%s\n" % (weight, name, pgn))
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(out.getvalue())
            print("%s: %d lines" % (args.output, len(rows)))
        elif args.command == "check":
            with open_book(args.book) as book:
                for loss, fen, san in check_book(book, args.engine, args.depth, args.threshold):
                    print("%5d\t%s\t%s" % (loss, fen, san))
    except (BuildError, ValueError, OSError) as err:
        print("error: %s" % err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
