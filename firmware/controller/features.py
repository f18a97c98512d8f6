"""The controller's glue for the trainer and clock features (issue 9), kept out of flow.py.

`Features` is a base class of flow.Controller: its methods use the controller's fields (game,
settings, sync, ui, journal, phase ...) and flow.py calls them at a few hooks:

- clocks: `_run_clock(now_ms)` every tick (configure from the settings' clock preset or the
  level, run the side to move, flag fall), `_clock_moved(side, now_ms)` after each move
  (bonus, journal record), `_clock_button(now_ms)` (pause), `limits_for(...)` (engine limits
  with the clock as a cap), `clock_state(now_ms)`;
- touch-move: `_touch_lifted()`, `_touch_put_back(now_ms)`, `_touch_refuses(move, now_ms)`;
- mate trainer: `_trainer_begin(now_ms)`, `_trainer_leave(now_ms)`, `_trainer_setting(now_ms)`
  (after the options menu closed), `_trainer_tick(now_ms)`, `_trainer_after_move(by_computer)`;
- statistics: `_count_end()` at every game end, `_uncount()` when a finished game is taken
  back, `stats_lines()`, `trainer_record()`;
- evaluation display: `search_info(...)` keeps score, depth, nodes and the line (PV) in SAN.

Time comes in as `now_ms`; a failing flash never stops play (`_journal` / `_stats_call`).
"""
# pyright: reportAttributeAccessIssue=false
# (the fields used here are the Controller's, set in flow.Controller.__init__)
from firmware.compat import const
from firmware.controller import trainer as _trainer
from firmware.controller import ui as _ui
from firmware.controller.gameclock import PRESETS, ClockError, GameClock
from firmware.controller.settings import NOBODY
from firmware.controller.stats import DRAW, LOSS, WIN
from firmware.controller.touchmove import TouchMove
from firmware.controller.ui import move_cells
from firmware.engine.notation import san
from firmware.engine.timeman import Limits, budget

PV_MOVES = const(4)  # moves of the principal variation on the display
_PRESET_KEY = const(100)  # clock source keys: 100 + preset, 1 + level index for clock levels


