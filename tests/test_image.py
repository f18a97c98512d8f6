"""The Reedchess images (`make image`, tools/image.py): MicroPython 1.28.0 with the firmware, the
board's config, the opening book and a main frozen in, one .uf2 per RP2 board.

- each RP2040 board's image is built (the RP2350 ones too with REEDCHESS_ALL_IMAGES=1, `make
  test-images`; once: tools/image.py skips a build whose inputs did not change),
  its .uf2 holds exactly the .bin for the board's chip, fits before the file system, and its
  frozen module list is the board's files (the Wi-Fi client only on the Wi-Fi boards), the
  book and main.py;
- the pico image, written alone onto the emulated flash (erased elsewhere), boots by itself to
  its first matrix scan within 1.5 s of emulated time (the chip's clock, not the host's), with
  the image's transposition table of 8,192 entries;
- it plays a whole game at the strongest level (pondering, book, hint, take back, promotion, the
  end: tests/test_fit_pico.py's game) and keeps at least 60 KB free at every sample;
- through the pins (host_sim/rp2040/, docs/pin-model.md): a game begun by hand, the computer's
  moves read from the LEDs, a power cut, the game resumed; then a new image written over the
  flash from the .uf2 (as the boot ROM does with a dropped file): the game, the settings and
  the journal are still there;
- a board set up with `make flash` (stock MicroPython, .mpy files on its file system) and then
  given the image runs the frozen modules, and says once that the old files are unused.

Skipped, with the reason, without the cross toolchain, the MicroPython source (MICROPY_SRC or
../shared/micropython/) or, for the emulated Pico, node and the emulator. Cost: the images are
built once (~1 min each on 2 cores, then cached in dist/ by a digest of their inputs).
"""
import json
import os
import re
import shutil
import struct
import time

import chess
import pytest

from tests.emulated_helper import ConsolePlayer
from tools import image
from tools.emulated_pico import DeviceError, unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

FIRST_SCAN_NS = 1.5e9  # the pico image's boot to its first matrix scan (stock `make flash`: ~10.6 s)
MIN_TT_ENTRIES = 8192
FREE_IN_GAME = 60 * 1024
FLASH_BYTES = 2 * 1024 * 1024  # the Pico's W25Q16


def build_unavailable_source():
    """None when the MicroPython source is here (MICROPY_SRC, ../shared/micropython/ or a clone
    made before), else why not."""
    if not (os.environ.get("MICROPY_SRC") or os.path.isfile(image.SHARED_TARBALL)
            or os.path.isdir(os.path.join(image.CACHE, "micropython", "git-" + image.MICROPYTHON_TAG))):
        return ("no MicroPython %s source: set MICROPY_SRC to a tree or the release tarball (or put "
                "../shared/micropython/ next to the checkout)" % image.MICROPYTHON_VERSION)
    return None


def build_unavailable():
    """None when images can be built here, else why not."""
    return image.toolchain_missing() or build_unavailable_source()


_built = {}


def built(board):
    """The image of `board` (dict of tools.image.build_image), built once per session."""
    if board not in _built:
        why = build_unavailable()
        if why:
            pytest.skip(why)
        from tools.emulated_pico import _lock

        lock = _lock(os.path.join(image.STAGE_ROOT, "%s.lock" % board))  # pytest workers build it once
        try:
            _built[board] = image.build_image(board, log=None)
        finally:
            lock.close()
    return _built[board]


def checked_freeze(board):
    """tools.image.check_freeze under the board's build lock (both stage the board's files)."""
    from tools.emulated_pico import _lock

    lock = _lock(os.path.join(image.STAGE_ROOT, "%s.lock" % board))
    try:
        return image.check_freeze(board, log=None)
    finally:
        lock.close()


def erased_flash_with(bin_path, path):
    """A 2 MB flash image: the .bin at its start, erased (0xFF) everywhere else, as a new chip."""
    with open(bin_path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data + b"\xff" * (FLASH_BYTES - len(data)))
    return path


