"""The opening book: a sorted table of (position key, move, weight) read straight from flash.

File format (version 1, all integers big-endian; written by tools/book_build.py):

    header, 16 bytes
      0..3    magic b"RCBK"
      4       format version (1)
      5       key scheme (zobrist.KEY_SCHEME the keys were computed with)
      6       entry size in bytes (8)
      7       deepest ply of any book position (information only)
      8..11   number of entries (< 2^24)
      12..15  Adler-32 of all entry bytes (s2 in 12..13, s1 in 14..15, as zlib.adler32)
    entries, 8 bytes each, sorted by key, then check, then weight (highest first)
      0..3    key: the position's `hash_lo` (30 bits, so byte 0 is below 64)
      4       check: `hash_hi & 255` (cuts false hits from a 30-bit key by 256x)
      5..6    move: from_sq64 | to_sq64 << 6 | promotion kind << 12 (castling = king's move)
      7       weight 1..255 (relative to the other moves of the same position)

Lookups never load the table: `probe` bisects the file with `seek` + `readinto` into one
preallocated 8-byte record and copies at most MAX_BOOK_MOVES matches into preallocated
arrays, so it allocates nothing and keeps every int below 2^30 (the key is split from the
check byte for exactly that reason). `choose` resolves the matches against the position's
own legal moves (a hash collision can never produce an illegal move) and picks one, also
without allocating when `rng` is None.

    book = open_book_or_none(default_book_path(), log=print)   # None: play without a book
    move = book.choose(position) if book else 0                 # 0: not in book, search
    alt = book.choose(position, exclude=move)                   # "another book move, please"

RAM: the Book holds its open file, 8 + 3 * MAX_BOOK_MOVES bytes of match buffers, and a
move-generation buffer of MAX_MOVES ints (1 KB) unless the caller lends one (`moves_buffer`).
"""

from array import array

from firmware.compat import const
from firmware.engine import zobrist

MAGIC = b"RCBK"
FORMAT_VERSION = const(1)
HEADER_SIZE = const(16)
ENTRY_SIZE = const(8)
MAX_BOOK_MOVES = const(32)  # matches considered per position (more are ignored)
MODE_WEIGHTED = "weighted"
MODE_BEST = "best"

_MAX_MOVES = const(256)  # copy of firmware.engine.rules.MAX_MOVES: any position's pseudo-legal moves
_CHUNK = const(256)  # bytes read per step while verifying the checksum at open
_ADLER_MOD = const(65521)
_DEFAULT_SEED = const(0x2545)
_ENOENT = const(2)  # errno "no such file" (same number on every MicroPython port)


class BookError(ValueError):
    """The book file is missing, truncated, empty, foreign or corrupt."""


def default_book_path():
    """Where the shipped book lives: firmware/data/book.bin next to this package (works from a
    checkout on a PC and on a board's filesystem alike; relative when __file__ is unknown)."""
    try:
        here = __file__.replace("\\", "/")
    except NameError:  # frozen module
        here = ""
    i = here.rfind("/engine/")
    if i >= 0:
        return here[:i] + "/data/book.bin"
    return "firmware/data/book.bin"


def encode_move(move):
    """Engine move -> the book's 16-bit move (from_sq64 | to_sq64 << 6 | promotion << 12)."""
    fr = move & 127
    to = (move >> 7) & 127
    return ((fr >> 4) << 3 | (fr & 7)) | ((to >> 4) << 3 | (to & 7)) << 6 | ((move >> 14) & 7) << 12


def position_ply(position):
    """Plies played since the start of the game, from the full-move number and side to move."""
    return (position.fullmove - 1) * 2 + (1 if position.stm else 0)


def open_book(path, verify=True, seed=_DEFAULT_SEED, moves_buffer=None):
    """Open the book file at `path` and check its header, size and (if `verify`) checksum and
    order. Raises BookError with a readable reason; the caller then plays without a book.
    `verify=False` skips the checksum pass (it reads the whole file once: about 0.3 s for
    32 KB on a microcontroller)."""
    try:
        stream = open(path, "rb")
    except OSError as err:
        if err.args and err.args[0] == _ENOENT:
            raise BookError("opening book not found: %s" % path) from None
        raise BookError("cannot open opening book %s: %s" % (path, err)) from None
    try:
        return Book(stream, verify, seed, moves_buffer, path)
    except OSError as err:  # e.g. a directory, or a flash read error
        stream.close()
        raise BookError("cannot read opening book %s: %s" % (path, err)) from None
    except BaseException:
        stream.close()
        raise


def open_book_or_none(path, log=None, verify=True, seed=_DEFAULT_SEED, moves_buffer=None):
    """open_book, but a bad or missing book is reported through `log(message)` (if given) and
    gives None, so the engine simply plays without a book."""
    try:
        return open_book(path, verify, seed, moves_buffer)
    except BookError as err:
        if log is not None:
            log("no opening book: %s" % err)
        return None


