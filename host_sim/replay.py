"""Sensor logs: the text format, a recorder and a replayer.

A sensor log is a text file, one event per line, written by the simulator (`--record FILE`)
or by the firmware itself (firmware/features/sensor_log.py, same format):

    # reedchess sensor log 1
    # board: pico
    # human: white
    # seed: 0
    # level: 5
    1200 lift e2
    1530 place e4
    9000 press hint
    9400 hold level
    9800 note the e4 pawn was pushed over from d3

- Lines starting with `#` are comments; `# key: value` comments in the header (before the
  first event) are settings: `board`, `human`, `seed`, `level` (1 = the first level; used by
  `--replay` unless the command line says otherwise) and any others (kept, ignored).
- An event line is `<time_ms> <action> <argument>`: time in ms since the log started,
  never decreasing; actions `lift <square>` and `place <square> [piece]` (a reed switch
  opens / closes; the simulator adds the piece letter it put down, which the firmware
  cannot know, so a replay shows the same pieces), `press <button>` (short press) and
  `hold <button>` (long press), `note <text>` (ignored on replay). Squares are `a1`..`h8`;
  button names are the board's.
- The simulator records what the hand did, at the moment it did it, so replaying a log it
  recorded reproduces the run exactly. The firmware logs debounced events stamped with
  the moment the contact settled (a scan period after the hand at most) and button events
  when they were recognised (a short press on release, a long press once held long enough):
  replay presses a button so that the firmware recognises it at about the logged time.

    log = SensorLog.load(path)                # LogFormatError (a ValueError) on bad input
    rec = Recorder(open(path, "w"), {"board": "pico"}); rec.event(1200, "lift", "e2")
    replay(table, log, on_event=print)        # table: host_sim.tui.Table
"""
VERSION = 1
MAGIC = "# reedchess sensor log %d" % VERSION
ACTIONS = ("lift", "place", "press", "hold", "note")
HEADER_KEYS = ("board", "human", "seed", "level")
_FILES = "abcdefgh"


class LogFormatError(ValueError):
    """A sensor log line that cannot be understood; the message names the line."""


def is_square(text):
    return len(text) == 2 and text[0] in _FILES and text[1] in "12345678"


class Event:
    """One logged event: time_ms (int), action (one of ACTIONS), arg (square, button or text)."""

    __slots__ = ("time_ms", "action", "arg", "line")

    def __init__(self, time_ms, action, arg, line=0):
        self.time_ms = time_ms
        self.action = action
        self.arg = arg
        self.line = line

    def command(self):
        """The simulator command that performs this event, e.g. 'lift e2' or 'hold level'."""
        return "%s %s" % (self.action, self.arg)

    def text(self):
        return "%d %s %s" % (self.time_ms, self.action, self.arg)

    def __eq__(self, other):
        return isinstance(other, Event) and (self.time_ms, self.action, self.arg) == (
            other.time_ms, other.action, other.arg)

    def __repr__(self):
        return "Event(%r)" % self.text()


def parse_event(text, line=0):
    """One event line -> Event; LogFormatError naming the line for anything malformed."""
    where = "line %d" % line if line else "event"
    parts = text.strip().split(None, 2)
    if len(parts) < 3:
        raise LogFormatError("%s: expected '<time_ms> <action> <argument>', got %r" % (where, text.strip()))
    stamp, action, arg = parts
    try:
        time_ms = int(stamp)
    except ValueError:
        raise LogFormatError("%s: time %r is not a whole number of ms" % (where, stamp)) from None
    if time_ms < 0:
        raise LogFormatError("%s: time %d is negative" % (where, time_ms))
    if action not in ACTIONS:
        raise LogFormatError("%s: unknown action %r (known: %s)" % (where, action, ", ".join(ACTIONS)))
    if action in ("lift", "place"):
        words = arg.split()
        sq = words[0].lower()
        if not is_square(sq):
            raise LogFormatError("%s: %r is not a square a1..h8" % (where, words[0]))
        if len(words) > 2 or action == "lift" and len(words) > 1 or \
                len(words) == 2 and (len(words[1]) != 1 or words[1] not in "PNBRQKpnbrqk"):
            raise LogFormatError("%s: expected '%s <square>%s', got %r" % (
                where, action, " [piece letter]" if action == "place" else "", arg))
        arg = sq if len(words) == 1 else sq + " " + words[1]
    elif action in ("press", "hold"):
        arg = arg.strip().lower()
        if not arg.replace("_", "").isalnum():
            raise LogFormatError("%s: %r is not a button name" % (where, arg))
    return Event(time_ms, action, arg, line)


