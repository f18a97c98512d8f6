"""Heap budgets of the boards the emulator lacks, on a 32-bit MicroPython: the official
WebAssembly port under Node (tools/wasm_port.py, docs/emulated-pico.md).

tests/memory_probe.py's MemoryGame plays a whole device-side game (the board's real io drivers
on the simulated electronics, Searcher with the board's transposition table, book, journal,
App with pondering, the strongest level with its searches node-capped) against a harness
opponent. Here it runs under the wasm port, from the .mpy files `make flash` builds (bytecode:
the port has no native emitter), with the firmware and harness modules in the port's file
system. Every firmware module is imported first and counts against the budget (as .mpy files
loaded into RAM on a board without frozen code); the harness does not. Then a ballast
bytearray leaves exactly (budget - code) bytes free: the port's heap grows only when an
allocation fails even after a collection, so a "GC: total" still at its starting size after
the game means the game never needed more than the budget, fragmentation included - on a
board it would not have raised MemoryError.

- Pico 2 (RP2350) config: the game within 400 KB, code included (asserted).
- ESP32 config: the issue's stretch goal is 100 KB. The test reports the code, the device
  side's sampled high-water mark and both together, and asserts the bound that holds today
  (ESP32_BOUND, the ESP32's 110 KB heap with its firmware frozen, i.e. the device side only).
LIVE: what is asserted is the live high-water mark - the heap held after the collection that
starts every top-level call, sampled after every App pass - plus the code. Whether the port's
heap had to grow is reported, not asserted: the port collects only between top-level calls, so
the garbage of a call's passes (a feature module loaded and dropped per button press, the
journal's rare side, legal-move lists) stays until the call ends, where a board's gc.threshold
collects every 2 KB; and the ballast, laid in chunks that fit the room as it lies after the
harness, leaves that room in pieces rather than one block as on a board after boot.
Frames: the port keeps Python call frames on its "pystack", not in the heap as the chips do
for frames of more than a few words; tests/test_memory.py measures those on the unix port.
"""
import os
import re

import pytest

from tools.wasm_port import run, unavailable

pytestmark = [pytest.mark.slow, pytest.mark.wasm]

NODE_CAP = 200
PASSES_PER_CALL = 8  # App passes per top-level call: their garbage stays until the call ends (stricter than a board)
PICO2_BUDGET = 400 * 1024
ESP32_GOAL = 100 * 1024  # the stretch goal (code included), reported
ESP32_BOUND = 110 * 1024  # asserted: the device side (code frozen) within the ESP32's heap
# one piece with room for the imports' and harness's garbage and the budget (the Pico 2's game
# may add a piece later, for a call's garbage: reported, not asserted); no bigger: every
# collection and gc.mem_free() walks the whole heap, ~6,000 times a game (both games: 32 MB
# 87 s a game; 4 MB 139 s of CPU together, 1 MB 89 s)
START_HEAP = 1024 * 1024
START_TOTAL = 1024512  # "GC: total" of that heap (1.27.0)
# the wasm port's gc_get_max_new_split(): room for code + harness + budget, no growth before the ballast
MAX_NEW_SPLIT = 128 * 1024 * 1024

HARNESS = ("host_sim/__init__.py", "host_sim/electronics.py", "host_sim/pins.py", "host_sim/physical.py",
           "tests/__init__.py", "tests/mpy_game_player.py", "tests/memory_probe.py")

