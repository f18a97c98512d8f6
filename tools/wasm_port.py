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
more than a few words of locals is heap-allocated), and the heap is not a fixed size: the
pyscript variant starts with `heap_bytes` and, when an allocation fails even after a
collection, adds a new piece (at least doubling the total) and never gives one back. So
`micropython.mem_info()`'s "GC: total" at the end says how far the heap had to grow, and a
run whose total is still the starting size never needed more than that (fragmentation
included), as a board with that heap would not have raised MemoryError.

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

_RUNNER_JS = r"""// Written by tools/wasm_port.py: run a Python file under MicroPython's WebAssembly port.
// node run.mjs CONFIG.json  with {"heap": bytes, "tree": dir or null, "script": file, "pystack": words}
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
const code = fs.readFileSync(cfg.script, 'utf8');
try {
  mp.runPython("import sys\nif '/tree' not in sys.path: sys.path.insert(0, '/tree')\n");
  mp.runPython(code);
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


def run(code, tree=None, heap_bytes=64 * 1024, timeout=900, pystack_words=8192, tmp_dir=None):
    """Run `code` (Python text) under the port with a heap starting at `heap_bytes`; return its
    stdout. WasmError with the output when it raises."""
    why = unavailable()
    if why:
        raise WasmError(why)
    tmp_dir = tmp_dir or os.path.join(CACHE, "tmp")
    os.makedirs(tmp_dir, exist_ok=True)
    tag = "%d-%d" % (os.getpid(), id(code))
    script = os.path.join(tmp_dir, "wasm-%s.py" % tag)
    config = os.path.join(tmp_dir, "wasm-%s.json" % tag)
    with open(script, "w") as f:
        f.write(code)
    with open(config, "w") as f:
        json.dump({"heap": heap_bytes, "tree": os.path.abspath(tree) if tree else None, "script": script,
                   "pystack": pystack_words}, f)
    try:
        proc = subprocess.run(["node", RUNNER, config], cwd=WASM_DIR, capture_output=True, text=True,
                              timeout=timeout)
    finally:
        for p in (script, config):
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
