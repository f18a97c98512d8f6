"""The compat shim behaves the same on both interpreters."""
import re

from firmware import compat
from tests.mpy import run_mpy


def test_ticks_wrap_like_micropython():
    period = 1 << 30
    assert compat.ticks_diff(compat.ticks_add(period - 5, 10), period - 5) == 10
    assert compat.ticks_diff(3, period - 2) == 5
    assert compat.ticks_diff(period - 2, 3) == -5
    assert 0 <= compat.ticks_ms() < period


def test_const_is_identity_on_cpython():
    assert compat.const(42) == 42
    assert compat.IS_MICROPYTHON is False


def test_heap_lock_is_real_under_micropython():
    out = run_mpy(
        "from firmware.compat import heap_lock, heap_unlock, IS_MICROPYTHON\n"
        "heap_lock()\n"
        "try:\n"
        "    x = [1, 2, 3]\n"
        "    r = 'allocated'\n"
        "except MemoryError:\n"
        "    r = 'refused'\n"
        "heap_unlock()\n"
        "print(IS_MICROPYTHON, r)\n"
    )
    assert out.split() == ["True", "refused"]


FRAGMENTED_HEAP = """
import gc
from firmware.compat import fill_heap_holes

def fragment():
    gc.collect()
    keep = []
    drop = []
    for i in range(60):
        x = (i, i, i, i, i, i, i, i, i, i)  # 12 words: 3 blocks of the allocator
        if i % 2:
            keep.append(x)
        else:
            drop.append(x)
    drop = None
    return keep  # a 3-block hole between every two kept tuples once collected

def frame_lands_above_holes(fill):
    keep = fragment()
    top = max(id(x) for x in keep)
    chain = None
    if fill:
        chain = fill_heap_holes()
    else:
        gc.collect()
    fillers = 0
    link = chain
    while link is not None:
        fillers += 1
        link = link[0]
    a = 1
    frame_sized = (a, a, a, a, a, a, a, a, a, a)  # as big as a hole: where does it go?
    return id(frame_sized) > top, fillers

print(frame_lands_above_holes(False), frame_lands_above_holes(True))
"""


def test_fill_heap_holes_puts_the_next_frame_above_the_holes():
    # Without the fill a 3-block allocation after a collection takes the lowest 3-block hole
    # (below the kept tuples); with it, the holes are taken by one-block fillers and it lands
    # in the free run above them (where the search's frames are then found at once).
    out = run_mpy(FRAGMENTED_HEAP).strip()
    found = re.fullmatch(r"\(False, 0\) \(True, (\d+)\)", out)
    assert found, out
    assert 90 <= int(found.group(1)) <= 192  # at least the 30 holes of 3 blocks, at most `most`


def test_fill_heap_holes_is_a_no_op_on_cpython():
    assert compat.fill_heap_holes() is None


def test_fill_heap_holes_leaves_a_tight_heap_alone():
    # Less free than min_free after the collection: nothing filled.
    out = run_mpy(FRAGMENTED_HEAP.replace(
        "print(frame_lands_above_holes(False), frame_lands_above_holes(True))",
        "keep = fragment()\n"
        "print(fill_heap_holes(min_free=1 << 29), fill_heap_holes() is None)\n"))
    assert out.split() == ["None", "False"]


def test_fill_heap_holes_holds_at_most_most_blocks():
    # 30 holes of 3 blocks, room for 50 fillers: exactly 50 are kept (the search holds them).
    out = run_mpy(FRAGMENTED_HEAP.replace(
        "print(frame_lands_above_holes(False), frame_lands_above_holes(True))",
        "keep = fragment()\n"
        "link = fill_heap_holes(most=50)\n"
        "n = 0\n"
        "while link is not None:\n"
        "    n += 1\n"
        "    link = link[0]\n"
        "print(n)\n"))
    assert out.split() == ["50"]


def test_the_type_stub_names_what_compat_exports():
    """firmware/compat.pyi (read by `make lint` only) declares every public name of compat.py."""
    import ast
    import os

    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "firmware")

    def top_level(body):
        for node in body:
            if isinstance(node, ast.If):
                yield from top_level(node.body + node.orelse)
            else:
                yield node

    def names(filename):
        with open(os.path.join(folder, filename)) as f:
            tree = ast.parse(f.read())
        found = set()
        for node in top_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.update(t.id for t in targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.ImportFrom) and node.module in ("micropython", "time"):
                found.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.asname or a.name for a in node.names if a.name == "micropython")
        return {n for n in found if not n.startswith("_")}

    runtime = names("compat.py") - {"sys"}
    stub = names("compat.pyi")
    assert runtime - stub == set()
    assert stub - runtime == set()
