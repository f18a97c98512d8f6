"""Engine speed against heap on an emulated stock Pico (run by hand; results in docs/benchmarks.md).

    python bench/pico_speed.py                          # the engine as it is (all its machine code)
    python bench/pico_speed.py --variant none           # no machine code at all (bytecode only)
    python bench/pico_speed.py --variant all,none,search,position+search
    python bench/pico_speed.py --port 2341 --depth 4 --keep
    python bench/pico_speed.py --shifts 0,256,512,1024        # four heap layouts, the median

Needs the emulated Pico (`make emulators`: .cache/rp2040/, or --emu DIR / $RP2040_EMU with rp2040js and a
stock firmware); the runner is host_sim/rp2040/board.mjs, bare, with the firmware's own heap (no hold).

For each variant it compiles the engine (firmware/compat.py, loader.py, firmware/engine/*.py) to .mpy
for the RP2040 (armv6m) with only the chosen groups of machine-code (viper or native) functions kept
(the others become bytecode), boots a fresh emulated Pico on a TCP port, copies the files with
mpremote and runs a fixed measurement on it:

- the heap each engine module holds after import (gc.collect() between imports, in the order
  a game imports them), and the total;
- the heap of one Searcher(tt_entries=2048, move_stack=1024) and one Position;
- a fixed search: the first BENCH_COUNT positions of bench/search_speed.py to --depth with
  one Searcher (new_game() between positions); nodes, emulated ms and nodes per second.

The same search runs here under CPython first: its node count must equal the Pico's (the
machine code must not change what is searched), else the variant is reported as WRONG.

Groups (function names per group in GROUPS): attack, legal, movegen, make (position = the four),
evaluate, qsearch, search (the main node and its helpers), order (the main search's move
scoring and selection), see, tt. A variant is `all` (every viper or native function in the
sources kept, as `make flash` ships them, whether or not a group names it), `none`, or group
names joined by '+'. (Until 2026-11-25 `all` kept only the functions the groups named, so the
move ordering, `_score_moves` and `_pick`, ran as bytecode in this bench while the flashed
firmware ran it as machine code: the figures before that date are for that engine.)

Nodes/s depends on the heap's layout, not only on the code: every call of a bytecode function
whose locals and stack exceed 11 words takes its frame from the heap (MicroPython's
VM_MAX_STATE_ON_STACK), several per node, and how long the allocator searches for room
depends on the free holes the imports left. The same engine measured 300..392 nodes/s with
a few hundred bytes more or less code loaded before it. --shifts 0,256,512,1024 runs each
variant once per layout (a bytearray of that size held before the imports) and reports the
median and the spread: compare variants by those, not by one run. Since the search fills the
heap's small holes before it starts (firmware/compat.py, fill_heap_holes) the allocator's walk
is short in every layout (569..573 nodes/s on eight layouts, where 381..502 before); --shifts
still shows whether a change keeps it so.

Emulated time runs 3-4x slower than the real chip in host time, and the emulator does not
model flash cache misses, so absolute nodes/s are optimistic; the comparison between variants
is what this is for.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tools import flash  # noqa: E402
from tools.emulated_pico import RP_DIR, RUNNER  # noqa: E402

GROUPS = {
    "attack": ("least_attacker",),
    "legal": ("in_check", "make_legal"),
    "movegen": ("_generate",),
    "make": ("make", "play", "unmake", "make_null"),
    "evaluate": ("_terms",),
    "qsearch": ("_qsearch", "_static", "_hopeless"),
    "search": ("_search", "_check", "_filter_evasions"),
    "order": ("_score_moves", "_pick"),
    "see": ("see",),
    "tt": ("probe", "store"),
}
GROUPS["position"] = GROUPS["attack"] + GROUPS["legal"] + GROUPS["movegen"] + GROUPS["make"]
MODULES = ("firmware.engine.constants", "firmware.engine.tunables", "firmware.engine.zobrist",
           "firmware.engine.position", "firmware.engine.rules", "firmware.engine.fen", "firmware.engine.notation",
           "firmware.engine.evaluate", "firmware.engine.endgame", "firmware.engine.see", "firmware.engine.tt",
           "firmware.engine.timeman", "firmware.engine.levels", "firmware.engine.search", "firmware.engine.book")
BENCH_COUNT = 3
BENCH_DEPTH = 4
TT_ENTRIES = 2048
MOVE_STACK = 1024

# Runs on the Pico (and, for the node count, under CPython). DEPTH/COUNT/FENS are filled in.
DEVICE_SCRIPT = r"""
import gc, sys
try:
    from firmware.compat import ticks_ms, ticks_diff
except ImportError as e:
    print('ERR', e)
    raise
