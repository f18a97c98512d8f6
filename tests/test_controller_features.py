"""Features on demand (firmware/features/): under the MicroPython unix port, entering and
leaving each feature (options menu, statistics, console commands with PGN, touch-move, a chess
clock, the mate trainer, a game's end and a new game) returns the heap to its baseline within a small slack, and the
feature's modules are gone from sys.modules after leaving. The resident modules never import
a feature module at their top level (that would keep it loaded)."""
import ast
import os

from tests.mpy import run_mpy
from tests.test_controller_mpy import SETUP

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLACK = 256  # bytes: a few small objects (a message text, a settings record) may stay

FEATURES = r"""
import gc, sys, os
from firmware.controller.journal import Journal
folder = %r
T = [0]
out = []
app = App(hw, Searcher(tt_entries=256, poll_nodes=64, clock_ms=lambda: T[0]), journal=Journal(folder),
          ticks_ms=ticks, write=out.append)
app.boot(ticks())
c = app.controller
run(500)

def loaded():
    return sorted(k for k in sys.modules if k.startswith("firmware.features."))

def options():
    c.on_button("level", 2, T[0])   # long: the options menu
    run(50)
    c.on_button("level", 1, T[0])   # next item
    run(50)
    assert "firmware.features.options" in sys.modules, loaded()
    c.on_button("ok", 1, T[0])
    run(50)

def stats():
    assert c.stats_call("lines", c.computer.level_names(), ()) is not None
    assert c.stats_call("games", 3) == (0, 0, 0)

def console():
    for line in ("pgn", "settings", "stats", "clock", "mem", "help", "bogus", "lit", "status", "moves",
                 "computer", "nodes 0", "lift e9"):
        app.command(line, T[0])
    del out[:]

def touch():
    c.settings.touch_move = True
    run(50)
    c.want_touch()
    assert c.touch is not None and "firmware.features.touch" in sys.modules
    c.settings.touch_move = False
    c.want_touch()
    run(50)

def clock():
    c.settings.clock = 3
    run(200)
    assert c.clock is not None and "firmware.features.clock" in sys.modules
    c.settings.clock = 0
    run(200)

def trainer():
    c.on_button("level", 2, T[0])
    c.settings.trainer = 1
    c.on_button("ok", 1, T[0])
    run(200)
    assert c.trainer is not None and "firmware.features.trainer" in sys.modules
    c.on_button("level", 2, T[0])
    c.settings.trainer = 0
    c.on_button("ok", 1, T[0])
    run(200)

def game_end():
    c.game.resign(0)  # White resigns: the end shown and counted (features/game_end.py, stats)
    c.game_over(T[0])
    run(50)
    assert c.phase == 4 and sum(c.stats_call("games", c.settings.level)) > 0  # OVER, counted
    c.new_game(T[0])  # features/new_game.py and the journal's rare side
    run(100)

def _scrub(depth):
    # Overwrite the C stack below us with harmless frames first: the collector scans the C
    # stack conservatively, and a stale pointer left there by an earlier, deeper call (e.g.
    # a viper function's saved locals) would keep a dead object alive, depending only on the
    # heap's layout (this test's temporary folder name was enough to flip it).
    if depth:
        _scrub(depth - 1)

def heap():
    _scrub(40)
    gc.collect()
    gc.collect()
    return gc.mem_free()

for name, fn in (("options", options), ("stats", stats), ("console", console), ("touch", touch),
                 ("clock", clock), ("trainer", trainer), ("game_end", game_end)):
    fn()  # the first time interns the feature's names (qstrs stay for good)
    run(100)
    base = heap()
    # Two rounds, the least kept counts: a stale pointer the collector finds conservatively
    # (see _scrub) pins a dead feature in some heap layouts only, and a few bytes of code
    # elsewhere move it (a real leak keeps its memory in every round).
    kept = None
    for _ in range(2):
        fn()
        run(100)
        after = heap()
        if kept is None or base - after < kept:
            kept = base - after
    print("feature", name, kept, ",".join(loaded()) or "-")
"""


def test_features_release_their_memory_under_micropython(tmp_path):
    out = run_mpy(SETUP + FEATURES % str(tmp_path), timeout=600)
    seen = {}
    for line in out.split("\n"):
        if line.startswith("feature "):
            _, name, kept, mods = line.split()
            seen[name] = (int(kept), mods)
    assert sorted(seen) == ["clock", "console", "game_end", "options", "stats", "touch", "trainer"], out
    for name, (kept, mods) in seen.items():
        assert mods == "-", (name, mods)  # nothing of the features stays loaded
        assert kept <= SLACK, (name, kept)


def test_the_heap_check_would_catch_a_feature_left_loaded(tmp_path):
    # the measurement can fail: a feature object still held keeps its module and its memory
    code = SETUP + FEATURES.split("for name, fn in")[0] % str(tmp_path) + r"""
run(100)
base = heap()
keep = __import__("firmware.features.trainer").features.trainer.Trainer()
after = heap()
print("kept", base - after, ",".join(loaded()))
"""
    line = [x for x in run_mpy(code, timeout=600).split("\n") if x.startswith("kept")][0]
    _, kept, mods = line.split()
    assert int(kept) > SLACK and "firmware.features.trainer" in mods


def _top_level_imports(path):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            for alias in node.names:
                yield node.module + "." + alias.name


def test_resident_modules_do_not_import_features_at_the_top():
    bad = []
    for folder in ("firmware/controller", "firmware/app.py"):
        full = os.path.join(ROOT, folder)
        paths = [full] if full.endswith(".py") else [os.path.join(full, n) for n in os.listdir(full)
                                                       if n.endswith(".py")]
        for path in paths:
            for mod in _top_level_imports(path):
                if mod.startswith("firmware.features."):
                    bad.append((os.path.relpath(path, ROOT), mod))
    assert not bad, bad


def test_the_booted_app_holds_no_reading_of_move_text_under_micropython(tmp_path):
    # Reading UCI or SAN, perft and the FEN parser are for the protocols and the host's tools
    # (the FEN parser is loaded for a FEN and dropped): a booted board does not hold their code
    code = SETUP + FEATURES.split("def loaded():")[0] % str(tmp_path) + r"""
host_only = ("uci_parse", "san_parse", "perft", "fen")
print("held", ",".join(n for n in host_only if "firmware.engine." + n in sys.modules) or "-")
"""
    line = [x for x in run_mpy(code, timeout=600).split("\n") if x.startswith("held")][0]
    assert line == "held -", line
