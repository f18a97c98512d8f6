"""The controller's rare actions, loaded on the button press and released after
(controller/flow.py, Controller.act): take back, verify the board, claim a draw, the
two-player toggle, the level and options menus' buttons, the hint, the trainer's
start and end, and resuming the journal's game at
boot. Each takes the Controller as `self` (the code was its methods).
"""
from firmware.compat import const, ticks_add
from firmware.controller import ui as _ui
from firmware.controller.flow import STOP_NONE, STOP_USE, WORK_NONE, WORK_THINK
from firmware.controller.game import RESULT_DRAW
from firmware.controller.settings import NOBODY, SETS
from firmware.engine import rules
from firmware.engine.constants import to_sq64
from firmware.engine.constants import START_FEN
from firmware.loader import call

_MENU_MS = const(6000)  # an untouched menu closes after this
_LONG = const(2)  # copy of firmware.io.buttons.LONG
_PROMOTE_MS = const(5000)  # copy of firmware.controller.flow._PROMOTE_MS
_PROMO_CYCLE = b"\x05\x04\x03\x02"  # queen, rook, bishop, knight

PLAYER = _ui.PLAYER
THINKING = _ui.THINKING
SHOWING = _ui.SHOWING
PROMOTE = _ui.PROMOTE
OFFER = _ui.OFFER


def boot(self, saved, now_ms, start_fen=None):
    """Resume `saved` (a journal.SavedGame, or None for a fresh start from `start_fen`).
    True when a fresh game was set up: Controller.boot then starts its journal record, once
    this module is dropped (the journal's rare code then does not share the heap with it)."""
    started = False
    j = self.journal
    if j is not None and j.files.exists(j.files.name("online.keep")):
        saved = call("firmware.features.online_keep", "restore_at_boot", self, saved, now_ms)  # the local game
    if saved is not None and saved.found:
        try:
            self.game.new(saved.start_fen if saved.start_fen != START_FEN else None)
            for m in saved.moves:
                self.game.push(m)
            if saved.result != "*":
                self.game.finish(saved.result, saved.reason)
            elif self.game.check_end():
                # its last move ended it (mate, a full game record, ...) but the power went
                # before the end was written: write it now, or the unit would play on
                self.to_journal("record_end", self.game.result, self.game.reason)
            started = True
            if not self.game.over and self.journal is not None and self.journal.files.exists(
                    self.journal.files.name("online.run")):
                self.hold("online").resume(self, now_ms)  # an online game: wait for the server
            self.clock_restore = getattr(saved, "clock", None)
            if 0 < self.settings.trainer <= len(SETS):
                self.trainer = self.hold("trainer").Trainer()
                self.trainer.resume(self.settings.trainer - 1, self.settings.computer_side ^ 8, self.game.over)
        except ValueError:
            self.game.new()
    if not started:
        self.settings.trainer = 0
        self.game.new(start_fen)
    # A resumed game waits for the board to be checked; a fresh one too if the pieces
    # are not on their squares yet.
    self.paused = False
    self.want_touch()
    self.enter_play(now_ms)
    want_eboard(self)  # a board switched on in the e-board mode is in it at once
    return not started


def takeback(self, now_ms, physical=False):
    """Take back one move: by button (the LEDs then guide the pieces back) or because
    the sync saw the board reversed (`physical`: the board already shows it)."""
    self.abort_search()
    self.clear_overlays()
    self.ponder_move = 0
    self.mate_in = None
    self.menu = _ui.MENU_NONE
    phase = self.phase
    if phase in (SHOWING, OFFER):
        self.shown_move = 0  # the computer's move was never made: forget it
        self.sync.expect_move(0)
        if not physical:
            self.paused = True
            self.enter_play(now_ms)
            return
    if phase == PROMOTE:
        self.promo_move = 0
    pos = self.game.position
    if not pos.ply:
        self.ui.beep("error")
        self.enter_play(now_ms, check_board=not physical)
        return
    move = self.game.last_move()
    captured = pos.captured_at(pos.ply - 1)
    if self.game.over:
        self.act("uncount")
    if self.clock is not None:
        self.clock.undo(pos.stm ^ 8)
    self.game.pop()
    if phase != PROMOTE:
        self.to_journal("record_undo")
    if not physical:
        to = (move >> 7) & 127
        if move >> 17 == 2:
            to = to - 16 if to > (move & 127) else to + 16
            captured = 1
        if captured:
            cell = to_sq64(to)
            self.reappear[cell >> 3] |= 1 << (cell & 7)
    self.paused = self.settings.computer_side != NOBODY
    self.ui.beep("confirm")
    self.enter_play(now_ms, check_board=not physical)


