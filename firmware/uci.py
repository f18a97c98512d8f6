"""The UCI protocol over stdin/stdout (USB serial on a board, a pipe on a PC).

    python -m firmware.uci
    MICROPYPATH=.:.frozen micropython -m firmware.uci

Text only: this module parses commands and prints answers; the engine does the chess. A
malformed or illegal line never kills the process: it answers `info string error: <why>`
and keeps the previous state (a `position` command is built on a fresh Position and only
swapped in when every move applied, or its new moves are taken back from the current one).

Searching: `go` runs the search in the same thread. The search calls a poll function every
`poll_nodes` nodes; it reads whatever complete lines stdin holds without blocking (`select`
poll on stdin, bytes read one at a time through the unbuffered file, so nothing is held in a
buffer the poll cannot see): `stop` ends the search, `ponderhit` turns a ponder search into
a timed one, `isready` is answered at once, `quit` stops and exits, and anything else waits
until the search is over. So `stop` during `go infinite` is answered within poll_nodes nodes.

Options: Hash (MB, converted to transposition-table entries of tt.BYTES_PER_ENTRY bytes; a
size that cannot be allocated answers `info string error` and keeps the table there was),
OwnBook (plays from firmware/data/book.bin before searching, via firmware.engine.book),
Ponder (accepted; the GUI decides when to ponder), UCI_LimitStrength and UCI_Elo (with
UCI_LimitStrength true, every `go` but `go infinite`, `go mate` and `go perft` plays at the
rated level nearest UCI_Elo (rated_level below): that level's node budget for the table's
size (levels.limits_for_level), whatever time control the GUI sends, and its evaluation
noise; `ponder` still waits for `ponderhit`), Fun Level (1-4: the same searches play the
board's "Fun 1" .. "Fun 4", levels 1-4: their depth, node cap and noise, before
UCI_LimitStrength; 0, the default: off).

Memory (a board's heap, or `micropython -X heapsize=128K`): only what a `position` or `go
perft` needs is imported with this module. The search modules are imported, and the
Searcher with its tables allocated, at the first `go` that searches (not at `isready`). Until
a `setoption name Hash` the table is sized for the heap there is: the 1 MB default where
it fits, else at most half of the free heap and never less than 24 KB left free (see
_default_entries). `position` reads its moves one at a time and makes the moves that
continue the current game on the same Position (see UciSession.cmd_position).
"""
import gc
import sys

from firmware.compat import const
from firmware.loader import borrow, call, drop_unused, release
from firmware.engine.constants import FenError
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from firmware.engine.perft import perft_divide, release_perft_buffers

