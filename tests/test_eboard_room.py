"""The e-board mode's room on a small board (features/eboard.py): its code takes ~8 KB of heap
on a stock Pico (docs/benchmarks.md), so while the mode is on, where the engine gives hints
only, the search's transposition table shrinks to 512 slots; leaving the mode gives the board
its own table back. On the emulated Pico, tests/test_fit_pico.py boots into the mode with the
floors of a normal boot."""
from boards.pico import CONFIG
from firmware.controller import ui as _ui
from firmware.features import options
from tests.eboard_rig import Rig


def test_the_mode_lends_the_search_table_room_and_gives_it_back():
    rig = Rig(2, tt_entries=CONFIG["tt_entries"])
    rig.run(2)  # the first pass of the main loop: the mode is on
    c = rig.app.controller
    assert c.eboard is not None
    assert rig.app.searcher.tt.size == 512 < CONFIG["tt_entries"]
    rig.press("hint")  # the engine still gives a hint with the small table
    deadline = rig.t + 60000
    while not c.hint_move and rig.t < deadline:
        rig.run(100)
    assert c.hint_move
    c.menu = _ui.MENU_OPTIONS  # the options menu on its E-board item: Millennium -> off
    c.menu_index = options.ITEM_EBOARD
    c.menu_deadline = rig.t + 6000
    rig.press("hint")
    rig.press("ok" if "ok" in rig.app.button_names else "move")
    rig.run(50)
    assert c.eboard is None
    assert rig.app.searcher.tt.size == CONFIG["tt_entries"]


def test_a_board_with_a_small_table_keeps_it():
    rig = Rig(1, tt_entries=256)
    rig.run(2)
    assert rig.app.controller.eboard is not None
    assert rig.app.searcher.tt.size == 256
