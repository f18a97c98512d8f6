"""tools/fileset.py and tools/flash.py without a device: which files go onto a board, the
.mpy builds for every board's CPU, and the messages a person gets for a missing board or port.
(The real copy onto an emulated device is in test_flash_device.py.)"""

import hashlib
import os
import subprocess
import sys

import pytest

from tools import fileset, flash

ROOT = fileset.ROOT


def _write(root, rel, text=""):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


BOARD = 'CONFIG = {"name": "%s", "mcu": "%s"}\n\n\ndef make_hardware():\n%s    return CONFIG\n'


@pytest.fixture
def fake_repo(tmp_path):
    """A small repository: modules, tests and caches to skip, data files, three boards."""
    root = str(tmp_path)
    for rel in (
        "firmware/__init__.py",
        "firmware/app.py",
        "firmware/engine/__init__.py",
        "firmware/engine/search.py",
        "firmware/engine/tests/test_search.py",
        "firmware/engine/test_helpers.py",
        "firmware/__pycache__/app.cpython-311.py",
        "firmware/data/README.md",
    ):
        _write(root, rel, "X = 1\n")
    with open(os.path.join(root, "firmware/data/book.bin"), "wb") as f:
        f.write(bytes(range(256)))
    _write(root, "boards/__init__.py")
    _write(root, "boards/config.py", "def validate(c):\n    return c\n")
    _write(root, "boards/factory.py", "def make_hardware(config):\n    return config\n")
    _write(root, "boards/linux_only.py", "def make_hardware(config):\n    return config\n")
    _write(root, "boards/alpha.py", BOARD % ("alpha", "RP2040", "    from boards.factory import make_hardware as m\n"))
    _write(root, "boards/beta.py", "from boards.alpha import CONFIG as _A\n" + BOARD % ("beta", "RP2350", ""))
    _write(root, "boards/gamma.py", BOARD % ("gamma", "Linux", "    from . import linux_only\n"))
    _write(root, "pyproject.toml", '[project]\nname = "x"\nversion = "9.8.7"\n')
    return root


def test_firmware_sources_skip_tests_caches_and_data(fake_repo):
    assert fileset.firmware_sources(fake_repo) == [
        "firmware/__init__.py",
        "firmware/app.py",
        "firmware/engine/__init__.py",
        "firmware/engine/search.py",
    ]
    assert fileset.data_files(fake_repo) == ["firmware/data/book.bin"]


def test_board_modules_are_told_from_shared_helpers(fake_repo):
    assert fileset.board_names(fake_repo) == ["alpha", "beta", "gamma"]
    assert fileset.board_mcu("beta", fake_repo) == "RP2350"


def test_board_files_follow_imports_and_leave_other_boards_out(fake_repo):
    # alpha needs the factory it imports inside make_hardware; not the helper only gamma uses
    assert fileset.board_files("alpha", fake_repo) == [
        "boards/__init__.py",
        "boards/alpha.py",
        "boards/config.py",
        "boards/factory.py",
    ]
    # beta builds on alpha, so alpha comes along
    assert fileset.board_files("beta", fake_repo) == [
        "boards/__init__.py",
        "boards/alpha.py",
        "boards/beta.py",
        "boards/config.py",
        "boards/factory.py",
    ]
    assert fileset.board_files("gamma", fake_repo) == [
        "boards/__init__.py",
        "boards/config.py",
        "boards/gamma.py",
        "boards/linux_only.py",
    ]
    with pytest.raises(fileset.FileSetError, match="alpha, beta, gamma"):
        fileset.board_files("delta", fake_repo)


def test_architecture_comes_from_the_board_mcu(fake_repo):
    assert flash.board_arch("alpha", root=fake_repo) == "armv6m"
    assert flash.board_arch("beta", root=fake_repo) == "armv7emsp"
    assert flash.board_arch("gamma", arch="x64", root=fake_repo) == "x64"
    with pytest.raises(flash.FlashError, match="--arch"):
        flash.board_arch("gamma", root=fake_repo)
    with pytest.raises(flash.FlashError, match="unknown architecture"):
        flash.board_arch("alpha", arch="z80", root=fake_repo)


