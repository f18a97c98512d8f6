"""The real flash path against an emulated board: tools/flash.py and the real mpremote talk to
the MicroPython unix port behind a pseudo-terminal (tools/device_emulator.py), with .mpy built
for x64, the emulator's CPU. Then the firmware runs on the "device": every flashed module is
imported there and UCI is spoken over the serial line, checked against python-chess. Plain
.py builds (--source) take the same copy path; they are checked at build level in test_flash."""

import os
import shutil
import subprocess
import sys
import time

import chess
import pytest
from mpremote.transport_serial import SerialTransport

from tools import fileset, flash
from tools.device_emulator import DeviceEmulator

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the emulator needs Linux ptys")

BOARD = "pico"


def _copy_repo(dest):
    """A snapshot of the firmware and boards, so files others are editing cannot change mid-test."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("firmware", "boards"):
        shutil.copytree(os.path.join(fileset.ROOT, folder), os.path.join(dest, folder), ignore=ignore)
    return str(dest)


def _flash_tree(flash_dir):
    """{path: bytes} of every file in the emulated flash."""
    found = {}
    for dirpath, _, names in os.walk(flash_dir):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, flash_dir).replace(os.sep, "/")] = f.read()
    return found


def _built_tree(build):
    found = {}
    for f in build.files:
        with open(f.local_path, "rb") as fh:
            found[f.device_path] = fh.read()
    return found


def _run_on_device(port, code, stdin=b"", timeout=60):
    """Run `code` in the device's raw REPL, type `stdin` on its serial line; return (out, err)."""
    transport = SerialTransport(port, baudrate=115200)
    try:
        transport.enter_raw_repl()
        transport.exec_raw_no_follow(code)
        if stdin:
            transport.serial.write(stdin)
        out, err = transport.follow(timeout=timeout)
        transport.exit_raw_repl()
    finally:
        transport.close()
    return out.decode(), err.decode()


def _perft_divide(moves, depth):
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    counts = {}
    for move in board.legal_moves:
        board.push(move)
        counts[move.uci()] = _count(board, depth - 1)
        board.pop()
    return counts


def _count(board, depth):
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _count(board, depth - 1)
        board.pop()
    return total


def test_flash_then_run_uci_on_the_emulated_board(tmp_path):
    root = _copy_repo(tmp_path / "repo")
    log = []
    # The unix port is 64-bit: objects are up to twice their size on the 32-bit chips, so the
    # chips' heap budgets do not transfer; memory is measured in bench/flash_sizes.py instead.
    with DeviceEmulator(str(tmp_path / "flash")) as device:
        # 1. a first flash copies everything; the flash folder then holds exactly the build
        build, info = flash.flash(BOARD, device.port, arch="x64", root=root, log=log.append)
        assert _flash_tree(device.flash_dir) == _built_tree(build)
        assert any(f.device_path.endswith(".mpy") for f in build.files)
        assert not any(p.endswith(".py") and p != "main.py" for p in _flash_tree(device.flash_dir))
        assert "%d to copy" % len(build.files) in "\n".join(log)
        has_main = os.path.exists(os.path.join(root, "firmware", "app.py"))
        assert ("main.py" in _flash_tree(device.flash_dir)) == has_main
        if has_main:
            assert _flash_tree(device.flash_dir)["main.py"].decode() == fileset.main_py(BOARD)

        # 2. the device imports every flashed module from its .mpy files
        modules = [
            f.device_path[:-4].replace("/", ".").replace(".__init__", "")
            for f in build.files
            if f.device_path.endswith(".mpy")
        ]
        out, err = _run_on_device(
            device.port, "for m in %r:\n    __import__(m)\nprint('imported', %d)" % (modules, len(modules))
        )
        assert err == ""
        assert "imported %d" % len(modules) in out

        # 3. UCI over the serial line, as a person would talk to the board
        out, err = _run_on_device(
            device.port,
            "from firmware import uci\nuci.main()",
            stdin=b"uci\nisready\nposition startpos moves e2e4 c7c5\ngo perft 3\nquit\n",
        )
        assert err == ""
        assert "uciok" in out and "readyok" in out
        expected = _perft_divide(["e2e4", "c7c5"], 3)
        got = {}
        for line in out.splitlines():
            head, _, tail = line.partition(": ")
            if len(head) in (4, 5) and tail.strip().isdigit():
                got[head] = int(tail)
        assert got == expected
        assert "Nodes searched: %d" % sum(expected.values()) in out

        # 4. flashing again changes nothing and still verifies
        log.clear()
        flash.flash(BOARD, device.port, arch="x64", root=root, log=log.append)
        assert "%d files up to date, 0 to copy" % len(build.files) in "\n".join(log)

        # 5. an edited module is the only file copied, and the device runs the new version
        with open(os.path.join(root, "firmware", "compat.py"), "a") as f:
            f.write("\nFLASH_TEST_MARK = 1\n")
        log.clear()
        flash.flash(BOARD, device.port, arch="x64", root=root, log=log.append)
        assert "%d files up to date, 1 to copy" % (len(build.files) - 1) in "\n".join(log)
        out, _ = _run_on_device(device.port, "import firmware.compat as c\nprint('mark', c.FLASH_TEST_MARK)")
        assert "mark 1" in out

        # 6. for a firmware frozen into MicroPython: only data files and main.py stay, every
        #    module file (which would shadow the frozen one) is removed
        data_build, _ = flash.flash(BOARD, device.port, arch="x64", root=root, data_only=True, log=None)
        assert _flash_tree(device.flash_dir) == _built_tree(data_build)
        assert not any(f.device_path.endswith((".mpy", ".py")) and f.device_path != "main.py" for f in data_build.files)

        # 7. a build for another CPU is refused with the device's real CPU named
        with pytest.raises(flash.FlashError, match="x64"):
            flash.flash(BOARD, device.port, root=root, log=None)
        assert device.error is None


