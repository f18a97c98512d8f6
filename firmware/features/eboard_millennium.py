"""The Millennium ChessLink protocol (loaded while the e-board mode speaks it: features/eboard.py).

    m = Millennium(board)       # board: the e-board mode (piece(cell), send(data), light(cells, blinking))
    m.feed(byte, now_ms)        # every byte the host sends
    m.poll(now_ms)              # every pass: automatic status reports, a half-read message timing out
    m.changed(cell)             # a square's reported piece changed (an automatic report is due)

The wire format (Millennium's notes on the "magic board"): 38400 baud, 7 data bits, odd
parity, printable ASCII. A message is a command letter, its data as upper-case hex digits,
and the XOR of all those characters as two more upper-case hex digits. The answer is the
command's lower-case letter, its data and the same check. Over USB the parity is either
gone (a CDC serial port has none) or carried in bit 7 by a host that adds it itself: a
message with bit 7 set anywhere must have odd parity in every byte, and the board then
answers with the parity bit set too.

    V           v + version (4 hex digits)
    S           s + 64 piece codes a8..h8, a7..h7, ... h1: KQRBNP, kqrbnp, '.' empty
    L tt + 81 x 2 hex   the 81 corner LEDs (LED 1 at a8's corner, 9 at a1's, 73 at h8's,
                81 at h1's), each a pattern byte: a square lights when its four corners
                do (squares whose corners are all another lit square's are left out, so a
                move's from and to squares light alone); it blinks unless all four are
                steady (0xFF). Answer: l
    X           all the host's LEDs off. Answer: x
    T           reset: the LEDs off; no answer (the real board restarts)
    W aa dd     write option byte aa (256 kept, not across a restart). Answer: w aa dd
    R aa        read option byte aa. Answer: r aa dd
    I xx        (sent by some apps; not in the notes) Answer: i 00

Option bytes: 00 bit 0 set = no check digits in either direction; 01 scan time (kept and
answered; the board scans at its own pace); 02 automatic reports: 1 off, 2 every
(byte 03 x 4.096 ms, at least _MIN_TIMED_MS), 0 and 3..7 on every change of the reported
board (0, the default, is "every scan" on the real board: a report on every change says the
same). A report is an `s` message.

Junk, a character that is not a hex digit inside a message, a wrong parity, a wrong check or
a message left half-sent for _PART_MS: the message is dropped without an answer (a command
letter inside it starts the next one).
"""
from firmware.compat import const, ticks_diff
from firmware.engine.constants import PIECE_LETTERS

_PART_MS = const(500)
_MIN_TIMED_MS = const(100)
_STEADY = const(0xFF)
_HEX = b"0123456789ABCDEF"
_COMMANDS = b"VSXTIRWL"
_LENGTHS = b"\x01\x01\x01\x01\x03\x03\x05\xa5"  # characters before the check: L is 1 + 2 + 162
VERSION = b"0100"


def _hexval(ch):
    """The value of an upper-case hex digit, -1 for anything else."""
    if 48 <= ch <= 57:
        return ch - 48
    if 65 <= ch <= 70:
        return ch - 55
    return -1


def _odd(byte):
    n = 0
    while byte:
        n ^= byte & 1
        byte >>= 1
    return n


def corners(cell):
    """The four LED indices (0-based) at the corners of `cell` (a1 = 0 .. h8 = 63)."""
    f = cell & 7
    top = 7 - (cell >> 3)  # the LED row above the square; row 0 runs along rank 8's far edge
    return (f * 9 + top, f * 9 + top + 1, f * 9 + 9 + top, f * 9 + 10 + top)


def squares_of(patterns):
    """(lit cells, blinking cells) of 81 LED pattern bytes (see the module docstring)."""
    cand = []
    count = bytearray(81)
    for cell in range(64):
        cs = corners(cell)
        if patterns[cs[0]] and patterns[cs[1]] and patterns[cs[2]] and patterns[cs[3]]:
            cand.append(cell)
            for i in cs:
                count[i] += 1
    chosen = []
    covered = bytearray(81)
    for cell in cand:  # a square with a corner no other candidate has is surely meant
        cs = corners(cell)
        if count[cs[0]] == 1 or count[cs[1]] == 1 or count[cs[2]] == 1 or count[cs[3]] == 1:
            chosen.append(cell)
            for i in cs:
                covered[i] = 1
    while True:  # then the fewest squares that light the corners still dark
        best = -1
        most = 0
        for cell in cand:
            if cell in chosen:
                continue
            n = 0
            for i in corners(cell):
                if not covered[i]:
                    n += 1
            if n > most:
                best = cell
                most = n
        if best < 0:
            break
        chosen.append(best)
        for i in corners(best):
            covered[i] = 1
    blinking = []
    for cell in chosen:
        for i in corners(cell):
            if patterns[i] != _STEADY:
                blinking.append(cell)
                break
    return chosen, blinking