def test_shipped_boards_build_for_their_cpu():
    for board, arch in flash.BOARD_ARCH.items():
        assert flash.board_arch(board) == arch


@pytest.mark.parametrize("board", ["", "nope"])
def test_missing_or_unknown_board_lists_the_boards(board):
    with pytest.raises(flash.FlashError) as info:
        flash.board_arch(board)
    for name in flash.BOARD_ARCH:
        assert name in str(info.value)


def test_missing_or_wrong_port_says_how_to_find_it(tmp_path):
    with pytest.raises(flash.FlashError, match="no PORT given") as info:
        flash.check_port("")
    assert "mpremote connect list" in str(info.value)
    with pytest.raises(flash.FlashError, match="does not exist") as info:
        flash.check_port(str(tmp_path / "ttyACM9"))
    assert "mpremote connect list" in str(info.value)
    flash.check_port("auto")  # mpremote finds the board itself


def test_build_stages_mpy_data_and_main(fake_repo):
    b = flash.build("alpha", arch="x64", root=fake_repo, log=None)
    paths = sorted(f.device_path for f in b.files)
    assert paths == [
        "boards/__init__.mpy",
        "boards/alpha.mpy",
        "boards/config.mpy",
        "boards/factory.mpy",
        "firmware/__init__.mpy",
        "firmware/app.mpy",
        "firmware/data/book.bin",
        "firmware/engine/__init__.mpy",
        "firmware/engine/search.mpy",
        "main.py",
    ]
    for f in b.files:
        with open(f.local_path, "rb") as fh:
            data = fh.read()
        assert os.path.relpath(f.local_path, b.folder).replace(os.sep, "/") == f.device_path
        if f.device_path.endswith(".mpy"):
            assert data[:2] == b"M\x06", f.device_path
    with open(os.path.join(b.folder, "main.py")) as fh:
        assert fh.read() == fileset.main_py("alpha")
    source = flash.build("alpha", arch="x64", source=True, root=fake_repo, write_main=False, log=None)
    assert sorted(f.device_path for f in source.files) == sorted(
        p.replace(".mpy", ".py") for p in paths if p != "main.py"
    )
    data_only = flash.build("alpha", root=fake_repo, data_only=True, log=None)
    assert sorted(f.device_path for f in data_only.files) == ["firmware/data/book.bin", "main.py"]


def test_compile_cache_follows_the_source(fake_repo):
    def search_mpy():
        b = flash.build("alpha", arch="x64", root=fake_repo, log=None)
        with open(os.path.join(b.folder, "firmware/engine/search.mpy"), "rb") as f:
            return f.read()

    first = search_mpy()
    assert os.listdir(os.path.join(fake_repo, "build", "mpy-cache"))  # kept for the next build
    assert search_mpy() == first
    _write(fake_repo, "firmware/engine/search.py", "X = 2\nY = 3\n")
    changed = search_mpy()
    assert changed != first
    compiled = os.path.join(fake_repo, "fresh.mpy")
    flash.compile_mpy(
        os.path.join(fake_repo, "firmware/engine/search.py"), compiled, "x64", "firmware/engine/search.py"
    )
    with open(compiled, "rb") as f:
        assert f.read() == changed  # what the cache gave is what mpy-cross makes


def test_compile_errors_name_the_file(fake_repo):
    # valid CPython that MicroPython's compiler rejects: mpy-cross reports it
    _write(fake_repo, "firmware/fancy.py", "def f(x):\n    match x:\n        case 1:\n            return 2\n")
    with pytest.raises(flash.FlashError, match="firmware/fancy.py"):
        flash.build("alpha", root=fake_repo, log=None)
    _write(fake_repo, "firmware/broken.py", "def f(:\n")
    with pytest.raises(fileset.FileSetError, match="broken.py"):
        flash.build("alpha", root=fake_repo, log=None)


