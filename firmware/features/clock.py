"""Chess clocks (a feature on demand: loaded while a clock preset or a clock level is in use).

Sudden death, Fischer increment, Bronstein delay and staged controls.

    clock = GameClock()
    clock.configure(PRESETS[4])                 # a TimeControl (see PRESETS)
    clock.reset(300000, inc_ms=2000, moves=0)   # one Fischer stage (the engine's clock levels;
                                                # moves > 0: the base time again every `moves`)
    clock.run(side, now_ms)                     # side 0 White, 8 Black, -1 stopped
    clock.moved(side, now_ms)                   # `side` completed a move: bonus, next stage
    clock.undo(side)                            # a move of `side` was taken back (counts only)
    clock.left_ms(side, now_ms); clock.flag(now_ms); clock.text(now_ms)
    clock.state(now_ms, stm)                    # {"wtime_ms", "btime_ms", "winc_ms", ...} for
                                                # levels.limits_for_level (None when disabled)
    data = clock.to_bytes(now_ms); clock.restore(data)   # the journal's clock record

A TimeControl is a list of stages `(moves, base_ms, bonus_ms)`: `base_ms` is added when the
stage begins (the first stage's at the start), `moves` moves are to be played in it (0: the
rest of the game); after the last stage with `moves` > 0 that stage repeats ("40 moves in
2 hours" every 40 moves). The bonus of the stage a move is made in is applied after it:
- FISCHER: the bonus (increment) is added, whatever the move took;
- BRONSTEIN: the time the move took is given back, at most the bonus (delay): a clock never
  gains, and a move made within the delay costs nothing;
- SUDDEN: no bonus (bonus_ms must be 0).

Only the running side's time goes down; run() with the same side again is cheap (called
every main-loop pass). Times are small ints (a 2-hour game is 7,200,000 ms < 2^30); time
comes in as `now_ms` (ticks_ms values compared with ticks_diff), never read here.

The controller's side (flow.Controller holds `clock`, a GameClock or None): `start(c, key)`
builds the clock for a source key (100 + preset index, or 1 + a clock level's index) and takes
a journal record waiting in `c.clock_restore`; every pass `clock.tick(c, now_ms)` runs the side
to move and makes the flag fall; `clock.button(c, now_ms)` pauses; `clock.cap(...)` caps the
engine's time on a non-clock level.
"""
from firmware.compat import const, ticks_diff
from firmware.controller.game import RESULT_BLACK, RESULT_DRAW, RESULT_WHITE, TIMEOUT
from firmware.engine import rules
from firmware.engine.timeman import Limits, budget

SUDDEN = const(0)
FISCHER = const(1)
BRONSTEIN = const(2)
KIND_NAMES = ("sudden death", "Fischer", "Bronstein")

_FORMAT = const(1)
_PRESET_KEY = const(100)  # source keys: 100 + preset, 1 + level index for clock levels
RECORD_BYTES = const(27)


class ClockError(ValueError):
    """A malformed time control or clock record."""


class TimeControl:
    """`name` (display, <= 16 characters), `stages` ((moves, base_ms, bonus_ms), ...), `kind`."""

    def __init__(self, name, stages, kind=FISCHER):
        if kind not in (SUDDEN, FISCHER, BRONSTEIN):
            raise ClockError("unknown clock kind %r" % (kind,))
        if not stages or len(stages) > 4:
            raise ClockError("a time control needs 1..4 stages, got %r" % (stages,))
        for st in stages:
            if len(st) != 3 or not all(isinstance(v, int) and 0 <= v < 1 << 29 for v in st):
                raise ClockError("a stage is (moves, base_ms, bonus_ms) of non-negative ints, got %r" % (st,))
            if kind == SUDDEN and st[2]:
                raise ClockError("sudden death has no bonus, got %r" % (st,))
            if st[0] > 255:
                raise ClockError("at most 255 moves per stage, got %r" % (st,))
        if stages[0][1] <= 0:
            raise ClockError("the first stage needs time, got %r" % (stages[0],))
        self.name = name
        self.stages = tuple(tuple(st) for st in stages)
        self.kind = kind


