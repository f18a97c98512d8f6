"""Power-safe persistence: settings and the current game survive a power cut.

    journal = Journal("/", open_fn=open, fs=os, max_games=10)
    saved = journal.load()        # on boot: SavedGame (settings, start_fen, moves, result ...)
    journal.start_game(settings)  # a new game (the previous one goes to the archive)
    journal.record_move(move)     # after every move (one small append)
    journal.record_undo()         # take back
    journal.record_end(result, reason)
    journal.record_settings(settings)
    journal.record_clock(data)    # the chess clocks (gameclock.GameClock.to_bytes), after moves
    journal.games()               # the archive: last `max_games` games, oldest first

Files (in the directory `path`): `game.jnl`, the current session, and `games.jnl`, the
archive. Both are sequences of records:

    0xA5, type, length (2 bytes, big-endian), payload, CRC-16/CCITT of type+length+payload

Why it survives a power cut at any moment:
- appends: a record is written with one write() call and the file closed again; a cut in the
  middle leaves a short or corrupt last record, which fails its length or CRC test on load
  and is dropped together with anything after it - so the game resumes at the last move whose
  record was complete, never at a half-written one;
- rewrites (new game, compaction after a torn tail, archive trimming): write `<name>.new`
  completely, close it, remove the old file, rename `.new` into place. On load, a `.new` next
  to its file is an unfinished rewrite (the old file is intact: drop the `.new`); a `.new`
  without its file was complete (finish the rename).
A game id in the NEW record keeps the archive free of duplicates when a cut falls between
archiving the old game and starting the new one.

The storage is injected: `open_fn(name, mode)` like the builtin `open` ("rb", "ab", "wb") and
`fs` with `rename(a, b)` and `remove(name)` (the `os` module by default), so tests can cut the
power at every write. Journal errors (full flash, missing directory) raise OSError to the
caller, which carries on without persistence rather than stopping the game.
"""
from firmware.compat import const
from firmware.controller.flashfile import FlashFiles

_TYPE_CHECKING = const(0)  # the names the annotations use, for the type checker only
if _TYPE_CHECKING:
    from firmware.features.journal_rare import SavedGame

_MAGIC = const(0xA5)
T_HEADER = const(1)
T_SETTINGS = const(2)
T_NEW = const(3)
T_MOVE = const(4)
T_UNDO = const(5)
T_END = const(6)
T_GAME = const(7)  # an archived game (archive file only)
T_CLOCK = const(8)  # the clocks' state (the last one counts; kept by compaction)

_FORMAT = b"RCJ1"
RESULTS = ("*", "1-0", "0-1", "1/2-1/2")
GAME_FILE = "game.jnl"
ARCHIVE_FILE = "games.jnl"


class JournalError(ValueError):
    """A record that cannot be written (e.g. an unknown result text)."""


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of `data` (bytes), continuing from `crc`."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def encode_record(rtype, payload: "bytes | bytearray" = b""):
    n = len(payload)
    head = bytes((rtype, n >> 8, n & 0xFF))
    c = crc16(payload, crc16(head))
    return bytes((_MAGIC,)) + head + bytes(payload) + bytes((c >> 8, c & 0xFF))


def encode_move(move):
    """Engine move -> 2 bytes, big-endian: the opening book's 16-bit move (from_sq64 |
    to_sq64 << 6 | promotion << 12, as engine.book.encode_move: not imported, so the book
    module stays off the heap)."""
    fr = move & 127
    to = (move >> 7) & 127
    v = ((fr >> 4) << 3 | (fr & 7)) | ((to >> 4) << 3 | (to & 7)) << 6 | ((move >> 14) & 7) << 12
    return bytes((v >> 8, v & 0xFF))


def _rare(name, journal, *args):
    """Run the read side (load, games), a new game or the archiving of
    features/journal_rare.py: loaded for it and released after (when the outermost such call
    returns); record_* (every move) stay here."""
    from firmware.loader import call

    return call("firmware.features.journal_rare", name, journal, *args)


class Journal:
    _state: "SavedGame | None"  # a mirror of what game.jnl holds (for compaction)

    def __init__(self, path="", open_fn=None, fs=None, max_games=10, plies=0):
        """`plies`: room of the positions a saved game is replayed into (the game record's
        capacity, so a board's boot allocates no more than its game; 0: Position's default)."""
        self.files = FlashFiles(path, open_fn, fs)
        self.plies = plies
        self._open = self.files.open
        self._fs = self.files.fs
        self.open_fn = self._open  # for other files beside the journal (statistics)
        self.fs = self._fs
        self.max_games = max_games
        self.path = path
        self.game_id = 0
        self._state = None

    def _name(self, name):
        return self.files.name(name)

    def _append(self, name, data):
        self.files.append(name, data)

    def _rewrite(self, name, data):
        self.files.rewrite(name, data)

    def _recover_rewrite(self, name):
        return self.files.recover_rewrite(name)

    # ---- the current game ---------------------------------------------------------------
    def load(self):
        """Read game.jnl: the settings and the current game up to its last complete record.
        Repairs the files (see module doc) so later appends follow a valid record. The
        reading code is features/journal_rare.py, loaded for it."""
        return _rare("load", self)

    def _ensure_loaded(self):
        if self._state is None:
            self.load()

    def start_game(self, settings_bytes, start_fen=None):
        """Archive the current game (if it has moves) and start a new one from `start_fen`
        (None = the initial position), rewriting game.jnl atomically: features/journal_rare.py."""
        return _rare("start_game", self, settings_bytes, start_fen)

    def record_move(self, move):
        self._ensure_loaded()
        self._append(self._name(GAME_FILE), encode_record(T_MOVE, encode_move(move)))
        self._state.moves.append(move)

    def record_undo(self):
        self._ensure_loaded()
        self._append(self._name(GAME_FILE), encode_record(T_UNDO))
        if self._state.moves:
            self._state.moves.pop()
        self._state.result = "*"
        self._state.reason = 0

    def record_end(self, result, reason):
        if result not in RESULTS:
            raise JournalError("unknown result %r" % (result,))
        self._ensure_loaded()
        self._append(self._name(GAME_FILE), encode_record(T_END, bytes((RESULTS.index(result), reason))))
        self._state.result = result
        self._state.reason = reason

    def record_clock(self, data):
        """The clocks' state (bytes, at most 255): the last record counts on load."""
        self._ensure_loaded()
        self._append(self._name(GAME_FILE), encode_record(T_CLOCK, data))
        self._state.clock = bytes(data)

    def record_settings(self, settings_bytes):
        self._ensure_loaded()
        self._append(self._name(GAME_FILE), encode_record(T_SETTINGS, settings_bytes))
        self._state.settings = bytes(settings_bytes)

    # ---- the archive (features/journal_rare.py) -----------------------------------------
    def games(self):
        """The archived games, oldest first, as ArchivedGame objects (moves validated)."""
        return _rare("games", self)