# The probe, in top-level calls (the port collects garbage only between them, tools/wasm_port.py).
PROBE = [
    "import gc, micropython\ngc.collect()\n",
    "base = gc.mem_alloc()\ngc.collect()\n",
    "IMPORTS",  # one call per module (so the heap never grows with the imports' garbage)
    """code = gc.mem_alloc() - base
from tests.memory_probe import MemoryGame, TOP_LEVEL
import os
try:
    os.mkdir('/tmp/journal')
except OSError:
    pass
g = MemoryGame(%(board)r, TOP_LEVEL, node_cap=%(node_cap)d, journal_dir='/tmp/journal', sample_every=0,
               pass_ms=4, ms_per_node=0, hand_ms=100)
gc.collect()
""",
    """harness = gc.mem_alloc() - base - code
left = %(budget)d - code if %(budget)d else %(device_budget)d
ballast = [None] * 64
nb = 0
size = 1 << 30
gc.collect()
""",
    "FILL",  # the ballast, a chunk per call, in pieces that fit the free room as it lies
    """start = gc.mem_alloc()
print('CODE', code, 'HARNESS', harness, 'FREE', gc.mem_free() - %(split)d)
print('MEMINFO-START')
micropython.mem_info()
start_total = start + gc.mem_free() - %(split)d
top_total = start_total
top_live = top_used = steps = 0
g.build()
gc.collect()
""",
]
# One main-loop pass (or search) of the App per top-level call: `live` is what is held after the
# collection at the call's start, `used` what the pass left uncollected on top.
STEP = """live = gc.mem_alloc() - start
if live > top_live:
    top_live = live
if g.app.controller.game.over or g.app.controller.game.ply >= 400:
    DONE = True
else:
    for _ in range(%(passes)d):
        if not g.app.controller.game.over:
            g.app.step(g.ticks())
            steps += 1
    used = gc.mem_alloc()
    total = used + gc.mem_free() - %(split)d
    if used - start > top_used:
        top_used = used - start
    if total > top_total:
        top_total = total
    gc.collect()
"""
# the port's gc.mem_free() adds the room a new heap piece could take ("max new split"); a chunk
# that made the heap grow is dropped (the empty piece goes back at the next call) and halved
FILL = """need = gc.mem_free() - %(split)d - left
if need >= 16 and nb < 64:
    before = gc.mem_alloc() + gc.mem_free() - %(split)d
    size = min(size, need - 16)
    chunk = bytearray(size) if size > 0 else None
    if gc.mem_alloc() + gc.mem_free() - %(split)d > before:
        size //= 2
    elif chunk is not None:
        ballast[nb] = chunk
        nb += 1
chunk = None
gc.collect()
"""
FILL_CALLS = 64
FINISH = """game = g.app.controller.game
app = g.app
print('RESULT', game.result, game.reason_name().replace(' ', '_'), app.searches, app.work_nodes,
      app.controller.ponder_hits, app.settings.level)
from firmware.engine.notation import uci
print('MOVES', ' '.join(uci(game.move_at(i)) for i in range(game.ply)))
print('PEAK', top_live, top_used, steps, start_total, top_total)
print('MEMINFO-END')
micropython.mem_info()
print('DONE')
"""


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    why = unavailable()
    if why:
        pytest.skip(why)
    from tools import flash

    out = {}
    for board in ("pico2", "esp32"):
        folder = str(tmp_path_factory.mktemp("wasm-" + board))
        flash.build(board, arch=flash.BOARD_ARCH[board], out_dir=folder, write_main=False, log=None, bytecode=True)
        for rel in HARNESS:
            dest = os.path.join(folder, rel[:-3] + ".mpy")
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            flash.compile_mpy(os.path.join(flash.ROOT, rel), dest, "armv6m", rel,
                              cache_dir=os.path.join(flash.ROOT, "build", "mpy-cache"))
        out[board] = folder
    return out


def _modules(tree):
    """Every firmware module (and the board's) in `tree`, dotted, as main would import them
    (a build with every module resident: the ones loaded on demand are counted too)."""
    out = []
    for top in ("firmware", "boards"):
        for dirpath, _, names in os.walk(os.path.join(tree, top)):
            for name in sorted(names):
                if name.endswith(".mpy"):
                    rel = os.path.relpath(os.path.join(dirpath, name[:-4]), tree).replace(os.sep, ".")
                    out.append(rel[:-9] if rel.endswith(".__init__") else rel)
    return sorted(m for m in out if m not in ("boards.blinka", "boards.rpi_blinka"))