class SensorLog:
    """A parsed log: `header` {key: value} and `events` [Event], times never decreasing."""

    def __init__(self, header=None, events=None):
        self.header = dict(header or {})
        self.events = list(events or [])

    @classmethod
    def parse(cls, text):
        header = {}
        events = []
        last = 0
        for n, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#"):
                body = line[1:].strip()
                if not events and ":" in body and not body.startswith("reedchess"):
                    key, _, value = body.partition(":")
                    header[key.strip().lower()] = value.strip()
                elif body.startswith("reedchess sensor log"):
                    version = body.split()[-1]
                    if version != str(VERSION):
                        raise LogFormatError("line %d: sensor log version %s, this simulator reads %d"
                                             % (n, version, VERSION))
                continue
            ev = parse_event(line, n)
            if ev.time_ms < last:
                raise LogFormatError("line %d: time %d goes back before %d" % (n, ev.time_ms, last))
            last = ev.time_ms
            events.append(ev)
        if header.get("human", "white") not in ("white", "black", "both"):
            raise LogFormatError("header: human must be white, black or both, got %r" % header["human"])
        for key in ("seed", "level"):
            if key in header:
                try:
                    int(header[key])
                except ValueError:
                    raise LogFormatError("header: %s %r is not a number" % (key, header[key])) from None
        return cls(header, events)

    @classmethod
    def load(cls, path):
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            raise LogFormatError("cannot read sensor log %s: %s" % (path, e.strerror or e)) from None
        try:
            return cls.parse(text)
        except LogFormatError as e:
            raise LogFormatError("%s: %s" % (path, e)) from None

    def text(self):
        lines = [MAGIC]
        for key in sorted(self.header):
            lines.append("# %s: %s" % (key, self.header[key]))
        lines.extend(ev.text() for ev in self.events)
        return "\n".join(lines) + "\n"


class Recorder:
    """Writes a sensor log as events happen (flushed per line, so a crash keeps the log).

    `stream` is any object with write() (and optionally flush()); `header` {key: value} is
    written first. Times must not decrease (LogFormatError otherwise)."""

    def __init__(self, stream, header=None):
        self.stream = stream
        self.events = []
        self._last = 0
        self._write(MAGIC)
        for key in sorted(header or {}):
            self._write("# %s: %s" % (key, header[key]))

    def _write(self, line):
        self.stream.write(line + "\n")
        flush = getattr(self.stream, "flush", None)
        if flush:
            flush()

    def event(self, time_ms, action, arg):
        ev = parse_event("%d %s %s" % (time_ms, action, arg))
        if ev.time_ms < self._last:
            raise LogFormatError("event at %d ms recorded after one at %d ms" % (ev.time_ms, self._last))
        self._last = ev.time_ms
        self.events.append(ev)
        self._write(ev.text())

    def close(self):
        close = getattr(self.stream, "close", None)
        if close:
            close()


def replay(table, log, on_event=None, offset_ms=None):
    """Perform every event of `log` on `table` (host_sim.tui.Table) at its logged time.

    Times are relative: the first event happens `offset_ms` after now (default: at its own
    time if that is still ahead, else now), and the gaps between events are kept exactly.
    `on_event(event, reply)` is called after each (reply: the table's answer text).
    Returns the number of events performed. Raises LogFormatError (naming the line) for an
    event the table refuses, e.g. a button this board does not have."""
    start = table.now_ms
    if log.events:
        first = log.events[0].time_ms
        if offset_ms is None:
            offset_ms = max(0, first - start)
        base = start + offset_ms - first
    done = 0
    for ev in log.events:
        due = base + ev.time_ms
        if due > table.now_ms:
            table.wait(due - table.now_ms)
        if ev.action == "note":
            reply = "note: " + ev.arg
        else:
            try:
                reply = table.execute(ev.command(), settle=False)
            except ValueError as e:
                raise LogFormatError("line %d (%s): %s" % (ev.line, ev.text(), e)) from None
        done += 1
        if on_event is not None:
            on_event(ev, reply)
    return done