gc.collect()
_pad = bytearray(%(shift)d)  # --shifts: moves everything the imports allocate (the heap's layout)
MODS = %(mods)r
FENS = %(fens)r
def free():
    gc.collect()
    return gc.mem_free() if hasattr(gc, 'mem_free') else 0
base = free()
prev = base
for m in MODS:
    __import__(m)
    f = free()
    print('MOD %%s %%d' %% (m, prev - f))
    prev = f
print('ENGINE %%d' %% (base - prev))
from firmware.engine.position import Position
from firmware.engine.search import Searcher, Limits
a = free()
s = Searcher(tt_entries=%(tt)d, move_stack=%(ms)d, poll_nodes=1024)
b = free()
p = Position()
c = free()
print('SEARCHER %%d' %% (a - b))
print('POSITION %%d' %% (b - c))
total_nodes = 0
total_ms = 0
for fen in FENS:
    p = Position(fen)
    s.new_game()
    t0 = ticks_ms()
    r = s.search(p, Limits(depth=%(depth)d))
    ms = ticks_diff(ticks_ms(), t0)
    total_nodes += r.nodes
    total_ms += ms
    print('POS %%d %%d %%d %%d' %% (r.best_move, r.nodes, ms, s.stack_ply))
print('BENCH %%d %%d' %% (total_nodes, total_ms))
print('FREE %%d' %% free())
"""


def variant_groups(variant):
    if variant == "all":
        return set(GROUPS)
    if variant == "none":
        return set()
    groups = set(variant.split("+"))
    unknown = groups - set(GROUPS)
    if unknown:
        raise SystemExit("unknown group(s) %s; groups are %s" % (", ".join(sorted(unknown)), ", ".join(GROUPS)))
    return groups


def strip_native(text, keep_names):
    """`text` with the `@micropython.native` or `viper` line above every def not in keep_names blanked."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip() not in flash.MACHINE_CODE_DECORATORS:
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip().startswith("@"):
            j += 1
        m = re.match(r"\s*def (\w+)", lines[j] if j < len(lines) else "")
        if not m or m.group(1) not in keep_names:
            lines[i] = ""
    return "\n".join(lines)


def engine_sources():
    files = ["firmware/__init__.py", "firmware/compat.py", "firmware/loader.py", "firmware/engine/__init__.py"]
    for name in sorted(os.listdir(os.path.join(ROOT, "firmware", "engine"))):
        if name.endswith(".py") and name != "__init__.py":
            files.append("firmware/engine/" + name)
    return files