def test_no_main_py_until_the_composition_root_exists(fake_repo):
    os.remove(os.path.join(fake_repo, "firmware/app.py"))
    notes = []
    b = flash.build("alpha", root=fake_repo, log=notes.append)
    assert "main.py" not in [f.device_path for f in b.files]
    assert any("app.py" in n for n in notes)
    with pytest.raises(flash.FlashError, match="app.py"):
        flash.build("alpha", root=fake_repo, write_main=True, log=None)


@pytest.mark.parametrize("board", sorted(flash.BOARD_ARCH))
def test_every_firmware_module_compiles_for_each_board(board, tmp_path):
    """mpy-cross accepts every module (MicroPython syntax) for each shipped board's CPU."""
    b = flash.build(board, out_dir=str(tmp_path), write_main=False, log=None)
    modules = fileset.firmware_sources() + fileset.board_files(board)
    assert sorted(f.device_path for f in b.files if f.device_path.endswith(".mpy")) == sorted(
        p[:-3] + ".mpy" for p in modules
    )
    for f in b.files:
        arch, _ = f.native_code()
        assert arch in (0, flash.ARCH_CODES[flash.BOARD_ARCH[board]]), f.device_path
    # the engine's move generation and attack test are machine code for the board's CPU
    position = [f for f in b.files if f.device_path == "firmware/engine/position.mpy"][0]
    assert position.native_code()[0] == flash.ARCH_CODES[flash.BOARD_ARCH[board]]


def test_bytecode_build_has_no_machine_code_and_keeps_line_numbers(tmp_path):
    text = ("class A:\n    @micropython.native\n    def f(self):\n        return 1\n"
            "    @micropython.viper\n    def g(self):\n        return 2\n")
    assert flash.bytecode_source(text) == ("class A:\n\n    def f(self):\n        return 1\n"
                                           "\n    def g(self):\n        return 2\n")
    b = flash.build("pico", out_dir=str(tmp_path / "stage"), write_main=False, log=None, bytecode=True)
    mpys = [f for f in b.files if f.device_path.endswith(".mpy")]
    assert any(f.device_path == "firmware/engine/search.mpy" for f in mpys)
    assert all(f.native_code() == (0, 0) for f in mpys)
    assert not any(".src" in f.device_path for f in b.files)  # the stripped sources stay off the device


def _probe_info(files, mpy):
    return {"files": files, "hash": "sha256", "mpy": mpy, "version": "3.4.0; MicroPython v1.28.0"}


def test_plan_removes_stale_files_and_copies_only_changes(fake_repo):
    b = flash.build("alpha", arch="x64", root=fake_repo, log=None)
    by_path = {f.device_path: f for f in b.files}
    have = {
        "firmware": None,
        "firmware/app.mpy": by_path["firmware/app.mpy"].digest("sha256"),
        "firmware/app.py": "00",
        "firmware/old.mpy": "11",
        "firmware/gone": None,
        "firmware/gone/deeper": None,
        "firmware/gone/deeper/x.mpy": "44",
        "boot.py": "22",
        "main.py": "33",
    }
    mkdirs, stale, copy, rmdirs = flash.plan(b, _probe_info(have, 0))
    assert mkdirs == ["boards", "firmware/data", "firmware/engine"]
    # boot.py stays; main.py is replaced
    assert stale == ["firmware/app.py", "firmware/gone/deeper/x.mpy", "firmware/old.mpy"]
    # a folder left behind would be imported as a namespace package: removed, deepest first
    assert rmdirs == ["firmware/gone/deeper", "firmware/gone"]
    assert sorted(f.device_path for f in copy) == sorted(p for p in by_path if p != "firmware/app.mpy")
    # the file-system part of a ROMFS flash: only main.py; every module and folder goes
    _, stale, copy, rmdirs = flash.plan(flash.build("alpha", arch="x64", root=fake_repo, log=None, romfs=True),
                                        _probe_info(dict(have, **{"firmware/data": None}), 0))
    assert [f.device_path for f in copy] == ["main.py"]
    assert "firmware" in rmdirs and "firmware/data" in rmdirs and "main.py" not in stale


