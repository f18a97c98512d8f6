"""The emulated Pico is the repository's own (tools/emulated_pico.py, docs/emulated-pico.md):
the boot ROM committed with its licence, one runner (host_sim/rp2040/board.mjs) for the bare
board and the board at its pins, the stock firmware built from the pinned source or taken
from a downloaded release file that is checked first, and nothing read from ../shared/.
The bare runner's heap is held at the figure the stock fit tests were set against."""
import os
import re
import struct
import subprocess

import pytest

from tools import emulated_pico, image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_boot_rom_is_committed_with_its_licence():
    assert emulated_pico._digest(emulated_pico.BOOTROM) == emulated_pico.BOOTROM_SHA256
    assert os.path.getsize(emulated_pico.BOOTROM) == 16384
    with open(os.path.join(os.path.dirname(emulated_pico.BOOTROM), "README.md")) as f:
        readme = f.read()
    assert "BSD-3-Clause" in readme and emulated_pico.BOOTROM_SHA256 in readme


def test_nothing_needs_shared_rp2040():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    offenders = []
    for rel in tracked:
        if not rel.endswith((".py", ".mjs", ".md", ".yml", "Makefile", ".json")) or rel == "CHANGELOG.md":
            continue
        with open(os.path.join(ROOT, rel), errors="replace") as f:
            if re.search(r"shared/rp2040", f.read()) and rel != "tests/test_emulated_pico_files.py":
                offenders.append(rel)
    assert offenders == []


def _uf2(data, base=0x10000000):
    out = b""
    blocks = (len(data) + 255) // 256
    for n in range(blocks):
        chunk = data[n * 256:(n + 1) * 256]
        out += struct.pack("<8I", 0x0A324655, 0x9E5D5157, 0x2000, base + 256 * n, 256, n, blocks, 0xE48BFF56)
        out += chunk.ljust(476, b"\0") + struct.pack("<I", 0x0AB16F30)
    return out


def test_a_downloaded_release_file_is_checked_and_converted(tmp_path):
    good = b"\x00" * 300 + b"MicroPython v1.28.0 on 2026-04-06; Raspberry Pi Pico with RP2040" + b"\x01" * 300
    path = tmp_path / "RPI_PICO-v1.28.0.uf2"
    path.write_bytes(_uf2(good))
    assert emulated_pico.check_official(str(path))[:len(good)] == good
    for wrong, why in ((good.replace(b"v1.28.0", b"v1.27.0"), "not MicroPython 1.28.0"),
                       (good.replace(b"RP2040", b"RP2350"), "not a firmware for the Raspberry Pi Pico")):
        path.write_bytes(_uf2(wrong))
        with pytest.raises(ValueError, match=why):
            emulated_pico.check_official(str(path))


def test_the_image_tool_converts_what_the_emulator_reads_back():
    data = bytes(range(256)) * 5 + b"tail"
    assert emulated_pico.uf2_to_bin(image.bin_to_uf2(data, 0xE48BFF56))[:len(data)] == data


@pytest.mark.pico
def test_the_bare_runner_holds_the_heap_and_boots_the_stock_1_28_0():
    why = emulated_pico.unavailable()
    if why:
        pytest.skip(why)
    with emulated_pico.EmulatedPico(hold_heap=False) as pico:
        own = int(pico.exec("import gc; gc.collect(); print(gc.mem_free())").strip())
        banner = pico.exec("import sys; print(sys.version, sys.implementation._machine)")
    assert "1.28.0" in banner and "RP2040" in banner
    with emulated_pico.EmulatedPico() as pico:
        held = int(pico.exec("import gc; gc.collect(); print(gc.mem_free())").strip())
    print("stock 1.28.0: %d bytes free at the REPL, held at %d" % (own, held))
    assert own > emulated_pico.HELD_FREE_BYTES  # 1.28.0 leaves more than the floors were set on
    assert emulated_pico.HELD_FREE_BYTES - 256 <= held <= emulated_pico.HELD_FREE_BYTES