def write_uf2(flash_path, uf2_path):
    """What the boot ROM does with a .uf2 dropped on the board: each block's payload written at
    its address; the rest of the flash (the file system) stays."""
    with open(flash_path, "rb") as f:
        flash = bytearray(f.read())
    with open(uf2_path, "rb") as f:
        uf2 = f.read()
    for off in range(0, len(uf2), 512):
        magic0, magic1, _flags, addr, size, _n, _total, _family = struct.unpack_from("<8I", uf2, off)
        assert (magic0, magic1) == image.UF2_MAGIC[:2]
        flash[addr - image.FLASH_BASE:addr - image.FLASH_BASE + size] = uf2[off + 32:off + 32 + size]
    with open(flash_path, "wb") as f:
        f.write(flash)


def image_pico(flash_path, board="pico"):
    """An emulated Pico at the pins (host_sim/rp2040/board.mjs: the buttons pulled up, the
    display on its bus, no pieces on the switches) powered on from a whole flash image: the
    frozen main runs by itself. Console lines and the REPL over its USB serial, as EmulatedPico."""
    import importlib

    from host_sim.rp2040.pico_board import PinPico, board_model

    class ImagePico(PinPico):
        def to_repl(self):
            """Ctrl-C until the REPL answers (the frozen main stops)."""
            deadline = time.monotonic() + 120
            while True:
                self.write(b"\x03")
                try:
                    self.read_until(b">>> ", timeout=2)
                    self.buf = b""
                    return
                except DeviceError:
                    if time.monotonic() > deadline:
                        raise

    config = importlib.import_module("boards." + board).CONFIG
    return ImagePico(board_model(config), flash_image=os.path.abspath(flash_path))


def _need_emulator():
    why = unavailable()
    if why:
        pytest.skip(why)


# ---- the images ---------------------------------------------------------------------------
# The RP2040 images are built by every `make test`: the emulated Pico runs them. The RP2350
# images (pico2, pico2_w) cannot run here (rp2040js has no RP2350), and their two C builds cost
# ~2 more minutes of the suite's 2 cores: `make test` checks what of them depends on this project
# (the freeze list, every module compiled for the Cortex-M33: tools.image.check_freeze), and
# `make test-images` (REEDCHESS_ALL_IMAGES=1) builds them too.
ALL_IMAGES = os.environ.get("REEDCHESS_ALL_IMAGES") == "1"
RP2040_BOARDS = sorted(b for b in image.BOARDS if image.BOARDS[b][1] == "RP2040")
RP2350_BOARDS = sorted(b for b in image.BOARDS if image.BOARDS[b][1] == "RP2350")


def assert_frozen_is_the_boards(board, names):
    """What an image freezes: the board's modules, the book and main.py, MicroPython's own
    (asyncio, ...); the Wi-Fi client only on a Wi-Fi board; no other board's config."""
    frozen = set(names)
    want = set(image.frozen_sources(board)) | {"main.py", "reedchess_book.py"}
    assert want <= frozen, sorted(want - frozen)
    assert "asyncio/core.py" in frozen and "_boot.py" in frozen
    assert ("firmware/features/online_net.py" in frozen) == (board in image.WIFI_BOARDS)
    other_boards = {"boards/%s.py" % b for b in image.BOARDS if b != board and b not in board}
    assert not frozen & other_boards, frozen & other_boards


@pytest.mark.parametrize("board", RP2350_BOARDS)
def test_pico2_image_freezes_its_boards_files_compiled_for_the_m33(board):
    why = build_unavailable_source()
    if why:
        pytest.skip(why)
    assert_frozen_is_the_boards(board, checked_freeze(board))


def test_the_freeze_check_lists_what_the_build_froze():
    """check_freeze resolves the manifest as the C build does: the same names in the same order."""
    info = built("pico")
    assert checked_freeze("pico") == info["frozen"]


