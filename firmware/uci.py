"""The UCI protocol over stdin/stdout (USB serial on a board, a pipe on a PC).

    python -m firmware.uci
    MICROPYPATH=.:.frozen micropython -m firmware.uci

Text only: this module parses commands and prints answers; the engine does the chess. A
malformed or illegal line never kills the process: it answers `info string error: <why>`
and keeps the previous state (a `position` command is built on a fresh Position and only
swapped in when every move applied).

Searching: `go` runs the search in the same thread. The search calls a poll function every
`poll_nodes` nodes; it reads whatever complete lines stdin holds without blocking (`select`
poll on stdin, bytes read one at a time through the unbuffered file, so nothing is held in a
buffer the poll cannot see): `stop` ends the search, `ponderhit` turns a ponder search into
a timed one, `isready` is answered at once, `quit` stops and exits, and anything else waits
until the search is over. So `stop` during `go infinite` is answered within poll_nodes nodes.

Options: Hash (MB, converted to transposition-table entries of tt.BYTES_PER_ENTRY bytes; if
the interpreter cannot allocate that much, the table halves until it fits), OwnBook (plays
from firmware/data/book.bin before searching, via firmware.engine.book), Ponder (accepted;
the GUI decides when to ponder).
"""
import sys

from firmware.engine.fen import START_FEN, FenError
from firmware.engine.notation import parse_uci, uci
from firmware.engine.position import DEFAULT_CAPACITY, Position
from firmware.engine.rules import perft, perft_divide  # noqa: F401  (perft kept importable here)
from firmware.engine.search import Limits, Searcher
from firmware.engine.tt import BYTES_PER_ENTRY

ENGINE_NAME = "Reedchess 0.1"
ENGINE_AUTHOR = "the Reedchess developers"
MAX_PERFT_DEPTH = 8
HASH_DEFAULT_MB = 1
HASH_MAX_MB = 256
POLL_NODES = 1024
_GO_INT_ARGS = ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "mate")


class UciError(ValueError):
    """A command that cannot be carried out; the message goes to `info string error:`."""


def _write_stdout(text):
    sys.stdout.write(text + "\n")
    flush = getattr(sys.stdout, "flush", None)
    if flush:
        flush()


class StdinLines:
    """Lines from stdin, readable without blocking while a search runs.

    `poll_line()` returns a complete line (without the newline) if one is waiting, else None;
    `read_line(timeout_ms=-1)` waits for one (None at end of input or on timeout). Bytes are
    read one at a time from the unbuffered file descriptor, so `select` always sees what is
    left (a buffered reader could swallow the `stop` the poll is looking for)."""

    def __init__(self, stream=None):
        import select

        self.stream = stream if stream is not None else sys.stdin
        self.poller = select.poll()
        self.poller.register(self.stream, select.POLLIN)
        self._pollin = select.POLLIN | getattr(select, "POLLHUP", 0) | getattr(select, "POLLERR", 0)
        self.pending = bytearray()
        self.eof = False
        try:
            import os

            self._os_read = getattr(os, "read", None)
            self._fd = self.stream.fileno()
        except (ImportError, AttributeError, OSError):
            self._os_read = None
        if self._os_read is None:  # MicroPython: its FileIO is unbuffered
            self._raw = getattr(self.stream, "buffer", self.stream)

    def _read_byte(self):
        if self._os_read is not None:
            data = self._os_read(self._fd, 1)
        else:
            data = self._raw.read(1)
        if not data:
            self.eof = True
            return -1
        if isinstance(data, str):
            data = data.encode()
        return data[0]

    def _take_line(self):
        i = self.pending.find(b"\n")
        if i < 0:
            if self.eof and self.pending:
                i = len(self.pending)
            else:
                return None
        line = bytes(self.pending[:i]).decode()
        self.pending = self.pending[i + 1:]
        return line.strip()

    def _fill(self, timeout_ms):
        """Read bytes while any are ready; wait up to timeout_ms for the first (-1: forever)."""
        wait = timeout_ms
        while not self.eof:
            events = self.poller.poll(wait)
            if not events:
                return
            for _, flags in events:
                if not flags & self._pollin:
                    return
            byte = self._read_byte()
            if byte < 0:
                return
            self.pending.append(byte)
            if byte == 10:
                return
            wait = 0 if timeout_ms == 0 else 1000

    def poll_line(self):
        line = self._take_line()
        if line is None and not self.eof:
            self._fill(0)
            line = self._take_line()
        return line

    def read_line(self, timeout_ms=-1):
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self.eof:
                return None
            self._fill(timeout_ms)
            if timeout_ms >= 0:
                return self._take_line()