def build_variant(variant, out_dir):
    keep = set()
    for g in variant_groups(variant):
        keep.update(GROUPS[g])
    everything = variant == "all"  # as shipped: no decorator stripped, named in GROUPS or not
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    src_dir = out_dir + ".src"
    built = []
    for rel in engine_sources():
        with open(os.path.join(ROOT, rel)) as f:
            text = f.read()
            if not everything:
                text = strip_native(text, keep)
        src = os.path.join(src_dir, rel)
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w") as f:
            f.write(text)
        dest = os.path.join(out_dir, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        flash.compile_mpy(src, dest, "armv6m", rel)
        built.append((dest, rel[:-3] + ".mpy"))
    return built


def wait_port(port, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit("the emulator did not open port %d" % port)


def device_script(depth, count, shift=0):
    from bench.search_speed import BENCH_FENS

    return DEVICE_SCRIPT % {"mods": MODULES, "fens": BENCH_FENS[:count], "tt": TT_ENTRIES, "ms": MOVE_STACK,
                            "depth": depth, "shift": shift}


def parse(out):
    result = {"mods": [], "pos": []}
    for line in out.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "MOD":
            result["mods"].append((w[1], int(w[2])))
        elif w[0] in ("ENGINE", "SEARCHER", "POSITION", "FREE"):
            result[w[0].lower()] = int(w[1])
        elif w[0] == "POS":
            result["pos"].append((int(w[1]), int(w[2]), int(w[3]), int(w[4])))
        elif w[0] == "BENCH":
            result["nodes"], result["ms"] = int(w[1]), int(w[2])
    return result


def run_cpython(script):
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit("CPython run failed:\n" + proc.stderr)
    return parse(proc.stdout)


def run_on_emulator(built, args, scripts, work_dir):
    """Boot a fresh emulated Pico on args.port, copy the `built` (local, remote) .mpy files to
    it with mpremote, run each script (source text) there in turn; returns [(printed output,
    host seconds)] in the same order. Shared with bench/pico_profile.py."""
    log = open(os.path.join(work_dir, "emu-%d.log" % args.port), "w")
    emu = subprocess.Popen(["node", RUNNER, "--rp-dir", args.emu, "--tcp", str(args.port), "--quiet"], cwd=ROOT,
                           stdout=log, stderr=subprocess.STDOUT)
    results = []
    try:
        wait_port(args.port)
        port = "socket://127.0.0.1:%d" % args.port
        cmds = []
        for d in ("firmware", "firmware/engine"):
            cmds += ["fs", "mkdir", ":" + d, "+"]
        for local, remote in built:
            cmds += ["fs", "cp", local, ":" + remote, "+"]
        flash.mpremote(port, cmds[:-1], timeout=600)
        for i, script in enumerate(scripts):
            script_path = os.path.join(work_dir, "script-%d.py" % i)
            with open(script_path, "w") as f:
                f.write(script)
            t0 = time.time()
            out = flash.mpremote(port, ["run", script_path], timeout=3600)
            results.append((out, time.time() - t0))
    finally:
        emu.terminate()
        emu.wait()
        log.close()
    return results


def run_variant(variant, args, script):
    work_dir = os.path.join(ROOT, "build", "pico_speed")
    built = build_variant(variant, os.path.join(work_dir, variant))
    mpy_bytes = sum(os.path.getsize(p) for p, _ in built)
    [(out, host_s)] = run_on_emulator(built, args, [script], work_dir)
    if args.keep:
        print(out)
    result = parse(out)
    if "nodes" not in result:
        raise SystemExit("variant %s: the Pico printed no result:\n%s" % (variant, out[-2000:]))
    result["mpy_bytes"] = mpy_bytes
    result["host_s"] = host_s
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="all", help="comma-separated variants (all, none, search+position, ...)")
    ap.add_argument("--port", type=int, default=2341)
    ap.add_argument("--depth", type=int, default=BENCH_DEPTH)
    ap.add_argument("--count", type=int, default=BENCH_COUNT, help="how many bench positions")
    ap.add_argument("--emu", default=os.environ.get("RP2040_EMU", RP_DIR), help="folder of rp2040js and the firmware")
    ap.add_argument("--keep", action="store_true", help="print the Pico's raw output")
    ap.add_argument("--shifts", default="0", help="comma-separated byte counts held before the engine is imported, one"
                    " fresh run each (nodes/s depends on the heap's layout: see the docstring)")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.emu, "node_modules", "rp2040js")):
        raise SystemExit("no emulated Pico in %s: `make emulators` (or --emu DIR)" % args.emu)
    shifts = [int(x) for x in args.shifts.split(",")]
    ref = run_cpython(device_script(args.depth, args.count))
    print("CPython: %d nodes (%s)" % (ref["nodes"], " ".join(str(p[1]) for p in ref["pos"])))
    rows = []
    for variant in args.variant.split(","):
        speeds = []
        for shift in shifts:
            r = run_variant(variant, args, device_script(args.depth, args.count, shift))
            ok = [p[1] for p in r["pos"]] == [p[1] for p in ref["pos"]]
            short = [p[3] for p in r["pos"] if p[3] < 63]  # ran out of C stack: searched shallower
            nps = r["nodes"] * 1000 // (r["ms"] or 1)
            speeds.append(nps)
            print("variant %-24s shift %5d  engine heap %6d  searcher %6d  position %6d  mpy %6d  nodes %6d  %7d ms"
                  "  %4d nodes/s%s"
                  % (variant, shift, r["engine"], r["searcher"], r["position"], r["mpy_bytes"], r["nodes"], r["ms"],
                     nps, "" if ok else "  NODES DIFFER" + (" (C stack: ply limit %s)" % short if short
                                                             else " (WRONG)")))
            for _best, nodes, ms, ply in r["pos"]:
                per_s = nodes * 1000 // (ms or 1)
                print("    position: %6d nodes %7d ms %4d nodes/s  ply limit %d" % (nodes, ms, per_s, ply))
            if shift == shifts[0]:
                for name, delta in r["mods"]:
                    print("    %-34s %6d" % (name, delta))
            sys.stdout.flush()
        rows.append((variant, r, sorted(speeds), ok or bool(short)))
    print("\n| variant | engine heap after import (bytes) | nodes/s (median) | nodes/s by layout | nodes |")
    print("|---|---:|---:|---|---:|")
    for variant, r, speeds, ok in rows:
        print("| %s | %s | %d | %s | %d%s |" % (variant, "{:,}".format(r["engine"]), speeds[len(speeds) // 2],
                                               " ".join(map(str, speeds)), r["nodes"], "" if ok else " (WRONG)"))
    return 0 if all(ok for *_, ok in rows) else 1

if __name__ == "__main__":
    sys.exit(main())
