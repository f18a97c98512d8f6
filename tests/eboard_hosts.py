"""Two e-board hosts, written from the protocols' public descriptions (DGT's dgtbrd.h and
Millennium's ChessLink notes) and sharing no code with the firmware's codecs: what a chess
program does on the other end of the serial link. Plain Python that runs under MicroPython.

    dgt = DgtHost(); out = dgt.command(0x42); dgt.feed(bytes_from_board); dgt.messages
    cl = ChessLinkHost(); out = cl.encode("V"); cl.feed(bytes_from_board); cl.messages
    b = Board(); b.push("e2e4"); b.placement()     # the host's own idea of the game
"""
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
FILES = "abcdefgh"


def square(name):
    """'e4' -> (file 0..7, rank 0..7)."""
    return FILES.index(name[0]), int(name[1]) - 1


class Board:
    """The host's board: a dict (file, rank) -> letter, moves applied by the rules a host
    knows (castling moves the rook, en passant removes the pawn, promotion)."""

    def __init__(self, placement=START):
        self.squares = {}
        rows = placement.split("/")
        for i in range(8):
            f = 0
            for ch in rows[i]:
                if ch.isdigit():
                    f += int(ch)
                else:
                    self.squares[(f, 7 - i)] = ch
                    f += 1

    def push(self, uci):
        fr = square(uci[0:2])
        to = square(uci[2:4])
        piece = self.squares.pop(fr)
        if piece in "Kk" and abs(to[0] - fr[0]) == 2:
            rook_from = (7 if to[0] > fr[0] else 0, fr[1])
            rook_to = ((fr[0] + to[0]) // 2, fr[1])
            self.squares[rook_to] = self.squares.pop(rook_from)
        if piece in "Pp" and to[0] != fr[0] and to not in self.squares:
            self.squares.pop((to[0], fr[1]))
        if len(uci) == 5:
            piece = uci[4].upper() if piece.isupper() else uci[4].lower()
        self.squares[to] = piece

    def placement(self):
        rows = []
        for r in range(7, -1, -1):
            row = ""
            empty = 0
            for f in range(8):
                p = self.squares.get((f, r))
                if p is None:
                    empty += 1
                else:
                    if empty:
                        row += str(empty)
                        empty = 0
                    row += p
            if empty:
                row += str(empty)
            rows.append(row)
        return "/".join(rows)


def placement_of(letters):
    """FEN placement of 64 letters a8..h8, a7..h7, ... ('.' or ' ' empty)."""
    rows = []
    for r in range(8):
        row = ""
        empty = 0
        for ch in letters[8 * r:8 * r + 8]:
            if ch in ". ":
                empty += 1
            else:
                if empty:
                    row += str(empty)
                    empty = 0
                row += ch
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows)


# ---- DGT ------------------------------------------------------------------------------------
DGT_PIECES = " PRNBKQprnbkq"  # dgtbrd.h: EMPTY 0, WPAWN 1, WROOK, WKNIGHT, WBISHOP, WKING, WQUEEN, BPAWN 7 ...


class DgtHost:
    """Reads the board's messages: id (bit 7 set), length high and low 7 bits (the whole
    message), payload. Keeps the board from dumps and field updates (field 0 = a8)."""

    def __init__(self):
        self.buf = bytearray()
        self.messages = []  # (id, payload)
        self.letters = [" "] * 64

    def command(self, code, *data):
        return bytes((code,) + data)

    def feed(self, data):
        self.buf.extend(data)
        while True:
            while self.buf and not self.buf[0] & 0x80:
                self.buf = self.buf[1:]  # not a message start: a host skips it
            if len(self.buf) < 3:
                return
            n = self.buf[1] << 7 | self.buf[2]
            if len(self.buf) < n:
                return
            msg_id = self.buf[0]
            payload = bytes(self.buf[3:n])
            self.buf = self.buf[n:]
            self.messages.append((msg_id, payload))
            if msg_id == 0x86:
                self.letters = [DGT_PIECES[c] for c in payload]
            elif msg_id == 0x8E:
                self.letters[payload[0]] = DGT_PIECES[payload[1]]

    def placement(self):
        return placement_of("".join(self.letters))

    def take(self, msg_id):
        """The payloads of the messages with this id received so far (they are removed)."""
        out = [p for i, p in self.messages if i == msg_id]
        self.messages = [(i, p) for i, p in self.messages if i != msg_id]
        return out


# ---- Millennium ChessLink -------------------------------------------------------------------
REPLY_LENGTHS = {"v": 5, "s": 65, "l": 1, "x": 1, "w": 5, "r": 5, "i": 3}  # before the two check digits


def checksum(text):
    x = 0
    for ch in text:
        x ^= ord(ch)
    return "%02X" % x


def with_parity(data):
    """Odd parity in bit 7 of every 7-bit byte (a host that sends 8N1 and adds it itself)."""
    out = bytearray()
    for b in data:
        ones = 0
        v = b
        while v:
            ones += v & 1
            v >>= 1
        out.append(b | 0x80 if ones % 2 == 0 else b)
    return bytes(out)


def corner_leds(squares, pattern="FF"):
    """The 81 LED codes that light the corners of `squares` (names): LED 1 is at a8's
    corner, LED 9 at a1's, LED 73 at h8's, LED 81 at h1's (9 along each file line)."""
    codes = ["00"] * 81
    for name in squares:
        f, r = square(name)
        for df in (0, 1):
            for dr in (0, 1):
                codes[(f + df) * 9 + (7 - r) + dr] = pattern
    return "".join(codes)


class ChessLinkHost:
    def __init__(self):
        self.buf = ""
        self.messages = []  # reply texts without their check digits, e.g. "v0100", "s....."
        self.bad = 0  # replies with a wrong check

    def encode(self, text, parity=False):
        data = (text + checksum(text)).encode()
        return with_parity(data) if parity else data

    def feed(self, data):
        self.buf += "".join(chr(b & 0x7F) for b in data)
        while self.buf:
            kind = self.buf[0]
            if kind not in REPLY_LENGTHS:
                self.buf = self.buf[1:]
                continue
            n = REPLY_LENGTHS[kind]
            if len(self.buf) < n + 2:
                return
            text = self.buf[:n]
            if self.buf[n:n + 2] != checksum(text):
                self.bad += 1
            else:
                self.messages.append(text)
            self.buf = self.buf[n + 2:]

    def take(self, kind):
        out = [m for m in self.messages if m[0] == kind]
        self.messages = [m for m in self.messages if m[0] != kind]
        return out

    def placement(self, status):
        return placement_of(status[1:65])
