"""docs/wiring.md carries the pin table of every board exactly as its CONFIG says, status
light included (tools/diagrams/tables.py makes the tables; every board module in boards/
with a CONFIG is listed).

Regenerate: make diagrams
"""
import os

import pytest

from tools.diagrams.configs import board_names, load
from tools.diagrams.tables import wiring_table
from tests.mpy import ROOT

BOARDS = board_names()


@pytest.mark.parametrize("name", BOARDS)
def test_wiring_doc_matches_config(name):
    with open(os.path.join(ROOT, "docs", "wiring.md")) as fh:
        doc = fh.read()
    assert wiring_table(load(name)) in doc, "docs/wiring.md is out of date for %s (make diagrams):\n%s" % (
        name, wiring_table(load(name)))


def test_status_lights_are_in_the_tables():
    with open(os.path.join(ROOT, "docs", "wiring.md")) as fh:
        doc = fh.read()
    assert "| status light: WS2812 #64, after a8 (the chain's end) | GP22 (the LED chain) |" in doc
    assert "| status LED (via 330 ohm to GND, active high) | GPIO3 |" in doc
