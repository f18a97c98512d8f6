"""Memory per board: flash, code in RAM, heap after boot, peak heap of a whole game at the top
level, recursion cost per search ply, and an estimate for the 32-bit chip (run by hand;
results in docs/benchmarks.md, "Memory"; the budget explained in docs/memory.md).

    .venv/bin/python bench/memory.py                 # pico, pico2, esp32, esp32s3
    .venv/bin/python bench/memory.py pico esp32 --min   # also the smallest heap the game fits in
    .venv/bin/python bench/memory.py esp32 --min --tt 512   # the 64 KB goal configuration

Per board, under the MicroPython unix port (64-bit) unless noted:
- flash: the files `make flash` copies (.mpy for the board's CPU) and LittleFS 4 KB blocks;
- code: gc.mem_alloc() held after importing every flashed module, from .mpy files (bytecode
  in RAM, as after `make flash`) and in place from a ROMFS image (bytecode left in "flash",
  but the interned names and a raw-code descriptor per function still in RAM, which a
  frozen build keeps in flash too: both are measured and taken off for the frozen estimate);
- the device side of tests/memory_probe.py's game ("3 min/move", searches capped at 600 nodes,
  pondering, book, journal): held after each construction step (drivers .. boot), the peak
  (gc.collect() + gc.mem_alloc() sampled every 16 clock reads, i.e. main-loop passes and
  search polls), the deepest search ply, then one search as long as 3 minutes on the chip;
- bytes per search ply (MicroPython puts call frames with many locals on the heap);
- `--min`: the smallest budget (reserve, 1 KB steps) with which the whole game and the
  full-length search still complete (as tests/test_memory.py runs them);
- `--tt N`: the boards' configs with N transposition-table entries;
- a 32-bit estimate: engine tables and other byte arrays (counted by walking the same objects
  under CPython) keep their size, every other byte (objects, dicts, frames: word-sized
  fields) halves.
"""
import argparse
import array
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests import memory_probe as probe  # noqa: E402
from tests.mpy import micropython_path  # noqa: E402
from tools import flash  # noqa: E402

BLOCK_BYTES = 4096
BOARDS = ("pico", "pico2", "esp32", "esp32s3")
BUDGET_KB = {"pico": 210, "pico2": 460, "esp32": 110, "esp32s3": 2048}
NODE_CAP = 600


