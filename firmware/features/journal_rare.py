"""The journal's rare side (controller/journal.py calls it through _rare, loaded for the call
and released after): reading game.jnl at boot (load, with its repairs), a new game
(start_game, which archives the finished one), and reading the archive (games, for
statistics). Each function takes the Journal as `self` (the code was its methods).
"""
from firmware.controller.journal import (
    _FORMAT,
    ARCHIVE_FILE,
    GAME_FILE,
    RESULTS,
    T_CLOCK,
    T_END,
    T_GAME,
    T_HEADER,
    T_MOVE,
    T_NEW,
    T_SETTINGS,
    T_UNDO,
    crc16,
    encode_move,
    encode_record,
)
from firmware.compat import const
from firmware.engine.constants import START_FEN, from_sq64
from firmware.engine.position import Position
from firmware.engine.rules import legal_moves

_MAGIC = const(0xA5)


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


def replay_position(self, fen_text):
    """A Position to replay a saved game into: at boot the game's own (`scratch`, lent by
    features/boot.py: a full heap at boot may hold no free 1.2 KB block for a new one), else
    a new one with the journal's `plies` of room (the game record's), else Position's default."""
    pos = getattr(self, "scratch", None)
    if pos is None:
        pos = Position(None, self.plies) if self.plies else Position()
    if fen_text == START_FEN:
        pos.set_start()  # without the FEN parser: a boot that resumes an ordinary game never loads it
    else:
        pos.load_fen(fen_text)
    return pos


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
    torn or corrupt one. Sets nothing; the caller learns of a bad tail through `_BadTail`,
    raised there."""
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


class ArchivedGame:
    def __init__(self, game_id, start_fen, moves, result, reason):
        self.game_id = game_id
        self.start_fen = start_fen
        self.moves = moves
        self.result = result
        self.reason = reason


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
                    pos = replay_position(self, fen_text)
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
                if not move or pos.ply + 1 >= pos.capacity:  # (a record longer than the game's room)
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
        compact_game(self)
    return saved


def game_record(self, state):
    """The archive's record of `state`: its payload filled in place (not grown a move at a
    time, which leaves a trail of ever longer copies on the heap)."""
    fen_bytes = b"" if state.start_fen == START_FEN else state.start_fen.encode()
    n = len(fen_bytes)
    payload = bytearray(5 + n + 2 * len(state.moves))
    payload[0] = state.game_id >> 8
    payload[1] = state.game_id & 0xFF
    payload[2] = RESULTS.index(state.result)
    payload[3] = state.reason
    payload[4] = n
    payload[5:5 + n] = fen_bytes
    i = 5 + n
    for m in state.moves:
        payload[i:i + 2] = encode_move(m)
        i += 2
    return encode_record(T_GAME, payload)


def _archive_records(f, unclean):
    """Yield (game_id, payload) for the valid game records of the open archive `f`, oldest
    first. A record of another kind is skipped and a torn tail ends the file: either sets
    unclean[0] (the file then holds more than its good records)."""
    try:
        for rtype, payload in read_records(f):
            if rtype == T_GAME and len(payload) >= 5:
                yield payload[0] << 8 | payload[1], payload
            else:
                unclean[0] = 1
    except _BadTail:
        unclean[0] = 1


def read_archive(self):
    """[(game_id, payload)] of the archive's valid game records, oldest first."""
    out = []
    try:
        f = self._open(self._name(ARCHIVE_FILE), "rb")
    except OSError:
        return out
    try:
        for record in _archive_records(f, bytearray(1)):
            out.append(record)
    finally:
        f.close()
    return out


def _scan_archive(self):
    """(number of valid game records, the last one's game id or -1, whether the file holds
    exactly them): one pass, one record in memory at a time."""
    count = 0
    last_id = -1
    unclean = bytearray(1)
    try:
        f = self._open(self._name(ARCHIVE_FILE), "rb")
    except OSError:
        return 0, -1, True
    try:
        for game_id, _ in _archive_records(f, unclean):
            count += 1
            last_id = game_id
    finally:
        f.close()
    return count, last_id, not unclean[0]


def _kept_records(self, skip, new):
    """The archive's valid game records after the first `skip`, then the record `new`: the
    chunks of a rewrite, read one record at a time."""
    f = self._open(self._name(ARCHIVE_FILE), "rb")
    try:
        for _, payload in _archive_records(f, bytearray(1)):
            if skip:
                skip -= 1
            else:
                yield encode_record(T_GAME, payload)
    finally:
        f.close()
    yield new


def archive(self, state):
    """Add the game `state` to the archive, which keeps the last `max_games`. Streams: the
    archive is never in memory as a whole (a full one is ~10 x 600 bytes of long games)."""
    count, last_id, clean = _scan_archive(self)
    if count and last_id == state.game_id:
        return  # already there (a cut fell between archiving and starting the next game)
    new = game_record(self, state)
    name = self._name(ARCHIVE_FILE)
    if count >= self.max_games or not clean:
        skip = max(count - max(self.max_games, 1) + 1, 0)  # the oldest, to keep max_games - 1
        self._rewrite(name, _kept_records(self, skip, new))
    else:
        self._append(name, new)


def games(self):
    """The archived games, oldest first, as ArchivedGame objects (moves validated)."""
    out = []
    for game_id, payload in read_archive(self):
        n = payload[4]
        fen_text = str(payload[5:5 + n], "ascii") if n else START_FEN
        try:
            pos = replay_position(self, fen_text)
        except ValueError:
            continue
        moves = []
        i = 5 + n
        while i + 1 < len(payload):
            m = decode_move(pos, payload[i], payload[i + 1])
            if not m or pos.ply + 1 >= pos.capacity:
                break
            pos.make(m)
            moves.append(m)
            i += 2
        result = RESULTS[payload[2]] if payload[2] < len(RESULTS) else "*"
        out.append(ArchivedGame(game_id, fen_text, moves, result, payload[3]))
    return out


def game_chunks(self, state):
    """The records of game.jnl for `state`, one by one (for FlashFiles.rewrite: a long game is
    never one block of its size)."""
    yield encode_record(T_HEADER, _FORMAT)
    if state.settings is not None:
        yield encode_record(T_SETTINGS, state.settings)
    if state.found:
        fen_bytes = b"" if state.start_fen == START_FEN else state.start_fen.encode()
        yield encode_record(T_NEW, bytes((state.game_id >> 8, state.game_id & 0xFF)) + fen_bytes)
        for m in state.moves:
            yield encode_record(T_MOVE, encode_move(m))
        if state.clock is not None:
            yield encode_record(T_CLOCK, state.clock)
        if state.result != "*":
            yield encode_record(T_END, bytes((RESULTS.index(state.result), state.reason)))


def game_bytes(self, state):
    """game.jnl's content for `state` as one bytes object."""
    return b"".join(game_chunks(self, state))


def compact_game(self):
    self._rewrite(self._name(GAME_FILE), game_chunks(self, self._state))


def start_game(self, settings_bytes, start_fen=None):
    """Archive the current game (if it has moves) and start a new one from `start_fen`
    (None = the initial position), rewriting game.jnl atomically."""
    self._ensure_loaded()
    old = self._state
    if old.found and old.moves:
        archive(self, old)
    state = SavedGame()
    state.settings = settings_bytes if settings_bytes is not None else old.settings
    state.start_fen = start_fen if start_fen else START_FEN
    state.found = True
    state.game_id = (old.game_id + 1) & 0xFFFF
    self._rewrite(self._name(GAME_FILE), game_chunks(self, state))
    self._state = state
    self.game_id = state.game_id