@pytest.mark.parametrize("board", sorted(image.BOARDS))
def test_image_is_the_boards_firmware_frozen(board):
    if board not in RP2040_BOARDS and not ALL_IMAGES:
        pytest.skip("the RP2350 images' C builds cost 1.5-2 min each: make test-images (REEDCHESS_ALL_IMAGES=1)")
    info = built(board)
    with open(info["paths"]["bin"], "rb") as f:
        data = f.read()
    with open(info["paths"]["uf2"], "rb") as f:
        uf2 = f.read()
    assert len(data) == info["bin_bytes"] <= image.FIRMWARE_ROOM[board]
    # the .uf2: 256-byte payloads of the .bin in order, for this board's chip
    assert len(uf2) % 512 == 0 and len(uf2) // 512 == (len(data) + 255) // 256
    payload = b""
    for n, off in enumerate(range(0, len(uf2), 512)):
        head = struct.unpack_from("<8I", uf2, off)
        assert head[:2] == image.UF2_MAGIC[:2] and struct.unpack_from("<I", uf2, off + 508)[0] == image.UF2_MAGIC[2]
        assert head[3] == image.FLASH_BASE + 256 * n and head[5] == n and head[6] == len(uf2) // 512
        assert head[7] == image.UF2_FAMILY[image.BOARDS[board][1]]
        payload += uf2[off + 32:off + 32 + head[4]]
    # the last block is filled up with zeros: the RP2040's boot ROM takes only 256-byte payloads
    assert payload[:len(data)] == data and payload[len(data):] == b"\0" * (len(payload) - len(data))
    assert_frozen_is_the_boards(board, info["frozen"])
    assert info["tt_entries"] == image.image_tt_entries(board)
    with open(os.path.join(image.STAGE_ROOT, board, "main.py")) as f:
        main = f.read()
    assert "frozen_main.start(%r, 'book.bin', %d)" % (board, info["tt_entries"]) in main


def test_book_module_holds_the_book_bytes():
    with open(os.path.join(image.ROOT, "firmware", "data", "book.bin"), "rb") as f:
        book = f.read()
    scope = {}
    exec(image.book_module(book), scope)
    assert scope["BOOK"] == book


def test_bin_to_uf2_blocks():
    data = bytes(range(256)) * 2 + b"\x01"
    uf2 = image.bin_to_uf2(data, 0xE48BFF56)
    assert len(uf2) == 3 * 512
    head = struct.unpack_from("<8I", uf2, 1024)
    assert head[3] == image.FLASH_BASE + 512 and head[4] == 256 and head[5] == 2 and head[6] == 3
    assert uf2[1024 + 32] == 1 and uf2[1024 + 33:1024 + 32 + 476] == b"\0" * 475


def test_bad_source_is_refused_with_a_reason(tmp_path):
    with pytest.raises(image.ImageError, match="does not exist"):
        image.find_source(str(tmp_path / "nowhere"), log=None)
    with pytest.raises(image.ImageError, match="not a MicroPython source tree"):
        image.find_source(str(tmp_path), log=None)
    bad = tmp_path / "other.tar.xz"
    bad.write_bytes(b"not a tarball")
    with pytest.raises(image.ImageError, match="not the pinned MicroPython"):
        image.find_source(str(bad), log=None)
    with pytest.raises(image.ImageError, match="unknown board"):
        image.frozen_sources("esp32")


# ---- the pico image on the emulated Pico --------------------------------------------------
@pytest.fixture(scope="module")
def pico_flash(tmp_path_factory):
    info = built("pico")
    _need_emulator()
    return erased_flash_with(info["paths"]["bin"], str(tmp_path_factory.mktemp("image") / "pico-new.img"))


def test_boots_alone_to_its_first_scan_within_1_5_s(pico_flash):
    from host_sim.rp2040.pico_board import PicoBoard

    b = PicoBoard()
    try:
        lines = b.power_on(pico_flash, occupied={sq for sq in chess.SQUARES if chess.Board().piece_at(sq)})
        scans = b.ctl("scans", since_ns=0, gap_ms=1000)
        mem = b.console("mem", lambda line: line.startswith("mem "))
    finally:
        b.stop()
    assert not any("Traceback" in line for line in lines), lines
    assert scans["count"] > 0 and scans["first"] >= 0
    print("pico image: first matrix scan at %.3f s emulated; %s; boot said %s"
          % (scans["first"] / 1e9, mem, [line for line in lines if line.strip()]))
    assert scans["first"] <= FIRST_SCAN_NS
    used = int(re.search(r"used=(\d+)", mem).group(1))
    from firmware.engine.tt import BYTES_PER_ENTRY

    assert used >= MIN_TT_ENTRIES * BYTES_PER_ENTRY  # the image's table is in what the boot holds


