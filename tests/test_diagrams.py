"""make diagrams (tools/diagrams/): every board's wiring diagram, board view and bill of
materials are made from its CONFIG, and the committed files in docs/img/ and the generated
blocks of docs/wiring.md and docs/build-guide.md are exactly what the configs give now.
After changing a config, run `make diagrams` and commit what it writes."""
import ast
import copy
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from boards.config import BoardConfigError, pin_roles
from firmware.io.cellmap import invert, make_cell_map
from tools.diagrams.__main__ import board_files, expected_files
from tools.diagrams.board_view import board_svg
from tools.diagrams.bom import bom_rows
from tools.diagrams.configs import board_names, check, load
from tools.diagrams.parts import chain_end, square
from tools.diagrams.pinouts import header_pin, pinout_for
from tools.diagrams.tables import BlockError, replace_block, wiring_table
from tools.diagrams.wiring import function_text, wiring_svg
from tests.mpy import ROOT

IMG = os.path.join(ROOT, "docs", "img")
DOCS = os.path.join(ROOT, "docs")
SVG = "{http://www.w3.org/2000/svg}"
BOARDS = board_names()


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _svg(kind, name):
    return ET.fromstring(_read(os.path.join(IMG, "%s-%s.svg" % (kind, name))).encode())


def _texts(element):
    return ["".join(t.itertext()) for t in element.iter(SVG + "text")]


def test_every_board_module_with_a_config_is_drawn():
    """A board added to boards/ (say pico_w) is picked up without touching the drawer."""
    found = []
    for file_name in sorted(os.listdir(os.path.join(ROOT, "boards"))):
        if file_name.endswith(".py") and not file_name.startswith("_"):
            tree = ast.parse(_read(os.path.join(ROOT, "boards", file_name)))
            if any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CONFIG" for t in node.targets)
                   for node in tree.body):
                found.append(file_name[:-3])
    assert sorted(BOARDS) == found
    assert BOARDS[:6] == ["pico", "pico2", "pico_mcp", "esp32", "esp32s3", "rpi_blinka"]


@pytest.mark.parametrize("name", BOARDS)
def test_committed_drawings_and_bom_are_what_the_config_gives(name):
    for file_name, text in board_files(load(name)).items():
        path = os.path.join(IMG, file_name)
        assert os.path.exists(path), "%s is missing: run make diagrams" % os.path.relpath(path, ROOT)
        assert _read(path) == text, "%s is out of date: run make diagrams" % os.path.relpath(path, ROOT)


def test_generated_doc_blocks_are_up_to_date():
    files = expected_files(IMG, DOCS)
    for doc in ("wiring.md", "build-guide.md"):
        path = os.path.join(DOCS, doc)
        assert _read(path) == files[path], "docs/%s is out of date: run make diagrams" % doc


def test_a_changed_config_no_longer_matches_the_committed_files():
    """What makes the two tests above fail when a config changes and nobody regenerates."""
    config = copy.deepcopy(load("pico"))
    b = config["buttons"]
    b["new"], b["level"] = b["level"], b["new"]
    files = board_files(config)
    assert files["wiring-pico.svg"] != _read(os.path.join(IMG, "wiring-pico.svg"))
    assert wiring_table(config) not in _read(os.path.join(DOCS, "wiring.md"))
    config = copy.deepcopy(load("pico"))
    config["sensor"]["cell_map"] = "rot180"
    assert board_files(config)["board-pico.svg"] != _read(os.path.join(IMG, "board-pico.svg"))


def test_deterministic():
    config = load("esp32")
    assert wiring_svg(config) == wiring_svg(copy.deepcopy(config))
    assert board_svg(config) == board_svg(copy.deepcopy(config))


@pytest.mark.parametrize("name", BOARDS)
def test_svgs_parse_as_xml(name):
    for kind in ("wiring", "board"):
        root = _svg(kind, name)
        assert root.tag == SVG + "svg"
        assert float(root.get("width")) > 0 and float(root.get("height")) > 0
        assert root.find(SVG + "title") is not None


@pytest.mark.parametrize("name", BOARDS)
def test_every_pin_is_in_the_wiring_diagram_with_its_function(name):
    config = load(name)
    pinout = pinout_for(config["mcu"])
    root = _svg("wiring", name)
    groups = {(g.get("data-pin"), g.get("data-function")): g for g in root.iter(SVG + "g") if g.get("class") == "pin"}
    roles = pin_roles(config)
    assert len(groups) == len(roles)
    all_texts = _texts(root)
    for pin, role, _direction in roles:
        _header, _side, number, label = header_pin(pinout, pin)
        g = groups.get((label, role))
        assert g is not None, "%s: no wire for %s (%s)" % (name, label, role)
        texts = _texts(g)
        assert function_text(config, role) in texts and label in texts
        assert g.find(SVG + "path") is not None  # the wire itself
        assert str(number) in all_texts and label in all_texts  # the pin-out: number and name