class UciSession:
    """One UCI conversation. `handle(line)` returns False after `quit`.

    `write` receives each output line (without newline); tests pass a list's append.
    `read_line` (optional) is a non-blocking function returning the next input line or None:
    the search polls it for `stop`, `ponderhit`, `isready` and `quit` (main() passes
    StdinLines().poll_line)."""

    def __init__(self, write=_write_stdout, read_line=None, hash_mb=HASH_DEFAULT_MB, poll_nodes=POLL_NODES):
        self.write = write
        self.read_line = read_line
        self.position = Position()
        self.poll_nodes = poll_nodes
        self.hash_mb = hash_mb
        self.searcher = None
        self.book = None
        self.own_book = False
        self.quit_requested = False
        self.pending = []  # lines that arrived during a search, handled after it
        self.commands = {
            "uci": self.cmd_uci,
            "isready": self.cmd_isready,
            "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": self.cmd_stop,
            "ponderhit": self.cmd_stop,
            "setoption": self.cmd_setoption,
            "d": self.cmd_display,
        }

    def handle(self, line):
        words = line.split()
        if not words:
            return not self.quit_requested
        name = words[0]
        if name == "quit":
            return False
        handler = self.commands.get(name)
        try:
            if handler is None:
                raise UciError("unknown command %r" % name)
            handler(words[1:])
        except (ValueError, IndexError, KeyError) as exc:
            self.write("info string error: %s" % (exc,))
        except MemoryError:
            self.write("info string error: out of memory")
        return not self.quit_requested

    # ---- commands ---------------------------------------------------------------------
    def cmd_uci(self, args):
        self.write("id name " + ENGINE_NAME)
        self.write("id author " + ENGINE_AUTHOR)
        for line in self.option_lines():
            self.write(line)
        self.write("uciok")

    def option_lines(self):
        return [
            "option name Hash type spin default %d min 1 max %d" % (HASH_DEFAULT_MB, HASH_MAX_MB),
            "option name OwnBook type check default false",
            "option name Ponder type check default false",
        ]

    def cmd_isready(self, args):
        self._get_searcher()  # allocate the tables now, not during the first `go`
        self.write("readyok")

    def cmd_ucinewgame(self, args):
        self.position = Position()
        if self.searcher is not None:
            self.searcher.new_game()

    def cmd_stop(self, args):
        pass  # no search is running when a command reaches handle()

    def cmd_setoption(self, args):
        if len(args) < 2 or args[0] != "name":
            raise UciError("usage: setoption name <name> [value <value>]")
        if "value" in args:
            split = args.index("value")
            name = " ".join(args[1:split])
            value = " ".join(args[split + 1:])
        else:
            name = " ".join(args[1:])
            value = ""
        key = name.lower()
        if key == "hash":
            if not value.isdigit() or not 1 <= int(value) <= HASH_MAX_MB:
                raise UciError("Hash must be 1..%d (MB), got %r" % (HASH_MAX_MB, value))
            self.hash_mb = int(value)
            self.searcher = None  # reallocated at the next isready/go
        elif key == "ownbook":
            self.own_book = _parse_bool(value, name)
            if self.own_book and self.book is None:
                self.book = _open_default_book(self.write)
        elif key == "ponder":
            _parse_bool(value, name)
        else:
            raise UciError("unknown option %r" % name)

    def cmd_display(self, args):
        from firmware.engine.fen import fen

        self.write("info string fen " + fen(self.position))

    def cmd_position(self, args):
        self.position = parse_position(args)

    def cmd_go(self, args):
        if args and args[0] == "perft":
            if len(args) != 2 or not args[1].isdigit():
                raise UciError("usage: go perft <depth>")
            depth = int(args[1])
            if depth < 1 or depth > MAX_PERFT_DEPTH:
                raise UciError("perft depth must be 1..%d" % MAX_PERFT_DEPTH)
            self.go_perft(depth)
            return
        self.go_search(args)

    def go_perft(self, depth):
        total = 0
        for move, count in perft_divide(self.position, depth):
            self.write("%s: %d" % (uci(move), count))
            total += count
        self.write("")
        self.write("Nodes searched: %d" % total)

    # ---- searching ----------------------------------------------------------------------
    def _get_searcher(self):
        if self.searcher is None:
            entries = self.hash_mb * 1048576 // BYTES_PER_ENTRY
            while True:
                try:
                    self.searcher = Searcher(tt_entries=entries, poll_nodes=self.poll_nodes)
                    break
                except MemoryError:
                    if entries <= 1024:
                        raise
                    entries //= 2
        return self.searcher

    def go_search(self, args):
        limits = parse_go(args)
        searcher = self._get_searcher()
        position = self.position
        if self.own_book and self.book is not None and not limits.ponder and not limits.infinite:
            try:
                move = self.book.choose(position)
            except (OSError, ValueError) as exc:
                self.write("info string book error: %s" % (exc,))
                move = 0
            if move:
                self.write("info string book move")
                self.write("bestmove " + uci(move))
                return
        poll = self._poll if self.read_line is not None else None
        for info in searcher.iterate(position, limits, poll):
            self.write(format_info(info, searcher))
        # final totals (GUIs show them; after `stop` they say where the search ended)
        elapsed = searcher.elapsed_ms()
        nps = searcher.nodes * 1000 // (elapsed if elapsed > 0 else 1)
        self.write("info nodes %d time %d nps %d" % (searcher.nodes, elapsed, nps))
        best = searcher.best_move
        if best:
            line = "bestmove " + uci(best)
            if searcher.ponder_move:
                line += " ponder " + uci(searcher.ponder_move)
        else:
            line = "bestmove 0000"
        self.write(line)
        pending = self.pending
        self.pending = []
        for text in pending:
            if not self.handle(text):
                self.quit_requested = True
                break

    def _poll(self, searcher):
        """Called by the search every poll_nodes nodes (and in a loop while a finished ponder
        or infinite search waits for its `stop`): act on lines that arrived."""
        if searcher.waiting:
            import time

            time.sleep(0.005)  # don't spin while waiting for `stop` or `ponderhit`
        while True:
            line = self.read_line()
            if line is None:
                return False
            word = line.split()[0] if line.split() else ""
            if word == "stop":
                return True
            if word == "quit":
                self.quit_requested = True
                return True
            if word == "ponderhit":
                searcher.ponderhit()
            elif word == "isready":
                self.write("readyok")
            elif word:
                self.pending.append(line)