ENGINE_NAME = "Reedchess 0.1"
ENGINE_AUTHOR = "the Reedchess developers"
_MAX_PERFT_DEPTH = const(8)
_HASH_DEFAULT_MB = const(1)
_HASH_MAX_MB = const(256)
_POLL_NODES = const(1024)
_MB = const(1048576)
# Plies a Position holds beyond the game's moves: the search's deepest line (64 plies) fits.
_SEARCH_ROOM = const(80)
# A heap smaller than this (free bytes before the Searcher is made) is a board's: the search's
# move buffer has 1024 cells there, as on the boards (boards/pico.py), instead of 2048.
_SMALL_HEAP = const(262144)
_SMALL_MOVE_STACK = const(1024)
# Below this the buffer has 512 cells (the least the Searcher takes; lines deeper than about
# 8 plies of 32 moves end in the quiescence search): `micropython -X heapsize=128K`.
_TINY_HEAP = const(65536)
_TINY_MOVE_STACK = const(512)
# The default table on a small heap: the Searcher's tables besides the transposition table
# (8 bytes a move-stack cell, and history, PV and root moves: about 10 KB), and the bytes a
# table slot costs.
_SEARCHER_FIXED = const(10240)
_SLOT_COST = const(10)
# Heap the default table always leaves free besides the Searcher: a GUI's `position` lines
# of a long game, the new Position next to the old one, the search's info lines and its
# heap frames (with 24 KB the search of a rated level runs out of memory on a 128 KB heap:
# tests/test_uci_strength.py).
_HEADROOM = const(32768)
_MIN_DEFAULT_ENTRIES = const(256)
# Heap kept in one block while the search modules load on a small heap (see _import_search).
_RESERVE = const(24576)
# UCI_Elo: the rated levels' range and step (levels "Elo 1000" .. "Elo 2000", kept equal by a
# test; the levels module is imported only by a strength-limited search, not for `uci` on a
# small heap).
_ELO_MIN = const(1000)
_ELO_MAX = const(2000)
_ELO_STEP = const(100)
_ELO_DEFAULT = const(1500)
# Fun Level: the fun levels "Fun 1" .. "Fun 4" are the first levels of the table (index 0..3).
_FUN_MAX = const(4)
_FEN_MODULE = "firmware.engine.fen"  # FEN parsing and writing, loaded for each use
# Commands that change no state when they run out of memory, and so may run again after the
# search's table is freed (UciSession.handle).
_AGAIN_WITHOUT_TABLE = ("position", "d")
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
    StdinLines().poll_line).
    `hash_mb`: the table's size in MB, as `setoption name Hash` sets it; None (default): sized
    for the heap at the first search (_default_entries)."""

    def __init__(self, write=_write_stdout, read_line=None, hash_mb=None, poll_nodes=_POLL_NODES):
        self.write = write
        self.read_line = read_line
        self.position = Position(None, _SEARCH_ROOM)
        self.head = "startpos"  # what self.position was set up from (before its moves)
        self.poll_nodes = poll_nodes
        self.hash_mb = hash_mb
        self.searcher = None  # made at the first `go` that searches
        self.book = None
        self.own_book = False
        self.limit_strength = False  # UCI_LimitStrength: play at the rated level nearest uci_elo
        self.uci_elo = _ELO_DEFAULT
        self.fun_level = 0  # Fun Level: 1..4 plays that fun level (before UCI_LimitStrength), 0 off
        self.quit_requested = False
        self.pending = []  # lines that arrived during a search, handled after it
        # The FEN module's names join the interpreter's table of names now, while the heap is
        # whole: that table grows by doubling, each time in one new block of a few KB, and a
        # heap a game has cut into holes may have none so large when `position fen` or `d`
        # first loads the module (it leaves the heap again at once, its names stay).
        borrow(_FEN_MODULE)
        release(_FEN_MODULE)
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
        words = line.split(None, 1)
        if not words:
            return not self.quit_requested
        name = words[0]
        if name == "quit":
            return False
        handler = self.commands.get(name)
        try:
            if handler is None:
                raise UciError("unknown command %r" % name)
            rest = words[1] if len(words) > 1 else ""
            # `position` reads its text word by word: a long game's moves never become a list
            args = rest if name == "position" else rest.split()
            try:
                handler(args)
            except MemoryError:
                if name not in _AGAIN_WITHOUT_TABLE or self.searcher is None:
                    raise
                # On a small heap the table holds most of it, and after a game the rest can
                # lie in holes too small for the FEN module that `position fen` and `d` load:
                # the command again in the table's room (made again at the next search), after
                # a collection: without one the command failed again on the unix port.
                self.searcher = None
                gc.collect()
                handler(args)
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
            "option name Hash type spin default %d min 1 max %d" % (_HASH_DEFAULT_MB, _HASH_MAX_MB),
            "option name OwnBook type check default false",
            "option name Ponder type check default false",
            "option name UCI_LimitStrength type check default false",
            "option name UCI_Elo type spin default %d min %d max %d" % (_ELO_DEFAULT, _ELO_MIN, _ELO_MAX),
            "option name Fun Level type spin default 0 min 0 max %d" % _FUN_MAX,
        ]

    def cmd_isready(self, args):
        self.write("readyok")  # nothing to wait for: the tables come with the first search

    def cmd_ucinewgame(self, args):
        self.position = Position(None, _SEARCH_ROOM)
        self.head = "startpos"
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
            if not value.isdigit() or not 1 <= int(value) <= _HASH_MAX_MB:
                raise UciError("Hash must be 1..%d (MB), got %r" % (_HASH_MAX_MB, value))
            self.set_hash(int(value))
        elif key == "ownbook":
            self.own_book = _parse_bool(value, name)
            if self.own_book and self.book is None:
                self.book = _open_default_book(self.write)
        elif key == "ponder":
            _parse_bool(value, name)
        elif key == "uci_limitstrength":
            self.limit_strength = _parse_bool(value, name)
        elif key == "uci_elo":
            try:
                elo = int(value)
            except ValueError:
                elo = -1
            if not _ELO_MIN <= elo <= _ELO_MAX:
                raise UciError("UCI_Elo must be %d..%d, got %r" % (_ELO_MIN, _ELO_MAX, value))
            self.uci_elo = elo
        elif key == "fun level":
            if not value.isdigit() or int(value) > _FUN_MAX:
                raise UciError("Fun Level must be 0..%d, got %r" % (_FUN_MAX, value))
            self.fun_level = int(value)
        else:
            raise UciError("unknown option %r" % name)

    def cmd_display(self, args):
        self.write("info string fen " + call(_FEN_MODULE, "fen", self.position))

    def cmd_position(self, args):
        """When the command continues the game the Position was set up from (the same start,
        its moves first: a GUI sends the whole game before every `go`), only the new moves
        are made on it; else a new Position is built (parse_position). Either way an error
        leaves the position as it was. (Reusing it spares a board's heap the new Position
        and the holes a new, longer one leaves each move.)"""
        text = _text(args)
        words = _words(text)
        head = " ".join(_head(words))
        done = _extend(self.position, words) if head == self.head else 0
        if done == 1:
            return
        if done == 2:  # the same game, longer than the Position holds
            try:
                self.position = parse_position(text)
                return
            except MemoryError:
                pass
            ply = self.position.ply
            self.position = None  # the new one in the room of the old one (the searcher's
            if self.searcher is not None:  # reference to it from the last search goes too)
                self.searcher.pos = None
            try:
                self.position = parse_position(text)
            except (ValueError, MemoryError):
                try:
                    self.position = parse_position(text, ply)  # the position as it was
                except MemoryError:
                    self.position = Position(None, _SEARCH_ROOM)  # the start: never none at all
                    self.head = "startpos"
                raise
            return
        self.position = parse_position(text)
        self.head = head

    def cmd_go(self, args):
        if args and args[0] == "perft":
            if len(args) != 2 or not args[1].isdigit():
                raise UciError("usage: go perft <depth>")
            depth = int(args[1])
            if depth < 1 or depth > _MAX_PERFT_DEPTH:
                raise UciError("perft depth must be 1..%d" % _MAX_PERFT_DEPTH)
            self.go_perft(depth)
            return
        self.go_search(args)

    def go_perft(self, depth):
        total = 0
        counts = perft_divide(self.position, depth)
        release_perft_buffers()  # a later search's tables need the room in one piece
        for move, count in counts:
            self.write("%s: %d" % (uci(move), count))
            total += count
        self.write("")
        self.write("Nodes searched: %d" % total)

    # ---- searching ----------------------------------------------------------------------
    def _new_searcher(self, entries):
        _import_search()
        from firmware.engine.search import Searcher

        return Searcher(tt_entries=entries, poll_nodes=self.poll_nodes, move_stack=_move_stack(_free_heap()))

    def _get_searcher(self):
        """The Searcher, made at the first search: with the Hash set by setoption, else with
        _default_entries() (halved while it does not fit, down to _MIN_DEFAULT_ENTRIES)."""
        if self.searcher is None:
            if self.hash_mb is not None:
                self.searcher = self._new_searcher(_hash_entries(self.hash_mb))
            else:
                _import_search()  # first: the modules' heap is not the table's
                entries = _default_entries()
                while True:
                    try:
                        self.searcher = self._new_searcher(entries)
                        break
                    except MemoryError:
                        if entries <= _MIN_DEFAULT_ENTRIES:
                            raise
                        entries //= 2
        return self.searcher

    def set_hash(self, mb):
        """setoption name Hash: make the table now, so that a size that does not fit is known
        at once: then the table there was is made again and UciError raised."""
        old = self.searcher
        old_entries = old.tt.size if old is not None else 0
        old = self.searcher = None  # free the old table first: the new one may need its room
        try:
            self.searcher = self._new_searcher(_hash_entries(mb))
        except MemoryError:
            self.searcher = None
            if old_entries:
                try:
                    self.searcher = self._new_searcher(old_entries)
                except MemoryError:
                    self.searcher = None  # made again at the next search
            raise UciError("Hash %d MB does not fit in memory (%s); the table stays as it was"
                           % (mb, _free_text()))
        self.hash_mb = mb

    def go_search(self, args):
        limits = parse_go(args)
        searcher = self._get_searcher()
        noise = 0
        if (self.fun_level or self.limit_strength) and not limits.infinite and not limits.mate:
            levels = _levels()
            index = self.fun_level - 1 if self.fun_level else rated_level(self.uci_elo)
            ponder = limits.ponder
            # the level's budget for this table's size (more nodes for a small Hash), as a board gets it
            limits = levels.limits_for_level(index, None, searcher.tt.size)
            limits.ponder = ponder
            noise = levels.level(index).noise_cp
            # the levels' table is not needed while the search runs: its heap goes to the
            # search (a board-sized heap had no room left for the search's frames)
            del levels
            drop_unused("firmware.engine.levels")
        if searcher.noise_cp != noise:
            searcher.set_noise(noise)  # seeded by the Searcher's seed: the same game replays the same
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


def _levels():
    from firmware.engine import levels

    return levels


def rated_level(elo):
    """Index of the rated level ("Elo 1000" .. "Elo 2000") nearest `elo` (an int; halfway goes
    up). Ratings outside _ELO_MIN.._ELO_MAX raise LevelError (the range `uci` announces)."""
    levels = _levels()
    if not isinstance(elo, int) or isinstance(elo, bool) or not _ELO_MIN <= elo <= _ELO_MAX:
        raise levels.LevelError("Elo must be %d..%d, got %r" % (_ELO_MIN, _ELO_MAX, elo))
    return levels.find_level("Elo %d" % _ELO_MIN) + (elo - _ELO_MIN + _ELO_STEP // 2) // _ELO_STEP


def _import_search():
    """Import the search and what it needs, then run the evaluation's one-time set-up (its
    temporary tables come and go). See _load_search for how a small heap is kept usable."""
    if "firmware.engine.search" in sys.modules:
        return
    try:
        _load_search(True)
    except MemoryError:
        _load_search(False)  # the modules the first try imported are not loaded again
    init = getattr(sys.modules.get("firmware.engine.evaluate"), "init", None)
    if init is not None:
        _free_heap()
        init()


def _load_search(reserve):
    """Import the search modules one at a time, collecting the garbage between (the loader's
    own garbage would otherwise pile up to a higher peak). With `reserve`, on a small heap a
    block of up to _RESERVE bytes is held meanwhile and let go with this frame: the modules'
    objects and the holes the loader leaves land elsewhere, so the Searcher made next finds
    room for its arrays in one piece (without it, a 128 KB heap can hold 36 KB free in no
    piece of 4 KB)."""
    free = _free_heap()
    held = None
    size = _RESERVE
    while reserve and free is not None and free < _SMALL_HEAP and held is None and size >= 4096:
        try:
            held = bytearray(size)
        except MemoryError:
            size //= 2
    for name in ("tunables", "endgame", "evaluate", "see", "tt", "timeman", "search"):
        gc.collect()
        try:
            __import__("firmware.engine." + name)
        except ImportError:
            if name == "search":
                raise
    return held is None


def _move_stack(free):
    """The search's move buffer (cells) for `free` bytes of heap (None: no limit known)."""
    if free is None or free >= _SMALL_HEAP:
        from firmware.engine.search import MOVE_STACK

        return MOVE_STACK
    return _SMALL_MOVE_STACK if free >= _TINY_HEAP else _TINY_MOVE_STACK


