"""tools/lint.py: its configuration, and its type checks at 0 errors on both ports (ruff runs in
`make lint`)."""
import os
import re

import pytest

from tools import fileset, lint

ROOT = fileset.ROOT


def test_each_port_checks_all_firmware_and_only_its_own_boards():
    for port, (_, mcus) in lint.PORTS.items():
        files = lint.port_files(port)
        assert set(fileset.firmware_sources()) <= set(files)
        for board in fileset.board_names():
            mcu = (fileset.board_mcu(board) or "").upper()
            path = "boards/%s.py" % board
            if mcu in mcus:
                assert path in files, (port, board)
            elif path in files:  # another port's board only comes along when imported
                assert any(path in fileset.board_files(b) for b in fileset.board_names()
                           if (fileset.board_mcu(b) or "").upper() in mcus), (port, board)
    rp2 = lint.port_files("rp2")
    assert "boards/pico.py" in rp2 and "boards/esp32.py" not in rp2
    esp32 = lint.port_files("esp32")
    assert "boards/esp32.py" in esp32 and "boards/pico.py" not in esp32


def test_pyright_config_points_at_the_port_stubs(tmp_path):
    config = lint.pyright_config("esp32", str(tmp_path))
    assert config["typeshedPath"] == config["stubPath"] == str(tmp_path)
    assert all(os.path.isabs(p) and os.path.exists(p) for p in config["include"])
    assert config["reportMissingModuleSource"] is False


def test_tool_versions_are_pinned():
    for spec, _ in lint.PORTS.values():
        assert re.fullmatch(r"micropython-[a-z0-9]+-stubs==[0-9][0-9.a-z]*", spec), spec
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        text = f.read()
    lint_extra = text.split("lint = [", 1)[1].split("]", 1)[0]
    assert re.search(r'"ruff==[0-9.]+"', lint_extra)
    assert re.search(r'"basedpyright==[0-9.]+"', lint_extra)


@pytest.mark.parametrize("port", sorted(lint.PORTS))
def test_the_type_checks_report_no_error(port):
    """`make lint`'s type check of the device code against the port's MicroPython stubs stays at
    0 errors (the classes declare their fields: docs/architecture.md, "Declared state")."""
    import shutil
    import subprocess

    if not (shutil.which("basedpyright") or os.path.exists(lint._venv_tool("basedpyright"))):
        pytest.skip("basedpyright not installed (the lint extra: pip install -e '.[lint]')")
    try:
        lint.ensure_stubs(port, log=lambda line: None)
    except subprocess.CalledProcessError as exc:
        pytest.skip("the %s stubs could not be installed from PyPI: %s" % (port, exc))
    lines = []
    errors = lint.run_types(port, log=lines.append)
    assert errors == 0, "\n".join(lines)[-4000:]
