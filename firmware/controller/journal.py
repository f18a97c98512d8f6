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
from firmware.engine.constants import from_sq64
from firmware.engine.fen import START_FEN
from firmware.engine.position import Position
from firmware.engine.rules import legal_moves
from firmware.controller.flashfile import FlashFiles

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


def encode_record(rtype, payload=b""):
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


def decode_move(position, hi, lo):
    """The legal move of `position` that 2 stored bytes name, or 0."""
    v = hi << 8 | lo
    fr = from_sq64(v & 63)
    to = from_sq64((v >> 6) & 63)
    promo = (v >> 12) & 7
    for m in legal_moves(position):
        if m & 127 == fr and (m >> 7) & 127 == to and (m >> 14) & 7 == promo:
            return m
    return 0


def read_records(f):
    """Yield (type, payload) for each valid record of an open file, stopping at the first
    torn or corrupt one. Sets nothing; the caller learns of a bad tail through `bad_tail`."""
    while True:
        head = f.read(4)
        if not head:
            return
        if len(head) < 4 or head[0] != _MAGIC:
            raise _BadTail()
        n = head[2] << 8 | head[3]
        body = f.read(n + 2)
        if len(body) < n + 2:
            raise _BadTail()
        c = crc16(body[:n], crc16(head[1:4]))
        if body[n] != c >> 8 or body[n + 1] != c & 0xFF:
            raise _BadTail()
        yield head[1], body[:n]


class _BadTail(Exception):
    pass


class SavedGame:
    """What load() found: `settings` (bytes or None), `start_fen`, `moves` (engine ints, all
    legal), `result` ("*" if ongoing), `reason`, `game_id`, `clock` (the last clock record's
    bytes, or None), `repaired` (a torn tail or unfinished rewrite was cleaned up)."""

    def __init__(self):
        self.settings = None  # type: bytes | None
        self.clock = None  # type: bytes | None
        self.start_fen = START_FEN
        self.moves = []
        self.result = "*"
        self.reason = 0
        self.game_id = 0
        self.repaired = False
        self.found = False


class ArchivedGame:
    def __init__(self, game_id, start_fen, moves, result, reason):
        self.game_id = game_id
        self.start_fen = start_fen
        self.moves = moves
        self.result = result
        self.reason = reason


