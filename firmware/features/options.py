"""The options menu (a feature on demand: loaded while the menu is open, released when it
closes): the on/off options of settings.OPTION_NAMES, the chess clock preset, the mate
trainer set, a page of statistics and the e-board mode (off, DGT, Millennium: features/eboard.py).

    button(c, name, kind)      # "level" next item (long: previous), "takeback" previous item,
                               # "hint" change the value (statistics: next page)
    leds(c, out)               # the item's square (a1..h1, a8, b8, c8) and its value (rank 2)
    text(c)                    # the display's five lines

Without a display the LEDs show the menu: item i lights item_cell(i), its value
value_cell(i) on rank 2 (the option's own square when on, square n for value n).
"""
from firmware.compat import const
from firmware.controller.settings import OPTION_NAMES, SETS
from firmware.io.leds import INFO, ON
from firmware.loader import borrow, call, release

_CLOCK = "firmware.features.clock"  # its presets, borrowed for a look

ITEM_CLOCK = const(7)  # == len(OPTION_NAMES)
ITEM_TRAINER = const(8)
ITEM_STATS = const(9)
ITEM_EBOARD = const(10)
MENU_ITEMS = const(11)
ITEM_LABELS = ("Targets", "Ponder", "Book", "Sound", "Resign", "Touch move", "Eval info", "Clock", "Trainer",
               "Statistics", "E-board")
EBOARD_NAMES = ("off", "DGT", "Millennium")  # copy of firmware.features.eboard.NAMES
_EBOARDS = const(3)


def item_cell(index):
    """The square that shows options-menu item `index` without a display: a1..h1, then a8.."""
    return index if index < 8 else 56 + index - 8


def value_cell(index, settings):
    """The square (rank 2) showing item `index`'s value, or -1 (off / nothing to show)."""
    if index < ITEM_CLOCK:
        return 8 + index if settings.option(index) else -1
    v = settings.clock if index == ITEM_CLOCK else (settings.trainer if index == ITEM_TRAINER else
                                                    (settings.eboard if index == ITEM_EBOARD else 0))
    return 8 + v - 1 if 0 < v <= 8 else -1


def change(settings, index, clocks, sets):
    """"Change" on item `index`: toggle an option, or step the clock (0..clocks-1), the
    trainer set (0..sets) or the e-board mode to the next value."""
    if index < ITEM_CLOCK:
        name = OPTION_NAMES[index]
        setattr(settings, name, not getattr(settings, name))
    elif index == ITEM_CLOCK:
        settings.clock = (settings.clock + 1) % clocks
    elif index == ITEM_TRAINER:
        settings.trainer = (settings.trainer + 1) % (sets + 1)
    elif index == ITEM_EBOARD:
        settings.eboard = (settings.eboard + 1) % _EBOARDS


def button(c, name, kind):
    """A press of "level", "takeback" or "hint" in the open menu."""
    if name == "hint":
        if c.menu_index == ITEM_STATS:
            c.stats_page += 1
        else:
            clock = borrow(_CLOCK)
            presets = len(clock.PRESETS)
            clock = None
            release(_CLOCK)
            change(c.settings, c.menu_index, presets, len(SETS))
        c.ui.sound = c.settings.sound
        return
    step = 1 if name == "level" and kind != 2 else MENU_ITEMS - 1  # LONG or takeback: back
    c.menu_index = (c.menu_index + step) % MENU_ITEMS
    c.stats_page = 0


def leds(c, out):
    out[item_cell(c.menu_index)] = ON | INFO
    v = value_cell(c.menu_index, c.settings)
    if v >= 0:
        out[v] = ON | INFO


def text(c):
    i = c.menu_index
    s = c.settings
    if i < ITEM_CLOCK:
        value = "on" if s.option(i) else "off"
    elif i == ITEM_CLOCK:
        value = call(_CLOCK, "preset_name", s.clock)
    elif i == ITEM_TRAINER:
        value = SETS[s.trainer - 1] if 0 < s.trainer <= len(SETS) else "off"
    elif i == ITEM_EBOARD:
        value = EBOARD_NAMES[s.eboard] if 0 <= s.eboard < _EBOARDS else "?"
    else:
        return stats_text(c)
    return ("Options %d/%d" % (i + 1, MENU_ITEMS), ITEM_LABELS[i] + ":", value, "level: next", "hint: change")


def stats_text(c):
    """The statistics page `c.stats_page` (two lines per page)."""
    lines = c.stats_call("lines", c.computer.level_names() if c.computer is not None else ("default",), SETS)
    if lines is None:
        lines = ["no statistics"]
    pages = (len(lines) + 1) // 2
    if not pages:
        return ("Statistics", "none yet", "", "level: next", "")
    p = c.stats_page % pages
    second = lines[2 * p + 1] if 2 * p + 1 < len(lines) else ""
    return ("Statistics %d/%d" % (p + 1, pages), lines[2 * p], second, "level: next", "hint: more")
