"""Per-cell debouncing of occupancy bitmaps into timestamped LIFT/PLACE events.

    deb = OccupancyDebouncer(debounce_ms=30)
    deb.reset(first_scan, now_ms)            # optional: take the board as it is, no events
    ...
    sensors.scan_into(raw); deb.update(raw, now_ms)
    ev = deb.pop()
    while ev >= 0:
        cell, kind, t = event_cell(ev), event_kind(ev), deb.event_ms
        ...
        ev = deb.pop()

Event encoding: one small int `cell | kind << 6` (0..127), kind LIFT (0) or PLACE (1);
`pop()` returns -1 when the queue is empty and sets `event_ms` to the popped event's time.
The time of an event is the moment the raw level last changed to its new value (when the
contact settled), not the moment debouncing confirmed it, so event order follows the hand.

A cell's change is confirmed once its raw level has been steady and different from `stable`
for `debounce_ms`. `stable` (bytearray(8), same layout as the scan) is the debounced board.
Events go into a preallocated ring of `capacity`; when it is full the oldest event is
dropped and `overruns` counts it (the controller can resync from `stable`).

Faults (chattering and stuck switches) are found by firmware.io.diagnostics: its
ChatterDebouncer is this debouncer plus flip counting, and stuck_report compares `stable`
with what should be there (rare paths, kept out of this resident module).
"""
from array import array

from firmware.compat import const, ticks_diff
from firmware.io import IoError

LIFT = const(0)
PLACE = const(1)
EMPTY = const(-1)


def event_cell(ev):
    """Cell 0..63 of a packed event."""
    return ev & 63


def event_kind(ev):
    """LIFT or PLACE of a packed event."""
    return ev >> 6


DebounceConfigError = IoError  # A debouncer option is out of range.


class OccupancyDebouncer:
    def __init__(self, debounce_ms, capacity=64):
        if not (0 <= debounce_ms <= 60000 and 1 <= capacity <= 4096):
            raise DebounceConfigError("need debounce_ms 0..60000 and capacity 1..4096, got %r and %r"
                                      % (debounce_ms, capacity))
        self.debounce_ms = debounce_ms
        self.stable = bytearray(8)
        self.overruns = 0
        self.event_ms = 0
        self._last_raw = bytearray(8)
        self._changed_ms = array("i", bytes(256))
        self._capacity = capacity
        self._events = bytearray(capacity)  # cell | kind << 6 fits a byte
        self._event_times = array("i", bytes(4 * capacity))
        self._head = 0
        self.count = 0  # events waiting in the queue

    def reset(self, bitmap, now_ms):
        """Take `bitmap` as the settled board (no events), empty the queue."""
        for r in range(8):
            self.stable[r] = bitmap[r]
            self._last_raw[r] = bitmap[r]
        for i in range(64):
            self._changed_ms[i] = now_ms
        self._head = 0
        self.count = 0

    def update(self, raw, now_ms):
        """Feed one raw scan (bytearray(8)) taken at `now_ms`; return the number of events
        queued by this call. Allocates nothing."""
        stable = self.stable
        last = self._last_raw
        if raw == last and raw == stable:  # the usual pass: nothing moved, nothing pending
            return 0
        changed = self._changed_ms
        added = 0
        for r in range(8):
            rb = raw[r]
            diff = rb ^ last[r]
            if diff:
                last[r] = rb
                cell = r << 3
                while diff:
                    if diff & 1:
                        changed[cell] = now_ms
                    diff >>= 1
                    cell += 1
            pending = rb ^ stable[r]
            if pending:
                cell = r << 3
                bit = 1
                while pending:
                    if pending & 1 and ticks_diff(now_ms, changed[cell]) >= self.debounce_ms:
                        stable[r] ^= bit
                        cap = self._capacity
                        if self.count == cap:  # full: drop the oldest
                            self._head = (self._head + 1) % cap
                            self.count -= 1
                            self.overruns += 1
                        tail = (self._head + self.count) % cap
                        self._events[tail] = cell | ((PLACE if rb & bit else LIFT) << 6)
                        self._event_times[tail] = changed[cell]
                        self.count += 1
                        added += 1
                    pending >>= 1
                    bit <<= 1
                    cell += 1
        return added

    def pop(self):
        """Next event as `cell | kind << 6`, or EMPTY (-1); sets `event_ms` to its time."""
        if not self.count:
            return EMPTY
        head = self._head
        self.event_ms = self._event_times[head]
        self._head = (head + 1) % self._capacity
        self.count -= 1
        return self._events[head]