class Journal:
    def __init__(self, path="", open_fn=None, fs=None, max_games=10):
        self.files = FlashFiles(path, open_fn, fs)
        self._open = self.files.open
        self._fs = self.files.fs
        self.open_fn = self._open  # for other files beside the journal (statistics)
        self.fs = self._fs
        self.max_games = max_games
        self.path = path
        self.game_id = 0
        self._state = None  # SavedGame mirror of what game.jnl holds (for compaction)

    def _name(self, name):
        return self.files.name(name)

    def _exists(self, name):
        return self.files.exists(name)

    def _append(self, name, data):
        self.files.append(name, data)

    def _rewrite(self, name, data):
        self.files.rewrite(name, data)

    def _recover_rewrite(self, name):
        return self.files.recover_rewrite(name)

    # ---- the current game ---------------------------------------------------------------
    def load(self):
        """Read game.jnl: the settings and the current game up to its last complete record.
        Repairs the files (see module doc) so later appends follow a valid record."""
        saved = SavedGame()
        name = self._name(GAME_FILE)
        if self._recover_rewrite(name):
            saved.repaired = True
        self._recover_rewrite(self._name(ARCHIVE_FILE))
        try:
            f = self._open(name, "rb")
        except OSError:
            self._state = saved
            return saved
        pos = None
        clean = True
        compact = False
        try:
            first = True
            for rtype, payload in read_records(f):
                if first:
                    if rtype != T_HEADER or payload != _FORMAT:
                        clean = False
                        break
                    first = False
                    continue
                if rtype == T_SETTINGS:
                    saved.settings = bytes(payload)
                elif rtype == T_NEW:
                    fen_text = str(payload[2:], "ascii") if len(payload) > 2 else START_FEN
                    try:
                        pos = Position(fen_text)
                    except ValueError:
                        clean = False
                        break
                    saved.game_id = payload[0] << 8 | payload[1]
                    saved.start_fen = fen_text
                    saved.moves = []
                    saved.result = "*"
                    saved.reason = 0
                    saved.clock = None
                    saved.found = True
                elif pos is None:
                    clean = False
                    break
                elif rtype == T_MOVE and len(payload) == 2 and saved.result == "*":
                    move = decode_move(pos, payload[0], payload[1])
                    if not move:
                        clean = False
                        break
                    pos.make(move)
                    saved.moves.append(move)
                elif rtype == T_UNDO and saved.moves:
                    saved.moves.pop()
                    pos.unmake()
                    saved.result = "*"
                    saved.reason = 0
                    compact = True
                elif rtype == T_CLOCK:
                    saved.clock = bytes(payload)
                elif rtype == T_END and len(payload) == 2 and payload[0] < len(RESULTS):
                    saved.result = RESULTS[payload[0]]
                    saved.reason = payload[1]
                else:
                    clean = False
                    break
        except _BadTail:
            clean = False
        finally:
            f.close()
        self.game_id = saved.game_id
        self._state = saved
        if not clean or compact:
            saved.repaired = saved.repaired or not clean
            self._compact()
        return saved

    def _game_bytes(self, state):
        out = encode_record(T_HEADER, _FORMAT)
        if state.settings is not None:
            out += encode_record(T_SETTINGS, state.settings)
        if state.found:
            fen_bytes = b"" if state.start_fen == START_FEN else state.start_fen.encode()
            out += encode_record(T_NEW, bytes((state.game_id >> 8, state.game_id & 0xFF)) + fen_bytes)
            for m in state.moves:
                out += encode_record(T_MOVE, encode_move(m))
            if state.clock is not None:
                out += encode_record(T_CLOCK, state.clock)
            if state.result != "*":
                out += encode_record(T_END, bytes((RESULTS.index(state.result), state.reason)))
        return out

    def _compact(self):
        self._rewrite(self._name(GAME_FILE), self._game_bytes(self._state))

    def _ensure_loaded(self):
        if self._state is None:
            self.load()

    def start_game(self, settings_bytes, start_fen=None):
        """Archive the current game (if it has moves) and start a new one from `start_fen`
        (None = the initial position), rewriting game.jnl atomically."""
        self._ensure_loaded()
        old = self._state
        if old.found and old.moves:
            self._archive(old)
        state = SavedGame()
        state.settings = settings_bytes if settings_bytes is not None else old.settings
        state.start_fen = start_fen if start_fen else START_FEN
        state.found = True
        state.game_id = (old.game_id + 1) & 0xFFFF
        self._rewrite(self._name(GAME_FILE), self._game_bytes(state))
        self._state = state
        self.game_id = state.game_id

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

    # ---- the archive --------------------------------------------------------------------
    def _game_record(self, state):
        fen_bytes = b"" if state.start_fen == START_FEN else state.start_fen.encode()
        payload = bytes((state.game_id >> 8, state.game_id & 0xFF, RESULTS.index(state.result),
                         state.reason, len(fen_bytes))) + fen_bytes
        for m in state.moves:
            payload += encode_move(m)
        return encode_record(T_GAME, payload)

    def _read_archive(self):
        """[(game_id, raw record bytes, payload)] of the archive's valid records."""
        out = []
        try:
            f = self._open(self._name(ARCHIVE_FILE), "rb")
        except OSError:
            return out
        try:
            for rtype, payload in read_records(f):
                if rtype == T_GAME and len(payload) >= 5:
                    out.append((payload[0] << 8 | payload[1], encode_record(T_GAME, payload), payload))
        except _BadTail:
            pass
        finally:
            f.close()
        return out

    def _archive(self, state):
        records = self._read_archive()
        if records and records[-1][0] == state.game_id:
            return  # already there (a cut fell between archiving and starting the next game)
        new = self._game_record(state)
        name = self._name(ARCHIVE_FILE)
        if len(records) >= self.max_games or not self._archive_clean(records):
            keep = records[len(records) - self.max_games + 1:] if self.max_games > 1 else []
            data = b""
            for r in keep:
                data += r[1]
            self._rewrite(name, data + new)
        else:
            self._append(name, new)

    def _archive_clean(self, records):
        """True when the archive file holds exactly `records` (no torn tail to append after)."""
        size = 0
        for r in records:
            size += len(r[1])
        try:
            f = self._open(self._name(ARCHIVE_FILE), "rb")
        except OSError:
            return True
        try:
            data = f.read()
        finally:
            f.close()
        return len(data) == size

    def games(self):
        """The archived games, oldest first, as ArchivedGame objects (moves validated)."""
        out = []
        for game_id, _, payload in self._read_archive():
            n = payload[4]
            fen_text = str(payload[5:5 + n], "ascii") if n else START_FEN
            try:
                pos = Position(fen_text)
            except ValueError:
                continue
            moves = []
            i = 5 + n
            while i + 1 < len(payload):
                m = decode_move(pos, payload[i], payload[i + 1])
                if not m:
                    break
                pos.make(m)
                moves.append(m)
                i += 2
            result = RESULTS[payload[2]] if payload[2] < len(RESULTS) else "*"
            out.append(ArchivedGame(game_id, fen_text, moves, result, payload[3]))
        return out
