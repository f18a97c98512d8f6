"""MicroPython's official WebAssembly port (npm @micropython/micropython-webassembly-pyscript,
pinned) under Node: a 32-bit MicroPython whose heap can be watched.

    make emulators                  # installs it into .cache/mpwasm/ (and the emulated Pico)
    from tools.wasm_port import run, unavailable
    why = unavailable()             # None, or why it cannot run (no node, not installed)
    out = run(code, tree="build/x", heap_bytes=64 * 1024)   # stdout of `code`; WasmError on failure

What it models (docs/emulated-pico.md): the object layout of a 32-bit MicroPython (4-byte
words, 16-byte GC blocks) as on the RP2040, RP2350 and ESP32, with MicroPython 1.27's
allocator and collector. What not: no native emitter (build with tools.flash --bytecode),
function frames live on the "pystack" (not in the heap as on the chips, where a frame of
more than a few words of locals is heap-allocated), and the heap is not a fixed size.
Measured on 1.27.0: the pyscript variant starts with `heap_bytes`; gc.collect() (and the
gc.threshold trigger) inside Python code only marks a collection as due, which runs when the
next top-level call starts (the wasm stack cannot be scanned); until then an allocation that
does not fit adds a new heap piece (at least doubling the total), and a collection gives
empty pieces back. So code that should be measured runs in top-level steps: `run(..., step=)`
calls a step again and again; after each, total = gc.mem_alloc() + gc.mem_free() - "max new
split" (mem_free counts the room a new piece could take) is the heap the step needed with
its garbage uncollected, and a heap still at its starting size needed no more than that
(fragmentation included): a board with that heap would not have raised MemoryError.

`tree` is a folder copied into the port's in-memory file system at `/tree` (on sys.path, the
current directory): e.g. what tools.flash.build stages, plus test harness modules.
"""
import json
import os
import shutil
import subprocess
import sys

from tools.emulated_pico import CACHE, FAILED, ROOT, STAMP, _npm_install

WASM_DIR = os.path.join(CACHE, "mpwasm")
PACKAGE = "@micropython/micropython-webassembly-pyscript"
VERSION = "1.27.0"
RUNNER = "run.mjs"

_RUNNER_JS = r"""// Written by tools/wasm_port.py: run Python under MicroPython's WebAssembly port.
// node run.mjs CONFIG.json  with {"heap": bytes, "pystack": words, "tree": dir or null,
//   "scripts": [files run in turn], "step": file run again and again until the Python global
//   DONE is true (at most "max_steps" times), "finish": file run last}
// Each file is its own top-level call: the port collects garbage only there (see wasm_port.py).
import fs from 'fs';
import path from 'path';
import { loadMicroPython } from '@micropython/micropython-webassembly-pyscript';

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const mp = await loadMicroPython({
  heapsize: cfg.heap, pystack: cfg.pystack || 2048, linebuffer: false,
  stdout: (d) => process.stdout.write(d), stderr: (d) => process.stderr.write(d),
});
function copyTree(src, dest) {
  try { mp.FS.mkdir(dest); } catch (e) {}
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, e.name), d = dest + '/' + e.name;
    if (e.isDirectory()) copyTree(s, d);
    else mp.FS.writeFile(d, fs.readFileSync(s));
  }
}
if (cfg.tree) copyTree(cfg.tree, '/tree');
mp.FS.chdir(cfg.tree ? '/tree' : '/');
const read = (f) => fs.readFileSync(f, 'utf8');
try {
  mp.runPython("import sys\nif '/tree' not in sys.path: sys.path.insert(0, '/tree')\nDONE = False\n");
  for (const f of cfg.scripts) mp.runPython(read(f));
  if (cfg.step) {
    const step = read(cfg.step);
    let n = 0;
    while (!mp.globals.get('DONE')) {
      if (++n > cfg.max_steps) throw new Error('still not DONE after ' + cfg.max_steps + ' steps');
      mp.runPython(step);
    }
  }
  if (cfg.finish) mp.runPython(read(cfg.finish));
} catch (e) {
  process.stderr.write(String(e && e.message || e) + '\n');
  process.exit(1);
}
"""


class WasmError(RuntimeError):
    pass


def install(log=print):
    """npm install the pinned port into .cache/mpwasm/ and write its runner. None, or why not."""
    why = _npm_install(WASM_DIR, PACKAGE, VERSION, log)
    if why is None:
        with open(os.path.join(WASM_DIR, RUNNER), "w") as f:
            f.write(_RUNNER_JS)
    return why


def unavailable():
    if not shutil.which("node"):
        return "node not found on PATH: the WebAssembly port needs Node.js (then `make emulators`)"
    failed = os.path.join(WASM_DIR, FAILED)
    if os.path.exists(failed):
        with open(failed) as f:
            return "MicroPython WebAssembly port not installed: " + f.read().strip()
    if not os.path.exists(os.path.join(WASM_DIR, STAMP)):
        return "MicroPython WebAssembly port not installed in %s: run `make emulators`" % os.path.relpath(WASM_DIR,
                                                                                                          ROOT)
    if not os.path.exists(os.path.join(WASM_DIR, RUNNER)):
        install(log=None)  # the runner text changed with this file: write it again
    return None


def run(code, tree=None, heap_bytes=64 * 1024, timeout=900, pystack_words=8192, step=None, finish=None,
        max_steps=1000000, tmp_dir=None):
    """Run Python under the port with a heap starting at `heap_bytes`; return its stdout.
    `code`: text, or a list of texts run in turn, each a top-level call (the port collects
    garbage only between them); then `step` again and again until the global DONE is true;
    then `finish`. WasmError with the output when something raises."""
    why = unavailable()
    if why:
        raise WasmError(why)
    tmp_dir = tmp_dir or os.path.join(CACHE, "tmp")
    os.makedirs(tmp_dir, exist_ok=True)
    tag = "%d-%d" % (os.getpid(), id(code))
    files = []

    def put(text, name):
        if text is None:
            return None
        path = os.path.join(tmp_dir, "wasm-%s-%s.py" % (tag, name))
        with open(path, "w") as f:
            f.write(text)
        files.append(path)
        return path

    scripts = [code] if isinstance(code, str) else list(code)
    config = os.path.join(tmp_dir, "wasm-%s.json" % tag)
    files.append(config)
    with open(config, "w") as f:
        json.dump({"heap": heap_bytes, "tree": os.path.abspath(tree) if tree else None,
                   "pystack": pystack_words, "scripts": [put(t, "s%d" % i) for i, t in enumerate(scripts)],
                   "step": put(step, "step"), "finish": put(finish, "finish"), "max_steps": max_steps}, f)
    try:
        proc = subprocess.run(["node", RUNNER, config], cwd=WASM_DIR, capture_output=True, text=True,
                              timeout=timeout)
    finally:
        for p in files:
            if os.path.exists(p):
                os.remove(p)
    if proc.returncode != 0:
        raise WasmError("the wasm port failed (exit %d):\n--- stdout ---\n%s\n--- stderr ---\n%s"
                        % (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:]))
    return proc.stdout


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["install"]:
        why = install()
        if why:
            print("MicroPython WebAssembly port not installed: %s" % why, file=sys.stderr)
            return 1
        print("MicroPython WebAssembly port ready in %s (%s %s)" % (os.path.relpath(WASM_DIR, ROOT), PACKAGE, VERSION))
        return 0
    if len(argv) == 1 or argv[:1] == ["run"]:
        path = argv[-1]
        with open(path) as f:
            sys.stdout.write(run(f.read()))
        return 0
    print("usage: python -m tools.wasm_port install | run FILE.py", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