@pytest.mark.parametrize("name", BOARDS)
def test_status_light_is_drawn(name):
    config = load(name)
    st = config.get("status")
    wiring, board = _svg("wiring", name), _svg("board", name)
    pixels = [g for g in wiring.iter(SVG + "g") if g.get("class") == "pixel"]
    status_groups = [g for g in board.iter(SVG + "g") if g.get("class") == "status-pixel"]
    if st is not None and st["kind"] == "pixel":
        assert "64" in [g.get("data-index") for g in pixels]
        assert [g.get("data-after") for g in status_groups] == [chain_end(config)]
        assert "status pixel" in _texts(status_groups[0])
    else:
        assert "64" not in [g.get("data-index") for g in pixels] and not status_groups
    if st is not None and st["kind"] == "pin":
        assert any(t.startswith("status LED on ") for t in _texts(board))


def test_the_pico_chain_ends_at_a8_and_the_status_pixel_follows():
    assert chain_end(load("pico")) == "a8"
    text = " ".join(_texts(_svg("board", "pico")))
    assert "after a8" in text and "after h8" not in text


@pytest.mark.parametrize("name", BOARDS)
def test_board_view_squares_carry_cell_led_and_switch_from_the_cell_maps(name):
    config = load(name)
    root = _svg("board", name)
    squares = {g.get("data-square"): g for g in root.iter(SVG + "g") if g.get("class") == "square"}
    assert len(squares) == 64
    led = config["leds"]
    led_at = invert(make_cell_map(led.get("cell_map"))) if led["kind"] != "edge" else None
    sensor_at = invert(make_cell_map(config["sensor"].get("cell_map")))
    for cell in range(64):
        texts = _texts(squares[square(cell)])
        assert squares[square(cell)].get("data-cell") == str(cell)
        assert "cell %d" % cell in texts
        p = sensor_at[cell]
        if config["sensor"]["kind"] == "matrix":
            assert "switch r%d c%d" % (p // 8, p % 8) in texts
        elif config["sensor"]["kind"] == "mcp23017":  # 16 inputs a chip: GPA0-7, then GPB0-7
            addr = config["sensor"]["addrs"][p // 16]
            assert "0x%02X GP%s%d" % (addr, "AB"[p % 16 // 8], p % 8) in texts
        else:
            assert "chip %d in %s" % (p // 8, "ABCDEFGH"[p % 8]) in texts
        if led["kind"] == "neopixel":
            assert "LED #%d" % led_at[cell] in texts
        elif led["kind"] == "matrix":
            assert "LED r%d c%d" % (led_at[cell] // 8, led_at[cell] % 8) in texts


def test_pico_board_view_serpentine():
    root = _svg("board", "pico")
    squares = {g.get("data-square"): _texts(g) for g in root.iter(SVG + "g") if g.get("class") == "square"}
    assert "LED #0" in squares["a1"] and "LED #7" in squares["h1"]
    assert "LED #8" in squares["h2"] and "LED #63" in squares["a8"]


def _quantity(rows, item, value=None):
    return sum(q for i, v, q, _ in rows if i == item and (value is None or v.startswith(value)))


@pytest.mark.parametrize("name", BOARDS)
def test_bom_counts_come_from_the_config(name):
    config = load(name)
    rows = bom_rows(config)
    st = config.get("status") or {}
    assert _quantity(rows, "magnet") == 32
    assert _quantity(rows, "reed switch") == 64
    assert _quantity(rows, "push button") == len(config["buttons"])
    assert _quantity(rows, "controller") == 1
    assert _quantity(rows, "diode") == (64 if config["sensor"]["kind"] == "matrix" else 0)
    assert _quantity(rows, "shift register") == (8 if config["sensor"]["kind"] == "shift165" else 0)
    pixels = 64 + (st.get("kind") == "pixel") if config["leds"]["kind"] == "neopixel" else 0
    assert _quantity(rows, "RGB LED") == pixels
    assert _quantity(rows, "display") == (config.get("display") is not None)
    assert _quantity(rows, "buzzer") == (config.get("buzzer") is not None)
    pullups = [p for p in config["buttons"].values() if p in (config.get("external_pullups") or ())]
    assert _quantity(rows, "resistor", "10 kOhm") - (8 if config["sensor"]["kind"] == "matrix" else 0) == len(pullups)
    csv_lines = _read(os.path.join(IMG, "bom-%s.csv" % name)).splitlines()
    assert csv_lines[0] == "item,value,quantity,for" and len(csv_lines) == len(rows) + 1


def test_bom_of_the_pico():
    rows = bom_rows(load("pico"))
    assert _quantity(rows, "RGB LED") == 65 and _quantity(rows, "diode") == 64 and _quantity(rows, "push button") == 6
    rows = bom_rows(load("esp32s3"))
    assert _quantity(rows, "LED") == 65  # 64 squares + the status LED
    assert _quantity(rows, "transistor", "PNP") == 8


@pytest.mark.parametrize("name", BOARDS)
def test_pin_table_lists_the_status_light(name):
    config = load(name)
    table = wiring_table(config)
    st = config.get("status")
    if st is None:
        assert "status" not in table
    elif st["kind"] == "pixel":
        assert "status light: WS2812 #64, after %s" % chain_end(config) in table
    else:
        assert "status LED" in table and "GPIO%d |" % st["pin"] in table


def _broken(change):
    config = copy.deepcopy(load("pico"))
    change(config)
    return config


BAD = [
    ("unknown sensor kind", lambda c: c["sensor"].update(kind="hall"), "unknown sensor kind 'hall'"),
    ("unknown device", lambda c: c.update(speaker={"pin": 3}), "'speaker'"),
    ("pin used twice", lambda c: c["buzzer"].update(pin=16), "pin 16 used twice"),
    ("pin the Pico lacks", lambda c: (c.pop("valid_pins"), c["buzzer"].update(pin=29)), "buzzer: pin 29 is not a GPIO"),
    ("unknown mcu", lambda c: c.update(mcu="Z80"), "no pin-out for mcu 'Z80'"),
]


@pytest.mark.parametrize("what,change,message", BAD, ids=[b[0] for b in BAD])
def test_a_config_the_drawer_does_not_understand_is_refused(what, change, message):
    config = _broken(change)
    with pytest.raises(BoardConfigError) as e:
        check(config)
    assert str(e.value).startswith("board pico: ") and message in str(e.value)
    with pytest.raises(BoardConfigError):
        wiring_svg(config)


def test_make_diagrams_stops_with_the_board_and_the_entry_named(tmp_path):
    bad = tmp_path / "myboard.py"
    bad.write_text("from boards.pico import CONFIG as P\nCONFIG = dict(P, name='myboard', buzzer={'pin': 16})\n")
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "tools.diagrams", "--board-file", str(bad), "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "board myboard" in r.stderr and "pin 16 used twice" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()
    good = tmp_path / "good.py"
    good.write_text("from boards.pico import CONFIG as P\nCONFIG = dict(P, name='good')\n")
    r = subprocess.run([sys.executable, "-m", "tools.diagrams", "--board-file", str(good), "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == ["board-good.svg", "bom-good.csv", "wiring-good.svg"]


def test_check_mode_reports_a_stale_file(tmp_path):
    out = tmp_path / "img"
    r = subprocess.run([sys.executable, "-m", "tools.diagrams", "--check", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "out of date:" in r.stderr and "wiring-pico.svg" in r.stderr


def test_a_missing_block_is_named():
    with pytest.raises(BlockError) as e:
        replace_block("# no markers\n", "boards", "x", "wiring.md")
    assert "wiring.md has no block 'boards'" in str(e.value)
    text = "a\n<!-- generated: boards (make diagrams) -->\nold\n<!-- end generated: boards -->\nb\n"
    assert replace_block(text, "boards", "new\n") == \
        "a\n<!-- generated: boards (make diagrams) -->\n\nnew\n\n<!-- end generated: boards -->\nb\n"


def test_build_guide_agrees_with_the_pico_config():
    guide = _read(os.path.join(DOCS, "build-guide.md"))
    config = load("pico")
    assert "MicroPython 1.28 or newer" in guide
    assert "ends at %s" % chain_end(config) in guide and "after h8" not in guide
    assert "img/wiring-pico.svg" in guide and "img/board-pico.svg" in guide
    assert not re.search(r"\b(session|issue|turn) \d", guide)
    named = re.findall(r"\*(\w+)\*\s+GP(\d+)", guide)
    assert sorted(n for n, _ in named) == sorted(config["buttons"])
    for button, pin in named:
        assert config["buttons"][button] == int(pin), "build-guide.md: %s is on GP%d" % (
            button, config["buttons"][button])
    assert "GP%d" % config["leds"]["pin"] in guide and "GP%d" % config["buzzer"]["pin"] in guide
    d = config["display"]
    assert "SDA to GP%d, SCL to GP%d" % (d["sda"], d["scl"]) in guide


def test_no_doc_or_config_puts_the_status_pixel_after_h8():
    for path in ("docs/playing.md", "docs/wiring.md", "boards/pico.py", "boards/esp32.py"):
        assert "after h8" not in _read(os.path.join(ROOT, path)), path