def test_device_checks_refuse_what_it_cannot_run(fake_repo):
    b = flash.build("alpha", root=fake_repo, log=None)  # armv6m
    x64_device = 2 << 10 | 3 << 8 | 6
    with pytest.raises(flash.FlashError, match="x64"):
        flash.check_device(b, _probe_info({}, x64_device))
    flash.check_device(b, _probe_info({}, x64_device), force=True)
    flash.check_device(b, _probe_info({}, 4 << 10 | 3 << 8 | 6))  # an RP2040
    with pytest.raises(flash.FlashError, match="Update MicroPython"):
        flash.check_device(b, _probe_info({}, 4 << 10 | 3 << 8 | 5))


def test_make_flash_without_board_says_what_to_do():
    env = dict(os.environ)
    env.pop("BOARD", None)
    env.pop("PORT", None)
    proc = subprocess.run(
        ["make", "-s", "flash", "STAMP=", "PY=" + sys.executable],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode != 0
    assert "no board given" in proc.stderr
    assert "BOARD=<board>" in proc.stderr and "pico" in proc.stderr


def test_flash_to_a_missing_port_exits_with_advice(tmp_path, capsys):
    assert flash.main(["--board", "pico", "--port", str(tmp_path / "ttyUSB7")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "mpremote connect list" in err


# ------------------------------------------------------------------ the RAM budget check
# What the device prints for _MEM_CODE + _PROBE_CODE: the emulated stock Pico right after boot
# (rp2040js, MicroPython 1.29 RPI_PICO; mem_info's "max free sz" is in blocks of 16 bytes).
PICO_PROBE_OUT = """REEDCHESS-MEM  229616 4176 4
stack: 524 out of 7936
GC: total: 233792, used: 4176, free: 229616
 No. of 1-blocks: 31, 2-blocks: 10, max blk sz: 64, max free sz: 14275
REEDCHESS-PROBE {'platform': 'rp2', 'rom': None, 'version': '3.4.0; MicroPython v1.29.0', \
'machine': 'Raspberry Pi Pico with RP2040', 'mpy': 4870, 'hash': 'sha256', 'files': {}, \
'fs': (1441792, 1433600), 'mem_free': 227152, 'mem_alloc': 6640}
"""

NEEDS = {
    "_word_bytes": 4,
    "alpha": {
        "free_bytes": 229680,
        "mpy": {"boot_bytes": 300000, "peak_bytes": 310000, "largest_block_bytes": 16384},
        "romfs": {"boot_bytes": 220000, "peak_bytes": 230000, "largest_block_bytes": 16384},
        "frozen": {"boot_bytes": 150000, "peak_bytes": 160000, "largest_block_bytes": 16384},
    },
    "beta": {"free_bytes": 470000, "mpy": {"boot_bytes": 300000, "peak_bytes": 310000}},
}


def _pico_info(**changes):
    info = flash.parse_probe(PICO_PROBE_OUT)
    info.update(changes)
    return info


def test_probe_output_gives_free_heap_largest_block_and_word_size():
    info = flash.parse_probe(PICO_PROBE_OUT)
    assert info["boot_free"] == 229616 and info["word_bytes"] == 4
    assert info["heap_total"] == 233792
    assert info["max_free_block"] == 14275 * 16  # blocks of 4 words
    assert info["platform"] == "rp2" and info["rom"] is None
    out64 = PICO_PROBE_OUT.replace("229616 4176 4", "2071488 1344 8")
    out64 = out64.replace("max free sz: 14275", "max free sz: 64705")
    assert flash.parse_probe(out64)["max_free_block"] == 64705 * 32
    # an older probe without memory lines still parses (and the check then says so)
    bare = flash.parse_probe(PICO_PROBE_OUT.split("\n", 4)[4])
    assert "boot_free" not in bare
    notes = []
    assert flash.check_ram("alpha", "mpy", bare, NEEDS, log=notes.append) is None
    assert "not checked" in notes[0]
    with pytest.raises(flash.FlashError, match="did not answer"):
        flash.parse_probe("Traceback (most recent call last):\nMemoryError\n")


def test_probe_lists_files_one_line_each():
    """The device prints a line per file (one repr of them all was a 7 KB string its split heap
    could not hold at 70 files): parse_probe gathers them into `files`."""
    out = PICO_PROBE_OUT.replace("'files': {}, ", "").replace(
        "REEDCHESS-PROBE", "REEDCHESS-FILE ('firmware', None)\nREEDCHESS-FILE ('firmware/app.mpy', 'ab12')\n"
        "REEDCHESS-FILE ('main.py', 'cd34')\nREEDCHESS-PROBE")
    info = flash.parse_probe(out)
    assert info["files"] == {"firmware": None, "firmware/app.mpy": "ab12", "main.py": "cd34"}
    assert info["platform"] == "rp2"


def test_probe_code_prints_a_line_per_file_under_micropython(tmp_path):
    """The device side of the probe, run by the MicroPython unix port in a folder with files."""
    import subprocess

    from tests.mpy import micropython_path

    (tmp_path / "firmware" / "engine").mkdir(parents=True)
    (tmp_path / "firmware" / "app.py").write_text("x = 1\n")
    (tmp_path / "firmware" / "engine" / "search.py").write_bytes(bytes(range(256)) * 9)
    (tmp_path / "main.py").write_text("import firmware.app\n")
    proc = subprocess.run([micropython_path(), "-c", flash._PROBE_CODE], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    info = flash.parse_probe(proc.stdout)
    import hashlib

    assert info["files"] == {
        "firmware": None, "firmware/engine": None, "firmware/app.py": hashlib.sha256(b"x = 1\n").hexdigest(),
        "firmware/engine/search.py": hashlib.sha256(bytes(range(256)) * 9).hexdigest(),
        "main.py": hashlib.sha256(b"import firmware.app\n").hexdigest()}


def test_ram_that_does_not_fit_stops_the_flash_with_what_to_do(fake_repo):
    with pytest.raises(flash.FlashError) as info:
        flash.check_ram("alpha", "mpy", _pico_info(), NEEDS, log=None, root=fake_repo)
    text = str(info.value)
    assert "80,384 bytes short" in text  # 310,000 needed at the peak, 229,616 free
    assert "not flash" in text  # deleting files does not help
    assert "manifest.py" in text and "--data-only" in text and "needs ~160,000 bytes (fits)" in text
    assert "--romfs" in text and "still 384 bytes short" in text
    assert "tt_entries" in text and "boards/alpha.py" in text
    assert "beta (~458 KB free)" in text  # a board with more RAM, where the same build fits
    assert "--force" in text
    # forced: flashed anyway, with a warning and the (negative) headroom
    notes = []
    assert flash.check_ram("alpha", "mpy", _pico_info(), NEEDS, force=True, log=notes.append, root=fake_repo) == -80384
    assert any("flashing anyway" in n for n in notes)


def test_ram_that_fits_reports_the_headroom():
    notes = []
    assert flash.check_ram("alpha", "frozen", _pico_info(), NEEDS, log=notes.append) == 229616 - 160000
    assert "229,616 bytes free after boot" in notes[0] and "largest free block 228,400" in notes[0]
    assert "160,000 at the peak" in notes[1]


def test_a_fragmented_heap_is_refused_for_the_largest_block():
    with pytest.raises(flash.FlashError, match="largest free block is 8,000 bytes.*16,384"):
        flash.check_ram("alpha", "frozen", _pico_info(max_free_block=8000), NEEDS, log=None)


def test_ram_figures_of_a_32_bit_port_are_doubled_on_a_64_bit_port():
    need, note = flash.ram_need("alpha", "frozen", _pico_info(word_bytes=8), NEEDS)
    assert need == {"boot_bytes": 300000, "peak_bytes": 320000, "largest_block_bytes": 32768}
    assert "64-bit" in note
    with pytest.raises(flash.FlashError):
        flash.check_ram("alpha", "frozen", _pico_info(word_bytes=8), NEEDS, log=None)


def test_unknown_figures_are_said_not_guessed():
    notes = []
    assert flash.check_ram("gamma", "mpy", _pico_info(), NEEDS, log=notes.append) is None
    assert "no measured RAM figure for gamma" in notes[-1] and "not checked" in notes[-1]
    assert flash.check_ram("alpha", "bytecode", _pico_info(), NEEDS, log=notes.append) is None
    # plain .py needs more than .mpy: the .mpy figure is a lower bound, and already too much
    need, note = flash.ram_need("alpha", "source", _pico_info(), NEEDS)
    assert need["peak_bytes"] == 310000 and "at least" in note
    with pytest.raises(flash.FlashError):
        flash.check_ram("alpha", "source", _pico_info(), NEEDS, log=None)


def test_ram_modes():
    assert flash.ram_mode() == "mpy"
    assert flash.ram_mode(bytecode=True) == "bytecode"
    assert flash.ram_mode(source=True) == "source"
    assert flash.ram_mode(romfs=True) == "romfs"
    assert flash.ram_mode(data_only=True) == "frozen"


def test_the_shipped_ram_table_covers_every_board():
    needs = flash.load_ram_needs()
    assert needs["_word_bytes"] == 4
    for board in flash.BOARD_ARCH:
        table = needs[board]
        assert table["free_bytes"] > 0
        for mode in ("mpy", "bytecode", "romfs", "frozen"):
            entry = table[mode]
            assert 0 < entry["boot_bytes"] <= entry["peak_bytes"], (board, mode)
            assert entry["largest_block_bytes"] <= entry["boot_bytes"]
        # keeping code out of RAM never needs more
        assert table["frozen"]["peak_bytes"] < table["romfs"]["peak_bytes"] < table["mpy"]["peak_bytes"]
        assert table["bytecode"]["peak_bytes"] < table["mpy"]["peak_bytes"]
    # the stock Pico (free heap as the emulated one reports it) takes the .mpy build; an ESP32
    # without PSRAM (~110 KB) does not: it needs the firmware frozen
    info = _pico_info()
    flash.check_ram("pico", "mpy", info, log=None)
    with pytest.raises(flash.FlashError, match="will not fit"):
        flash.check_ram("esp32", "mpy", dict(info, boot_free=needs["esp32"]["free_bytes"]), log=None)


class _FakeDevice:
    """flash.probe and the mpremote copy replaced: a device that answers PICO_PROBE_OUT."""

    def __init__(self, monkeypatch):
        self.commands = []
        self.files = {}
        monkeypatch.setattr(flash, "probe", self.probe)
        monkeypatch.setattr(flash, "_run_batched", self.run)

    def probe(self, port):
        return _pico_info(files=dict(self.files))

    def run(self, port, commands, on_line):
        self.commands += commands
        for cmd in commands:
            if cmd[:2] == ["fs", "cp"]:
                with open(cmd[3], "rb") as f:
                    self.files[cmd[4][1:]] = hashlib.sha256(f.read()).hexdigest()


def test_flash_stops_before_copying_when_the_ram_is_short(fake_repo, monkeypatch):
    device = _FakeDevice(monkeypatch)
    with pytest.raises(flash.FlashError, match="will not fit"):
        flash.flash("alpha", "auto", root=fake_repo, log=None, ram_needs=NEEDS)
    assert device.commands == []  # nothing removed or copied
    log = []
    flash.flash("alpha", "auto", root=fake_repo, log=log.append, ram_needs=NEEDS, force=True)
    assert any(c[:2] == ["fs", "cp"] for c in device.commands)
    assert any("flashing anyway" in line for line in log)


def test_flash_that_fits_ends_with_the_expected_headroom(fake_repo, monkeypatch):
    _FakeDevice(monkeypatch)
    log = []
    roomy = dict(NEEDS, alpha=dict(NEEDS["alpha"], mpy={"boot_bytes": 150000, "peak_bytes": 200000}))
    flash.flash("alpha", "auto", root=fake_repo, log=log.append, ram_needs=roomy)
    assert log[-1] == ("expected RAM headroom: 29,616 bytes at the peak of a game, 79,616 after boot "
                       "(229,616 free of 200,000 needed)")


# ------------------------------------------------------------------ ROMFS
def test_romfs_image_holds_modules_and_data_not_main(fake_repo):
    b = flash.build("alpha", arch="x64", root=fake_repo, log=None)
    out = os.path.join(fake_repo, "img.romfs")
    image = flash.romfs_image(b, out, log=None)
    assert image.startswith(flash.ROMFS_HEADER)
    for name in (b"app.mpy", b"search.mpy", b"alpha.mpy", b"book.bin", bytes(range(256))):
        assert name in image
    assert b"main.py" not in image
    with pytest.raises(flash.FlashError, match="--source"):
        flash.romfs_image(flash.build("alpha", arch="x64", source=True, root=fake_repo, log=None), out, log=None)


def test_romfs_needs_a_micropython_with_a_rom_partition():
    with pytest.raises(flash.FlashError, match="no ROMFS.*rom_ioctl") as info:
        flash.check_romfs(_pico_info(), 1000)
    assert "manifest.py" in str(info.value) and "MICROPY_VFS_ROM" in str(info.value)
    with pytest.raises(flash.FlashError, match="no ROMFS partition"):
        flash.check_romfs(_pico_info(rom=0), 1000)
    with pytest.raises(flash.FlashError, match="bigger than the board's ROMFS partition"):
        flash.check_romfs(_pico_info(rom=999), 1000)
    flash.check_romfs(_pico_info(rom=1000), 1000)


def test_romfs_flash_on_a_board_without_romfs_copies_nothing(fake_repo, monkeypatch):
    device = _FakeDevice(monkeypatch)
    with pytest.raises(flash.FlashError, match="no ROMFS"):
        flash.flash("alpha", "auto", root=fake_repo, log=None, ram_needs=NEEDS, romfs=True)
    assert device.commands == []
    with pytest.raises(flash.FlashError, match="cannot go with --source"):
        flash.flash("alpha", "auto", root=fake_repo, log=None, romfs=True, source=True)


def test_main_py_puts_romfs_or_frozen_code_first():
    plain = fileset.main_py("pico")
    assert plain == "import boards.pico as board\nfrom firmware import app\n\napp.main(board)\n"
    romfs = fileset.main_py("pico", "romfs")
    assert romfs.endswith(plain) and "sys.path.insert(0, '/rom')" in romfs
    frozen = fileset.main_py("pico", "frozen")
    assert frozen.endswith(plain) and "sys.path.insert(0, '.frozen')" in frozen
    for text in (romfs, frozen):
        compile(text, "main.py", "exec")


def test_a_board_built_on_another_takes_its_chip():
    # pico_w and pico2_w are the Pico's and the Pico 2's CONFIG with Wi-Fi: no "mcu" of their own
    assert flash.board_arch("pico_w") == flash.board_arch("pico") == "armv6m"
    assert flash.board_arch("pico2_w") == flash.board_arch("pico2") == "armv7emsp"