def _parse_bool(value, name):
    text = value.lower()
    if text == "true":
        return True
    if text == "false":
        return False
    raise UciError("%s must be true or false, got %r" % (name, value))


def _open_default_book(write):
    """The shipped book, or None (with an info line) when it is missing or unreadable."""
    try:
        from firmware.engine import book as _book
    except ImportError:
        write("info string OwnBook: no book module in this build")
        return None
    return _book.open_book_or_none(_book.default_book_path(), log=lambda text: write("info string " + text))


def parse_go(args):
    """Arguments of a `go` command -> Limits. Raises UciError for unknown or bad words.
    Negative clock times (some GUIs send them after a flag fall) count as 1 ms."""
    values = {}
    infinite = False
    ponder = False
    i = 0
    while i < len(args):
        word = args[i]
        if word in _GO_INT_ARGS:
            if i + 1 >= len(args):
                raise UciError("go %s needs a number" % word)
            text = args[i + 1]
            try:
                number = int(text)
            except ValueError:
                raise UciError("go %s: not a number: %r" % (word, text))
            if number < 0:
                if word in ("wtime", "btime"):
                    number = 1
                elif word in ("winc", "binc"):
                    number = 0
                else:
                    raise UciError("go %s must not be negative" % word)
            values[word] = number
            i += 2
        elif word == "infinite":
            infinite = True
            i += 1
        elif word == "ponder":
            ponder = True
            i += 1
        elif word == "searchmoves":
            raise UciError("go searchmoves is not supported")
        else:
            raise UciError("unknown go argument %r" % word)
    if not values and not ponder:
        infinite = True  # a bare `go` searches until `stop`
    return Limits(
        depth=values.get("depth", 0),
        nodes=values.get("nodes", 0),
        movetime_ms=values.get("movetime", 0),
        wtime_ms=values.get("wtime", 0),
        btime_ms=values.get("btime", 0),
        winc_ms=values.get("winc", 0),
        binc_ms=values.get("binc", 0),
        movestogo=values.get("movestogo", 0),
        infinite=infinite,
        ponder=ponder,
        mate=values.get("mate", 0),
    )


def format_info(info, searcher):
    """An `info` line for a finished depth."""
    if info.mate_in is not None:
        score = "mate %d" % info.mate_in
    else:
        score = "cp %d" % info.score
    t = info.time_ms if info.time_ms > 0 else 0
    nps = info.nodes * 1000 // (t if t > 0 else 1)
    line = "info depth %d seldepth %d score %s nodes %d nps %d time %d" % (
        info.depth, info.seldepth, score, info.nodes, nps, t)
    pv = info.pv
    if pv:
        line += " pv " + " ".join(uci(m) for m in pv)
    return line


def parse_position(args):
    """Arguments of a `position` command -> a new Position. Raises ValueError naming what is
    wrong; nothing outside the new Position is touched."""
    if not args:
        raise UciError("usage: position startpos|fen <FEN> [moves ...]")
    if "moves" in args:
        split = args.index("moves")
        head, moves = args[:split], args[split + 1 :]
    else:
        head, moves = args, []
    if head[0] == "startpos":
        if len(head) != 1:
            raise UciError("unexpected text after startpos: %r" % " ".join(head[1:]))
        fen_text = START_FEN
    elif head[0] == "fen":
        fen_text = " ".join(head[1:])
    else:
        raise UciError("position must start with startpos or fen, got %r" % head[0])
    capacity = DEFAULT_CAPACITY
    if len(moves) + 256 > capacity:
        capacity = len(moves) + 256
    try:
        position = Position(fen_text, capacity)
    except FenError as exc:
        raise UciError(str(exc))
    for i, text in enumerate(moves):
        try:
            position.make(parse_uci(position, text))
        except ValueError as exc:
            raise UciError("move %d (%s): %s" % (i + 1, text, exc))
    return position


def main(session_class=UciSession):
    reader = StdinLines()
    session = session_class(read_line=reader.poll_line)
    while True:
        line = reader.read_line()
        if line is None:
            break
        if not session.handle(line):
            break


if __name__ == "__main__":
    main()
