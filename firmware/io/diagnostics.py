"""Diagnostics mode for the real board: find bad reed switches, LEDs and buttons.

    diag = Diagnostics(hw)           # hw: a boards.config.Hardware (sensors, leds, buttons, ...)
    while True:
        diag.update(ticks_ms())      # never blocks; call every few ms

Modes, in turn (a LONG press of any button moves to the next one, `next_mode()` too):
- WALK: one LED after the other over all 64 cells (`step_ms` each), in chain order on a
  chain of pixels - dead LEDs and a broken chain stand out;
- SENSORS: live sensor map, every occupied cell lit - move a magnet over each square;
- FAULTS: chattering cells blink fast, cells that differ from `expected` (default: an empty
  board - take all pieces off first) blink slow; the display shows the counts;
- BUTTONS: the display names the last button and press kind; each press clicks (here only
  a long press of the first button, "new", moves on).
With `leave_after_last=True` (the self-test at power-on, firmware/features/selftest.py) the
move on from the last mode sets `done` instead of starting over.
`report()` returns the fault findings as text lines (for a serial console). Squares are named
by their cell (cell 0 = a1, 7 = h1, 63 = h8: the cells after the board's cell map).
Sensors on I2C expanders (firmware/io/mcp23017.py) can miss a whole chip: the sensor map and
the fault scan blink its squares fast in the error colour and name its address, and report()
says which chip and which squares.
"""
from firmware.compat import ticks_diff
from firmware.io.buttons import LONG, SHORT
from firmware.io.buzzer import CLICK, CONFIRM
from firmware.io.debounce import DebounceConfigError, OccupancyDebouncer
from firmware.io.leds import BLINK_FAST, BLINK_SLOW, ERROR, ON

WALK = 0
SENSORS = 1
FAULTS = 2
BUTTONS = 3
MODE_NAMES = ("LED walk", "Sensor map", "Faults", "Button test")

STUCK_CLOSED = 1  # a switch reads closed where the square should be empty
STUCK_OPEN = 2  # a switch reads open where a piece should stand


class ChatterDebouncer(OccupancyDebouncer):
    """An OccupancyDebouncer that also finds chattering switches: every raw flip of a cell is
    counted in a window of `chatter_window_ms`; a cell that flips `chatter_flips` times within
    one window is flagged in `chattering` (bytearray(8), sticky until clear_faults) and
    `faults_seen` is incremented."""

    def __init__(self, debounce_ms, capacity=64, chatter_flips=12, chatter_window_ms=2000):
        if not (2 <= chatter_flips <= 254 and chatter_window_ms >= 1):
            raise DebounceConfigError("need chatter_flips 2..254 and chatter_window_ms >= 1, got %r and %r"
                                      % (chatter_flips, chatter_window_ms))
        OccupancyDebouncer.__init__(self, debounce_ms, capacity)
        self.chatter_flips = chatter_flips
        self.chatter_window_ms = chatter_window_ms
        self.chattering = bytearray(8)
        self.faults_seen = 0
        self._flips = bytearray(64)
        self._window_start_ms = 0

    def reset(self, bitmap, now_ms):
        OccupancyDebouncer.reset(self, bitmap, now_ms)
        clear_faults(self)
        self._window_start_ms = now_ms

    def update(self, raw, now_ms):
        flips = self._flips
        if ticks_diff(now_ms, self._window_start_ms) >= self.chatter_window_ms:
            for i in range(64):
                flips[i] = 0
            self._window_start_ms = now_ms
        last = self._last_raw
        for c in range(64):
            bit = 1 << (c & 7)
            if (raw[c >> 3] ^ last[c >> 3]) & bit:
                n = flips[c] + 1
                if n < 255:
                    flips[c] = n
                if n == self.chatter_flips and not self.chattering[c >> 3] & bit:
                    self.chattering[c >> 3] |= bit
                    self.faults_seen += 1
        return OccupancyDebouncer.update(self, raw, now_ms)


def chatter_report(deb):
    """Cells a ChatterDebouncer flagged as chattering since the last clear_faults(deb),
    ascending (allocates)."""
    return [c for c in range(64) if deb.chattering[c >> 3] & (1 << (c & 7))]


