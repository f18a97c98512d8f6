"""DGT's board protocol (loaded while the e-board mode speaks it: features/eboard.py).

    d = Dgt(board)              # board: the e-board mode (piece(cell), send(data), light(cells))
    d.feed(byte, now_ms)        # every byte the host sends
    d.poll(now_ms)              # every pass: a half-read command times out
    d.changed(cell)             # a square's reported piece changed: a field update in update mode

The wire format (DGT's dgtbrd.h): 9600 baud 8N1. The host sends one-byte commands; 0x2b
(a clock message) is followed by a size byte and that many bytes, 0x60 (the Revelation II's
LEDs) by a size byte and three: pattern, start field, end field (hosts differ on the
terminating 0x00 and on what the size counts, so it is not relied on: a 0x00 after is junk).
The board answers with messages of a 3-byte header: the message id (bit 7 set), then the
whole message's length (header included) as two 7-bit bytes, high first; then the payload,
every byte below 0x80. Fields are numbered a8 = 0, b8 = 1, ... h1 = 63, which is `cell ^ 56`
for a cell a1 = 0 .. h8 = 63.

Commands and answers:

    0x40 reset          idle: no more field updates; no answer
    0x41 clock          0x8d: no clock connected (status bit 5)
    0x42 board          0x86: the 64 pieces (0 empty, white P R N B K Q = 1..6, black 7..12)
    0x43 / 0x44 / 0x4b  update modes: a 0x8e field update (field, piece) for every change
    0x45 serial nr      0x91: five ASCII digits
    0x46 bus address    0x90: two 7-bit bytes
    0x47 trademark      0x92: ASCII text
    0x49 stored moves   0x8f: an empty store (EE_EOF)
    0x4c battery        0xa0: 100 %, times not available (a USB-powered board)
    0x4d version        0x93: major, minor
    0x50 / 0x52         0x94 / 0x95: the draughts dumps, all empty
    0x55 long serial nr 0xa2: ten ASCII digits
    0x2b clock message  read and ignored: there is no DGT clock (no acknowledgement)
    0x60 LEDs           pattern 0: all of the host's LEDs off; else the start and end fields
                        light too (one square when they are equal; a move's from and to)
    0x4a 0x4e 0x51 0x53 0x54 and any other byte: ignored

A half-read 0x2b or 0x60 (the host went away mid-command) is dropped after _PART_MS without
a byte.
"""
from firmware.compat import const, ticks_diff

_IDLE = const(0)
_UPDATE = const(1)  # any of the update modes
_PART_MS = const(500)
_CLOCK_MSG = const(0x2B)
_SET_LEDS = const(0x60)
_KEEP = const(3)  # bytes of a 0x60 command after its size: pattern, start, end

# our piece code (colour | kind, kinds P N B R Q K = 1..6, black + 8) -> DGT's
_CODES = b"\x00\x01\x03\x04\x02\x06\x05\x00\x00\x07\x09\x0a\x08\x0c\x0b\x00"
SERIAL = b"00001"
LONG_SERIAL = b"0000000001"
VERSION = b"\x01\x00"
TRADEMARK = b"Reedchess: a reed-switch board speaking DGT's board protocol"


def piece_code(piece):
    """DGT's piece code of our piece code (0 for an empty square)."""
    return _CODES[piece & 15]


def message(msg_id, payload):
    """A whole DGT message: id, 14-bit length (header included), payload."""
    n = len(payload) + 3
    return bytes((msg_id, (n >> 7) & 127, n & 127)) + payload


class Dgt:
    def __init__(self, board):
        self.board = board
        self.mode = _IDLE
        self._cmd = 0  # 0x2b or 0x60 being read, else 0
        self._left = -1  # its bytes still to come (-1: the size byte)
        self._data = bytearray(_KEEP)
        self._n = 0
        self._last_ms = 0
        self._field = bytearray(b"\x8e\x00\x05\x00\x00")  # a field update, filled in place

    def feed(self, byte, now_ms):
        self._last_ms = now_ms
        if self._cmd:
            if self._left < 0:
                self._left = byte if self._cmd == _CLOCK_MSG else _KEEP
                self._n = 0
            else:
                if self._n < _KEEP:
                    self._data[self._n] = byte
                self._n += 1
                self._left -= 1
            if self._left == 0:
                if self._cmd == _SET_LEDS:
                    self._leds()
                self._cmd = 0
            return
        if byte == _CLOCK_MSG or byte == _SET_LEDS:
            self._cmd = byte
            self._left = -1
        elif byte == 0x40:
            self.mode = _IDLE
        elif byte == 0x42:
            self.board.send(self.dump())
        elif byte == 0x43 or byte == 0x44 or byte == 0x4B:
            self.mode = _UPDATE
        elif byte == 0x41:
            self.board.send(message(0x8D, b"\x00\x00\x00\x00\x00\x00\x20"))
        elif byte == 0x45:
            self.board.send(message(0x91, SERIAL))
        elif byte == 0x46:
            self.board.send(message(0x90, b"\x00\x01"))
        elif byte == 0x47:
            self.board.send(message(0x92, TRADEMARK))
        elif byte == 0x49:
            self.board.send(message(0x8F, b"\x6b"))
        elif byte == 0x4C:
            self.board.send(message(0xA0, b"\x64\x7f\x7f\x00\x00\x00\x00\x00\x00"))
        elif byte == 0x4D:
            self.board.send(message(0x93, VERSION))
        elif byte == 0x50 or byte == 0x52:
            self.board.send(message(0x94 if byte == 0x50 else 0x95, bytes(50)))
        elif byte == 0x55:
            self.board.send(message(0xA2, LONG_SERIAL))

    def poll(self, now_ms):
        if self._cmd and ticks_diff(now_ms, self._last_ms) >= _PART_MS:
            self._cmd = 0

    def dump(self):
        """The 0x86 board dump of the pieces the board reports."""
        out = bytearray(67)
        out[0] = 0x86
        out[2] = 67
        piece = self.board.piece
        for field in range(64):
            out[3 + field] = _CODES[piece(field ^ 56) & 15]
        return out

    def changed(self, cell):
        if self.mode == _IDLE:
            return
        f = self._field
        f[3] = cell ^ 56
        f[4] = _CODES[self.board.piece(cell) & 15]
        self.board.send(f)

    def _leds(self):
        """0x60 read: pattern, start field, end field."""
        d = self._data
        if not d[0]:
            self.board.light((), ())
            return
        for field in (d[1], d[2]):
            if field < 64:
                self.board.light_more(field ^ 56)