def test_whole_game_at_the_strongest_level_keeps_60_kb_free(pico_flash, tmp_path):
    from tests.test_fit_pico import play_whole_game, strongest_level

    level, name = strongest_level()
    p = image_pico(pico_flash)  # the runner reads the file: the flash it changes stays in memory
    p.start()
    try:
        player = ConsolePlayer(p)
        player.wait_console()
        after_boot = player.mem()
        plies, result, end = play_whole_game(player, level)
        text = "\n".join(p.transcript)
    finally:
        p.stop()
    assert "Traceback" not in text and "MemoryError" not in text
    print("pico image, %s: after boot %s; game 1 %d plies %s; least free %d; end %s"
          % (name, after_boot, plies, result, player.min_free, end))
    assert player.min_free >= FREE_IN_GAME, player.mem_samples


def _start_cells():
    board = chess.Board()
    return {sq for sq in chess.SQUARES if board.piece_at(sq)}


def test_pins_game_survives_a_power_cut_and_a_new_image(pico_flash, tmp_path):
    from host_sim.rp2040.pico_board import PicoBoard, play, wait_computer, wait_lit, wait_status

    info = built("pico")
    b = PicoBoard()
    try:
        b.power_on(erased_flash_with(info["paths"]["bin"], str(tmp_path / "pins.img")), occupied=_start_cells())
        assert b.console("nodes 40", lambda line: line == "ok") == "ok"
        wait_status(b, lambda s: s[0] == "player")
        play(b, "e2e4")
        play(b, wait_computer(b))
        b.press("hint")
        lit = wait_lit(b, lambda lit: sum(1 for v in lit.values() if v[1] == "hint") == 2)
        hint_sq = {chess.parse_square(sq) for sq, v in lit.items() if v[1] == "hint"}
        play(b, next(m for m in b.board.legal_moves if {m.from_square, m.to_square} == hint_sq))
        play(b, wait_computer(b))
        record = b.game()
        assert record == [m.uci() for m in b.board.move_stack] and len(record) == 4
        # the power goes; it comes back with the pieces where they stand
        cut = b.power_cut(str(tmp_path / "cut.img"))
        lines = b.power_on(cut)
        assert not any("Traceback" in line for line in lines), lines
        assert b.game() == record
        # a new image written over it from the .uf2 (the file system stays): the game goes on
        b.save_flash(str(tmp_path / "before-new-image.img"))
        b.stop()
        write_uf2(str(tmp_path / "before-new-image.img"), info["paths"]["uf2"])
        lines = b.power_on(str(tmp_path / "before-new-image.img"))
        assert b.game() == record
        assert b.console("nodes 40", lambda line: line == "ok") == "ok"
        wait_status(b, lambda s: s[0] == "player")
        move = next(iter(b.board.legal_moves))
        play(b, move)
        play(b, wait_computer(b))
        assert b.game() == record + [m.uci() for m in b.board.move_stack[4:]]
    finally:
        b.stop()


def test_a_board_flashed_before_runs_the_frozen_modules(tmp_path):
    """`make flash` first (stock MicroPython, .mpy files and main.py on the file system), then
    the image's .uf2: the frozen modules run, the old files are reported once."""
    from host_sim.rp2040.pico_board import PicoBoard

    info = built("pico")
    _need_emulator()
    b = PicoBoard()
    try:
        shutil.copyfile(b.saved_flash()[0], str(tmp_path / "stock.img"))  # make flash's, saved once per build
        write_uf2(str(tmp_path / "stock.img"), info["paths"]["uf2"])
        first = b.power_on(str(tmp_path / "stock.img"), occupied=_start_cells())
        b.save_flash(str(tmp_path / "again.img"))
        b.stop()
        second = b.power_on(str(tmp_path / "again.img"))
    finally:
        b.stop()
    notes = [line for line in first if "are not used" in line]
    assert len(notes) == 1 and "firmware" in notes[0] and "main.py" in notes[0], first
    assert not any("are not used" in line for line in second), second
    assert not any("Traceback" in line for line in first + second)