def verify(self, now_ms):
    self.abort_search()
    self.clear_overlays()
    if self.phase in (SHOWING, OFFER):
        self.shown_move = 0
        self.sync.expect_move(0)
    self.enter_play(now_ms, verify=True)


def claim_draw(self, now_ms):
    if self.phase not in (PLAYER, THINKING) or self.computer_to_move() and self.phase == THINKING:
        self.ui.beep("error")
        return
    reason = self.game.claimable_draw()
    if reason == rules.ONGOING:
        self.say("No draw to claim", now_ms)
        self.ui.beep("error")
        return
    self.game.finish(RESULT_DRAW, reason)
    self.game_over(now_ms)


def toggle_two_player(self, now_ms):
    s = self.settings
    if s.computer_side == NOBODY:
        s.computer_side = self.saved_side
        self.say("Computer: " + ("White" if s.computer_side == 0 else "Black"), now_ms)
    else:
        self.saved_side = s.computer_side
        s.computer_side = NOBODY
        self.say("Two players", now_ms)
    self.to_journal("record_settings", s.to_bytes())
    if self.phase in (PLAYER, THINKING):
        self.abort_search()
        self.paused = False
        self.phase = THINKING if self.computer_to_move() else PLAYER
    self.dirty = True


def menu_button(self, name, kind, now_ms):
    """Handle a press while a menu is open; False lets the press act normally."""
    s = self.settings
    self.menu_deadline = ticks_add(now_ms, _MENU_MS)
    self.dirty = True
    count = self.level_count
    level_menu = self.menu == _ui.MENU_LEVEL
    if not level_menu and name in ("level", "takeback", "hint"):
        self.hold("options").button(self, name, kind)
    elif level_menu and name == "level" and kind != _LONG:
        s.level = (s.level + 1) % count
    elif level_menu and name == "takeback":
        s.level = (s.level - 1) % count
    elif name in ("ok", "move"):
        close_menu(self, now_ms)
    elif level_menu and name == "level":
        self.menu = _ui.MENU_OPTIONS
        self.menu_index = 0
    else:
        close_menu(self, now_ms)
        return False
    self.ui.beep("click")
    return True


def close_menu(self, now_ms):
    if self.menu != _ui.MENU_NONE:
        self.menu = _ui.MENU_NONE
        self.dirty = True
        if self.settings.eboard:
            self.settings.trainer = 0  # the host plays through the e-board, not the trainer
        self.to_journal("record_settings", self.settings.to_bytes())
        # start or leave the trainer if its setting changed
        t = self.trainer
        want = self.settings.trainer
        if want and (t is None or t.set_index != want - 1):
            trainer_begin(self, now_ms)
        elif not want and t is not None:
            self.trainer = None
            self.new_game(now_ms)
        self.want_touch()
        want_eboard(self)
        self.tidy()


def want_eboard(self):
    """The e-board mode as the settings want it (features/eboard.py): started, changed to
    the other protocol, or left (the console gets the serial link back)."""
    kind = self.settings.eboard
    eb = self.eboard
    if eb is not None and eb.kind == kind:
        return
    if eb is not None:
        self.eboard = None
        eb.leave()
    if kind:
        self.abort_search()
        self.ponder_move = 0
        self.eboard = self.hold("eboard").EBoard(self, kind)
    if self.phase in (PLAYER, THINKING) and not self.game.over:
        self.phase = THINKING if self.computer_to_move() and not self.paused else PLAYER
    self.dirty = True
    self.tidy()