def test_emulator_soft_reset_and_ctrl_c(tmp_path):
    mpremote = [sys.executable, "-m", "mpremote"]
    with DeviceEmulator(str(tmp_path / "flash")) as device:
        boots = device.boots
        out = subprocess.run(
            mpremote + ["connect", device.port, "eval", "1+2"], capture_output=True, text=True, timeout=30
        )
        assert out.stdout.strip() == "3"
        assert device.boots > boots  # mpremote soft-resets the board; the emulator rebooted it
        # a program that never ends is interrupted by the next mpremote's Ctrl-C
        stuck = subprocess.Popen(
            mpremote + ["connect", device.port, "exec", "while True:\n    pass"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1.0)
        stuck.kill()
        stuck.wait()
        out = subprocess.run(
            mpremote + ["connect", device.port, "eval", "6*7"], capture_output=True, text=True, timeout=30
        )
        assert out.stdout.strip() == "42"
        assert device.error is None


def test_flash_stops_when_the_board_has_too_little_ram(tmp_path):
    """The budget check reads the emulated board's real heap (-X heapsize) and stops before
    copying; a MicroPython without ROMFS is told so for --romfs."""
    root = _copy_repo(tmp_path / "repo")
    with DeviceEmulator(str(tmp_path / "flash"), heapsize="100K") as device:
        log = []
        with pytest.raises(flash.FlashError, match="will not fit in this board's RAM") as info:
            flash.flash(BOARD, device.port, arch="x64", root=root, log=log.append)
        assert "tt_entries" in str(info.value) and "manifest.py" in str(info.value)
        free = [line for line in log if "bytes free after boot" in line][0]
        free_bytes = int(free.split()[1].replace(",", ""))
        assert 96 * 1024 < free_bytes <= 100 * 1024  # what the device reported, not a table value
        assert _flash_tree(device.flash_dir) == {}  # nothing copied
        with pytest.raises(flash.FlashError, match="no ROMFS"):
            flash.flash(BOARD, device.port, arch="x64", root=root, log=None, romfs=True)
        assert _flash_tree(device.flash_dir) == {}
        assert device.error is None


def test_romfs_flash_on_the_emulated_board(tmp_path):
    """--romfs against the emulator's ROM partition: mpremote romfs deploy writes the image, the
    file system keeps only main.py, every module imports in place from /rom (machine code
    included) and the book opens there; a second flash writes nothing."""
    root = _copy_repo(tmp_path / "repo")
    with DeviceEmulator(str(tmp_path / "plain"), heapsize="600K") as device:
        plain_free = flash.probe(device.port)["boot_free"]  # the same board without ROMFS
    with DeviceEmulator(str(tmp_path / "flash"), heapsize="600K", rom_bytes=512 * 1024) as device:
        log = []
        build, info = flash.flash(BOARD, device.port, arch="x64", root=root, log=log.append, romfs=True)
        text = "\n".join(log)
        assert "ROMFS image written and verified" in text
        assert "expected RAM headroom" in log[-1]
        assert abs(info["boot_free"] - plain_free) < 2048  # the partition is not charged to the heap
        assert set(_flash_tree(device.flash_dir)) == {"main.py"}
        with open(device.rom_path, "rb") as f:
            assert f.read(3) == flash.ROMFS_HEADER
        modules = [
            p[:-4].replace("/", ".").replace(".__init__", "")
            for p in fileset.firmware_sources(root) + fileset.board_files(BOARD, root)
            for p in [p[:-3] + ".mpy"]
        ]
        main = _flash_tree(device.flash_dir)["main.py"].decode()
        assert main == fileset.main_py(BOARD, "romfs")
        prefix = main.split("import boards.")[0]  # main.py up to starting the firmware
        out, err = _run_on_device(
            device.port,
            prefix + "import sys\nfor m in %r:\n    __import__(m)\n"
            "print('from', sys.modules['firmware.engine.search'].__file__, sys.path[0])\n"
            "from firmware.engine import book\np = book.default_book_path()\nbook.open_book(p)\nprint('book', p)\n"
            % (modules,),
        )
        assert err == ""
        assert "from /rom/firmware/engine/search.mpy /rom" in out
        assert "book /rom/firmware/data/book.bin" in out
        log.clear()
        flash.flash(BOARD, device.port, arch="x64", root=root, log=log.append, romfs=True)
        assert "ROMFS partition already holds this image" in "\n".join(log)
        assert "1 files up to date, 0 to copy" in "\n".join(log)
        assert device.error is None