class Book:
    """An open book file. `stream` is a binary file object supporting seek/readinto (owned by
    the Book from now on: close() closes it). Attributes: `entries`, `max_ply`, `key_scheme`,
    `name`. After `probe`, `found_moves[i]` / `found_weights[i]` (i < the returned count) hold
    the raw 16-bit moves and weights of the matching entries."""

    def __init__(self, stream, verify=True, seed=_DEFAULT_SEED, moves_buffer=None, name="book"):
        self.name = name
        self._file = stream
        self._rec = bytearray(ENTRY_SIZE)
        self.found_moves = array("H", bytes(2 * MAX_BOOK_MOVES))
        self.found_weights = bytearray(MAX_BOOK_MOVES)
        self._legal = array("i", bytes(4 * MAX_BOOK_MOVES))  # engine moves resolved by _resolve
        if moves_buffer is None:
            moves_buffer = array("i", bytes(4 * _MAX_MOVES))
        self._moves = moves_buffer
        self._rng_state = 1
        self.seed(seed)
        self.entries = 0
        self.max_ply = 0
        self.key_scheme = 0
        self._read_header(verify)

    # ---- opening and checking ---------------------------------------------------------
    def _fail(self, why):
        raise BookError("%s: %s" % (self.name, why))

    def _read_header(self, verify):
        f = self._file
        size = f.seek(0, 2)
        if size is None:  # a stream whose seek reports nothing
            size = f.tell()
        if size == 0:
            self._fail("empty file (0 bytes)")
        f.seek(0)
        head = f.read(HEADER_SIZE)
        if len(head) < 4 or head[0:4] != MAGIC:
            hint = ""
            if size % 16 == 0:
                hint = " (a Polyglot .bin? convert it with tools/book_build.py --polyglot)"
            self._fail("not a Reedchess opening book (no RCBK header)" + hint)
        if len(head) < HEADER_SIZE:
            self._fail("truncated header (%d of %d bytes)" % (size, HEADER_SIZE))
        if head[4] != FORMAT_VERSION:
            self._fail("book format version %d, this firmware reads version %d" % (head[4], FORMAT_VERSION))
        if head[5] != zobrist.KEY_SCHEME:
            self._fail(
                "book keys use hash scheme %d but the engine uses %d: rebuild it with tools/book_build.py"
                % (head[5], zobrist.KEY_SCHEME)
            )
        if head[6] != ENTRY_SIZE:
            self._fail("entry size %d, expected %d" % (head[6], ENTRY_SIZE))
        if head[8]:
            self._fail("corrupt header (entry count too large)")
        count = (head[9] << 16) | (head[10] << 8) | head[11]
        if count == 0:
            self._fail("the book has no entries")
        expected = HEADER_SIZE + count * ENTRY_SIZE
        if size < expected:
            self._fail("truncated: %d bytes, the header promises %d entries (%d bytes)" % (size, count, expected))
        if size > expected:
            self._fail("%d unexpected bytes after the last entry" % (size - expected))
        self.entries = count
        self.max_ply = head[7]
        self.key_scheme = head[5]
        if verify:
            self._verify((head[12] << 8) | head[13], (head[14] << 8) | head[15])

    def _verify(self, want_s2, want_s1):
        """Adler-32 over the entries (kept as two 16-bit halves: small ints on every board) and
        the sort order of the keys."""
        f = self._file
        f.seek(HEADER_SIZE)
        buf = bytearray(_CHUNK)
        s1 = 1
        s2 = 0
        left = self.entries * ENTRY_SIZE
        prev_key = -1
        while left > 0:
            n = f.readinto(buf)
            if not n:
                self._fail("truncated while reading entries")
            if n > left:
                n = left
            # Chunks are 256 bytes, so s1 < 2^17 and s2 < 2^25 before reduction: small ints.
            for i in range(n):
                s1 += buf[i]
                s2 += s1
            s1 %= _ADLER_MOD
            s2 %= _ADLER_MOD
            for i in range(0, n - ENTRY_SIZE + 1, ENTRY_SIZE):  # chunks hold whole entries
                if buf[i] & 0xC0:
                    self._fail("corrupt entry %d (key above 30 bits)" % ((self.entries * ENTRY_SIZE - left + i) >> 3))
                key = (buf[i] << 24) | (buf[i + 1] << 16) | (buf[i + 2] << 8) | buf[i + 3]
                if key < prev_key:
                    self._fail("corrupt: entries out of order")
                prev_key = key
            left -= n
        if s1 != want_s1 or s2 != want_s2:
            self._fail("corrupt: checksum mismatch")

    def close(self):
        """Close the file (further lookups raise BookError)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- raw access -------------------------------------------------------------------
    def _read(self, index):
        """Read entry `index` into self._rec and return its key (allocation-free)."""
        f = self._file
        f.seek(HEADER_SIZE + (index << 3))
        f.readinto(self._rec)
        r = self._rec
        return (r[0] << 24) | (r[1] << 16) | (r[2] << 8) | r[3]

    def entry(self, index):
        """(key, check, move16, weight) of entry `index` (for tools and tests; allocates)."""
        if not 0 <= index < self.entries:
            raise IndexError("book entry %d of %d" % (index, self.entries))
        key = self._read(index)
        r = self._rec
        return key, r[4], (r[5] << 8) | r[6], r[7]

    def probe(self, position):
        """Find the entries of `position` (by hash_lo, confirmed by hash_hi's low byte); copy
        their raw moves and weights to found_moves / found_weights and return how many (at
        most MAX_BOOK_MOVES). No legality check here: see moves() / choose(). Allocates
        nothing."""
        if self._file is None:
            raise BookError("%s: the book is closed" % self.name)
        key = position.hash_lo
        check = position.hash_hi & 255
        lo = 0
        hi = self.entries
        while lo < hi:  # lower bound of key
            mid = (lo + hi) >> 1
            if self._read(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        n = 0
        r = self._rec
        f = self._file
        if lo < self.entries:
            f.seek(HEADER_SIZE + (lo << 3))
        while lo < self.entries and n < MAX_BOOK_MOVES:
            f.readinto(r)  # sequential: each read advances to the next entry
            if ((r[0] << 24) | (r[1] << 16) | (r[2] << 8) | r[3]) != key:
                break
            if r[4] == check:
                self.found_moves[n] = (r[5] << 8) | r[6]
                self.found_weights[n] = r[7]
                n += 1
            lo += 1
        return n

    def _resolve(self, position):
        """Probe, then keep only entries that are legal moves here: writes the engine moves to
        self._legal, compacts found_weights alongside, returns the count. Allocates nothing."""
        n = self.probe(position)
        if n == 0:
            return 0
        moves = self._moves
        end = position.gen_moves(moves, 0)
        check = position.in_check()
        kept = 0
        for i in range(n):
            m16 = self.found_moves[i]
            fr = ((m16 >> 3) & 7) << 4 | (m16 & 7)
            to = ((m16 >> 9) & 7) << 4 | ((m16 >> 6) & 7)
            promo = (m16 >> 12) & 7
            for j in range(end):
                mv = moves[j]
                if (mv & 127) == fr and ((mv >> 7) & 127) == to and ((mv >> 14) & 7) == promo:
                    if position.make_legal(mv, check):
                        position.unmake()
                        self._legal[kept] = mv
                        self.found_weights[kept] = self.found_weights[i]
                        kept += 1
                    break
        return kept

    # ---- the public questions ---------------------------------------------------------
    def moves(self, position):
        """A new list of (move, weight) for the legal book moves of `position`, heaviest
        first (ties in file order); empty when the position is not in the book."""
        n = self._resolve(position)
        result = []
        for i in range(n):  # insertion sort: stable on both interpreters (MicroPython's
            mw = (self._legal[i], self.found_weights[i])  # list.sort is not), n <= 32
            j = len(result)
            while j > 0 and result[j - 1][1] < mw[1]:
                j -= 1
            result.insert(j, mw)
        return result

    def choose(self, position, mode=MODE_WEIGHTED, exclude=0, rng=None, max_ply=None):
        """A book move for `position`, or 0 (not in book, or nothing left after `exclude`).

        mode: MODE_WEIGHTED ("weighted", random in proportion to the weights) or MODE_BEST
        ("best", the heaviest move; ties go to the first in the file).
        exclude: a move not to return (the "alt move" button: another book move than the one
        just shown); 0 for none.
        rng: None for the book's own seedable generator (see seed()), or a callable
        rng(n) -> int in range(n), e.g. random.randrange.
        max_ply: return 0 once `position_ply(position) >= max_ply` (a level's book depth);
        None for no limit.
        Allocates nothing when rng is None."""
        if max_ply is not None and position_ply(position) >= max_ply:
            return 0
        n = self._resolve(position)
        legal = self._legal
        weights = self.found_weights
        if mode == MODE_BEST:
            best = 0
            best_weight = -1
            for i in range(n):
                if legal[i] != exclude and weights[i] > best_weight:
                    best = legal[i]
                    best_weight = weights[i]
            return best
        if mode != MODE_WEIGHTED:
            raise ValueError("book mode must be 'weighted' or 'best', not %r" % (mode,))
        total = 0
        for i in range(n):
            if legal[i] != exclude:
                total += weights[i]
        if total == 0:
            return 0
        pick = self._below(total) if rng is None else rng(total)
        for i in range(n):
            if legal[i] != exclude:
                pick -= weights[i]
                if pick < 0:
                    return legal[i]
        return 0  # only if rng broke its contract

    # ---- the generator ----------------------------------------------------------------
    def seed(self, seed):
        """Reseed the book's generator (any int; the same seed gives the same choices). A
        controller seeds it from ticks_ms() at a new game for varied play."""
        s = seed & 0xFFFF
        self._rng_state = s if s else _DEFAULT_SEED

    def _below(self, n):
        """An int in range(n) for 0 < n <= 65535 from a 16-bit xorshift (7, 9, 8; period
        2^16 - 1): small ints only, no allocation; rejection sampling keeps it unbiased."""
        limit = 65535 - 65535 % n
        x = self._rng_state
        while True:
            x ^= (x << 7) & 0xFFFF
            x ^= x >> 9
            x ^= (x << 8) & 0xFFFF
            if x - 1 < limit:  # x is 1..65535
                self._rng_state = x
                return (x - 1) % n
