"""The game flow: what the chess computer does with moves on the board and button presses.

    c = Controller(game, sync, settings, occupancy, ui, journal, computer)
    c.boot(saved_game, now_ms)              # resume from the journal (or a fresh game)
    c.on_event(cell, kind)                  # every debounced LIFT/PLACE (before sync.event)
    c.on_sync(code, now_ms)                 # every code BoardSync.update returns
    c.on_button(name, kind, now_ms)         # SHORT / LONG presses
    c.tick(now_ms)                          # timeouts, board-verify completion
    work = c.engine_work()                  # WORK_NONE / WORK_THINK / WORK_PONDER / WORK_HINT
    c.search_started(work); ...; c.search_done(outcome)   # the App runs the search

No hardware and no clock reads here: time comes in as `now_ms`, LEDs/display are composed by
ui.py from this object's fields, the App (firmware/app.py) runs the engine. Handlers may be
called from inside a running search (through its poll function): they only change state and
set `stop` (STOP_USE: play the best move so far, STOP_DISCARD: throw the search away) or
`ponder_hit`; a new search is only ever started from the top of the main loop.

Phases (ui.py): PLAYER (waiting for a move on the board; the engine may ponder), THINKING
(the computer's turn), SHOWING (the computer's move is lit, waiting for it to be executed),
PROMOTE (choosing the promotion piece), OVER (game end shown), VERIFY (the board must be
brought to the game position: after take back, new game, power-up, or on request), OFFER
(the computer offers to resign), SETUP (the mate trainer guides its pieces onto the board).
Button meanings: docs/playing.md.

Features on demand (firmware/features/, loaded while in use, dropped by `tidy()` after): the
controller holds `clock` (features.clock.GameClock), `touch` (features.touch.TouchMove) and
`trainer` (features.trainer.Trainer), each None while unused, and calls a few hook methods on
them; the options menu (features.options) is loaded while it is open, the statistics
(features.stats) for each count or look (`stats_call`). `eboard` (features.eboard.EBoard)
is held while the board speaks an e-board protocol: it sees every event, the App hands it
the serial link's bytes instead of the console, and the engine does not move.
"""
from firmware.compat import const, ticks_add, ticks_diff
from firmware.controller import ui as _ui
from firmware.controller.board_sync import (
    EXECUTED,
    IDLE,
    ILLEGAL,
    LIFTED,
    MOVE,
    PUT_BACK,
    RESTORED,
    START_POSITION,
    TAKEBACK,
    UNEXPLAINED,
    WRONG,
    occupancy_of,
    same,
)
from firmware.controller.game import RESULT_DRAW, IllegalGameMoveError
from firmware.controller.settings import NOBODY
from firmware.engine import rules
from firmware.engine.constants import from_sq64, to_sq64
from firmware.engine.constants import START_FEN
from firmware.engine.notation import san
from firmware import loader

_TYPE_CHECKING = const(0)  # the names the field declarations use, for the type checker only
if _TYPE_CHECKING:
    from typing import Callable

    from firmware.controller.board_sync import BoardSync
    from firmware.controller.computer import Computer
    from firmware.controller.game import Game
    from firmware.controller.journal import Journal
    from firmware.controller.settings import Settings
    from firmware.controller.ui import Ui
    from firmware.features.clock import GameClock
    from firmware.features.eboard import EBoard
    from firmware.features.online import Online
    from firmware.features.touch import TouchMove
    from firmware.features.trainer import Trainer

PLAYER = _ui.PLAYER
THINKING = _ui.THINKING
SHOWING = _ui.SHOWING
PROMOTE = _ui.PROMOTE
OVER = _ui.OVER
VERIFY = _ui.VERIFY
OFFER = _ui.OFFER
SETUP = _ui.SETUP

WORK_NONE = const(0)
WORK_THINK = const(1)
WORK_PONDER = const(2)
WORK_HINT = const(3)

STOP_NONE = const(0)
STOP_USE = const(1)  # "move now": play the best move found so far
STOP_DISCARD = const(2)  # the position changed: the search result is worthless

