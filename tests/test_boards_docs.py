"""docs/wiring.md carries the wiring table of every board exactly as its CONFIG says.

Regenerate: .venv/bin/python -c "from tests.test_boards_docs import *; [print(wiring_table(b)) for b in BOARDS]"
"""
import importlib
import os

import pytest

from firmware.io.buttons import ordered_names
from tests.mpy import ROOT

BOARDS = ["pico", "pico2", "esp32", "esp32s3", "rpi_blinka"]


def wiring_table(name):
    c = importlib.import_module("boards." + name).CONFIG
    pre = "GP" if c["mcu"].startswith("RP") else ("GPIO" if "ESP" in c["mcu"] else "")

    def f(p):
        return pre + str(p)

    rows = ["#### %s" % name, "", "| function | pin(s) |", "|---|---|"]
    s = c["sensor"]
    if s["kind"] == "matrix":
        rows.append("| reed matrix rows 0-7 (driven, active low) | %s |" % ", ".join(f(p) for p in s["rows"]))
        rows.append("| reed matrix columns 0-7 (inputs, pull-up) | %s |" % ", ".join(f(p) for p in s["cols"]))
    else:
        rows.append("| 74HC165 SH/LD (load) | %s |" % f(s["load"]))
        rows.append("| 74HC165 CLK | %s |" % f(s["clock"]))
        rows.append("| 74HC165 QH of chip 0 (data) | %s |" % f(s["data"]))
    led = c["leds"]
    if led["kind"] == "neopixel":
        rows.append("| WS2812 data in (via 330 ohm) | %s |" % f(led["pin"]))
    elif led["kind"] == "matrix":
        rows.append("| LED rows 0-7 (high-side, active high) | %s |" % ", ".join(f(p) for p in led["rows"]))
        rows.append("| LED columns 0-7 (sink, active low) | %s |" % ", ".join(f(p) for p in led["cols"]))
    else:
        rows.append("| rank LEDs 1-8 | %s |" % ", ".join(f(p) for p in led["ranks"]))
        rows.append("| file LEDs a-h | %s |" % ", ".join(f(p) for p in led["files"]))
    for n in ordered_names(c["buttons"]):
        p = c["buttons"][n]
        ext = " (external 10k pull-up)" if p in (c.get("external_pullups") or ()) else ""
        rows.append("| button %s | %s%s |" % (n, f(p), ext))
    if c["buzzer"]:
        rows.append("| piezo buzzer (via transistor) | %s |" % f(c["buzzer"]["pin"]))
    if c["display"]:
        d = c["display"]
        rows.append("| SSD1306 SDA / SCL (I2C%d, 0x%02X) | %s / %s |" % (d["i2c"], d["addr"], f(d["sda"]), f(d["scl"])))
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("name", BOARDS)
def test_wiring_doc_matches_config(name):
    with open(os.path.join(ROOT, "docs", "wiring.md")) as fh:
        doc = fh.read()
    assert wiring_table(name) in doc, "docs/wiring.md is out of date for %s:\n%s" % (name, wiring_table(name))


