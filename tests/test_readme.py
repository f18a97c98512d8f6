"""The README, the project's front page, stays true to the code it points at.

- Its short Pico pin table ("### 2. Wiring") is exactly what boards/pico.py's CONFIG says,
  and names every pin that CONFIG uses (so a pin moved or added there fails here until the
  README follows). The full generated tables of every board are in docs/wiring.md
  (tests/test_boards_docs.py).
- Every relative link (files, pictures, and #anchors into docs/*.md) leads somewhere.
- It describes the product, not its history: no "session N", "issue N" or "turn N".
"""
import os
import re

import pytest

from boards.pico import CONFIG as PICO
from tests.mpy import ROOT

README = os.path.join(ROOT, "README.md")
PIN_TABLE_HEADING = "### 2. Wiring"


def _readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def _pins(pins):
    """GP0-GP7 for a run of consecutive pins, else GP16, GP17, GP28."""
    pins = list(pins)
    if len(pins) > 2 and pins == list(range(pins[0], pins[0] + len(pins))):
        return "GP%d-GP%d" % (pins[0], pins[-1])
    return ", ".join("GP%d" % p for p in pins)


def pico_pin_table(config):
    """The README's Pico pin table, as config (boards/pico.py's CONFIG) sets it."""
    s, led, d = config["sensor"], config["leds"], config["display"]
    names = list(config["buttons"])
    rows = [
        "| function | Pico pins |",
        "|---|---|",
        "| reed matrix rows, ranks 1-8 (driven, active low) | %s |" % _pins(s["rows"]),
        "| reed matrix columns, files a-h (inputs, pull-up) | %s |" % _pins(s["cols"]),
        "| WS2812 data in (via 330 Ω) | GP%d |" % led["pin"],
        "| buttons %s | %s |" % (", ".join(names), ", ".join("GP%d" % config["buttons"][n] for n in names)),
        "| piezo buzzer (via NPN transistor) | GP%d |" % config["buzzer"]["pin"],
        "| SSD1306 SDA / SCL (I2C%d, 0x%02X) | GP%d / GP%d |" % (d["i2c"], d["addr"], d["sda"], d["scl"]),
    ]
    if (config.get("status") or {}).get("kind") == "pixel":
        rows.append("| status light (a 65th WS2812 after a8) | GP%d (the LED chain) |" % led["pin"])
    return "\n".join(rows) + "\n"


def config_pins(config):
    """Every GPIO the config wires."""
    s, d = config["sensor"], config["display"]
    return set(s["rows"]) | set(s["cols"]) | {config["leds"]["pin"], config["buzzer"]["pin"], d["sda"], d["scl"]} | set(
        config["buttons"].values())


def _table_pins(table):
    pins = set()
    for a, b in re.findall(r"GP(\d+)-GP(\d+)", table):
        pins |= set(range(int(a), int(b) + 1))
    pins |= {int(p) for p in re.findall(r"(?<!-)GP(\d+)\b(?!-GP)", table)}
    return pins


def _wiring_section(text):
    start = text.index(PIN_TABLE_HEADING)
    end = text.index("\n### ", start + 1)
    return text[start:end]


def test_readme_pin_table_is_boards_pico_config():
    expected = pico_pin_table(PICO)
    assert expected in _wiring_section(_readme()), "README.md's Pico pin table is out of date:\n" + expected


def test_the_pin_table_names_every_pin_the_config_wires():
    assert _table_pins(pico_pin_table(PICO)) == config_pins(PICO)


def test_a_moved_pin_changes_the_table():
    moved = dict(PICO, buttons=dict(PICO["buttons"], ok=27))
    assert pico_pin_table(moved) != pico_pin_table(PICO)
    assert pico_pin_table(moved) not in _readme()


def _slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    anchors, fenced = set(), False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            anchors.add(_slug(line.lstrip("#")))
    return anchors


def _links(text):
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", t)]


def test_slug_follows_github():
    assert _slug("Search strength and levels") == "search-strength-and-levels"
    assert _slug("The engine's `bench` signature") == "the-engines-bench-signature"
    assert _slug("Diagnostics — `firmware.io.diagnostics`") == "diagnostics--firmwareiodiagnostics"


@pytest.mark.parametrize("link", sorted(set(_links(_readme()))))
def test_readme_links_lead_somewhere(link):
    path, _, anchor = link.partition("#")
    full = os.path.join(ROOT, path) if path else README
    assert os.path.exists(full), "README.md links to %s, which does not exist" % path
    if anchor:
        assert anchor in _anchors(full), "README.md links to #%s, which %s has no heading for" % (anchor, path)


def test_readme_tells_no_history():
    found = re.findall(r"(?i)\b(?:session|issue|turn) #?[0-9]+", _readme())
    assert not found, found
