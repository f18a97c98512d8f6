"""The end of a game and the statistics (controller/flow.py, Controller.act: loaded for the
call and released after): the game's end shown and counted, a counted end taken back, and
the calls of features/stats.py. Its own module, not one of features/actions.py's, so that
the end of a game, when the heap holds the most, loads ~1 KB of code here besides the
statistics' instead of the actions' 5 KB. Each function takes the Controller as `self`.
"""
from firmware.compat import const
from firmware.controller import ui as _ui
from firmware.controller.game import RESULT_DRAW
from firmware.controller.settings import NOBODY, SETS
from firmware.loader import borrow, release

_STATS = "firmware.features.stats"  # loaded for each call of stats_call

_T_RUN = const(2)  # features.trainer states
_T_DONE = const(3)
_WIN = const(0)  # features.stats outcomes
_DRAW = const(1)
_LOSS = const(2)


def game_over(self, now_ms):
    self.to_journal("record_end", self.game.result, self.game.reason)
    count_end(self)
    self.abort_search()
    self.pv_text = ""
    self.phase = _ui.OVER
    self.ponder_move = 0
    self.clear_overlays()
    self.ui.beep("game_over")


def stats_call(self, name, *args):
    """Call Stats.`name` (features/stats.py) on the statistics file beside the journal,
    loaded for this call and released after. Returns its result; None without statistics
    (a failing flash turns them off for good: the game goes on)."""
    j = self.journal
    if j is None or not self.stats_ok:
        return None
    stats = borrow(_STATS)
    try:
        st = stats.Stats(j.path, j.open_fn, j.fs, self.level_count, len(SETS))
        st.load()
        return getattr(st, name)(*args)
    except OSError as exc:
        self.stats_ok = False
        if self.log:
            self.log("statistics disabled: %s" % (exc,))
    finally:
        st = stats = None
        release(_STATS)


def count_end(self):
    """The game ended: count it (trainer result, or a game against the computer)."""
    t = self.trainer
    if t is not None:
        if t.state == _T_RUN:
            t.count(self)
        return
    if self.online is not None:
        return
    side = self.settings.computer_side
    if side == NOBODY or self.counted >= 0:
        return
    result = self.game.result
    if result == RESULT_DRAW:
        outcome = _DRAW
    elif (result == "1-0") == (side == 8):
        outcome = _WIN
    else:
        outcome = _LOSS
    self.counted = outcome
    self.counted_level = self.settings.level
    stats_call(self, "record_game", self.settings.level, outcome)


def uncount(self):
    """A finished game was taken back: it is not over after all."""
    if self.counted >= 0:
        stats_call(self, "record_game", self.counted_level, self.counted, -1)
        self.counted = -1
    t = self.trainer
    if t is not None and t.state == _T_DONE:
        t.state = _T_RUN
        t.outcome = 0