def hint(self, now_ms):
    if self.phase != PLAYER or self.game.over:
        self.ui.beep("error")
        return
    if self.ponder_move and self.game.is_legal(self.ponder_move):
        self.hint_move = self.ponder_move
        self.dirty = True
    else:
        self.hint_wanted = True
        self.say("Thinking...", now_ms)


def trainer_begin(self, now_ms, swap=False):
    if self.trainer is None:
        self.trainer = self.hold("trainer").Trainer()
    self.trainer.start(self, now_ms, swap)


def leave_trainer(self, now_ms):
    """Normal play again (the caller starts the next game)."""
    if self.trainer is not None:
        self.trainer = None
        self.tidy()
    if self.settings.trainer:
        self.settings.trainer = 0
        self.to_journal("record_settings", self.settings.to_bytes())


def init(self, game, sync, settings, occupancy, ui, journal, computer, log):
    """Controller.__init__."""
    self.game = game
    self.computer = computer
    self.sync = sync
    self.settings = settings
    self.occupancy = occupancy  # the debouncer's stable bytearray(8), read-only here
    self.ui = ui
    self.journal = journal
    self.level_count = computer.level_count() if computer is not None else 1
    self._level_named = -1
    self._level_text = ""
    self.log = log
    self.phase = PLAYER
    self.dirty = True
    self.paused = False
    self.stop = STOP_NONE
    self.searching = WORK_NONE
    self.ponder_hit = False
    self.ponder_move = 0  # the player's move the engine expects (ponder on it)
    self.ponder_tried = False
    self.ponder_outcome = None  # a ponder search that finished before the player moved
    self.ponder_hits = 0
    self.ponder_misses = 0
    self.hint_wanted = False
    self.hint_move = 0
    self.shown_move = 0
    self.shown_san = ""
    self.expected_reply = 0  # the computer's predicted reply to its shown move
    self.promo_move = 0
    self.promo_kind = 5
    self.promo_deadline = 0
    self.menu = _ui.MENU_NONE
    self.menu_index = 0
    self.menu_deadline = 0
    self.message = ""
    self.message_deadline = 0
    self.targets = ()
    self.errors_shown = False
    self.err_clear = bytearray(8)
    self.err_fill = bytearray(8)
    self.reappear = bytearray(8)
    self.verify_since = -1
    self.score_cp = None
    self.mate_in = None
    self.depth = 0
    self.bad_searches = 0
    self.resign_declined = False
    self.journal_ok = journal is not None
    self.saved_side = 8  # the computer's side before two-player mode
    self._expected = bytearray(8)
    self.stats_ok = journal is not None
    self.stats_page = 0
    self.counted = -1  # the outcome this game added to the statistics (-1 none)
    self.counted_level = 0
    self.nodes = 0
    self.pv_text = ""
    self.clock = None  # features on demand (see the module docstring)
    self.clock_key = -1
    self.clock_text = ""
    self.clock_restore = None  # a journal clock record waiting for its clock
    self.touch = None
    self.trainer = None
    self.trainer_seed = 0
    self.online = None  # features.online's game while playing online (its side is the computer's)
    self.eboard = None  # features.eboard's mode while the board is an e-board (the engine does not move)


