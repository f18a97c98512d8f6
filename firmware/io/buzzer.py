"""Piezo buzzer on a PWM output: non-blocking beep patterns.

    buzzer = Buzzer(pwm)              # pwm.freq(hz), pwm.duty_u16(0..65535)
    buzzer.play(CONFIRM)              # starts at the next update()
    buzzer.update(now_ms)             # every loop; allocates nothing

A pattern is a flat tuple of (frequency_hz, duration_ms) pairs; frequency 0 is a pause.
Playing a new pattern replaces the current one. `mute = True` silences everything.
"""
from firmware.compat import ticks_add, ticks_diff
from firmware.io import IoError

CLICK = (2000, 15)
CONFIRM = (1500, 60, 0, 40, 2000, 80)
ERROR = (300, 250, 0, 80, 300, 250)
ALERT = (2500, 100, 0, 100, 2500, 100, 0, 100, 2500, 100)
GAME_OVER = (1200, 150, 900, 150, 600, 400)

PATTERNS = {"click": CLICK, "confirm": CONFIRM, "error": ERROR, "alert": ALERT, "game_over": GAME_OVER}


BuzzerError = IoError  # A malformed pattern or volume.


class Buzzer:
    def __init__(self, pwm, volume_u16=32768):
        if pwm is None:
            raise BuzzerError("Buzzer needs a PWM object")
        if not 0 <= volume_u16 <= 65535:
            raise BuzzerError("volume_u16 must be 0..65535, got %r" % (volume_u16,))
        self._pwm = pwm
        self.volume_u16 = volume_u16
        self.mute = False
        self._pattern = None
        self._step = -1  # index of the pair playing now; -1 = waiting to start
        self._step_start_ms = 0
        pwm.duty_u16(0)

    @property
    def busy(self):
        return self._pattern is not None

    def play(self, pattern):
        """Queue `pattern` (replacing any playing one); it starts at the next update()."""
        if not isinstance(pattern, tuple) or not pattern or len(pattern) % 2:
            raise BuzzerError("a beep pattern is a tuple of (frequency_hz, duration_ms) pairs, got %r" % (pattern,))
        for i in range(0, len(pattern), 2):
            f, d = pattern[i], pattern[i + 1]
            if not (isinstance(f, int) and (f == 0 or 20 <= f <= 20000) and isinstance(d, int) and 0 < d <= 10000):
                raise BuzzerError("bad beep step %r: frequency 0 or 20..20000 Hz, duration 1..10000 ms" % ((f, d),))
        self._pattern = pattern
        self._step = -1

    def stop(self):
        self._pattern = None
        self._pwm.duty_u16(0)

    def _start_step(self, step, now_ms):
        self._step = step
        self._step_start_ms = now_ms
        f = self._pattern[step * 2]
        if f and not self.mute:
            self._pwm.freq(f)
            self._pwm.duty_u16(self.volume_u16)
        else:
            self._pwm.duty_u16(0)

    def update(self, now_ms):
        pattern = self._pattern
        if pattern is None:
            return
        if self._step < 0:
            self._start_step(0, now_ms)
            return
        # Advance over every step that has ended (a late update skips steps, keeps timing).
        while ticks_diff(now_ms, self._step_start_ms) >= pattern[self._step * 2 + 1]:
            start = ticks_add(self._step_start_ms, pattern[self._step * 2 + 1])
            if (self._step + 1) * 2 >= len(pattern):
                self.stop()
                return
            self._start_step(self._step + 1, start)
