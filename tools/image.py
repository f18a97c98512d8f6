"""Build one file to flash: MicroPython for an RP2 board with Reedchess frozen into it.

    make image BOARD=pico                 # dist/reedchess-<version>-pico.uf2 (and .bin)
    make image BOARD=pico_w MICROPY_SRC=../shared/micropython/micropython-1.28.0-rp2-src.tar.xz
    python -m tools.image --board pico [--src TREE_OR_TARBALL] [--jobs 2] [--force]

Steps: (1) find MicroPython 1.28.0 (the pinned tag below): MICROPY_SRC / --src (a source tree,
or the release tarball, unpacked once into .cache/micropython/<its SHA-256>/), else the tarball
in ../shared/micropython/ when it is there, else a shallow clone of the tag with its
submodules (needs git and the internet); (2) check the cross toolchain (gcc-arm-none-eabi with
newlib, cmake, make); (3) build mpy-cross once; (4) stage what the image freezes
(.cache/image/<board>/): the board's modules and every firmware module (tools/fileset.py, the
same lists `make flash` copies; the Wi-Fi client only on the Wi-Fi boards), the opening book as
a frozen bytes object (module `reedchess_book`) and a frozen main.py that starts the chess
computer (firmware/frozen_main.py); (5) build the rp2 port with the project's manifest.py
(it reads the staged list from REEDCHESS_FREEZE_LIST); (6) write dist/reedchess-<version>-<board>.bin
and .uf2 (UF2 written here, no picotool) and a .json beside them (sizes, frozen modules, inputs).

A build whose inputs (MicroPython source, board, every frozen file, manifest, this tool) have
not changed is not redone: the key is in dist/<name>.json. Errors a person can fix (no
toolchain, wrong tarball, unknown board) raise ImageError with what to do; main() prints it
and exits with status 2.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile

try:
    from tools import fileset
except ImportError:  # run as a script: python tools/image.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tools import fileset

ROOT = fileset.ROOT
CACHE = os.path.join(ROOT, ".cache")
DIST = os.path.join(ROOT, "dist")
STAGE_ROOT = os.path.join(CACHE, "image")

# The MicroPython every image is built from: the release tag and the submodule commits it pins
# (`git ls-tree v1.28.0 lib/...`); a clone is checked against them.
MICROPYTHON_VERSION = "1.28.0"
MICROPYTHON_TAG = "v1.28.0"
MICROPYTHON_COMMIT = "e0e9fbb17ed6fd06bb76e266ae554784c9c80804"
MICROPYTHON_DATE_EPOCH = "1775433600"  # 2026-04-06, the tag's date (the firmware's banner)
MICROPYTHON_URL = "https://github.com/micropython/micropython.git"
SUBMODULES = {
    "lib/pico-sdk": "a1438dff1d38bd9c65dbd693f0e5db4b9ae91779",  # pico-sdk 2.2.0
    "lib/tinyusb": "aa0fc2e08f1c2dd6f026a431e8989357fbb4c5bf",
    "lib/micropython-lib": "8380c7bb8f9e5e5260e9539156742925e00366b2",
    "lib/mbedtls": "107ea89daaefb9867ea9121002fbbdf926780e98",
    "lib/cyw43-driver": "055d64274b014dd7b1c2fc94d26e8a18face7124",
    "lib/lwip": "77dcd25a72509eb83f72b033d219b1d40cd8eb95",
    "lib/btstack": "77e752abd6a0992334047a48038a5a3960e5c6bc",
}
# The offline copy of that source (../shared/micropython/README.md), and its SHA-256.
SHARED_TARBALL = os.path.join(os.path.dirname(ROOT), "shared", "micropython", "micropython-1.28.0-rp2-src.tar.xz")
TARBALL_SHA256 = "08964e927ddcfc355d6a77425f2c8dafb2678ff451349c914db364109a5de665"

# Reedchess board -> (MicroPython board, chip). The Wi-Fi boards also freeze the Lichess client.
BOARDS = {
    "pico": ("RPI_PICO", "RP2040"),
    "pico_w": ("RPI_PICO_W", "RP2040"),
    "pico2": ("RPI_PICO2", "RP2350"),
    "pico2_w": ("RPI_PICO2_W", "RP2350"),
}
WIFI_BOARDS = ("pico_w", "pico2_w")
WIFI_ONLY_MODULES = ("firmware/features/online_net.py",)  # the board's own Lichess client over Wi-Fi
# UF2 family ids (the bootloader refuses a file for another chip); flash starts at 0x10000000.
UF2_FAMILY = {"RP2040": 0xE48BFF56, "RP2350": 0xE48BFF59}  # RP2350: Arm, secure
FLASH_BASE = 0x10000000
# Where the firmware's file system starts (MICROPY_HW_FLASH_STORAGE_BYTES of each board, from
# the end of flash): an image larger than this would overwrite the board's files.
FIRMWARE_ROOM = {"pico": 640 * 1024, "pico_w": 1200 * 1024, "pico2": 3072 * 1024, "pico2_w": 2560 * 1024}
# The transposition table of each image (entries of 10 bytes): the frozen code leaves the heap
# to the engine. A board's CONFIG may set its own ("image_tt_entries", e.g. boards/pico_w.py);
# its "tt_entries" stays the size for stock MicroPython with .mpy files (`make flash`).
IMAGE_TT_ENTRIES = {"pico": 8192, "pico_w": 2048, "pico2": 16384, "pico2_w": 16384}
BOOK_PATH = "book.bin"  # where the frozen main writes the book on the board's file system
APT_PACKAGES = "gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake"


class ImageError(ValueError):
    """Something the person building can fix; the message says what to do."""


def _say(log, text):
    if log:
        log(text)


def _sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def project_version(root=ROOT):
    with open(os.path.join(root, "pyproject.toml")) as f:
        m = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M)
    return m.group(1) if m else "0"


def image_name(board, root=ROOT):
    return "reedchess-%s-%s" % (project_version(root), board)


# ------------------------------------------------------------------------- MicroPython source
def _tree_version(tree):
    """The MicroPython version a source tree declares in py/mpconfig.h, or None."""
    try:
        with open(os.path.join(tree, "py", "mpconfig.h")) as f:
            text = f.read()
    except OSError:
        return None
    parts = [re.search(r"#define MICROPY_VERSION_%s \(?(\d+)\)?" % k, text) for k in ("MAJOR", "MINOR", "MICRO")]
    return ".".join(p.group(1) for p in parts) if all(parts) else None


def _check_tree(tree):
    if not os.path.isdir(os.path.join(tree, "ports", "rp2")):
        raise ImageError("%s is not a MicroPython source tree with ports/rp2" % tree)
    version = _tree_version(tree)
    if version != MICROPYTHON_VERSION:
        raise ImageError("%s is MicroPython %s; Reedchess images are built from %s (tag %s)"
                         % (tree, version, MICROPYTHON_VERSION, MICROPYTHON_TAG))
    missing = [s for s in SUBMODULES if not os.listdir(os.path.join(tree, s))] if all(
        os.path.isdir(os.path.join(tree, s)) for s in ("lib/pico-sdk", "lib/tinyusb")) else ["lib/pico-sdk"]
    if missing:
        raise ImageError("%s lacks its submodules (%s): run `make -C ports/rp2 submodules` there, or use the "
                         "release tarball" % (tree, ", ".join(missing)))
    return tree


def unpack_tarball(path, log=print):
    """The tree inside the release tarball at `path`, unpacked once into .cache/micropython/."""
    digest = _sha256_file(path)
    if digest != TARBALL_SHA256:
        raise ImageError("%s has SHA-256 %s, not the pinned MicroPython %s source (%s)"
                         % (path, digest, MICROPYTHON_VERSION, TARBALL_SHA256))
    dest = os.path.join(CACHE, "micropython", digest[:16])
    tree = os.path.join(dest, "micropython-%s" % MICROPYTHON_VERSION)
    stamp = os.path.join(dest, ".unpacked")
    if os.path.exists(stamp) and os.path.isdir(tree):
        return tree
    _say(log, "unpacking %s into %s" % (os.path.basename(path), os.path.relpath(dest, ROOT)))
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with tarfile.open(path) as tar:
        tar.extractall(dest, filter="tar")
    if not os.path.isdir(tree):
        raise ImageError("%s does not hold micropython-%s/" % (path, MICROPYTHON_VERSION))
    open(stamp, "w").close()
    return tree


def clone_source(log=print):
    """A shallow clone of the pinned tag with its submodules in .cache/micropython/ (internet)."""
    if not shutil.which("git"):
        raise ImageError("git not found: install git, or set MICROPY_SRC to a MicroPython %s tree or its "
                         "release tarball" % MICROPYTHON_VERSION)
    tree = os.path.join(CACHE, "micropython", "git-" + MICROPYTHON_TAG)
    stamp = os.path.join(tree, ".reedchess-submodules")
    if not os.path.isdir(os.path.join(tree, ".git")):
        _say(log, "cloning MicroPython %s (shallow) into %s" % (MICROPYTHON_TAG, os.path.relpath(tree, ROOT)))
        if os.path.isdir(tree):
            shutil.rmtree(tree)
        _run(["git", "clone", "--depth", "1", "--branch", MICROPYTHON_TAG, MICROPYTHON_URL, tree], log,
             "cloning MicroPython failed (no internet? set MICROPY_SRC to a source tree or tarball)")
    head = subprocess.run(["git", "-C", tree, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if head != MICROPYTHON_COMMIT:
        raise ImageError("%s is at %s, not %s (%s): remove it and build again" % (tree, head, MICROPYTHON_TAG,
                                                                                  MICROPYTHON_COMMIT))
    if not os.path.exists(stamp):
        _run(["git", "-C", tree, "submodule", "update", "--init", "--depth", "1"] + list(SUBMODULES), log,
             "fetching MicroPython's submodules failed")
        # pico-sdk's own submodules are not needed: MicroPython brings TinyUSB itself
        for path, want in SUBMODULES.items():
            got = subprocess.run(["git", "-C", os.path.join(tree, path), "rev-parse", "HEAD"], capture_output=True,
                                 text=True).stdout.strip()
            if got != want:
                raise ImageError("%s in %s is at %s, the tag pins %s" % (path, tree, got, want))
        open(stamp, "w").close()
    return tree


def find_source(src=None, log=print):
    """The MicroPython source tree to build from (see the module's docstring)."""
    src = src or os.environ.get("MICROPY_SRC") or None
    if src:
        src = os.path.abspath(os.path.expanduser(src))
        if os.path.isdir(src):
            return _check_tree(src)
        if os.path.isfile(src):
            return _check_tree(unpack_tarball(src, log))
        raise ImageError("MICROPY_SRC %s does not exist (a MicroPython %s tree or its release tarball)"
                         % (src, MICROPYTHON_VERSION))
    if os.path.isfile(SHARED_TARBALL):
        return _check_tree(unpack_tarball(SHARED_TARBALL, log))
    return _check_tree(clone_source(log))


def source_id(tree):
    """What identifies the source in the build key: the tarball digest or the clone's commit."""
    parent = os.path.basename(os.path.dirname(tree))
    if re.fullmatch(r"[0-9a-f]{16}", parent):
        return "tarball:" + parent
    if os.path.isdir(os.path.join(tree, ".git")):
        return "git:" + MICROPYTHON_COMMIT
    return "tree:" + tree


# One fix to MicroPython 1.28.0's tools/mpy-tool.py (docs/frozen-native-armv6m.md): it freezes the
# machine code of @micropython.native / viper functions with 2-byte alignment on every Arm Thumb
# architecture, but the ARMv6-M (Cortex-M0+) emitter loads its 32-bit constants and long-jump
# offsets PC-relative ("ldr rX, [pc, #0]" after a nop it inserts when the code offset is 2 mod
# 4), which is right only when the code starts on a 4-byte boundary, as code loaded into RAM
# does. A frozen function placed at 2 mod 4 loads the wrong words: a jump into nowhere. ARMv6-M
# code is frozen 4-byte aligned (as ARMv6 and Xtensa are).
MPY_TOOL_ALIGN_OLD = """        if config.native_arch in (
            MP_NATIVE_ARCH_ARMV6,
            MP_NATIVE_ARCH_XTENSA,"""
MPY_TOOL_ALIGN_NEW = """        if config.native_arch in (
            MP_NATIVE_ARCH_ARMV6,
            MP_NATIVE_ARCH_ARMV6M,  # Reedchess fix: its emitter assumes 4-byte aligned code
            MP_NATIVE_ARCH_XTENSA,"""


def fix_mpy_tool(tree, log=print):
    """Apply the ARMv6-M alignment fix to tree/tools/mpy-tool.py (once); True if it changed it."""
    path = os.path.join(tree, "tools", "mpy-tool.py")
    with open(path) as f:
        text = f.read()
    if MPY_TOOL_ALIGN_NEW in text:
        return False
    if text.count(MPY_TOOL_ALIGN_OLD) != 1:
        raise ImageError("%s is not MicroPython %s's mpy-tool.py (its alignment code differs): cannot apply "
                         "the ARMv6-M alignment fix" % (path, MICROPYTHON_VERSION))
    _say(log, "fixing %s: ARMv6-M machine code frozen 4-byte aligned" % os.path.relpath(path, ROOT))
    with open(path, "w") as f:
        f.write(text.replace(MPY_TOOL_ALIGN_OLD, MPY_TOOL_ALIGN_NEW))
    return True


# -------------------------------------------------------------------------------- toolchain
def toolchain_missing():
    """None when the cross toolchain is there, else what to install."""
    missing = [tool for tool in ("arm-none-eabi-gcc", "cmake", "make") if not shutil.which(tool)]
    if not missing:
        libc = subprocess.run(["arm-none-eabi-gcc", "-print-file-name=libc.a"], capture_output=True,
                              text=True).stdout.strip()
        if not os.path.isabs(libc):
            missing.append("newlib (libc.a for arm-none-eabi)")
    if not missing:
        return None
    return ("%s not found: on Debian/Ubuntu `sudo apt-get install %s` (an Arm cross compiler with newlib, "
            "and cmake)" % (", ".join(missing), APT_PACKAGES))


def _run(cmd, log, what, env=None, cwd=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    if proc.returncode != 0:
        raise ImageError("%s (exit %d):\n%s" % (what, proc.returncode, (proc.stdout + proc.stderr)[-4000:]))
    return proc.stdout


def build_mpy_cross(tree, jobs, log=print):
    """The tree's mpy-cross, built once (under a lock: two builds of it at once in one tree,
    as two test workers could start, would spoil each other's objects)."""
    import fcntl

    exe = os.path.join(tree, "mpy-cross", "build", "mpy-cross")
    with open(os.path.join(tree, "mpy-cross", ".reedchess-build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(exe):
            _say(log, "building mpy-cross")
            _run(["make", "-C", os.path.join(tree, "mpy-cross"), "-j%d" % jobs], log, "building mpy-cross failed")
    return exe


# ------------------------------------------------------------------------------- the frozen files
def frozen_sources(board, root=ROOT):
    """Repository-relative .py files the image of `board` freezes: every firmware module (the
    Wi-Fi client only on a Wi-Fi board) and the board's own modules."""
    if board not in BOARDS:
        raise ImageError("unknown board %r for an image: one of %s" % (board, ", ".join(BOARDS)))
    if not os.path.exists(os.path.join(root, "boards", board + ".py")):
        raise ImageError("boards/%s.py does not exist" % board)
    files = fileset.firmware_sources(root)
    if board not in WIFI_BOARDS:
        files = [f for f in files if f not in WIFI_ONLY_MODULES]
    return files + fileset.board_files(board, root)


def image_tt_entries(board, root=ROOT):
    return fileset.board_setting(board, "image_tt_entries", root) or IMAGE_TT_ENTRIES[board]


def main_py(board, tt_entries):
    """The frozen main.py: the image's modules come first on sys.path (ahead of the file system,
    where files of an earlier `make flash` may still lie), then firmware/frozen_main.py starts
    the chess computer with the image's transposition table."""
    return ("import sys\n"
            "if '.frozen' in sys.path:\n"
            "    sys.path.remove('.frozen')\n"
            "sys.path.insert(0, '.frozen')\n"
            "from firmware import frozen_main\n"
            "frozen_main.start(%r, %r, %d)\n" % (board, BOOK_PATH, tt_entries))


def book_module(book_bytes):
    """The source of module `reedchess_book`: the opening book as one bytes object (frozen, it
    stays in flash; the frozen main copies it onto the file system once)."""
    lines = ["# The opening book (firmware/data/book.bin), frozen into the image by tools/image.py.",
             "BOOK = ("]
    for i in range(0, len(book_bytes), 48):
        lines.append("    %r" % book_bytes[i:i + 48])
    lines.append(")")
    return "\n".join(lines) + "\n"


def board_manifest(tree, board):
    """MicroPython's own manifest for the board (its board folder's, else the port's)."""
    own = os.path.join(tree, "ports", "rp2", "boards", BOARDS[board][0], "manifest.py")
    return own if os.path.exists(own) else os.path.join(tree, "ports", "rp2", "boards", "manifest.py")


def _write_if_changed(path, text):
    """Write `text` to `path` unless it holds it already: an unchanged file keeps its time
    stamp (no rebuild) and is never rewritten under a build that is reading it."""
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def stage(board, tree, root=ROOT, stage_dir=None):
    """Write the generated files and the freeze list for `board`; returns (folder, entries) with
    entries [(base folder, path below it)] in the order manifest.py freezes them."""
    folder = stage_dir or os.path.join(STAGE_ROOT, board)
    os.makedirs(folder, exist_ok=True)
    entries = [(root, rel) for rel in frozen_sources(board, root)]
    book = os.path.join(root, "firmware", "data", "book.bin")
    generated = {"main.py": main_py(board, image_tt_entries(board, root))}
    if os.path.exists(book):
        with open(book, "rb") as f:
            generated["reedchess_book.py"] = book_module(f.read())
    for name, text in generated.items():
        _write_if_changed(os.path.join(folder, name), text)
        entries.append((folder, name))
    plan = {"include": board_manifest(tree, board), "modules": [[base, rel] for base, rel in entries]}
    _write_if_changed(os.path.join(folder, "freeze.json"), json.dumps(plan, indent=0))
    return folder, entries


def build_key(board, tree, entries, root=ROOT):
    """A digest of everything the image is made of."""
    h = hashlib.sha256()
    h.update(("%s\0%s\0%s\0%s\0" % (board, source_id(tree), project_version(root), MPY_TOOL_ALIGN_NEW)).encode())
    for path in [os.path.join(root, "manifest.py"), os.path.abspath(__file__)] + [
            os.path.join(base, rel) for base, rel in entries]:
        with open(path, "rb") as f:
            h.update(os.path.basename(path).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


# ------------------------------------------------------------------------------------- UF2
UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)
UF2_FLAG_FAMILY = 0x00002000
UF2_PAYLOAD = 256


def bin_to_uf2(data, family, base=FLASH_BASE):
    """UF2 blocks (512 bytes, 256 bytes of payload each) for a flash image starting at `base`."""
    blocks = (len(data) + UF2_PAYLOAD - 1) // UF2_PAYLOAD
    out = bytearray()
    for n in range(blocks):
        chunk = data[n * UF2_PAYLOAD:(n + 1) * UF2_PAYLOAD]
        head = struct.pack("<8I", UF2_MAGIC[0], UF2_MAGIC[1], UF2_FLAG_FAMILY, base + n * UF2_PAYLOAD,
                           UF2_PAYLOAD, n, blocks, family)
        out += head + chunk.ljust(476, b"\0") + struct.pack("<I", UF2_MAGIC[2])
    return bytes(out)


def frozen_module_names(build_dir):
    """Names of the modules in a build's frozen_content.c (e.g. 'firmware/app.py')."""
    path = os.path.join(build_dir, "frozen_content.c")
    with open(path) as f:
        text = f.read()
    m = re.search(r"const char mp_frozen_names\[\] = \{(.*?)\};", text, re.S)
    if not m:
        return []
    names = re.findall(r'"([^"]*)\\0"', m.group(1))
    return [n for n in names if n]


# ------------------------------------------------------------------------------ the freeze only
MPY_CROSS_MARCH = {"RP2040": "armv6m", "RP2350": "armv7m"}  # as ports/rp2/CMakeLists.txt passes them


def _load_tree_module(tree, name):
    """MicroPython's own tools/<name>.py from the source tree."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("micropython_" + name, os.path.join(tree, "tools", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_freeze(board, src=None, jobs=2, log=print, root=ROOT):
    """Everything of the image of `board` that depends on this project, without the C build:
    the project's manifest.py resolved by MicroPython's own tools/manifestfile.py (as the
    build resolves it: the board's MicroPython manifest, then the staged list), and every
    module it freezes compiled by the tree's mpy-cross for the board's chip (the machine code
    of the engine's @micropython.viper functions too). Needs only the source and a host C
    compiler (for mpy-cross). Returns the frozen names in order (e.g. 'firmware/app.py').
    `make test` checks the Pico 2 images this way; `make test-images` builds them."""
    frozen_sources(board, root)
    tree = find_source(src, log)
    exe = build_mpy_cross(tree, jobs, log)
    folder, _entries = stage(board, tree, root)
    manifestfile = _load_tree_module(tree, "manifestfile")
    mp_board, chip = BOARDS[board]
    path_vars = {"MPY_DIR": tree, "PORT_DIR": os.path.join(tree, "ports", "rp2"),
                 "BOARD_DIR": os.path.join(tree, "ports", "rp2", "boards", mp_board),
                 "MPY_LIB_DIR": os.path.join(tree, "lib", "micropython-lib")}
    manifest = manifestfile.ManifestFile(manifestfile.MODE_FREEZE, path_vars)
    old = os.environ.get("REEDCHESS_FREEZE_LIST")
    os.environ["REEDCHESS_FREEZE_LIST"] = os.path.join(folder, "freeze.json")
    try:
        manifest.execute(os.path.join(root, "manifest.py"))
    except manifestfile.ManifestFileError as e:
        raise ImageError("manifest.py for %s: %s" % (board, e.args[0])) from None
    finally:
        if old is None:
            del os.environ["REEDCHESS_FREEZE_LIST"]
        else:
            os.environ["REEDCHESS_FREEZE_LIST"] = old
    out = os.path.join(STAGE_ROOT, "freeze-" + board)
    names = []
    for result in manifest.files():
        names.append(result.target_path)
        if result.kind != manifestfile.KIND_FREEZE_AS_MPY:
            continue
        target = os.path.join(out, result.target_path[:-3] + ".mpy")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        cmd = [exe, "-march=" + MPY_CROSS_MARCH[chip], "-s", result.target_path, "-o", target, result.full_path]
        if result.opt is not None:  # a module's own optimisation level, as makemanifest.py passes it
            cmd.insert(1, "-O%d" % result.opt)
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise ImageError("mpy-cross -march=%s cannot compile %s for %s:\n%s" % (
                MPY_CROSS_MARCH[chip], result.target_path, board, (done.stdout + done.stderr).strip()))
    _say(log, "%s: %d modules frozen, each compiled for %s" % (board, len(names), MPY_CROSS_MARCH[chip]))
    return names


# ------------------------------------------------------------------------------------- build
def _build_port(tree, board, manifest, jobs, log, what, **env_extra):
    """make -C ports/rp2 for `board` with `manifest` frozen; returns (firmware.bin's bytes, the
    names of the frozen modules). One build folder a board, under a lock: the stock firmware and the board's
    image differ only in what they freeze, so after one of them the other recompiles only the
    frozen modules and links."""
    mp_board = BOARDS[board][0]
    build_dir = os.path.join(STAGE_ROOT, "build-" + board)
    os.makedirs(STAGE_ROOT, exist_ok=True)
    # GIT_CEILING_DIRECTORIES: the version header must not take this checkout's git commit for
    # MicroPython's (an unpacked tarball has no .git of its own)
    # SOURCE_DATE_EPOCH: the banner says the release's date, not the day of the build, so the
    # same source and compiler give the same bytes
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(tree), SOURCE_DATE_EPOCH=MICROPYTHON_DATE_EPOCH,
               **env_extra)
    cmake_args = "-DMICROPY_BOARD=%s -DPICO_NO_PICOTOOL=1 -DMICROPY_FROZEN_MANIFEST=%s" % (mp_board, manifest)
    import fcntl

    with open(build_dir + ".build-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            # the port's Makefile configures a build folder only once: give CMake this manifest
            # (and board) again, or the folder goes on freezing the last build's list
            _run(["cmake", "-S", os.path.join(tree, "ports", "rp2"), "-B", build_dir] + cmake_args.split(), log,
                 "configuring the %s build failed" % board, env=env)
            # makemanifest.py rewrites frozen_content.c only when a frozen file is newer than it,
            # which the other manifest's (older) files are not
            if os.path.exists(os.path.join(build_dir, "frozen_content.c")):
                os.remove(os.path.join(build_dir, "frozen_content.c"))
        _run(["make", "-C", os.path.join(tree, "ports", "rp2"), "BOARD=" + mp_board, "BUILD=" + build_dir,
              "-j%d" % jobs, "CMAKE_ARGS=" + cmake_args], log, what, env=env)
        with open(os.path.join(build_dir, "firmware.bin"), "rb") as f:
            return f.read(), frozen_module_names(build_dir)


def build_stock(board, dest, src=None, jobs=2, log=print):
    """Stock MicroPython for `board`, nothing of Reedchess in it: the pinned release built with
    MicroPython's own manifest for the board (what a hobbyist flashes from micropython.org), as
    `dest` (a flash image from 0x10000000). The emulated Pico runs it (tools/emulated_pico.py).
    Returns a dict of what was built (source, size, SHA-256)."""
    why = toolchain_missing()
    if why:
        raise ImageError(why)
    tree = find_source(src, log)
    fix_mpy_tool(tree, log)  # the build folder is shared with the image; stock freezes no machine code
    build_mpy_cross(tree, jobs, log)
    _say(log, "building stock MicroPython %s for %s (nothing of Reedchess frozen)" % (
        MICROPYTHON_VERSION, BOARDS[board][0]))
    image, _ = _build_port(tree, board, board_manifest(tree, board), jobs, log,
                           "building stock MicroPython for %s failed" % board)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest + ".tmp", "wb") as f:
        f.write(image)
    os.replace(dest + ".tmp", dest)
    return {"micropython": MICROPYTHON_VERSION, "micropython_board": BOARDS[board][0], "source": source_id(tree),
            "bin_bytes": len(image), "bin_sha256": hashlib.sha256(image).hexdigest(), "built": True}


def build_image(board, src=None, jobs=2, force=False, log=print, root=ROOT, out_dir=None):
    """Build the image of `board` (see the module's docstring); returns the dict written to
    dist/<name>.json (paths of the .bin and .uf2 included)."""
    out_dir = out_dir or os.path.join(root, "dist")
    frozen_sources(board, root)  # the board is known before anything slow
    why = toolchain_missing()
    if why:
        raise ImageError(why)
    tree = find_source(src, log)
    fix_mpy_tool(tree, log)
    folder, entries = stage(board, tree, root)
    key = build_key(board, tree, entries, root)
    name = image_name(board, root)
    paths = {ext: os.path.join(out_dir, name + "." + ext) for ext in ("bin", "uf2", "json")}
    if not force and all(os.path.exists(p) for p in paths.values()):
        with open(paths["json"]) as f:
            info = json.load(f)
        if info.get("key") == key:
            _say(log, "%s is up to date (%s)" % (os.path.relpath(paths["uf2"], root), key[:12]))
            info["paths"] = paths
            return info
    build_mpy_cross(tree, jobs, log)
    mp_board, chip = BOARDS[board]
    _say(log, "building MicroPython %s for %s (%s) with Reedchess frozen in: %d modules" % (
        MICROPYTHON_VERSION, mp_board, board, len(entries)))
    image, frozen = _build_port(tree, board, os.path.join(root, "manifest.py"), jobs, log,
                                   "building the %s image failed" % board,
                                   REEDCHESS_FREEZE_LIST=os.path.join(folder, "freeze.json"))
    if "firmware/app.py" not in frozen:
        raise ImageError("the %s build froze %d modules without Reedchess's (%s): remove %s and build again"
                         % (board, len(frozen), ", ".join(frozen[:4]), os.path.join(STAGE_ROOT, "build-" + board)))
    if len(image) > FIRMWARE_ROOM[board]:
        raise ImageError("the %s image is %d bytes, more than the %d before the board's file system"
                         % (board, len(image), FIRMWARE_ROOM[board]))
    os.makedirs(out_dir, exist_ok=True)
    uf2 = bin_to_uf2(image, UF2_FAMILY[chip])
    for ext, data in (("bin", image), ("uf2", uf2)):
        tmp = paths[ext] + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, paths[ext])
    info = {
        "board": board, "micropython_board": mp_board, "chip": chip, "micropython": MICROPYTHON_VERSION,
        "micropython_commit": MICROPYTHON_COMMIT, "source": source_id(tree), "key": key,
        "bin_bytes": len(image), "uf2_bytes": len(uf2), "firmware_room_bytes": FIRMWARE_ROOM[board],
        "frozen": frozen, "book_path": BOOK_PATH,
        "tt_entries": image_tt_entries(board, root),
        "bin_sha256": hashlib.sha256(image).hexdigest(),
    }
    with open(paths["json"], "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    info["paths"] = paths
    _say(log, "wrote %s (%d bytes, %d KB left before the file system) and %s" % (
        os.path.relpath(paths["uf2"], root), len(uf2), (FIRMWARE_ROOM[board] - len(image)) // 1024,
        os.path.relpath(paths["bin"], root)))
    return info


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.image", description=__doc__.split("\n")[0])
    p.add_argument("--board", default="", help="one of %s" % ", ".join(BOARDS))
    p.add_argument("--src", default=None, help="a MicroPython %s tree or its release tarball (default: "
                   "MICROPY_SRC, then ../shared/micropython/, then a shallow clone)" % MICROPYTHON_VERSION)
    p.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2") or 2))
    p.add_argument("--force", action="store_true", help="build even when the inputs did not change")
    args = p.parse_args(argv)
    try:
        if not args.board:
            raise ImageError("no board given. Use: make image BOARD=<%s>" % "|".join(BOARDS))
        build_image(args.board, args.src, args.jobs, args.force)
    except ImageError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
