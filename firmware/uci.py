"""The UCI protocol over stdin/stdout (USB serial on a board, a pipe on a PC).

    python -m firmware.uci
    MICROPYPATH=.:.frozen micropython -m firmware.uci

Text only: this module parses commands and prints answers; the engine does the chess. A
malformed or illegal line never kills the process: it answers `info string error: <why>`
and keeps the previous state (a `position` command is built on a fresh Position and only
swapped in when every move applied).
"""
import sys

from firmware.engine.fen import START_FEN, FenError
from firmware.engine.notation import parse_uci, uci
from firmware.engine.position import DEFAULT_CAPACITY, Position
from firmware.engine.rules import perft, perft_divide

ENGINE_NAME = "Reedchess 0.1"
ENGINE_AUTHOR = "the Reedchess developers"
MAX_PERFT_DEPTH = 8


class UciError(ValueError):
    """A command that cannot be carried out; the message goes to `info string error:`."""


def _write_stdout(text):
    sys.stdout.write(text + "\n")
    flush = getattr(sys.stdout, "flush", None)
    if flush:
        flush()


class UciSession:
    """One UCI conversation. `handle(line)` returns False after `quit`.

    `write` receives each output line (without newline); tests pass a list's append."""

    def __init__(self, write=_write_stdout):
        self.write = write
        self.position = Position()
        self.commands = {
            "uci": self.cmd_uci,
            "isready": self.cmd_isready,
            "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "setoption": self.cmd_setoption,
            "d": self.cmd_display,
        }

    def handle(self, line):
        words = line.split()
        if not words:
            return True
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
        return True

    # ---- commands ---------------------------------------------------------------------
    def cmd_uci(self, args):
        self.write("id name " + ENGINE_NAME)
        self.write("id author " + ENGINE_AUTHOR)
        for line in self.option_lines():
            self.write(line)
        self.write("uciok")

    def option_lines(self):
        return []

    def cmd_isready(self, args):
        self.write("readyok")

    def cmd_ucinewgame(self, args):
        self.position = Position()

    def cmd_setoption(self, args):
        raise UciError("unknown option")

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

    def go_search(self, args):
        raise UciError("search is not available in this build")


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
    session = session_class()
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        if not session.handle(line.strip()):
            break


if __name__ == "__main__":
    main()