def play(tree, board, budget=0, device_budget=0):
    """Import, build the harness, leave `budget` bytes (code included) or `device_budget` bytes
    (beyond the code) free, play; the figures."""
    values = {"modules": _modules(tree), "board": board, "node_cap": NODE_CAP, "budget": budget,
              "device_budget": device_budget, "split": MAX_NEW_SPLIT, "passes": PASSES_PER_CALL}
    scripts = []
    for part in PROBE:
        if part == "IMPORTS":
            scripts += ["__import__(%r)\ngc.collect()\n" % m for m in values["modules"]]
        elif part == "FILL":
            scripts += [FILL % values] * FILL_CALLS
        else:
            scripts.append(part % values)
    text = run(scripts, tree=tree, heap_bytes=START_HEAP, timeout=1200,
               step=STEP % values, finish=FINISH % values)
    assert "DONE" in text, text[-3000:]
    out = {}
    for line in text.splitlines():
        words = line.split()
        if words and words[0] in ("CODE", "STEPS", "RESULT", "MOVES", "PEAK"):
            out[words[0]] = words[1:]
    frees = [int(t) for t in re.findall(r"GC: total: \d+, used: \d+, free: (\d+)", text)]
    splits = [int(t) for t in re.findall(r"max new split: (\d+)", text)]
    assert splits[0] == MAX_NEW_SPLIT, splits  # so FREE (mem_free less this) is the heap's free room
    out["code"], out["harness"], out["free"] = int(out["CODE"][0]), int(out["CODE"][2]), int(out["CODE"][4])
    out["peak"], out["peak_used"], out["steps"] = (int(v) for v in out["PEAK"][:3])
    out["total_start"], out["total_end"] = int(out["PEAK"][3]), int(out["PEAK"][4])
    assert out["free"] == frees[0], (out["free"], frees)
    assert out["total_start"] == START_TOTAL, "the heap grew before the game: %d" % out["total_start"]
    return out


def _check_game(r):
    import chess

    board = chess.Board()
    for text in r["MOVES"]:
        board.push_uci(text)
    assert r["RESULT"][0] in ("1-0", "0-1", "1/2-1/2"), r["RESULT"]
    assert board.is_game_over(claim_draw=True) or r["RESULT"][1] in ("75-move_rule", "fivefold_repetition",
                                                                     "adjudicated", "resignation"), r["RESULT"]


def _report(board, r):
    text = ("%s (wasm, 32-bit): code %d, harness %d, free for the device %d; device side high-water %d live"
          " (%d with one pass's garbage) over %d passes => %d with code; heap %d, at most %d; %s %s plies"
          % (board, r["code"], r["harness"], r["free"], r["peak"], r["peak_used"], r["steps"],
             r["code"] + r["peak"], r["total_start"], r["total_end"], " ".join(r["RESULT"]), len(r["MOVES"])))
    print(text)
    return text


def test_pico2_whole_game_within_400_kb(trees):
    r = play(trees["pico2"], "pico2", PICO2_BUDGET)
    text = _report("pico2", r)
    _check_game(r)
    assert r["free"] <= PICO2_BUDGET - r["code"]  # the ballast took the rest
    assert r["code"] + r["peak"] <= PICO2_BUDGET, text  # see LIVE below


def test_esp32_device_side_and_stretch_goal(trees):
    # the device side alone (code frozen) within the ESP32's heap: the ballast leaves ESP32_BOUND
    # beyond the code
    r = play(trees["esp32"], "esp32", device_budget=ESP32_BOUND)
    text = _report("esp32", r)
    with_code = r["code"] + r["peak"]
    print("esp32 stretch goal %d (code included): %s" % (ESP32_GOAL, "met" if with_code <= ESP32_GOAL else
                                                         "not met (%d)" % with_code))
    _check_game(r)
    assert r["free"] <= ESP32_BOUND
    assert r["peak"] <= ESP32_BOUND, text  # see LIVE below
