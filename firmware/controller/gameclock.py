"""Chess clocks for the clock levels (blitz, rapid, tournament): one countdown per side.

    clock = GameClock()
    clock.reset(300000, inc_ms=2000, moves=0)   # per side; moves > 0: time added per control
    clock.run(side, now_ms)                     # side 0 White, 8 Black, -1 stopped
    clock.moved(side)                           # after `side` completed a move: increment
    clock.state(now_ms)                         # {"wtime_ms": ..., "btime_ms": ..., ...}
    clock.flag(now_ms)                          # the side whose time is up, or -1

Only the running side's time goes down; run() with the same side again is cheap (called
every main-loop pass). Times are small ints (a 2-hour game is 7,200,000 ms < 2^30).
"""
from firmware.compat import ticks_diff


class GameClock:
    def __init__(self):
        self.enabled = False
        self.remaining = [0, 0]  # White, Black
        self.moves_done = [0, 0]
        self.total_ms = 0
        self.inc_ms = 0
        self.moves = 0
        self.side = -1
        self.since_ms = 0

    def reset(self, total_ms, inc_ms=0, moves=0):
        self.enabled = total_ms > 0
        self.remaining[0] = self.remaining[1] = total_ms
        self.moves_done[0] = self.moves_done[1] = 0
        self.total_ms = total_ms
        self.inc_ms = inc_ms
        self.moves = moves
        self.side = -1

    def disable(self):
        self.enabled = False
        self.side = -1

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

    def moved(self, side):
        if not self.enabled:
            return
        i = side >> 3
        self.remaining[i] += self.inc_ms
        self.moves_done[i] += 1
        if self.moves and self.moves_done[i] % self.moves == 0:
            self.remaining[i] += self.total_ms

    def left_ms(self, side, now_ms):
        i = side >> 3
        left = self.remaining[i]
        if self.side == side:
            left -= ticks_diff(now_ms, self.since_ms)
        return left

    def state(self, now_ms):
        if not self.enabled:
            return None
        mtg = 0
        if self.moves:
            mtg = self.moves - self.moves_done[0] % self.moves
        w = self.left_ms(0, now_ms)
        b = self.left_ms(8, now_ms)
        return {"wtime_ms": w if w > 1 else 1, "btime_ms": b if b > 1 else 1,
                "winc_ms": self.inc_ms, "binc_ms": self.inc_ms, "movestogo": mtg}

    def flag(self, now_ms):
        """The side (0 or 8) whose time has run out, or -1."""
        if self.enabled and self.side >= 0 and self.left_ms(self.side, now_ms) <= 0:
            return self.side
        return -1

    def text(self, now_ms):
        """'m:ss m:ss' for the display."""
        parts = []
        for side in (0, 8):
            s = self.left_ms(side, now_ms) // 1000
            if s < 0:
                s = 0
            parts.append("%d:%02d" % (s // 60, s % 60))
        return " ".join(parts)