_PROMOTE_MS = const(5000)  # an unconfirmed promotion choice is taken after this
_MESSAGE_MS = const(2500)
_VERIFY_STABLE_MS = const(300)
_RESIGN_CP = const(700)  # offer to resign below -RESIGN_CP for two searches in a row
_PV_MOVES = const(4)  # moves of the principal variation on the display
_PRESET_KEY = const(100)  # clock source keys: 100 + preset, 1 + level index for clock levels
_T_SETUP = const(1)  # features.trainer state
_FEATURES = "firmware.features."
# Which feature module has each rare action (Controller.act; each is a function there taking
# the controller first).
ACTIONS = {
    "init": "actions", "boot": "actions", "takeback": "actions", "on_button": "actions",
    "button_event": "actions", "close_menu": "actions", "leave_trainer": "actions",
    "game_over": "game_end", "count_end": "game_end", "uncount": "game_end", "stats_call": "game_end",
    "new_game": "new_game",
}
# The feature modules the controller holds while it uses them (Controller.hold and tidy): an
# attribute of the same name holds each one's object; "options" is the options menu.
HELD = ("trainer", "touch", "clock", "online", "eboard", "options")


class Outcome:
    """A search's answer as the controller needs it (the App fills it)."""

    def __init__(self, move, ponder_move=0, score_cp=None, mate_in=None, depth=0, book=False):
        self.move = move
        self.ponder_move = ponder_move
        self.score_cp = score_cp
        self.mate_in = mate_in
        self.depth = depth
        self.book = book