class Millennium:
    def __init__(self, board):
        self.board = board
        self.options = bytearray(256)
        self.options[1] = 20
        self._msg = bytearray(0xA5 + 2)
        self._n = 0
        self._need = 0
        self._high = False  # a byte of this message had bit 7 set
        self._bad = False  # a byte of it had even parity
        self.parity_out = False  # answer with odd parity in bit 7 (the host sends it so)
        self._last_ms = 0
        self._report = False  # an automatic report is due
        self._report_ms = 0
        self._out = bytearray(67)  # the status message, filled in place
        self.ignored = 0  # messages dropped (junk, parity, check)

    # ---- the host's bytes ------------------------------------------------------------------
    def feed(self, byte, now_ms):
        self._last_ms = now_ms
        ch = byte & 127
        if self._n:
            if _hexval(ch) < 0:
                self._drop()  # not a hex digit: the message is broken; a command starts anew
            else:
                self._take(byte, ch)
                return
        i = 0
        while i < 8 and _COMMANDS[i] != ch:
            i += 1
        if i == 8:
            return  # junk between messages
        self._need = _LENGTHS[i] + (0 if self.options[0] & 1 else 2)
        self._high = False
        self._bad = False
        self._take(byte, ch)

    def _take(self, byte, ch):
        if byte & 128:
            self._high = True
        if not _odd(byte):
            self._bad = True
        self._msg[self._n] = ch
        self._n += 1
        if self._n == self._need:
            self._n = 0
            self._complete()

    def _drop(self):
        self._n = 0
        self.ignored += 1

    def _complete(self):
        msg = self._msg
        n = self._need
        if self._high and self._bad:
            self.ignored += 1
            return
        if not self.options[0] & 1:
            n -= 2
            x = 0
            for i in range(n):
                x ^= msg[i]
            if msg[n] != _HEX[x >> 4] or msg[n + 1] != _HEX[x & 15]:
                self.ignored += 1
                return
        self.parity_out = self._high
        cmd = msg[0]
        if cmd == 86:  # V
            self._send(b"v" + VERSION)
        elif cmd == 83:  # S
            self._status()
        elif cmd == 88:  # X
            self.board.light((), ())
            self._send(b"x")
        elif cmd == 84:  # T
            self.board.light((), ())
        elif cmd == 73:  # I
            self._send(b"i00")
        elif cmd == 82:  # R
            a = self._byte(1)
            self._send(b"r" + bytes(msg[1:3]) + bytes((_HEX[self.options[a] >> 4], _HEX[self.options[a] & 15])))
        elif cmd == 87:  # W
            self.options[self._byte(1)] = self._byte(3)
            self._send(b"w" + bytes(msg[1:5]))
        elif cmd == 76:  # L
            patterns = bytearray(81)
            for i in range(81):
                patterns[i] = self._byte(3 + 2 * i)
            lit, blinking = squares_of(patterns)
            self.board.light(lit, blinking)
            self._send(b"l")

    def _byte(self, at):
        return _hexval(self._msg[at]) << 4 | _hexval(self._msg[at + 1])

    def poll(self, now_ms):
        if self._n and ticks_diff(now_ms, self._last_ms) >= _PART_MS:
            self._drop()
        mode = self.options[2] & 7
        if mode == 1:
            self._report = False
        elif mode == 2:
            every = self.options[3] * 4096 // 1000
            if ticks_diff(now_ms, self._report_ms) >= (every if every > _MIN_TIMED_MS else _MIN_TIMED_MS):
                self._report_ms = now_ms
                self._status()
        elif self._report:
            self._report = False
            self._status()

    def changed(self, cell):
        self._report = True

    # ---- the board's messages --------------------------------------------------------------
    def _status(self):
        out = self._out
        out[0] = 115  # s
        piece = self.board.piece
        for i in range(64):
            out[1 + i] = ord(PIECE_LETTERS[piece(i ^ 56) & 15])
        self._finish(out, 65)

    def _send(self, text):
        buf = bytearray(len(text) + 2)
        buf[0:len(text)] = text
        self._finish(buf, len(text))

    def _finish(self, buf, n):
        """Add the check to buf[0:n] (unless option 00 turns it off), the parity bits if
        the host uses them, and send it."""
        if not self.options[0] & 1:
            x = 0
            for i in range(n):
                x ^= buf[i]
            buf[n] = _HEX[x >> 4]
            buf[n + 1] = _HEX[x & 15]
            n += 2
        if self.parity_out:
            for i in range(n):
                if not _odd(buf[i]):
                    buf[i] |= 128
        self.board.send(buf if n == len(buf) else buf[:n])