# The clocks a player can choose in the options menu ("Clock"); index 0 is "off" (the level's
# own clock on the clock levels, none otherwise). Indices are stored in the settings: append only.
PRESETS = (
    None,
    TimeControl("5 min", ((0, 300000, 0),), SUDDEN),
    TimeControl("10 min", ((0, 600000, 0),), SUDDEN),
    TimeControl("3+2 Fischer", ((0, 180000, 2000),), FISCHER),
    TimeControl("15+10 Fischer", ((0, 900000, 10000),), FISCHER),
    TimeControl("5 min d3 Bronst", ((0, 300000, 3000),), BRONSTEIN),
    TimeControl("25 min d10 Bronst", ((0, 1500000, 10000),), BRONSTEIN),
    TimeControl("40/90+30+30s", ((40, 5400000, 0), (0, 1800000, 30000)), FISCHER),
    TimeControl("40/2h repeating", ((40, 7200000, 0),), SUDDEN),
)


def preset_name(index):
    return "off" if index <= 0 or index >= len(PRESETS) else PRESETS[index].name


def format_ms(ms):
    """'m:ss' (or 'h:mm:ss' from an hour on) of a time left; negative shows as 0:00."""
    s = ms // 1000 if ms > 0 else 0
    if s >= 3600:
        return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)
    return "%d:%02d" % (s // 60, s % 60)


def _put32(buf, i, v):
    buf[i] = (v >> 24) & 0xFF
    buf[i + 1] = (v >> 16) & 0xFF
    buf[i + 2] = (v >> 8) & 0xFF
    buf[i + 3] = v & 0xFF


def _get32(data, i):
    return data[i] << 24 | data[i + 1] << 16 | data[i + 2] << 8 | data[i + 3]


def start(c, key):
    """The GameClock of source `key` for controller `c` (None: no such clock)."""
    clock = GameClock()
    if key >= _PRESET_KEY:
        if key - _PRESET_KEY >= len(PRESETS):
            return None
        clock.configure(PRESETS[key - _PRESET_KEY])
    else:
        total, inc, moves = c.computer.clock_ms(key - 1)
        clock.reset(total, inc, moves)
        if not clock.enabled:
            return None
    clock.source = key
    data = c.clock_restore
    c.clock_restore = None
    if data is not None:
        try:
            if GameClock.source_of(data) == key:
                clock.restore(data)
        except ClockError:
            pass
    c.clock_text = clock.text(0)
    return clock


class GameClock:
    def __init__(self):
        self.shown = -1  # the seconds on the display
        self.enabled = False
        self.paused = False
        self.source = 0  # who configured it (the controller's key, saved with the record)
        self.stages = ((0, 0, 0),)
        self.kind = FISCHER
        self.remaining = [0, 0]  # White, Black (ms, settled up to since_ms)
        self.moves_done = [0, 0]
        self.stage = [0, 0]
        self.stage_moves = [0, 0]
        self.turn_start = [0, 0]  # remaining when the side's current turn began (Bronstein)
        self.side = -1
        self.since_ms = 0

    # ---- set-up ---------------------------------------------------------------------------
    def configure(self, control):
        """Start both clocks afresh on `control` (a TimeControl)."""
        self.stages = control.stages
        self.kind = control.kind
        base = control.stages[0][1]
        for i in (0, 1):
            self.remaining[i] = base
            self.turn_start[i] = base
            self.moves_done[i] = 0
            self.stage[i] = 0
            self.stage_moves[i] = 0
        self.enabled = True
        self.paused = False
        self.side = -1

    def reset(self, total_ms, inc_ms=0, moves=0):
        """One Fischer stage: `total_ms` per side (again every `moves` moves if > 0), plus
        `inc_ms` per move. total_ms <= 0 disables the clock."""
        if total_ms <= 0:
            self.disable()
            return
        self.configure(TimeControl("", ((moves, total_ms, inc_ms),), FISCHER))

    def disable(self):
        self.enabled = False
        self.paused = False
        self.side = -1

    # ---- running --------------------------------------------------------------------------
    def _settle(self, now_ms):
        if self.side >= 0:
            i = self.side >> 3
            self.remaining[i] -= ticks_diff(now_ms, self.since_ms)
            self.since_ms = now_ms

    def run(self, side, now_ms):
        """Let `side`'s clock run from now (-1: stop both)."""
        if not self.enabled:
            return
        if side == self.side:
            return
        self._settle(now_ms)
        self.side = side
        self.since_ms = now_ms

    def moved(self, side, now_ms=None):
        """`side` (0/8) completed a move: settle its time (when `now_ms` is given), apply the
        stage's bonus, count the move and enter the next stage when this one is done."""
        if not self.enabled:
            return
        i = side >> 3
        if now_ms is not None and self.side == side:
            self._settle(now_ms)
        stage = self.stages[self.stage[i]]
        bonus = stage[2]
        if self.kind == BRONSTEIN:
            used = self.turn_start[i] - self.remaining[i]
            if used < 0:
                used = 0
            self.remaining[i] += used if used < bonus else bonus
        elif self.kind == FISCHER:
            self.remaining[i] += bonus
        self.moves_done[i] += 1
        self.stage_moves[i] += 1
        if stage[0] and self.stage_moves[i] >= stage[0]:
            if self.stage[i] + 1 < len(self.stages):
                self.stage[i] += 1
            self.stage_moves[i] = 0
            self.remaining[i] += self.stages[self.stage[i]][1]
        self.turn_start[i ^ 1] = self.left_ms(side ^ 8, now_ms) if now_ms is not None else self.remaining[i ^ 1]

    def undo(self, side):
        """A move of `side` was taken back: it will be made again (times stay as they are,
        like on a real clock; only the move counts go back)."""
        i = side >> 3
        if self.moves_done[i]:
            self.moves_done[i] -= 1
        if self.stage_moves[i]:
            self.stage_moves[i] -= 1

    def left_ms(self, side, now_ms):
        i = side >> 3
        left = self.remaining[i]
        if self.side == side and now_ms is not None:
            left -= ticks_diff(now_ms, self.since_ms)
        return left

    def flag(self, now_ms):
        """The side (0 or 8) whose time has run out, or -1."""
        if self.enabled and self.side >= 0 and self.left_ms(self.side, now_ms) <= 0:
            return self.side
        return -1

    def moves_to_go(self, side):
        """Moves `side` still has to make in its current stage (0: the rest of the game)."""
        i = side >> 3
        n = self.stages[self.stage[i]][0]
        return n - self.stage_moves[i] if n else 0

    def state(self, now_ms, stm=0):
        """The clocks for the engine's time manager, or None when disabled. A Bronstein
        delay counts as an increment there (it is given back as long as the move is quick)."""
        if not self.enabled:
            return None
        w = self.left_ms(0, now_ms)
        b = self.left_ms(8, now_ms)
        inc_w = self.stages[self.stage[0]][2] if self.kind != SUDDEN else 0
        inc_b = self.stages[self.stage[1]][2] if self.kind != SUDDEN else 0
        return {"wtime_ms": w if w > 1 else 1, "btime_ms": b if b > 1 else 1,
                "winc_ms": inc_w, "binc_ms": inc_b, "movestogo": self.moves_to_go(stm)}

    def text(self, now_ms):
        """'m:ss m:ss' (White first) for the display."""
        return format_ms(self.left_ms(0, now_ms)) + " " + format_ms(self.left_ms(8, now_ms))

    # ---- the controller's hooks -------------------------------------------------------------
    def tick(self, c, now_ms):
        """Every pass: run the clock of the side to move (while the game goes on and no menu
        is open), update the display text once a second, make the flag fall."""
        phase = c.phase
        running = -1
        if (phase == 0 or phase == 1) and not c.paused and not self.paused and not c.menu:  # PLAYER, THINKING
            running = c.game.position.stm
        self.run(running, now_ms)
        if running >= 0:
            shown = self.left_ms(running, now_ms) // 1000
            if shown != self.shown:
                self.shown = shown
                c.clock_text = self.text(now_ms)
                c.dirty = True
        side = self.flag(now_ms)
        if side >= 0 and not c.game.over:
            time_out(c.game, side)
            c.game_over(now_ms)

    def button(self, c, now_ms):
        """The clock button: pause / restart."""
        self.run(-1, now_ms)
        self.paused = not self.paused
        c.to_journal("record_clock", self.to_bytes(now_ms))
        c.clock_text = self.text(now_ms)
        c.say("Clock paused" if self.paused else "Clock running", now_ms)
        c.ui.beep("click")

    def cap(self, limits, state, side):
        """A running clock caps the time of a level that is not a clock level."""
        if limits.infinite:
            return
        cap = Limits(wtime_ms=state["wtime_ms"], btime_ms=state["btime_ms"], winc_ms=state["winc_ms"],
                     binc_ms=state["binc_ms"], movestogo=state["movestogo"])
        hard = budget(cap, side)[1]
        if not limits.movetime_ms or limits.movetime_ms > hard:
            limits.movetime_ms = hard

    # ---- the journal record -----------------------------------------------------------------
    def to_bytes(self, now_ms=None):
        """RECORD_BYTES bytes: format, source, then per side the time left (ms, never below 0),
        moves made, stage, moves in the stage and the time at the start of its turn; last a
        flags byte (1: paused)."""
        out = bytearray(RECORD_BYTES)
        out[0] = _FORMAT
        out[1] = self.source & 0xFF
        for i in (0, 1):
            left = self.left_ms(i << 3, now_ms)
            _put32(out, 2 + 4 * i, left if left > 0 else 0)
            out[10 + 2 * i] = (self.moves_done[i] >> 8) & 0xFF
            out[11 + 2 * i] = self.moves_done[i] & 0xFF
            out[14 + i] = self.stage[i]
            out[16 + i] = self.stage_moves[i]
            start = self.turn_start[i]
            _put32(out, 18 + 4 * i, start if start > 0 else 0)
        out[26] = 1 if self.paused else 0
        return bytes(out)

    @staticmethod
    def source_of(data):
        """The source byte of a record (ClockError if it is not one)."""
        if len(data) != RECORD_BYTES or data[0] != _FORMAT:
            raise ClockError("not a clock record (%d bytes)" % len(data))
        return data[1]

    def restore(self, data):
        """Take the times and counts of a record (the clock must be configured with the same
        control first; it stays stopped until run())."""
        self.source_of(data)
        for i in (0, 1):
            if data[14 + i] >= len(self.stages):
                raise ClockError("clock record stage %d out of range" % data[14 + i])
        for i in (0, 1):
            self.remaining[i] = _get32(data, 2 + 4 * i)
            self.moves_done[i] = data[10 + 2 * i] << 8 | data[11 + 2 * i]
            self.stage[i] = data[14 + i]
            self.stage_moves[i] = data[16 + i]
            self.turn_start[i] = _get32(data, 18 + 4 * i)
        self.paused = data[26] & 1 == 1
        self.side = -1


def time_out(game, colour):
    """`colour`'s clock ran out: a loss, or a draw when the opponent cannot mate at all. (Here,
    not in Game: only a clock level's game runs out of time, so the board's resident Game does
    not carry it.)"""
    if rules._side_insufficient(game.position, colour ^ 8):
        game.finish(RESULT_DRAW, TIMEOUT)
    else:
        game.finish(RESULT_BLACK if colour == 0 else RESULT_WHITE, TIMEOUT)