def clear_faults(deb):
    """Forget a ChatterDebouncer's chatter flags and flip counts."""
    for r in range(8):
        deb.chattering[r] = 0
    for i in range(64):
        deb._flips[i] = 0


def stuck_report(deb, expected_bitmap):
    """Compare a debouncer's settled board with `expected_bitmap` (bytearray(8), e.g. an
    empty board during the start-up check, or the start position): a list of
    (cell, STUCK_CLOSED | STUCK_OPEN), ascending by cell (allocates)."""
    out = []
    for c in range(64):
        mask = 1 << (c & 7)
        have = deb.stable[c >> 3] & mask
        want = expected_bitmap[c >> 3] & mask
        if have and not want:
            out.append((c, STUCK_CLOSED))
        elif want and not have:
            out.append((c, STUCK_OPEN))
    return out


NEXT_HELP = "long new: next"
CLEAR_BOARD_HINT = 8  # this many stuck switches: the pieces are likely still on the board


def missing_chips(sensors):
    """[(address, cells)] of the sensor chips that do not answer now (none for sensors that
    cannot miss a chip: the reed matrix, the 74HC165 chain). Allocates."""
    missing = getattr(sensors, "missing", 0)
    return [(sensors.addrs[k], sensors.cells_of(k)) for k in range(len(getattr(sensors, "addrs", ()))) if
            missing & (1 << k)]


def _chips_line(chips):
    """() when every chip answers, else one display line naming the silent ones."""
    return ("off: " + " ".join("0x%02x" % a for a, _ in chips),) if chips else ()


def cell_name(cell):
    """'a1' .. 'h8' for cell 0..63 (file = cell & 7, rank = cell >> 3)."""
    return "abcdefgh"[cell & 7] + str((cell >> 3) + 1)


def _names(cells, most=4):
    """'a1 c3 h8' for the first `most` cells of a list, '+' when there are more."""
    text = " ".join(cell_name(c) for c in cells[:most])
    return text + (" +" if len(cells) > most else "")