def flash_blocks(build):
    folders = {os.path.dirname(f.device_path) for f in build.files} - {""}
    return sum(max(1, -(-f.size_bytes // BLOCK_BYTES)) for f in build.files) + len(folders)


def device_modules(build):
    return [f.device_path[:-4].replace("/", ".").replace(".__init__", "")
            for f in build.files if f.device_path.endswith(".mpy")]


def _mpy(code, folder, heapsize="2M"):
    env = dict(os.environ, MICROPYPATH=folder)
    proc = subprocess.run([micropython_path(), "-X", "heapsize=" + heapsize, "-c", code], cwd=folder, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stdout + proc.stderr)
    return proc.stdout


def romfs_image(folder, out_path):
    """A ROMFS image of `folder` (mpremote's writer): MicroPython imports .mpy from it in place."""
    from mpremote.romfs import VfsRomWriter

    def add(w, d):
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            if os.path.isdir(p):
                w.opendir(name)
                add(w, p)
                w.closedir()
            else:
                with open(p, "rb") as f:
                    w.mkfile(name, f.read())

    w = VfsRomWriter()
    add(w, folder)
    with open(out_path, "wb") as f:
        f.write(w.finalise())


def code_ram(folder, modules, image=None, qstr=False):
    """Bytes held after importing `modules` (from `folder`, or in place from a ROMFS image);
    with `qstr`, (bytes, bytes of it in the interned-name pools: micropython.qstr_info())."""
    pre = ""
    if image:
        pre = ("import vfs, sys\nf = open(%r, 'rb')\nimg = f.read()\nf.close()\n"
               "vfs.mount(vfs.VfsRom(img), '/rom')\nsys.path.insert(0, '/rom')\n" % image)
    code = pre + ("import gc, micropython\nmicropython.qstr_info()\ngc.collect()\nbase = gc.mem_alloc()\n"
                  "for m in %r:\n    __import__(m)\n"
                  "gc.collect()\nprint(gc.mem_alloc() - base)\nmicropython.qstr_info()\n" % (modules,))
    empty = tempfile.mkdtemp()
    lines = _mpy(code, empty if image else folder).strip().splitlines()
    held_bytes = int(lines[1])
    if not qstr:
        return held_bytes
    pools = [int(line.rsplit("n_total_bytes=", 1)[1]) for line in lines if "n_total_bytes=" in line]
    return held_bytes, pools[1] - pools[0]


# ---- bytes that keep their size on a 32-bit chip (walked under CPython) ---------------------
def payload_bytes(roots, skip=()):
    """Bytes of array/bytearray/bytes buffers reachable from `roots` through instances, lists,
    tuples and dicts (harness objects from host_sim/ and tests/, modules, classes and functions are
    not followed, nor objects whose id is in `skip`)."""
    seen = set(skip)
    todo = list(roots)
    total = 0
    while todo:
        obj = todo.pop()
        if id(obj) in seen or obj is None or isinstance(obj, (int, float, str, bool)):
            continue
        seen.add(id(obj))
        if isinstance(obj, array.array):
            total += obj.itemsize * len(obj)
        elif isinstance(obj, (bytearray, bytes)):
            total += len(obj)
        elif isinstance(obj, (list, tuple, set)):
            todo.extend(obj)
        elif isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif hasattr(obj, "__dict__") and not isinstance(obj, type) and not callable(obj):
            mod = type(obj).__module__ or ""
            if not mod.startswith(("host_sim", "tests")):
                todo.extend(vars(obj).values())
    return total


def module_objects(modules):
    """ids of everything reachable from the modules' globals (built at import, not by the game)."""
    import importlib

    ids = set()
    todo = []
    for m in modules:
        todo.extend(v for v in vars(importlib.import_module(m)).values() if not callable(v))
    while todo:
        obj = todo.pop()
        if id(obj) in ids or isinstance(obj, (int, float, str, bool)) or obj is None:
            continue
        ids.add(id(obj))
        if isinstance(obj, (list, tuple, set)):
            todo.extend(obj)
        elif isinstance(obj, dict):
            todo.extend(obj.values())
        elif hasattr(obj, "__dict__") and not isinstance(obj, type) and not callable(obj):
            todo.extend(vars(obj).values())
    return ids


def cpython_payloads(board, modules, tt_entries=None):
    """Payload bytes after each construction step of the probe's device side (CPython),
    not counting tables the modules made at import."""
    skip = module_objects(modules)
    g = probe.MemoryGame(board, probe.TOP_LEVEL, node_cap=NODE_CAP, journal_dir=tempfile.mkdtemp(), sample_every=0,
                         pass_ms=4, ms_per_node=0, hand_ms=100, tt_entries=tt_entries)
    g.build()
    a = g.app
    return {
        "drivers": payload_bytes([g.hw], skip),
        "searcher": payload_bytes([g.hw, a.searcher], skip),
        "book": payload_bytes([g.hw, a.searcher, a.computer.book], skip),
        "boot": payload_bytes([a], skip),
    }


def raw_code_bytes():
    """RAM one function's raw-code descriptor holds when its module is imported in place from
    ROMFS (a frozen build keeps it in flash): 300 nested functions never called, measured."""
    src = tempfile.mkdtemp()
    body = "".join("    def f%d(a, b):\n        return a + b\n" % i for i in range(300))
    for name, text in (("rc_a", "def outer():\n" + body), ("rc_b", "x = 1\n")):
        with open(os.path.join(src, name + ".py"), "w") as f:
            f.write(text)
        flash.compile_mpy(os.path.join(src, name + ".py"), os.path.join(src, name + ".mpy"), "x64", name + ".py")
        os.remove(os.path.join(src, name + ".py"))
    image = os.path.join(tempfile.mkdtemp(), "rom.img")
    romfs_image(src, image)
    (a, qa), (b, qb) = code_ram(src, ["rc_a"], image, True), code_ram(src, ["rc_b"], image, True)
    return (a - qa - b + qb) // 300


def code_objects(build):
    """Functions, classes, comprehensions and module bodies of the build's modules."""
    import types

    def count(co):
        return 1 + sum(count(c) for c in co.co_consts if isinstance(c, types.CodeType))

    n = 0
    for f in build.files:
        if f.device_path.endswith(".mpy"):
            path = os.path.join(ROOT, f.device_path[:-4] + ".py")
            with open(path) as src:
                n += count(compile(src.read(), path, "exec"))
    return n


def module_payload(modules):
    """Payload bytes held by the modules' globals (tables built at import)."""
    import importlib

    roots = []
    for m in modules:
        mod = importlib.import_module(m)
        roots.extend(v for v in vars(mod).values() if not callable(v))
    return payload_bytes(roots)


def est32(total64, data):
    return data + (total64 - data) // 2


def kb(n):
    return "%.1f" % (n / 1024.0)


def smallest_budget(tree, board, hi_kb, deep_nodes, tt_entries=None, lo_kb=32):
    """Smallest budget (KB, 1 KB steps) with which the probe's game and deep search complete."""
    def fits(k):
        try:
            probe.run_probe(tree, board, heapsize="1M", budget=k * 1024, node_cap=NODE_CAP, sample_every=0,
                            journal_dir=tempfile.mkdtemp(), deep_nodes=deep_nodes, tt_entries=tt_entries)
            return True
        except RuntimeError:
            return False

    if not fits(hi_kb):
        return None
    while hi_kb - lo_kb > 1:
        mid = (hi_kb + lo_kb) // 2
        if fits(mid):
            hi_kb = mid
        else:
            lo_kb = mid
    return hi_kb


def measure(board, do_min, tt_entries=None):
    from host_sim.clock import device_speed

    cfg = probe.board_config(board)
    row = {"board": board, "tt": tt_entries or cfg["tt_entries"], "budget_kb": BUDGET_KB[board]}
    with tempfile.TemporaryDirectory() as tmp:
        real = flash.build(board, out_dir=os.path.join(tmp, "real"), write_main=False, log=None)
        row["arch"] = real.arch
        row["files"] = len(real.files)
        row["mpy_bytes"] = sum(f.size_bytes for f in real.files if f.device_path.endswith(".mpy"))
        row["flash_kb"] = flash_blocks(real) * BLOCK_BYTES // 1024
        dev = flash.build(board, arch="x64", out_dir=os.path.join(tmp, "dev"), write_main=False, log=None)
        mods = device_modules(dev)
        row["code_mpy"] = code_ram(dev.folder, mods)
        image = os.path.join(tmp, "rom.img")
        romfs_image(dev.folder, image)
        row["code_rom"], row["code_qstr"] = code_ram(dev.folder, mods, image=image, qstr=True)
        row["code_data"] = module_payload(mods)
        row["code_objects"] = code_objects(dev)
        row["mods"] = mods
        tree = os.path.join(tmp, "tree")
        probe.build_tree(board, tree)
        nps, _ = device_speed(cfg)
        deep = nps * 180
        t0 = time.time()
        out = probe.run_probe(tree, board, heapsize="4M", node_cap=NODE_CAP, deep_nodes=deep, sample_every=16,
                              journal_dir=tempfile.mkdtemp(), tt_entries=tt_entries)
        row["game_s"] = time.time() - t0
        row["steps"] = out["STEP"]
        row["result"] = out["RESULT"]
        row["plies"] = len(out["MOVES"])
        row["peak"], row["end"], row["deepest"] = (int(x) for x in out["PEAK"])
        row["deep_nodes"], row["deep_ply"], row["deep_peak"] = (int(x) for x in out["DEEP"])
        if do_min:
            row["min_kb"] = smallest_budget(tree, board, BUDGET_KB[board], deep, tt_entries)
    row["payload"] = cpython_payloads(board, row["mods"], tt_entries)
    return row


def frames():
    tree = tempfile.mkdtemp()
    probe.build_tree("esp32", tree)
    code = ("from tests.memory_probe import frame_bytes_per_ply\n"
            "for n in (1000, 5000, 23400):\n    print(n, *frame_bytes_per_ply('esp32', nodes=n))\n")
    return [line.split() for line in _mpy(code, tree, "4M").strip().splitlines()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("boards", nargs="*", default=list(BOARDS))
    ap.add_argument("--min", action="store_true", help="also bisect the smallest budget the game fits in")
    ap.add_argument("--tt", type=int, default=None, help="transposition-table entries instead of the board's")
    args = ap.parse_args(argv)
    print("machine: %s, %d cores, CPython %s, %s; %s" % (platform.machine(), os.cpu_count(), platform.python_version(),
                                                        _mpy("import sys; print(sys.version)", ROOT).strip(),
                                                        time.strftime("%Y-%m-%d")))
    rows = [measure(b, args.min, args.tt) for b in args.boards]
    print("\n| board | arch | files | .mpy bytes | flash | code in RAM: .mpy / in place (ROMFS) | of it tables |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %d | {:,} | %d KB | %s / %s KB | %s KB |".format(r["mpy_bytes"]) % (
            r["board"], r["arch"], r["files"], r["flash_kb"], kb(r["code_mpy"]), kb(r["code_rom"]),
            kb(r["code_data"])))
    print("\nDevice side of a whole game at 3 min/move (64-bit unix port, KB held; 32-bit estimate in brackets):\n")
    print("| board | TT | drivers | + Searcher | + book, journal, App | after boot | peak in game | "
          "peak with a 3-min search | deepest ply (game / 3 min) | smallest budget | budget |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        s, p = r["steps"], r["payload"]
        boot32 = est32(s["boot"], p["boot"])
        peak = max(r["peak"], r["deep_peak"])
        print("| %s | %d | %s (%s) | %s (%s) | %s | %s (%s) | %s (%s) | %s (%s) | %d / %d | %s | %d KB |" % (
            r["board"], r["tt"], kb(s["drivers"]), kb(est32(s["drivers"], p["drivers"])),
            kb(s["searcher"] - s["drivers"]),
            kb(est32(s["searcher"], p["searcher"]) - est32(s["drivers"], p["drivers"])),
            kb(s["boot"] - s["searcher"]), kb(s["boot"]), kb(boot32), kb(r["peak"]),
            kb(est32(r["peak"], p["boot"])), kb(peak), kb(est32(peak, p["boot"])), r["deepest"], r["deep_ply"],
            ("%d KB" % r["min_kb"]) if r.get("min_kb") else "-", r["budget_kb"]))
    print("\nGames: " + "; ".join("%s %s %s in %d plies (%.0f s)" % (
        r["board"], r["result"][0], r["result"][1], r["plies"], r["game_s"]) for r in rows))
    per_raw = raw_code_bytes()
    print("\nEstimated total on the 32-bit chip with the firmware frozen: in-place import less the interned-name"
          " pools and %d bytes of raw-code descriptor per code object (both in flash when frozen), halved except"
          " tables, + the peak:" % per_raw)
    for r in rows:
        frozen32 = est32(r["code_rom"] - r["code_qstr"] - per_raw * r["code_objects"], r["code_data"])
        peak32 = est32(max(r["peak"], r["deep_peak"]), r["payload"]["boot"])
        print("  %s: %d code objects, names %s KB; %s + %s = %s KB of %d KB" % (
            r["board"], r["code_objects"], kb(r["code_qstr"]), kb(frozen32), kb(peak32), kb(frozen32 + peak32),
            r["budget_kb"]))
    print("\nSearch recursion (esp32 tables, middlegame): nodes, bytes per ply, deepest ply")
    for n, per_ply, deepest in frames():
        print("  %s nodes: %s bytes per ply, %s plies deep" % (n, per_ply, deepest))


if __name__ == "__main__":
    main()