class Controller:
    """See the module docstring. Its state is declared here; features/actions.py's `init`
    sets it (that code runs once, so it does not stay in a board's heap)."""

    # -- what it is built from
    game: "Game"
    computer: "Computer | None"  # the level table (None: one plain level)
    sync: "BoardSync"
    settings: "Settings"
    occupancy: bytearray  # the debouncer's stable occupancy, read-only here
    ui: "Ui"
    journal: "Journal | None"
    level_count: int
    _level_named: int  # the level whose name _level_text holds (-1: none yet)
    _level_text: str
    log: "Callable[[str], None] | None"
    # -- the flow
    phase: int  # PLAYER .. SETUP (ui.py)
    dirty: bool  # the LEDs and display must be composed again
    paused: bool
    stop: int  # STOP_NONE, STOP_USE, STOP_DISCARD: what the running search should do
    searching: int  # the WORK_* of the running search (WORK_NONE: none)
    # -- pondering
    ponder_hit: bool
    ponder_move: int  # the player's move the engine expects (it ponders on it)
    ponder_tried: bool
    ponder_outcome: "Outcome | None"  # a ponder search that finished before the player moved
    ponder_hits: int
    ponder_misses: int
    # -- what the LEDs and the display show
    hint_wanted: bool
    hint_move: int
    shown_move: int  # the computer's move, lit until it is made on the board
    shown_san: str
    expected_reply: int  # the computer's predicted reply to its shown move
    promo_move: int  # the promotion being chosen, its piece kind and deadline
    promo_kind: int
    promo_deadline: int
    menu: int  # ui.MENU_*: the open menu, the item, and when it closes untouched
    menu_index: int
    menu_deadline: int
    message: str  # a passing message on the display, until message_deadline
    message_deadline: int
    targets: tuple  # the lifted piece's legal target squares
    errors_shown: bool
    err_clear: bytearray  # squares to empty / to fill (8 rank bytes) to put the board right
    err_fill: bytearray
    reappear: bytearray  # captured pieces to put back (take back)
    verify_since: int  # when the board last matched the game in VERIFY (-1: not yet)
    score_cp: "int | None"  # the last search's score, or its mate, depth, nodes and line
    mate_in: "int | None"
    depth: int
    nodes: int
    pv_text: str
    bad_searches: int  # searches in a row below the resign threshold
    resign_declined: bool
    journal_ok: bool  # the journal works (a failing flash turns it off; the game goes on)
    saved_side: int  # the computer's side before two-player mode
    _expected: bytearray  # scratch: the occupancy the board should show
    # -- the statistics
    stats_ok: bool
    stats_page: int
    counted: int  # the outcome this game added to the statistics (-1: none)
    counted_level: int
    # -- features on demand, each None while unused (the module docstring)
    clock: "GameClock | None"
    clock_key: int
    clock_text: str
    clock_restore: object  # a journal clock record waiting for its clock (None: none)
    touch: "TouchMove | None"
    trainer: "Trainer | None"
    trainer_seed: int
    online: "Online | None"  # the online game (its side is the computer's)
    eboard: "EBoard | None"  # the e-board mode (the engine does not move)

    def __init__(self, game, sync, settings, occupancy, ui, journal=None, computer=None, log=None):
        """`computer` (computer.Computer) supplies the level table; None: one plain level.
        The statistics live beside the journal (none without one)."""
        self._holding = 0  # a bit per HELD module the controller has borrowed
        self.act("init", game, sync, settings, occupancy, ui, journal, computer, log)

    # ---- helpers --------------------------------------------------------------------------
    def level_name(self, index):
        """The name of level `index`. Only the last one asked for is kept (the display asks for
        the current level's on every refresh); another is read from the level table, which
        is loaded for it: all 37 names would hold over 1 KB of a stock Pico's heap."""
        if index != self._level_named:
            if not 0 <= index < self.level_count:
                return "?"
            self._level_text = self.computer.level_name(index) if self.computer is not None else "default"
            self._level_named = index
        return self._level_text

    def say(self, text, now_ms):
        self.message = text
        self.message_deadline = ticks_add(now_ms, _MESSAGE_MS)
        self.dirty = True

    def to_journal(self, name, *args):
        """Call a journal method; a failing flash must not stop the game."""
        if self.journal is None or not self.journal_ok:
            return
        try:
            getattr(self.journal, name)(*args)
        except OSError as exc:
            self.journal_ok = False
            if self.log:
                self.log("journal disabled: %s" % (exc,))

    def computer_to_move(self):
        side = self.settings.computer_side
        return side != NOBODY and self.game.position.stm == side and self.eboard is None

    def clear_overlays(self):
        self.targets = ()
        self.hint_move = 0
        self.hint_wanted = False
        self._clear_errors()
        self.dirty = True

    def _clear_errors(self):
        if self.errors_shown:
            self.errors_shown = False
            self.dirty = True
        for i in range(8):
            self.err_clear[i] = 0
            self.err_fill[i] = 0

    def abort_search(self):
        if self.searching != WORK_NONE:
            self.stop = STOP_DISCARD

    def _board_matches(self):
        return same(self.occupancy, occupancy_of(self.game.position, self._expected))

    def _reappear_pending(self):
        for i in range(8):
            if self.reappear[i]:
                return True
        return False

    def enter_play(self, now_ms, verify=False, check_board=True):
        """Pick the phase that follows from the game, after any change of the game.

        With `check_board`, a board that does not show the game (take back by button, new
        game, power-up) sends the player to VERIFY first. Changes the board sync reported
        itself (a take back by hand) skip that: the sync follows the board and may report
        more (a second take back, a new move) right away."""
        self.shown_move = 0
        self.sync.set_position(self.game.position)
        self.targets = ()
        if self.touch is not None:
            self.touch.clear()
        self._clear_errors()
        self.dirty = True
        if self.trainer is not None and self.trainer.state == _T_SETUP:
            self.phase = SETUP
            return
        if verify or (check_board and (not self._board_matches() or self._reappear_pending())):
            self.phase = VERIFY
            self.verify_since = -1
            return
        for i in range(8):
            self.reappear[i] = 0
        if self.game.over:
            self.phase = OVER
        elif self.computer_to_move() and not self.paused:
            self.phase = THINKING
        else:
            self.phase = PLAYER

    # ---- boot and new games ---------------------------------------------------------------
    def boot(self, saved, now_ms, start_fen=None):
        """Resume `saved` (a journal.SavedGame, or None for a fresh start from `start_fen`):
        features/actions.py; a fresh game's journal record is started after it is dropped."""
        if self.act("boot", saved, now_ms, start_fen):
            self.to_journal("start_game", self.settings.to_bytes(), start_fen)

    def act(self, name, *args):
        """Run the rare action `name` (ACTIONS says which feature module has it) with this
        controller and `args`: the module is loaded for it and released after (an action
        calling another keeps it until the outermost returns; ~50 ms on the chip)."""
        return loader.call(_FEATURES + ACTIONS[name], name, self, *args)

    def new_game(self, now_ms, start_fen=None, swap_sides=False):
        """Start a new game (the old one goes to the archive). Raises FenError for a bad FEN."""
        return self.act("new_game", now_ms, start_fen, swap_sides)

    # ---- board events -------------------------------------------------------------------
    def on_event(self, cell, kind):
        """A debounced LIFT (0) / PLACE (1): a captured piece put back clears its guidance."""
        if kind == 1:
            mask = 1 << (cell & 7)
            if self.reappear[cell >> 3] & mask:
                self.reappear[cell >> 3] &= ~mask & 0xFF
                self.dirty = True
        if self.phase == VERIFY:
            self.verify_since = -1
            self.dirty = True
        if self.eboard is not None:
            self.eboard.event(self, cell, kind)

    def on_sync(self, code, now_ms):
        """A BoardSync verdict. MOVE, EXECUTED, TAKEBACK and START_POSITION are always
        answered with sync.set_position (the sync waits for that)."""
        if code == IDLE:
            return
        phase = self.phase
        sync = self.sync
        if phase == SETUP:  # the trainer judges the board itself, piece by piece
            if code in (MOVE, EXECUTED, TAKEBACK, START_POSITION):
                sync.set_position(self.game.position)
            return
        if code == START_POSITION:
            if self.game.ply or self.game.start_fen != START_FEN or self.game.over:
                self.leave_trainer(now_ms)
                self.new_game(now_ms)
            else:
                sync.set_position(self.game.position)
            return
        if phase == VERIFY or (phase == OVER and code != TAKEBACK):
            # While guiding the player (or after the game), the board is compared with the
            # game directly; the sync's guesses on a half-restored board are not moves.
            if code in (MOVE, EXECUTED, TAKEBACK):
                sync.set_position(self.game.position)
            return
        touch = self.touch
        if code == LIFTED:
            if (touch is not None and phase == PLAYER and not self.game.over
                    and touch.lifted(sync.lifted_cell, self.game.position)):
                self.dirty = True
            if self.settings.show_targets and phase in (PLAYER, THINKING):
                self._show_targets(sync.lifted_cell)
        elif code == PUT_BACK:
            if touch is not None and touch.put_back(sync.lifted_cell):
                touch.said(self, now_ms)
            if self.targets:
                self.targets = ()
                self.dirty = True
        elif code == MOVE:
            if touch is not None and touch.refuses(self, sync.move, now_ms):
                return
            if phase == PROMOTE:
                self._finish_promotion(now_ms)  # the next move came before the choice
            self._player_move(sync.move, sync.promotion, now_ms)
        elif code == EXECUTED:
            if phase == SHOWING and self.shown_move:
                self._computer_move_done(now_ms)
            else:
                sync.set_position(self.game.position)
        elif code == WRONG or code == ILLEGAL:
            self.show_errors(sync.wrong_cells, ())
            self.ui.beep("error")
        elif code == UNEXPLAINED:
            self.show_errors(sync.to_clear, sync.to_fill)
            self.ui.beep("error")
        elif code == RESTORED:
            self._clear_errors()
        elif code == TAKEBACK:
            self._takeback(now_ms, physical=True)

    def _show_targets(self, cell):
        pos = self.game.position
        sq = from_sq64(cell)
        piece = pos.board[sq]
        if not piece or piece & 8 != pos.stm:
            return
        self.targets = tuple(to_sq64((m >> 7) & 127) for m in rules.legal_moves(pos, sq))
        self.dirty = True

    def show_errors(self, clear_cells, fill_cells):
        self._clear_errors()
        self.targets = ()
        for cell in clear_cells:
            self.err_clear[cell >> 3] |= 1 << (cell & 7)
        for cell in fill_cells:
            self.err_fill[cell >> 3] |= 1 << (cell & 7)
        self.errors_shown = True
        self.dirty = True

    def _player_move(self, move, promotion, now_ms):
        phase = self.phase
        if phase not in (PLAYER, THINKING) or self.game.over:
            self.sync.set_position(self.game.position)
            return
        try:
            self.game.push(move)
        except IllegalGameMoveError:
            self.sync.set_position(self.game.position)
            self.ui.beep("error")
            return
        self.sync.set_position(self.game.position)
        self.clear_overlays()
        if phase == THINKING:
            self.abort_search()  # the player moved for the computer: enter it as played
        if promotion:
            self.phase = PROMOTE
            self.promo_move = move
            self.promo_kind = 5
            self.promo_deadline = ticks_add(now_ms, _PROMOTE_MS)
            self.abort_search()
            self.ui.beep("alert")
            return
        self._commit_player_move(move, now_ms)

    def _commit_player_move(self, move, now_ms):
        """`move` is already on the game position: record it and go on."""
        self.to_journal("record_move", move)
        self._after_move(False, now_ms)
        self.paused = False
        self.mate_in = None
        self.ui.beep("click")
        if self.searching == WORK_PONDER:
            if move == self.ponder_move and self.stop == STOP_NONE:
                self.ponder_hit = True
                self.ponder_hits += 1
                self.searching = WORK_THINK
            else:
                self.stop = STOP_DISCARD
                self.ponder_misses += 1
        elif self.ponder_outcome is not None:
            if move == self.ponder_move:
                self.ponder_hits += 1
            else:
                self.ponder_misses += 1
        cached = self.ponder_outcome if move == self.ponder_move else None
        self.ponder_outcome = None
        self.ponder_move = 0
        if self.game.check_end():
            self.game_over(now_ms)
            return
        self.enter_play(now_ms, check_board=False)
        if cached is not None and self.phase == THINKING and self.searching == WORK_NONE:
            self._computer_decides(cached, now_ms)  # pondering already found the answer

    def _finish_promotion(self, now_ms):
        move = self.promo_move
        kind = self.promo_kind
        self.promo_move = 0
        if (move >> 14) & 7 != kind:
            self.game.pop()
            move = (move & ~(7 << 14)) | kind << 14
            self.game.push(move)
            self.sync.set_position(self.game.position)
        self._commit_player_move(move, now_ms)

    def _computer_move_done(self, now_ms):
        move = self.shown_move
        self.shown_move = 0
        self.game.push(move)
        self.sync.set_position(self.game.position)  # keeps a reply already under way
        self.to_journal("record_move", move)
        self._after_move(True, now_ms)
        if " " in self.pv_text:
            self.pv_text = self.pv_text.split(" ", 1)[1]  # the line from here on
        self.ui.beep("click")
        self._clear_errors()
        if self.game.check_end():
            self.game_over(now_ms)
            return
        reply = self.expected_reply
        self.expected_reply = 0
        self.ponder_move = reply if reply and self.game.is_legal(reply) else 0
        self.ponder_outcome = None
        self.ponder_tried = False
        self.phase = PLAYER
        self.dirty = True
        if self.computer_to_move() and not self.paused:
            self.phase = THINKING  # computer against itself (not a normal mode)

    def game_over(self, now_ms):
        """The game has ended: show it, count it (features/game_end.py)."""
        return self.act("game_over", now_ms)

    # ---- take back --------------------------------------------------------------------------
    def _takeback(self, now_ms, physical=False):
        """Take back one move (features/actions.py)."""
        return self.act("takeback", now_ms, physical)

    # ---- buttons ----------------------------------------------------------------------------
    def on_button(self, name, kind, now_ms):
        """A button press (SHORT / LONG): features/actions.py, loaded for it."""
        return self.act("on_button", name, kind, now_ms)

    def _close_menu(self, now_ms):
        """Close the open menu, save the settings, start or leave the trainer: features/actions.py."""
        return self.act("close_menu", now_ms)

    # ---- time ---------------------------------------------------------------------------------
    def tick(self, now_ms):
        if self.menu != _ui.MENU_NONE and ticks_diff(now_ms, self.menu_deadline) >= 0:
            self._close_menu(now_ms)
        self._run_clock(now_ms)
        if self.trainer is not None:
            self.trainer.poll(self, now_ms)
        if self.online is not None:
            self.online.poll(self, now_ms)
        if self.phase == PROMOTE and ticks_diff(now_ms, self.promo_deadline) >= 0:
            self._finish_promotion(now_ms)
        if self.message and ticks_diff(now_ms, self.message_deadline) >= 0:
            self.message = ""
            self.dirty = True
        if self.phase == VERIFY:
            if self._board_matches() and not self._reappear_pending():
                if self.verify_since < 0:
                    self.verify_since = now_ms
                elif ticks_diff(now_ms, self.verify_since) >= _VERIFY_STABLE_MS:
                    self.ui.beep("confirm")
                    self.enter_play(now_ms)
            else:
                self.verify_since = -1

    # ---- engine ---------------------------------------------------------------------------------
    def engine_work(self):
        """What the engine should do now (called at the top of the main loop only)."""
        if self.menu != _ui.MENU_NONE or self.game.over:
            return WORK_NONE
        phase = self.phase
        if phase == THINKING and not self.paused:
            # online: the opponent's move comes from the net; e-board: the host's from the player's hand
            return WORK_THINK if self.online is None and self.eboard is None else WORK_NONE
        if phase == PLAYER:
            if self.hint_wanted:
                return WORK_HINT
            if (self.ponder_move and not self.ponder_tried and self.settings.ponder and self.eboard is None
                    and self.settings.computer_side != NOBODY and not self.computer_to_move()):
                return WORK_PONDER
        return WORK_NONE

    def search_started(self, work):
        self.searching = work
        self.stop = STOP_NONE
        self.ponder_hit = False
        if work == WORK_THINK:
            self.nodes = 0
            self.pv_text = ""
        if work == WORK_PONDER:
            self.ponder_tried = True
        self.dirty = True

    def search_done(self, outcome, now_ms):
        """The search the App ran has ended; `outcome` is an Outcome (None if none)."""
        work = self.searching
        stop = self.stop
        self.searching = WORK_NONE
        self.stop = STOP_NONE
        self.ponder_hit = False
        if stop == STOP_DISCARD or outcome is None:
            return
        if work == WORK_PONDER:
            self.ponder_outcome = outcome  # the budget ran out before the player moved
        elif work == WORK_THINK and self.phase == THINKING:
            self._computer_decides(outcome, now_ms)
            self._run_clock(now_ms)  # its clock stops when its move is known, not a pass later
        elif work == WORK_HINT and self.phase == PLAYER:
            self.hint_wanted = False
            self.message = ""
            if outcome.move:
                self.hint_move = outcome.move
            self.dirty = True

    def _computer_decides(self, outcome, now_ms):
        move = outcome.move
        if not move:
            if self.game.check_end():
                self.game_over(now_ms)
            return
        self.score_cp = outcome.score_cp
        self.depth = outcome.depth
        if outcome.mate_in is not None:
            self.mate_in = outcome.mate_in if outcome.mate_in > 0 else None
        drawish = outcome.score_cp is not None and outcome.score_cp <= 0 or (outcome.mate_in or 0) < 0
        reason = self.game.claimable_draw()
        if reason != rules.ONGOING and drawish and not outcome.book:
            self.say("I claim a draw", now_ms)
            self.game.finish(RESULT_DRAW, reason)
            self.game_over(now_ms)
            return
        hopeless = (outcome.score_cp is not None and outcome.score_cp <= -_RESIGN_CP) or (outcome.mate_in or 0) < 0
        self.bad_searches = self.bad_searches + 1 if hopeless else 0
        self.expected_reply = outcome.ponder_move
        if self.settings.resign and not self.resign_declined and self.bad_searches >= 2 and self.trainer is None:
            self.phase = OFFER
            self.shown_move = move
            self.shown_san = san(self.game.position, move)
            self.sync.expect_move(0)
            self.dirty = True
            self.ui.beep("alert")
            return
        self.show_computer_move(move, now_ms)

    def show_computer_move(self, move, now_ms):
        self.phase = SHOWING
        self.shown_move = move
        self.shown_san = san(self.game.position, move)
        self.sync.expect_move(move)
        self.targets = ()
        self.dirty = True
        self.ui.beep("confirm")

    # ---- features on demand --------------------------------------------------------------------
    def hold(self, name):
        """The feature module `name` (one of HELD), borrowed from the loader for as long as
        the controller uses it: while its attribute of the same name holds its object (the
        options menu: while it is open). tidy() releases it after."""
        module = loader.borrow(_FEATURES + name)
        bit = 1 << HELD.index(name)
        if self._holding & bit:
            loader.release(_FEATURES + name)  # held already: still one borrow
        else:
            self._holding |= bit
        return module

    def tidy(self):
        """Release the held feature modules no longer in use (the garbage collector frees
        them once nothing else holds them)."""
        for i in range(len(HELD)):
            bit = 1 << i
            name = HELD[i]
            if self._holding & bit and (self.menu != _ui.MENU_OPTIONS if name == "options"
                                        else getattr(self, name) is None):
                self._holding &= ~bit
                loader.release(_FEATURES + name)

    def want_touch(self):
        """Touch-move loaded while its setting is on."""
        if self.settings.touch_move:
            if self.touch is None:
                self.touch = self.hold("touch").TouchMove()
        elif self.touch is not None:
            self.touch = None
            self.tidy()

    def _after_move(self, by_computer, now_ms):
        """After every move made on the board: clocks, touch-move, trainer."""
        clock = self.clock
        if clock is not None:
            clock.moved(self.game.position.stm ^ 8, now_ms)
            self.to_journal("record_clock", clock.to_bytes(now_ms))
            clock.shown = -1
        if self.touch is not None:
            self.touch.clear()
        if self.trainer is not None:
            self.trainer.after(self, by_computer)
        if self.online is not None:
            self.online.after(self, by_computer)

    def _run_clock(self, now_ms):
        """Every pass: the clock of the settings' preset or of a clock level (none in the
        trainer), loaded when one is wanted and dropped when not; then run it."""
        s = self.settings
        key = 0
        if self.trainer is None:
            if s.clock:
                key = _PRESET_KEY + s.clock
            elif self.computer is not None and self.computer.uses_clock(s.level):
                key = 1 + s.level
        if key != self.clock_key:
            self.clock_key = key
            self.clock = self.hold("clock").start(self, key) if key else None
            self.clock_restore = None
            if self.clock is None:
                self.clock_text = ""
                self.tidy()
            self.dirty = True
        if self.clock is not None:
            self.clock.tick(self, now_ms)

    def limits_for(self, level, now_ms, ponder=False):
        """The engine's Limits for the computer's move (or a ponder search): the trainer's
        defence, else the level's; a running clock caps any level that is not a clock level."""
        if self.trainer is not None:
            limits = self.trainer.limits()
            limits.ponder = ponder
            return limits
        comp = self.computer
        side = self.game.position.stm ^ (8 if ponder else 0)
        clock = self.clock
        state = clock.state(now_ms, side) if clock is not None else None
        limits = comp.limits(level, state, ponder)
        if state is not None and not comp.uses_clock(level):
            clock.cap(limits, state, side)
        return limits

    def leave_trainer(self, now_ms):
        """Normal play again (the caller starts the next game): features/actions.py, loaded
        only when there is a trainer to leave (before every new game)."""
        if self.trainer is None and not self.settings.trainer:
            return None
        return self.act("leave_trainer", now_ms)

    def stats_call(self, name, *args):
        """Call Stats.`name` (features/stats.py) on the statistics file beside the journal,
        loaded for this call and released after. Returns its result; None without statistics
        (a failing flash turns them off for good: the game goes on). features/game_end.py."""
        return self.act("stats_call", name, *args)

    # ---- evaluation display -------------------------------------------------------------------
    def search_info(self, score_cp, mate_in, depth, nodes=0, pv=None):
        """Progress after each finished depth of a THINK search (for the display)."""
        if self.searching != WORK_THINK:
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
        """The first moves of `pv` in SAN, played out on the game position and taken back
        again (only between search iterations: nothing else uses it then)."""
        pos = self.game.position
        words = []
        made = 0
        for m in pv:
            if made == _PV_MOVES or pos.ply + 1 >= pos.capacity or not self.game.is_legal(m):
                break
            words.append(san(pos, m))
            pos.make(m)
            made += 1
        for _ in range(made):
            pos.unmake()
        return " ".join(words)
