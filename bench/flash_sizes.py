"""Flash and RAM cost of the firmware per board (run by hand; results in docs/benchmarks.md).

    .venv/bin/python bench/flash_sizes.py

For each shipped board: the files `make flash` copies, their bytes as .mpy and as .py, and
the flash they take on the board's LittleFS (4 KB blocks, one block minimum per file, plus a
block per folder). Then RAM: the heap the imported modules hold (`gc.mem_alloc()` after
importing every module and collecting), loaded from .mpy and from .py, and the smallest
`-X heapsize` with which importing them all succeeds (the peak, compile garbage included),
measured under the MicroPython unix port. That port is 64-bit, so objects are up to twice their size on the
32-bit chips: read the RAM figures as an upper bound.
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.mpy import micropython_path  # noqa: E402
from tools import fileset, flash  # noqa: E402

BLOCK_BYTES = 4096


def blocks(build):
    folders = {os.path.dirname(f.device_path) for f in build.files} - {""}
    return sum(max(1, -(-f.size_bytes // BLOCK_BYTES)) for f in build.files) + len(folders)


def heap_after_import(folder, modules):
    code = (
        "import gc\ngc.collect()\nbase = gc.mem_alloc()\nbad = []\n"
        "for m in %r:\n    try:\n        __import__(m)\n    except ImportError as e:\n        bad.append(m)\n"
        "gc.collect()\nprint(bad)\nprint(gc.mem_alloc() - base)\n" % (modules,)
    )
    env = dict(os.environ, MICROPYPATH=folder)
    out = subprocess.run(
        [micropython_path(), "-X", "heapsize=2M", "-c", code],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = out.stdout.split("\n")
    if lines[0] != "[]":
        print("  (not importable yet, left out: %s)" % lines[0], file=sys.stderr)
    return int(lines[1])


def min_heap(folder, modules, lo_kb=16, hi_kb=2048):
    """Smallest -X heapsize (KB) with which importing every module succeeds: the peak need,
    compile-time garbage included (for .py the board compiles on import)."""
    code = "for m in %r:\n    __import__(m)\n" % (modules,)
    env = dict(os.environ, MICROPYPATH=folder)

    def fits(kb):
        proc = subprocess.run(
            [micropython_path(), "-X", "heapsize=%dK" % kb, "-c", code],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
        return proc.returncode == 0

    if not fits(hi_kb):
        return None
    while hi_kb - lo_kb > 1:
        mid = (lo_kb + hi_kb) // 2
        if fits(mid):
            hi_kb = mid
        else:
            lo_kb = mid
    return hi_kb


def main():
    print(
        "%-8s %-10s %6s %10s %10s %12s %14s %14s"
        % ("board", "arch", "files", ".mpy bytes", ".py bytes", "flash (4K)", "RAM .mpy", "RAM .py")
    )
    for board in sorted(flash.BOARD_ARCH):
        if board not in fileset.board_names():
            continue
        with tempfile.TemporaryDirectory() as tmp:
            mpy = flash.build(board, out_dir=os.path.join(tmp, "mpy"), write_main=False, log=None)
            x64 = flash.build(board, arch="x64", out_dir=os.path.join(tmp, "x64"), write_main=False, log=None)
            src = flash.build(board, source=True, out_dir=os.path.join(tmp, "py"), write_main=False, log=None)
            modules = [
                f.device_path[:-4].replace("/", ".").replace(".__init__", "")
                for f in x64.files
                if f.device_path.endswith(".mpy")
            ]
            ram_mpy = heap_after_import(x64.folder, modules)
            ram_py = heap_after_import(src.folder, modules)
            need_mpy = min_heap(x64.folder, modules)
            need_py = min_heap(src.folder, modules)
        print(
            "%-8s %-10s %6d %10s %10s %9d KB %11s B %11s B"
            % (
                board,
                mpy.arch,
                len(mpy.files),
                "{:,}".format(mpy.total_bytes()),
                "{:,}".format(src.total_bytes()),
                blocks(mpy) * BLOCK_BYTES // 1024,
                "{:,}".format(ram_mpy),
                "{:,}".format(ram_py),
            )
        )
        print(
            "%-8s smallest heap that imports everything: %s KB from .mpy, %s KB from .py" % (board, need_mpy, need_py)
        )


if __name__ == "__main__":
    main()
