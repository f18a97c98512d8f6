"""The Computer loads the level table (firmware.engine.levels) only for the calls that need it
and releases it after, with the same answers as the table itself; the board sync borrows the
move buffer engine.rules shares (no 1 KB array of its own)."""
import sys

import firmware.engine as engine_pkg
from firmware.controller.board_sync import BoardSync
from firmware.controller.computer import Computer
from firmware.engine import levels, rules
from firmware.engine.search import Searcher

NAME = "firmware.engine.levels"


class _Clock:
    wtime_ms = 61000
    btime_ms = 59000
    winc_ms = 2000
    binc_ms = 2000
    movestogo = 0


def _same(a, b):
    return type(a) is type(b) and vars(a) == vars(b)


SLOTS = 256  # the Computer's table: a rated level's budget is the one for its size


def _expected(index, clock=None, ponder=False):
    limits = levels.limits_for_level(index, clock, SLOTS)
    if ponder:
        limits.ponder = True
    return limits


def test_the_same_answers_as_the_level_table():
    comp = Computer(Searcher(tt_entries=SLOTS), None, 0)
    n = len(levels.LEVELS)
    assert comp.level_count() == n
    assert comp.default_level() == levels.DEFAULT_LEVEL
    assert comp.level_names() == tuple(e.name for e in levels.LEVELS)
    for i in range(n):
        e = levels.LEVELS[i]
        assert comp.uses_clock(i) == (e.kind == levels.CLOCK)
        assert comp.is_analysis(i) == (e.kind == levels.INFINITE)
        if e.kind == levels.CLOCK:
            assert comp.clock_ms(i) == (e.value, e.inc_ms, e.moves)
        for ponder in (False, True):
            # before set_level (the table asked), after it (a copy of set_level's limits)
            assert _same(comp.limits(i, None, ponder), _expected(i, None, ponder)), (i, ponder)
            comp.set_level(i)
            assert comp.searcher.noise_cp == e.noise_cp
            for clock in (None, _Clock()):
                got = comp.limits(i, clock, ponder)
                assert _same(got, _expected(i, clock, ponder)), (i, ponder, clock, got)
                got.nodes = 7  # the caller's to change: the next one is a fresh copy
        assert _same(comp.hint_limits(i), levels.limits_for_level(i) if e.kind in (levels.DEPTH, levels.FUN)
                     else levels.Limits(movetime_ms=3000, nodes=4000))


def test_the_level_table_is_released_after_each_call():
    saved = sys.modules.pop(NAME)
    had = engine_pkg.__dict__.pop("levels", None)
    try:
        comp = Computer(Searcher(tt_entries=256), None, 0)
        assert NAME not in sys.modules
        clock = next(i for i in range(len(levels.LEVELS)) if comp.uses_clock(i))
        for call in (comp.level_names, lambda: comp.set_level(3), lambda: comp.limits(3),
                     lambda: comp.limits(clock), lambda: comp.hint_limits(3), lambda: comp.clock_ms(clock)):
            call()
            assert NAME not in sys.modules
            assert not hasattr(engine_pkg, "levels")
        # loaded by someone else: left loaded
        sys.modules[NAME] = saved
        comp.limits(clock)
        assert sys.modules.get(NAME) is saved
    finally:
        sys.modules[NAME] = saved
        if had is not None:
            engine_pkg.levels = had


def test_board_sync_borrows_the_rules_move_buffer():
    assert BoardSync()._inf.moves is rules.SCRATCH_MOVES
