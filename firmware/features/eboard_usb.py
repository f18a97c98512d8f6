"""The board's USB serial as the e-board mode's link (features/eboard.py; loaded on a board,
where no other link is given).

    link = UsbLink()
    link.claim()                # Ctrl-C (0x03) is a byte like any other now
    n = link.read_into(buf)     # the bytes waiting (none: 0, at once)
    link.write(data)
    link.release()              # Ctrl-C interrupts again

`console` is True: the link is the console's serial line, so the mode silences the console
while it holds it.
"""
import select
import sys

from firmware.compat import micropython

_CTRL_C = 3


class UsbLink:
    console = True

    def __init__(self):
        self._in = getattr(sys.stdin, "buffer", sys.stdin)
        self._out = getattr(sys.stdout, "buffer", sys.stdout)
        self._poller = select.poll()
        self._poller.register(sys.stdin, select.POLLIN)

    def read_into(self, buf):
        n = 0
        while n < len(buf):
            for _ in self._poller.ipoll(0):  # allocates nothing (poll() builds a list)
                break
            else:
                return n
            b = self._in.read(1)
            if not b:
                return n
            buf[n] = b[0] if not isinstance(b, str) else ord(b)
            n += 1
        return n

    def write(self, data):
        self._out.write(data)

    def claim(self):
        kbd = getattr(micropython, "kbd_intr", None)
        if kbd is not None:
            kbd(-1)

    def release(self):
        kbd = getattr(micropython, "kbd_intr", None)
        if kbd is not None:
            kbd(_CTRL_C)
