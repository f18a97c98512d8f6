"""tools/fileset.py and tools/flash.py without a device: which files go onto a board, the
.mpy builds for every board's CPU, and the messages a person gets for a missing board or port.
(The real copy onto an emulated device is in test_flash_device.py.)"""

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
    # the engine's hot functions are machine code for the board's CPU
    search = [f for f in b.files if f.device_path == "firmware/engine/search.mpy"][0]
    assert search.native_code()[0] == flash.ARCH_CODES[flash.BOARD_ARCH[board]]


def test_bytecode_build_has_no_machine_code_and_keeps_line_numbers(tmp_path):
    text = "class A:\n    @micropython.native\n    def f(self):\n        return 1\n"
    assert flash.bytecode_source(text) == "class A:\n\n    def f(self):\n        return 1\n"
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
        "boot.py": "22",
        "main.py": "33",
    }
    mkdirs, stale, copy = flash.plan(b, _probe_info(have, 0))
    assert mkdirs == ["boards", "firmware/data", "firmware/engine"]
    assert stale == ["firmware/app.py", "firmware/old.mpy"]  # boot.py stays; main.py is replaced
    assert sorted(f.device_path for f in copy) == sorted(p for p in by_path if p != "firmware/app.mpy")


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