class Diagnostics:
    def __init__(self, hw, debouncer=None, step_ms=150, expected=None, leave_after_last=False):
        self.hw = hw
        self.leave_after_last = leave_after_last
        self.done = False
        cfg = getattr(hw, "config", None) or {}
        self.debouncer = debouncer or ChatterDebouncer(cfg.get("debounce_ms", 30))
        self.step_ms = step_ms
        self.expected = expected or bytearray(8)
        self.raw = bytearray(8)
        self.mode = WALK
        self.last_button = None  # (name, SHORT | LONG) of the last press
        self._mode_start_ms = None  # type: int | None
        self._shown = None  # what the display shows now, to skip redundant I2C writes
        self._walk_cell = -1
        self._walk_step = -1

    def next_mode(self):
        if self.leave_after_last and self.mode == len(MODE_NAMES) - 1:
            self.done = True
            self.hw.leds.clear()
            return
        self.set_mode((self.mode + 1) % len(MODE_NAMES))

    def set_mode(self, mode):
        self.mode = mode
        self.last_button = None  # the press that moved on is no test of its own
        self._mode_start_ms = None
        self._walk_cell = -1
        self._walk_step = -1
        self.hw.leds.clear()

    def update(self, now_ms):
        hw = self.hw
        hw.sensors.scan_into(self.raw)
        self.debouncer.update(self.raw, now_ms)
        while self.debouncer.pop() >= 0:  # events are not needed here, only `stable`
            pass
        hw.buttons.poll(now_ms)
        ev = hw.buttons.pop()
        while ev >= 0:
            self._button(hw.buttons.names[ev & 15], ev >> 4)
            ev = hw.buttons.pop()
        start = self._mode_start_ms
        if start is None:
            start = self._mode_start_ms = now_ms
        if self.mode == WALK:
            self._walk(ticks_diff(now_ms, start))
        elif self.mode == SENSORS:
            self._sensors()
        elif self.mode == FAULTS:
            self._faults()
        else:
            self._buttons()
        hw.leds.update(now_ms)
        if hw.buzzer is not None:
            hw.buzzer.update(now_ms)

    def _button(self, name, kind):
        self.last_button = (name, kind)
        # In the button test a long press is shown, except on the first button ("new"),
        # which still moves on; elsewhere any long press moves on.
        if kind == LONG and (self.mode != BUTTONS or name == self.hw.buttons.names[0]):
            self.next_mode()
            self._beep(CONFIRM)
        elif kind == SHORT:
            self._beep(CLICK)

    def _beep(self, pattern):
        if self.hw.buzzer is not None:
            self.hw.buzzer.play(pattern)

    def _say(self, lines):
        if self.hw.display is not None and lines != self._shown:
            self.hw.display.show_text(lines)
        self._shown = lines

    def _walk(self, elapsed):
        step = (elapsed // self.step_ms) % 64
        if step == self._walk_step:
            return
        self._walk_step = step
        # A chain of pixels is walked in its own order, so a break shows where it is: every
        # LED after it stays dark. Other LED kinds are walked cell by cell.
        pixel_of = getattr(self.hw.leds, "_pixel_of", None)  # cell -> pixel along the chain
        cell = step
        if pixel_of is not None:
            for c in range(64):
                if pixel_of[c] == step:
                    cell = c
                    break
        if cell != self._walk_cell:
            if self._walk_cell >= 0:
                self.hw.leds.set(self._walk_cell, 0)
            self.hw.leds.set(cell, ON)
            self._walk_cell = cell
            self._say((MODE_NAMES[WALK], "cell %d %s" % (cell, cell_name(cell)),
                       "row %d col %d" % (cell >> 3, cell & 7), NEXT_HELP))

    def _sensors(self):
        stable = self.debouncer.stable
        n = 0
        for c in range(64):
            occupied = stable[c >> 3] & (1 << (c & 7))
            self.hw.leds.set(c, ON if occupied else 0)
            if occupied:
                n += 1
        chips = missing_chips(self.hw.sensors)
        for _addr, cells in chips:
            for c in cells:
                self.hw.leds.set(c, BLINK_FAST | ERROR)
        self._say((MODE_NAMES[SENSORS], "%d closed" % n) + _chips_line(chips) + (NEXT_HELP,))

    def _faults(self):
        leds = self.hw.leds
        chatter = chatter_report(self.debouncer)
        stuck = stuck_report(self.debouncer, self.expected)
        for c in range(64):
            leds.set(c, 0)
        for c, _kind in stuck:
            leds.set(c, BLINK_SLOW | ERROR)
        for c in chatter:
            leds.set(c, BLINK_FAST | ERROR)
        chips = missing_chips(self.hw.sensors)
        for _addr, cells in chips:
            for c in cells:
                leds.set(c, BLINK_FAST | ERROR)
        self._say((MODE_NAMES[FAULTS], "%d stuck %s" % (len(stuck), _names([c for c, _ in stuck])),
                   "%d chatter %s" % (len(chatter), _names(chatter))) + _chips_line(chips)
                  + ("clear the board" if len(stuck) >= CLEAR_BOARD_HINT else NEXT_HELP,))

    def _buttons(self):
        last = NEXT_HELP + (": end" if self.leave_after_last else "")
        if self.last_button is None:
            self._say((MODE_NAMES[BUTTONS], "press a button", "", last))
        else:
            name, kind = self.last_button
            self._say((MODE_NAMES[BUTTONS], name, "long" if kind == LONG else "short", last))

    def report(self):
        """Fault findings as text lines (allocates; for a console)."""
        lines = []
        for addr, cells in missing_chips(self.hw.sensors):
            from firmware.io.mcp23017 import describe_cells

            lines.append("chip 0x%02x (%s): no answer" % (addr, describe_cells(cells)))
        for c, kind in stuck_report(self.debouncer, self.expected):
            lines.append("cell %d (%s): switch %s" % (c, cell_name(c), "closed (stuck?)" if kind == STUCK_CLOSED
                                                      else "open (stuck?)"))
        for c in chatter_report(self.debouncer):
            lines.append("cell %d (%s): chattering" % (c, cell_name(c)))
        return lines
