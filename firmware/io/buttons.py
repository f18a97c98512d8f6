"""Push buttons: debounced, short and long presses, active low with pull-ups.

    buttons = Buttons({"new": pin_a, "hint": pin_b, ...}, debounce_ms=20, long_ms=800)
    buttons.poll(now_ms)                       # every loop; allocates nothing
    ev = buttons.pop()                         # -1 when empty
    if ev >= 0: name = buttons.names[ev & 15]; kind = ev >> 4   # SHORT or LONG

Event encoding: one small int `index | kind << 4`, index into `buttons.names`, kind SHORT (1)
or LONG (2). A LONG event fires while the button is still held, as soon as it has been down
for `long_ms` (the user feels the long press take effect); releasing it afterwards adds
nothing. Releasing before `long_ms` gives SHORT. `event_ms` is the popped event's time.

`names` is a tuple in a fixed order: the product's buttons in PRODUCT_ORDER first, then any
others alphabetically (dict order is not relied on).
"""
from array import array

from firmware.compat import const, ticks_diff
from firmware.io import IoError

SHORT = const(1)
LONG = const(2)
EMPTY = const(-1)

REQUIRED = ("new", "level", "takeback", "hint", "move")
PRODUCT_ORDER = REQUIRED + ("setup", "mode", "clock", "ok")
_MAX_BUTTONS = const(16)


ButtonConfigError = IoError  # Bad button names, too many buttons or bad timings.


def ordered_names(names):
    known = []
    others = []
    for n in PRODUCT_ORDER:
        if n in names:
            known.append(n)
    for n in names:
        if n not in PRODUCT_ORDER:
            others.append(n)
    return tuple(known + sorted(others))


class Buttons:
    def __init__(self, pins_by_name, debounce_ms=20, long_ms=800, capacity=16):
        if not pins_by_name:
            raise ButtonConfigError("no buttons given")
        if len(pins_by_name) > _MAX_BUTTONS:
            raise ButtonConfigError("at most %d buttons, got %d" % (_MAX_BUTTONS, len(pins_by_name)))
        if debounce_ms < 0 or long_ms <= debounce_ms:
            raise ButtonConfigError("need 0 <= debounce_ms < long_ms, got %r and %r" % (debounce_ms, long_ms))
        self.names = ordered_names(pins_by_name)
        get = []
        for n in self.names:
            get.append(pins_by_name[n].value)
        self._get = tuple(get)
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        n = len(self.names)
        self._raw = bytearray(n)  # 1 = pressed (pin low)
        self._stable = bytearray(n)
        self._long_done = bytearray(n)
        self._changed_ms = array("i", [0] * n)
        self._down_ms = array("i", [0] * n)
        self._capacity = capacity
        self._events = bytearray(capacity)
        self._times = array("i", [0] * capacity)
        self._head = 0
        self.count = 0
        self.event_ms = 0
        self.overruns = 0

    def is_pressed(self, index):
        """Debounced state of a button."""
        return self._stable[index] == 1

    def poll(self, now_ms):
        """Read every button once at `now_ms`; queue SHORT/LONG events. Allocates nothing."""
        raw = self._raw
        stable = self._stable
        i = 0
        for get in self._get:
            level = 0 if get() else 1
            if level != raw[i]:
                raw[i] = level
                self._changed_ms[i] = now_ms
            if level != stable[i] and ticks_diff(now_ms, self._changed_ms[i]) >= self.debounce_ms:
                stable[i] = level
                if level:
                    self._down_ms[i] = self._changed_ms[i]
                    self._long_done[i] = 0
                elif not self._long_done[i]:
                    self._push(i | SHORT << 4, now_ms)
            if stable[i] and not self._long_done[i] and ticks_diff(now_ms, self._down_ms[i]) >= self.long_ms:
                self._long_done[i] = 1
                self._push(i | LONG << 4, now_ms)
            i += 1

    def _push(self, ev, now_ms):
        if self.count == self._capacity:
            self._head = (self._head + 1) % self._capacity
            self.count -= 1
            self.overruns += 1
        tail = (self._head + self.count) % self._capacity
        self._events[tail] = ev
        self._times[tail] = now_ms
        self.count += 1

    def pop(self):
        """Next event `index | kind << 4`, or EMPTY (-1); sets `event_ms`."""
        if not self.count:
            return EMPTY
        head = self._head
        self.event_ms = self._times[head]
        self._head = (head + 1) % self._capacity
        self.count -= 1
        return self._events[head]
