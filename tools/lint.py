"""`make lint`: ruff over all Python, and type checking of the device code against the
MicroPython stubs of each port.

- ruff (pinned in the `lint` extra) checks firmware/ host_sim/ boards/ tools/ tests/ bench/ online/
  with the rules in pyproject.toml ([tool.ruff.lint]).
- basedpyright (pinned in the `lint` extra; pyright's engine, shipped with its own Node.js on
  PyPI, so nothing is downloaded at run time) checks, once per MicroPython port, firmware/ and
  that port's boards against `micropython-<port>-stubs`. The stubs replace Python's standard
  library (a MicroPython `time` has ticks_ms, `machine` exists...), so they are installed with
  `pip --target` into build/stubs/<port>/, never into .venv where they would shadow CPython's.

    python -m tools.lint              # everything; exit 1 if anything is reported
    python -m tools.lint --only ruff  # or: --only types
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

try:
    from tools import fileset
except ImportError:  # run as a script
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tools import fileset

ROOT = fileset.ROOT
RUFF_PATHS = ("firmware", "host_sim", "boards", "tools", "tests", "bench", "online")
STUBS_DIR = os.path.join(ROOT, "build", "stubs")

# MicroPython port -> (stub package pinned to the MicroPython the project tests with, its boards' MCUs)
PORTS = {
    "rp2": ("micropython-rp2-stubs==1.29.0.post1", ("RP2040", "RP2350")),
    "esp32": ("micropython-esp32-stubs==1.29.0.post1", ("ESP32", "ESP32-S2", "ESP32-S3")),
}

# pyright rules switched off for MicroPython code, and why:
PYRIGHT_RULES = {
    # stubs ship without sources (there is no CPython `machine`): expected, not a problem
    "reportMissingModuleSource": False,
    # buffers and collaborators are often `None` until a start()/attach() that the contract
    # requires; proving that to the checker would need asserts (stripped on the device) or
    # extra branches in hot loops
    "reportOptionalMemberAccess": False,
    "reportOptionalSubscript": False,
    "reportOptionalCall": False,
    "reportOptionalIterable": False,
    "reportOptionalOperand": False,
}


def _venv_tool(name):
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    return candidate if os.path.exists(candidate) else (shutil.which(name) or name)


def ensure_stubs(port, log=print):
    """Install the port's stubs into build/stubs/<port>/ unless the pinned version is there."""
    spec = PORTS[port][0]
    folder = os.path.join(STUBS_DIR, port)
    marker = os.path.join(folder, ".installed")
    try:
        with open(marker) as f:
            if f.read() == spec:
                return folder
    except OSError:
        pass
    log("installing %s into %s" % (spec, os.path.relpath(folder, ROOT)))
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-user", "--upgrade", "--target", folder, spec],
        check=True,
    )
    with open(marker, "w") as f:
        f.write(spec)
    return folder


def port_files(port, root=ROOT):
    """firmware/ and the boards/ files of every board built on this port's MCUs."""
    mcus = PORTS[port][1]
    files = set(fileset.firmware_sources(root))
    for board in fileset.board_names(root):
        if (fileset.board_mcu(board, root) or "").upper() in mcus:
            files.update(fileset.board_files(board, root))
    return sorted(files)


def pyright_config(port, stubs, root=ROOT):
    config = {
        "include": [os.path.join(root, p) for p in port_files(port, root)],
        "typeshedPath": stubs,  # its stdlib/ replaces CPython's
        "stubPath": stubs,  # machine, micropython, neopixel, rp2 / esp32 ...
        "extraPaths": [root],
        # the shim defines CPython fallbacks next to MicroPython's functions by design; its
        # CPython branch cannot type-check against MicroPython's standard library
        "ignore": [os.path.join(root, "firmware", "compat.py")],
        "pythonVersion": "3.11",
        "pythonPlatform": "Linux",
        "typeCheckingMode": "standard",
        "reportUnnecessaryTypeIgnoreComment": False,
    }
    config.update(PYRIGHT_RULES)
    return config


def run_types(port, log=print):
    """Type-check the port's files; return the number of errors reported."""
    stubs = ensure_stubs(port, log)
    config_path = os.path.join(STUBS_DIR, "pyrightconfig-%s.json" % port)
    with open(config_path, "w") as f:
        json.dump(pyright_config(port, stubs), f, indent=2)
    log("== types (%s stubs): basedpyright over %d files" % (port, len(port_files(port))))
    proc = subprocess.run([_venv_tool("basedpyright"), "-p", config_path], cwd=ROOT, capture_output=True, text=True)
    out = proc.stdout.replace(ROOT + os.sep, "")
    log(out.rstrip())
    found = re.search(r"(\d+) errors?", out)
    if proc.returncode not in (0, 1):
        log(proc.stderr)
        return max(1, int(found.group(1)) if found else 1)
    return int(found.group(1)) if found else 0


def run_ruff(log=print):
    """ruff check over the project's Python; return the number of issues."""
    log("== ruff check %s" % " ".join(RUFF_PATHS))
    proc = subprocess.run([_venv_tool("ruff"), "check", *RUFF_PATHS], cwd=ROOT, capture_output=True, text=True)
    log((proc.stdout + proc.stderr).rstrip())
    found = re.search(r"Found (\d+) error", proc.stdout)
    if proc.returncode == 0:
        return 0
    return int(found.group(1)) if found else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description="ruff + type checking against the MicroPython stubs")
    parser.add_argument("--only", choices=("ruff", "types"), help="run only one of the two")
    parser.add_argument("--port", choices=sorted(PORTS), action="append", help="type-check only this port")
    args = parser.parse_args(argv)
    counts = {}
    if args.only in (None, "ruff"):
        counts["ruff"] = run_ruff()
    if args.only in (None, "types"):
        for port in args.port or sorted(PORTS):
            counts["types/" + port] = run_types(port)
    print("== lint summary: " + ", ".join("%s %d" % item for item in counts.items()))
    return 1 if any(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