def on_button(self, name, kind, now_ms):
    if self.message:
        self.message = ""
        self.dirty = True
    if self.menu != _ui.MENU_NONE and menu_button(self, name, kind, now_ms):
        return
    phase = self.phase
    if phase == PROMOTE and promote_button(self, name, kind, now_ms):
        return
    if self.online is not None and self.online.button(self, name, kind, now_ms):
        return
    if self.eboard is not None and (name == "move" or name == "mode" and kind != _LONG):
        self.ui.beep("error")  # the host plays, not the board's engine
        return
    if phase == OFFER and name in ("new", "move", "ok"):
        if name == "new":
            self.game.resign(self.settings.computer_side & 8)
            self.to_journal("record_end", self.game.result, self.game.reason)
            self.act("count_end")
            self.new_game(now_ms)
        else:
            self.resign_declined = True
            self.show_computer_move(self.shown_move, now_ms)
        return
    if self.trainer is not None and (name == "mode" or name == "move" and (kind == _LONG or phase == PLAYER)):
        self.ui.beep("error")  # the trainer's sides are fixed
        return
    if name == "new":
        if self.trainer is not None:
            self.trainer.start(self, now_ms, kind == _LONG)
        else:
            self.new_game(now_ms, swap_sides=kind == _LONG)
    elif name == "level":
        self.menu = _ui.MENU_OPTIONS if kind == _LONG else _ui.MENU_LEVEL
        self.menu_index = 0
        self.menu_deadline = ticks_add(now_ms, _MENU_MS)
        self.dirty = True
        self.ui.beep("click")
    elif name == "mode" and kind == _LONG:
        self.menu = _ui.MENU_OPTIONS
        self.menu_index = 0
        self.menu_deadline = ticks_add(now_ms, _MENU_MS)
        self.dirty = True
    elif name == "takeback":
        if kind == _LONG:
            verify(self, now_ms)
        else:
            takeback(self, now_ms)
    elif name == "setup":
        verify(self, now_ms)
    elif name == "hint":
        if kind == _LONG:
            claim_draw(self, now_ms)
        else:
            hint(self, now_ms)
    elif name == "move":
        if kind == _LONG:
            toggle_two_player(self, now_ms)
        else:
            move_button(self, now_ms)
    elif name == "mode":
        toggle_two_player(self, now_ms)
    elif name == "clock" or name == "ok" and self.clock is not None:
        if self.clock is None or self.game.over:
            self.ui.beep("error")
        else:
            self.clock.button(self, now_ms)


def promote_button(self, name, kind, now_ms):
    if name in ("level", "hint"):
        i = 0
        while _PROMO_CYCLE[i] != self.promo_kind:
            i += 1
        self.promo_kind = _PROMO_CYCLE[(i + 1) % 4]
        self.promo_deadline = ticks_add(now_ms, _PROMOTE_MS)
        self.dirty = True
        self.ui.beep("click")
        return True
    if name in ("move", "ok"):
        # chosen: the promotion's time is up now, and the next tick (resident, in the same
        # main-loop pass) finishes it with this module dropped: a promotion that mates loads
        # the actions and the statistics again for the game's end, which with this module
        # still loaded went over a stock Pico's 200 KB (tests/test_fit_pico.py)
        self.promo_deadline = now_ms
        self.dirty = True
        return True
    return False


def move_button(self, now_ms):
    phase = self.phase
    if phase == THINKING and self.searching == WORK_THINK:
        self.stop = STOP_USE
    elif phase == PLAYER and not self.game.over:
        self.abort_search()
        self.settings.computer_side = self.game.position.stm
        self.to_journal("record_settings", self.settings.to_bytes())
        self.paused = False
        self.clear_overlays()
        self.phase = THINKING
        self.dirty = True
    else:
        self.ui.beep("error")


def button_event(self, app, ev, now_ms):
    """A button event of app.buttons (index | kind << 4): two buttons together are the clock
    button (chord_name), then on_button."""
    name = chord_name(app, ev & 15)
    if name is not None:
        self.on_button(name, ev >> 4, now_ms)  # the Controller's (a hook tests and tools replace)


def chord_name(self, index):
    """App: two buttons pressed together are the clock button: the first event of the pair
    becomes "clock", the other button's next event is dropped. None: drop this one."""
    bit = 1 << index
    if self._chord & bit:
        self._chord &= ~bit
        return None
    buttons = self.buttons
    for i in range(len(self.button_names)):
        if i != index and buttons.is_pressed(i) and not self._chord & (1 << i):
            self._chord |= 1 << i
            return "clock"
    return self.button_names[index]
