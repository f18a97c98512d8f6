"""firmware/loader.py, the one way a rare part comes into the heap and leaves it: a module still
borrowed is never dropped, a module loaded by an import statement stays with its importers, a
release without its borrow is an error, and a module no longer used leaves the heap (measured
under MicroPython). Nothing else in the firmware takes modules out of sys.modules."""
import os
import re
import sys

import pytest

from firmware import loader
from tests.mpy import run_mpy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATS = "firmware.features.stats"  # a feature nothing imports by statement


def _unload(name):
    sys.modules.pop(name, None)
    vars(sys.modules["firmware.features"]).pop(name.rsplit(".", 1)[1], None)
    loader._state.pop(name, None)


def users(name):
    return loader._state.get(name, 0) >> 1


@pytest.fixture
def fresh():
    """STATS neither loaded nor borrowed before and after the test."""
    _unload(STATS)
    yield
    _unload(STATS)


def test_a_module_in_use_is_never_dropped(fresh):
    first = loader.borrow(STATS)
    second = loader.borrow(STATS)  # a nested user: the same module, one more count
    assert first is second and users(STATS) == 2
    loader.release(STATS)
    assert STATS in sys.modules and users(STATS) == 1
    loader.drop_unused(STATS)  # borrowed: it stays
    assert STATS in sys.modules
    loader.release(STATS)
    assert STATS not in sys.modules and "stats" not in vars(sys.modules["firmware.features"])
    with pytest.raises(RuntimeError, match="without a borrow"):
        loader.release(STATS)


def test_a_module_imported_by_a_statement_stays_with_its_importers(fresh):
    import firmware.features.stats  # noqa: F401  (as a resident importer would)

    assert loader.borrow(STATS) is sys.modules[STATS]
    loader.release(STATS)
    assert STATS in sys.modules  # not the loader's to drop
    loader.drop_unused(STATS)  # the start-up-only case: nobody borrowed it
    assert STATS not in sys.modules


def test_call_releases_even_when_the_function_raises(fresh):
    with pytest.raises(AttributeError):
        loader.call(STATS, "no_such_function")
    assert STATS not in sys.modules and users(STATS) == 0


def test_nothing_else_takes_modules_out_of_sys_modules():
    """The loader is the only code that drops modules (no del sys.modules, no pop, no second
    mechanism), and every feature a module loads on demand goes through it."""
    bad = []
    for dirpath, _, names in os.walk(os.path.join(ROOT, "firmware")):
        for name in names:
            if not name.endswith(".py") or name == "loader.py":
                continue
            path = os.path.join(dirpath, name)
            with open(path) as f:
                text = f.read()
            for pattern in (r"del sys\.modules", r"sys\.modules\.pop", r"\bforget\(", r"features\.(load|drop)\(",
                            r"from firmware\.features import (load|drop)"):
                if re.search(pattern, text):
                    bad.append((os.path.relpath(path, ROOT), pattern))
    assert bad == []


LEAVES_THE_HEAP = """
import gc
import sys
from firmware import loader

def free():
    gc.collect()
    gc.collect()
    return gc.mem_free()

name = "firmware.features.stats"
loader.borrow(name)  # once: its names are interned for good (qstrs)
loader.release(name)
before = free()
stats = loader.borrow(name)
held = free()
stats = None
loader.release(name)
after = free()
print("heap", before - held, before - after, name in sys.modules)
"""


def test_a_module_no_longer_used_leaves_the_heap_under_micropython():
    out = run_mpy(LEAVES_THE_HEAP, timeout=120)
    line = [x for x in out.split("\n") if x.startswith("heap ")][-1]
    _, held, kept, loaded = line.split()
    print(line)
    assert int(held) > 2000  # the module's code and tables while borrowed
    assert int(kept) <= 64 and loaded == "False"  # gone from the heap after its release
