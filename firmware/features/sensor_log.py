"""Sensor log: every debounced sensor event and button press, with its time, as text.

Turn it on (a setting) when a real board misreads a move: the log can be replayed in the
desktop simulator (`python -m host_sim --replay FILE`), which runs the same firmware on the
same events, so the misdetection can be watched and fixed on a PC. The format is the
simulator's (host_sim/replay.py):

    # reedchess sensor log 1
    # board: pico
    # source: firmware
    1200 lift e2
    1530 place e4
    9000 press hint
    9400 hold level

    log = SensorLog(stream, "pico", start_ms=now_ms)   # stream: anything with write(str)
    log.sensor(cell, kind, time_ms)    # a debouncer event: cell 0..63, LIFT (0) / PLACE (1),
                                       # time_ms = the debouncer's event_ms (ticks)
    log.button(name, kind, time_ms)    # SHORT (1) -> "press", LONG (2) -> "hold"
    log.note(text, time_ms)            # free text, ignored on replay
    log.header("human", "white")       # a "# key: value" line (before the first event)

    log = open_sensor_log("/sensors.log", "pico", now_ms)   # a file on the board's flash

Times in the file are ms since `start_ms` (ticks_diff, so the 2^30 wrap of the tick counter
does not matter). Each event is one line written at once and flushed, so a power cut loses
at most the line being written. Formatting a line allocates a few small strings: the log is
a diagnostic setting (off by default), called once per event, never per scan.
A stream that fails (flash full) switches the log off and counts the loss in `dropped`
instead of stopping the game.
"""
from firmware.compat import ticks_diff

VERSION = 1
_FILES = "abcdefgh"
_SENSOR_WORDS = ("lift", "place")
_BUTTON_WORDS = (None, "press", "hold")


class SensorLogError(ValueError):
    """A bad argument to the sensor log (cell, kind or button name)."""


def cell_name(cell):
    """0..63 -> 'a1'..'h8' (cell = rank * 8 + file)."""
    return _FILES[cell & 7] + str((cell >> 3) + 1)


class SensorLog:
    def __init__(self, stream, board_name, start_ms=0):
        self.stream = stream
        self.start_ms = start_ms
        self.enabled = True
        self.lines = 0
        self.dropped = 0
        self._write("# reedchess sensor log %d" % VERSION)
        self.header("board", board_name)
        self.header("source", "firmware")

    def _write(self, line):
        if not self.enabled:
            self.dropped += 1
            return
        try:
            self.stream.write(line + "\n")
            flush = getattr(self.stream, "flush", None)
            if flush is not None:
                flush()
            self.lines += 1
        except OSError:
            self.enabled = False  # flash full or removed: the game goes on without the log
            self.dropped += 1

    def _stamp(self, time_ms):
        t = ticks_diff(time_ms, self.start_ms)
        return t if t > 0 else 0

    def header(self, key, value):
        self._write("# %s: %s" % (key, value))

    def sensor(self, cell, kind, time_ms):
        """Log a debounced event (kind LIFT 0 / PLACE 1)."""
        if not 0 <= cell < 64:
            raise SensorLogError("cell must be 0..63, got %r" % (cell,))
        if kind not in (0, 1):
            raise SensorLogError("sensor event kind must be LIFT (0) or PLACE (1), got %r" % (kind,))
        self._write("%d %s %s" % (self._stamp(time_ms), _SENSOR_WORDS[kind], cell_name(cell)))

    def button(self, name, kind, time_ms):
        """Log a button event (kind SHORT 1 / LONG 2, as firmware.io.buttons)."""
        if kind not in (1, 2):
            raise SensorLogError("button event kind must be SHORT (1) or LONG (2), got %r" % (kind,))
        if not name or not name.replace("_", "").isalpha():
            raise SensorLogError("bad button name %r" % (name,))
        self._write("%d %s %s" % (self._stamp(time_ms), _BUTTON_WORDS[kind], name))

    def note(self, text, time_ms):
        """A free-text line (e.g. 'board unexplained'); newlines become spaces."""
        self._write("%d note %s" % (self._stamp(time_ms), str(text).replace("\n", " ").replace("\r", " ")))

    def close(self):
        close = getattr(self.stream, "close", None)
        if close is not None:
            try:
                close()
            except OSError:
                pass
        self.enabled = False


def open_sensor_log(path, board_name, now_ms, open_fn=open):
    """A SensorLog writing a new file at `path` (replacing an older log). `open_fn` is
    injectable for tests. Raises OSError if the file cannot be created."""
    return SensorLog(open_fn(path, "w"), board_name, start_ms=now_ms)
