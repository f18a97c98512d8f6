"""Serial links for the e-board mode (firmware/features/eboard.py) off the board: the App's
`link` attribute takes one of these instead of the board's USB serial.

    link = PipeLink()                # in memory (tests; runs under MicroPython too)
    link.host_write(b"\\x42")         # what a host sends
    data = link.host_read()          # what the board sent since the last read

    link = PtyLink("/tmp/reedchess") # a pseudo-terminal; PATH is a symlink to its device, which
                                     # any program opens as if it were the board's USB port
    link.close()                     # removes the symlink

The firmware side of both: `read_into(buf)` (the bytes waiting, at once), `write(data)`,
`claim()` / `release()` (nothing to do here), `console` False (the simulator's console is
apart from the link).
"""


class PipeLink:
    console = False

    def __init__(self):
        self.to_board = bytearray()
        self.from_board = bytearray()
        self.claimed = False

    # the firmware's side
    def read_into(self, buf):
        n = len(self.to_board)
        if n > len(buf):
            n = len(buf)
        if n:
            buf[0:n] = self.to_board[0:n]
            self.to_board = self.to_board[n:]
        return n

    def write(self, data):
        self.from_board.extend(data)

    def claim(self):
        self.claimed = True

    def release(self):
        self.claimed = False

    # the host's side
    def host_write(self, data):
        self.to_board.extend(data)

    def host_read(self):
        data = bytes(self.from_board)
        self.from_board = bytearray()
        return data


class PtyLink:
    console = False

    def __init__(self, path):
        """Open a pseudo-terminal (raw, 8 bits: the protocols' bytes pass unchanged) and point
        `path` at its device (an existing symlink there is replaced, any other file is not)."""
        import os
        import tty

        self.path = path
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.device = os.ttyname(self._slave)
        if os.path.islink(path):
            os.unlink(path)
        elif os.path.exists(path):
            os.close(self._master)
            os.close(self._slave)
            raise ValueError("%s exists and is not a symlink: choose another --serial-link path" % path)
        os.symlink(self.device, path)
        self.dropped = 0  # bytes the host did not take (nobody reading, its buffer full)

    def read_into(self, buf):
        import os

        try:
            data = os.read(self._master, len(buf))
        except (BlockingIOError, OSError):
            return 0
        buf[0:len(data)] = data
        return len(data)

    def write(self, data):
        import os

        try:
            os.write(self._master, bytes(data))
        except (BlockingIOError, OSError):
            self.dropped += len(data)

    def claim(self):
        pass

    def release(self):
        pass

    def close(self):
        import os

        try:
            if os.path.islink(self.path) and os.readlink(self.path) == self.device:
                os.unlink(self.path)
        finally:
            os.close(self._master)
            os.close(self._slave)


class RealTimeInput:
    """A line reader for the line UI (host_sim/tui.py run_lines) while a host talks on the
    link: waiting for a typed line, it runs the simulation at the pace of real time (x
    `speed`), so the board answers the host between the lines a person types."""

    def __init__(self, table, stream, speed=1.0, tick_s=0.02):
        self.table = table
        self.stream = stream
        self.speed = speed
        self.tick_s = tick_s

    def readline(self):
        import select
        import time

        last = time.monotonic()
        while True:
            ready = select.select([self.stream], [], [], self.tick_s)[0]
            now = time.monotonic()
            ms = int((now - last) * 1000 * self.speed)
            if ms > 0:
                self.table.sim.run(ms)
                last = now
            if ready:
                return self.stream.readline()