class Features:
    def _init_features(self, stats):
        self.clock = GameClock()
        self.clock_key = -1
        self.clock_shown = -1
        self.clock_text = ""
        self.clock_restore = None  # a journal clock record waiting for its clock
        self.touch = TouchMove()
        self.trainer = _trainer.Trainer()
        self.trainer_seed = 0
        self.stats = stats
        self.stats_page = 0
        self.counted = -1  # the outcome this game added to the statistics (-1 none)
        self.counted_level = 0
        self.nodes = 0
        self.pv_text = ""

    # ---- flash ------------------------------------------------------------------------------
    def _stats_call(self, name, *args):
        if self.stats is None:
            return
        try:
            getattr(self.stats, name)(*args)
        except OSError as exc:
            self.stats = None
            if self.log:
                self.log("statistics disabled: %s" % (exc,))

    # ---- clocks -------------------------------------------------------------------------------
    def _clock_source(self):
        if self.trainer.active:
            return 0
        s = self.settings
        if 0 < s.clock < len(PRESETS):
            return _PRESET_KEY + s.clock
        comp = self.computer
        if comp is not None and comp.uses_clock(s.level):
            return 1 + s.level
        return 0

    def _configure_clock(self):
        key = self._clock_source()
        if key == self.clock_key:
            return
        self.clock_key = key
        clock = self.clock
        if key >= _PRESET_KEY:
            clock.configure(PRESETS[key - _PRESET_KEY])
        elif key:
            total, inc, moves = self.computer.clock_ms(key - 1)
            clock.reset(total, inc, moves)
        else:
            clock.disable()
        clock.source = key
        data = self.clock_restore
        self.clock_restore = None
        if data is not None and key:
            try:
                if GameClock.source_of(data) == key:
                    clock.restore(data)
            except ClockError:
                pass
        self.clock_shown = -1
        self.clock_text = clock.text(0) if clock.enabled else ""
        self.dirty = True

    def _run_clock(self, now_ms):
        self._configure_clock()
        clock = self.clock
        if not clock.enabled:
            return
        phase = self.phase
        running = -1
        if ((phase == _ui.PLAYER or phase == _ui.THINKING) and not self.paused and not clock.paused
                and self.menu == _ui.MENU_NONE):
            running = self.game.position.stm
        clock.run(running, now_ms)
        if running >= 0:
            shown = clock.left_ms(running, now_ms) // 1000
            if shown != self.clock_shown:
                self.clock_shown = shown
                self.clock_text = clock.text(now_ms)
                self.dirty = True
        side = clock.flag(now_ms)
        if side >= 0 and not self.game.over:
            self.game.time_out(side)
            self._game_over(now_ms)

    def _clock_moved(self, side, now_ms):
        if self.clock.enabled:
            self.clock.moved(side, now_ms)
            self._journal("record_clock", self.clock.to_bytes(now_ms))
            self.clock_shown = -1

    def _clock_button(self, now_ms):
        clock = self.clock
        if not clock.enabled or self.game.over:
            self.ui.beep("error")
            return
        clock.run(-1, now_ms)
        clock.paused = not clock.paused
        self._journal("record_clock", clock.to_bytes(now_ms))
        self.clock_text = clock.text(now_ms)
        self._say("Clock paused" if clock.paused else "Clock running", now_ms)
        self.ui.beep("click")

    def clock_state(self, now_ms):
        """The clocks for limits_for_level (None unless a clock runs)."""
        return self.clock.state(now_ms, self.game.position.stm)

    def limits_for(self, level, now_ms, ponder=False):
        """The engine's Limits for the computer's move (or a ponder search): the trainer's
        defence, else the level's; a running clock caps any level that is not a clock level."""
        if self.trainer.active:
            limits = self.trainer.limits()
            limits.ponder = ponder
            return limits
        comp = self.computer
        side = self.game.position.stm ^ (8 if ponder else 0)
        state = self.clock.state(now_ms, side)
        limits = comp.limits(level, state, ponder)
        if state is not None and not comp.uses_clock(level) and not limits.infinite:
            cap = Limits(wtime_ms=state["wtime_ms"], btime_ms=state["btime_ms"], winc_ms=state["winc_ms"],
                         binc_ms=state["binc_ms"], movestogo=state["movestogo"])
            hard = budget(cap, side)[1]
            if not limits.movetime_ms or limits.movetime_ms > hard:
                limits.movetime_ms = hard
        return limits

    # ---- touch-move ---------------------------------------------------------------------------
    def _touch_lifted(self):
        if self.settings.touch_move and self.phase == _ui.PLAYER and not self.game.over:
            if self.touch.lifted(self.sync.lifted_cell, self.game.position):
                self.dirty = True

    def _touch_put_back(self, now_ms):
        if self.settings.touch_move and self.touch.put_back(self.sync.lifted_cell):
            self._say("Touch move: " + _trainer.square_of_cell(self.touch.cell), now_ms)
            self.ui.beep("error")

    def _touch_refuses(self, move, now_ms):
        """True (and the move refused: the squares to undo blink) when touch-move forbids it."""
        if not self.settings.touch_move or self.phase != _ui.PLAYER or self.touch.allows(move):
            return False
        self.sync.set_position(self.game.position)
        pos = self.game.position
        fill = []
        clear = []
        for cell, _ in move_cells(move):
            sq = (cell >> 3) * 16 + (cell & 7)
            if pos.board[sq]:
                fill.append(cell)  # emptied by the refused move: the piece goes back
            else:
                clear.append(cell)
        self._show_errors(clear, fill)
        self._say("Touch move: " + _trainer.square_of_cell(self.touch.cell), now_ms)
        self.ui.beep("error")
        return True

    # ---- mate trainer ---------------------------------------------------------------------------
    def _trainer_begin(self, now_ms, swap=False):
        """A new exercise of the set in the settings: new game, pieces guided on."""
        s = self.settings
        strong = 8 if s.computer_side == 0 else 0
        if swap:
            strong ^= 8
        self.trainer_seed += 1
        seed = (now_ms * 31 + self.trainer_seed) & 0x3FFFFFF
        start = self.trainer.begin(s.trainer - 1, seed, strong, now_ms)
        s.computer_side = strong ^ 8
        self.new_game(now_ms, start)
        self.phase = _ui.SETUP
        self.dirty = True

    def leave_trainer(self, now_ms):
        """Normal play again (the caller starts the next game)."""
        self._trainer_leave(now_ms)

    def _trainer_leave(self, now_ms):
        self.trainer.stop()
        if self.settings.trainer:
            self.settings.trainer = 0
            self._journal("record_settings", self.settings.to_bytes())

    def _trainer_setting(self, now_ms):
        """The options menu closed: start or leave the trainer if its setting changed."""
        t = self.trainer
        want = self.settings.trainer
        if want and (not t.active or t.set_index != want - 1):
            self._trainer_begin(now_ms)
        elif not want and t.active:
            t.stop()
            self.new_game(now_ms)

    def _trainer_tick(self, now_ms):
        t = self.trainer
        if t.state == _trainer.SETUP and self.phase == _ui.SETUP:
            step = t.step
            wrong = t.wrong_count
            if t.setup_update(self.occupancy, now_ms):
                self.ui.beep("confirm")
                self._enter_play(now_ms)
            elif t.step != step or t.wrong_count != wrong:
                if t.step > step:
                    self.ui.beep("click")
                self.dirty = True
        elif t.state == _trainer.RUN:
            t.tick(now_ms, self.phase == _ui.PLAYER and not self.game.over)

    def _trainer_after_move(self, by_computer):
        if self.trainer.state == _trainer.RUN:
            self.trainer.after_move(self.game, by_computer)

    # ---- statistics -----------------------------------------------------------------------------
    def _count_end(self):
        """The game ended: count it (trainer result, or a game against the computer)."""
        t = self.trainer
        if t.state == _trainer.RUN:
            result = t.finish(self.game)
            self._stats_call("record_trainer", t.set_index, result[0], result[1], result[2])
            self.dirty = True
            return
        side = self.settings.computer_side
        if side == NOBODY or self.counted >= 0 or t.active:
            return
        result = self.game.result
        if result == "1/2-1/2":
            outcome = DRAW
        elif (result == "1-0") == (side == 8):
            outcome = WIN
        else:
            outcome = LOSS
        self.counted = outcome
        self.counted_level = self.settings.level
        self._stats_call("record_game", self.settings.level, outcome)

    def _uncount(self):
        """A finished game was taken back: it is not over after all."""
        if self.counted >= 0:
            self._stats_call("record_game", self.counted_level, self.counted, -1)
            self.counted = -1
        if self.trainer.state == _trainer.DONE:
            self.trainer.state = _trainer.RUN
            self.trainer.outcome = _trainer.NONE

    def stats_lines(self):
        if self.stats is None:
            return ["no statistics"]
        return self.stats.lines(self.level_names, _trainer.SETS)

    def trainer_record(self):
        if self.stats is None:
            return 0, 0, 0, 0
        return self.stats.trainer(self.trainer.set_index)

    # ---- evaluation display -------------------------------------------------------------------------
    def search_info(self, score_cp, mate_in, depth, nodes=0, pv=None):
        """Progress after each finished depth of a THINK search (for the display)."""
        if self.searching != 1:  # WORK_THINK
            return
        self.score_cp = score_cp
        self.depth = depth
        self.nodes = nodes
        if pv and self.settings.show_eval and self.ui.display is not None:
            self.pv_text = self._pv_san(pv)
        if mate_in is not None and mate_in > 0 and mate_in != self.mate_in:
            if self.mate_in is None or mate_in != self.mate_in - 1:
                self.ui.beep("alert")
            self.mate_in = mate_in
        self.dirty = True

    def _pv_san(self, pv):
        """The first PV_MOVES moves of `pv` in SAN, played out on the game position and taken
        back again (only between search iterations: nothing else uses it then)."""
        pos = self.game.position
        words = []
        made = 0
        for m in pv:
            if made == PV_MOVES or pos.ply + 1 >= pos.capacity or not self.game.is_legal(m):
                break
            words.append(san(pos, m))
            pos.make(m)
            made += 1
        for _ in range(made):
            pos.unmake()
        return " ".join(words)