def test_frozen_modules_come_first(pico_flash):
    """At the REPL of the image (the frozen main stopped): .frozen leads sys.path and a module
    file on the file system does not shadow the frozen one."""
    p = image_pico(pico_flash)
    p.start()
    try:
        player = ConsolePlayer(p)
        player.wait_console()
        p.to_repl()
        p.exec("import os\ntry:\n    os.mkdir('firmware')\nexcept OSError:\n    pass\n"
               "with open('firmware/compat.py', 'w') as f:\n    f.write('raise ImportError(\"stale\")')\n")
        out = p.exec("import sys\nfor k in list(sys.modules):\n    if k.startswith('firmware'):\n"
                     "        del sys.modules[k]\nimport firmware.compat\nprint(sys.path[0], 'frozen-won')")
    finally:
        p.stop()
    assert out.split() == [".frozen", "frozen-won"], out


def test_image_json_matches_its_files():
    info = built("pico")
    with open(info["paths"]["json"]) as f:
        on_disk = json.load(f)
    with open(info["paths"]["bin"], "rb") as f:
        import hashlib

        assert hashlib.sha256(f.read()).hexdigest() == on_disk["bin_sha256"]
    assert on_disk["micropython"] == image.MICROPYTHON_VERSION and on_disk["board"] == "pico"


def test_missing_toolchain_says_what_to_install(monkeypatch):
    import shutil

    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "arm-none-eabi-gcc" else real(name))
    why = image.toolchain_missing()
    assert why and "arm-none-eabi-gcc" in why and image.APT_PACKAGES in why
    with pytest.raises(image.ImageError, match="apt-get install"):
        image.build_image("pico", log=None)


def test_mpy_tool_fix_is_applied_once(tmp_path):
    tools_dir = tmp_path / "tools"
    tools_dir.mkdir()
    text = "before\n" + image.MPY_TOOL_ALIGN_OLD + "\n            MP_NATIVE_ARCH_XTENSAWIN,\nafter\n"
    (tools_dir / "mpy-tool.py").write_text(text)
    assert image.fix_mpy_tool(str(tmp_path), log=None) is True
    fixed = (tools_dir / "mpy-tool.py").read_text()
    assert "MP_NATIVE_ARCH_ARMV6M,  # Reedchess fix" in fixed and fixed.startswith("before\n")
    assert image.fix_mpy_tool(str(tmp_path), log=None) is False
    assert (tools_dir / "mpy-tool.py").read_text() == fixed
    (tools_dir / "mpy-tool.py").write_text("something else\n")
    with pytest.raises(image.ImageError, match="cannot apply"):
        image.fix_mpy_tool(str(tmp_path), log=None)


def test_frozen_main_reports_old_files_once_and_installs_the_book(tmp_path, monkeypatch):
    from firmware import frozen_main

    monkeypatch.chdir(tmp_path)
    said = []
    assert frozen_main.report_stale(said.append) is False and said == []  # a new board: nothing old
    (tmp_path / frozen_main.STALE_NOTE).unlink()
    (tmp_path / "firmware").mkdir()
    (tmp_path / "main.py").write_text("old")
    (tmp_path / "boot.py").write_text("# the owner's own")  # never written by make flash: not reported
    assert frozen_main.report_stale(said.append) is True
    assert len(said) == 1 and "firmware, main.py" in said[0] and "mpremote rm -r :firmware :main.py" in said[0]
    assert "boot.py" not in said[0]
    assert frozen_main.report_stale(said.append) is False and len(said) == 1  # once
    book = bytes(range(256)) * 3
    assert frozen_main.install_book("book.bin", book) is True
    assert (tmp_path / "book.bin").read_bytes() == book
    assert frozen_main.install_book("book.bin", book) is False  # the same book stays
    other = b"\x01" + book[1:]
    assert frozen_main.install_book("book.bin", other) is True and (tmp_path / "book.bin").read_bytes() == other
