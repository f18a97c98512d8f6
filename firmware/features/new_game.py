"""A new game (controller/flow.py, Controller.new_game: loaded for it and released after).
Its own small module, not one of features/actions.py's: a new game begins at the end of
every game, when the heap holds the most, and loading the journal's rare side on top of the
actions' 5 KB left a fragmented board heap without room (tests/test_fit_pico.py). Takes the
Controller as `self`.
"""
from firmware.controller import ui as _ui
from firmware.controller.settings import NOBODY


def new_game(self, now_ms, start_fen=None, swap_sides=False):
    """Start a new game (the old one goes to the archive). Raises FenError for a bad FEN."""
    self.game.new(start_fen)
    if swap_sides and self.settings.computer_side != NOBODY:
        self.settings.computer_side ^= 8
    self.to_journal("start_game", self.settings.to_bytes(), start_fen)
    fresh_play(self)
    self.menu = _ui.MENU_NONE
    self.clock_key = -1  # restart the clocks
    self.ui.beep("confirm")
    self.enter_play(now_ms)


def fresh_play(self):
    """The play state of a game that starts or comes back (also features/online_keep.py's
    restore): no search, no pause, no score or offer, nothing counted, nothing lit."""
    self.abort_search()
    self.paused = False
    self.ponder_move = 0
    self.score_cp = None
    self.mate_in = None
    self.bad_searches = 0
    self.resign_declined = False
    self.counted = -1
    self.pv_text = ""
    for i in range(8):
        self.reappear[i] = 0
    self.clear_overlays()