def _hash_entries(mb):
    from firmware.engine.tt import BYTES_PER_ENTRY

    return mb * _MB // BYTES_PER_ENTRY


def _free_heap():
    """Free heap bytes after a collection (MicroPython), or None (CPython: no such limit)."""
    free = getattr(gc, "mem_free", None)
    if free is None:
        return None
    gc.collect()
    return free()


def _free_text():
    free = _free_heap()
    return "no memory" if free is None else "%d KB free" % (free // 1024)


def _default_entries():
    """Table slots when no Hash was set: the 1 MB default where the heap has room (a PC),
    else the largest power of two that takes at most half of the heap left free beside the
    rest of the Searcher and leaves at least _HEADROOM of it; at least _MIN_DEFAULT_ENTRIES.
    Called with the search modules imported."""
    entries = 2
    while entries * 2 <= _hash_entries(_HASH_DEFAULT_MB):
        entries *= 2  # the table's own rounding, so the budget counts real slots
    free = _free_heap()
    if free is not None:
        free -= _SEARCHER_FIXED + 8 * _move_stack(free)
        budget = free // 2 if free // 2 < free - _HEADROOM else free - _HEADROOM
        while entries > _MIN_DEFAULT_ENTRIES and entries * _SLOT_COST > budget:
            entries //= 2
    return entries


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
    from firmware.engine.timeman import Limits

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


def _words(text):
    """The space-separated words of `text`, one at a time (no list of them all)."""
    start = 0
    end = len(text)
    while start < end:
        stop = text.find(" ", start)
        if stop < 0:
            stop = end
        if stop > start:
            yield text[start:stop]
        start = stop + 1


def _text(args):
    text = args if isinstance(args, str) else " ".join(args)
    return text.replace("\t", " ") if "\t" in text else text


def _extend(position, words):
    """Make the moves in `words` past position.ply on `position` if the ones before are its
    own moves: 1 done, 0 (position unchanged) if they are not, 2 (unchanged) if they are but
    it has no room for the new ones."""
    ply = position.ply
    made = 0
    i = 0
    for word in words:
        if i < ply:
            if word != uci(position.hist_move[i]):
                break
        elif position.ply + _SEARCH_ROOM > position.capacity:
            for _ in range(made):
                position.unmake()
            return 2
        else:
            try:
                position.make(parse_uci(position, word))
            except ValueError as exc:
                for _ in range(made):
                    position.unmake()
                raise UciError("move %d (%s): %s" % (i + 1, word, exc))
            made += 1
        i += 1
    else:
        if i >= ply:
            return 1
    return 0  # (a mismatch is found before any move is made)


def _head(words):
    """The words of a `position` command before "moves" (startpos, or fen and its fields)."""
    head = []
    for word in words:
        if word == "moves":
            break
        head.append(word)
    return head


def parse_position(args, max_moves=-1):
    """Arguments of a `position` command (the text after the word, or its words as a list)
    -> a new Position (with only the first `max_moves` moves if that is >= 0). Raises
    ValueError naming what is wrong; nothing outside the new Position is touched. The moves
    are read and made one at a time."""
    text = _text(args)
    words = _words(text)
    head = _head(words)
    if not head:
        raise UciError("usage: position startpos|fen <FEN> [moves ...]")
    if head[0] == "startpos":
        if len(head) != 1:
            raise UciError("unexpected text after startpos: %r" % " ".join(head[1:]))
        fen_text = None  # the initial position, set up without the FEN parser
    elif head[0] == "fen":
        fen_text = " ".join(head[1:])
    else:
        raise UciError("position must start with startpos or fen, got %r" % head[0])
    try:  # room for every word of the text (a few more than the moves), the search, and
        # the next 32 plies or fewer (cmd_position makes them on this Position)
        position = Position(fen_text, (text.count(" ") + _SEARCH_ROOM) // 32 * 32 + 32)
    except FenError as exc:
        raise UciError(str(exc))
    for i, word in enumerate(words):  # the words after "moves"
        if i == max_moves:
            break
        try:
            position.make(parse_uci(position, word))
        except ValueError as exc:
            raise UciError("move %d (%s): %s" % (i + 1, word, exc))
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
