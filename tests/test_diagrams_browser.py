"""The boards' drawings (docs/img/wiring-*.svg, board-*.svg) rendered in real headless
Chromium (Debian `chromium` + `chromium-driver`, driven by Selenium, started as
tests/test_web_browser.py does): each one loads as SVG without a parse error, every wire's
labels and every square are laid out with a size. With REEDCHESS_SCREENSHOTS=1 (make
test-browser) a PNG preview of each goes into docs/img/ beside its SVG, else into a
temporary folder. Skipped, with the reason, when chromium, chromedriver or selenium is missing."""
import os

import pytest

from boards.config import pin_roles
from tools.diagrams.configs import board_names, load
from tests.browser_helper import SKIP_WITHOUT_BROWSER, chromium
from tests.mpy import ROOT

IMG = os.path.join(ROOT, "docs", "img")
PREVIEWS = IMG if os.environ.get("REEDCHESS_SCREENSHOTS") else None
DRAWINGS = [(kind, name) for name in board_names() for kind in ("wiring", "board")]

pytestmark = [pytest.mark.browser, SKIP_WITHOUT_BROWSER]


@pytest.fixture(scope="module")
def driver():
    with chromium(window="1600,2000", extra_flags=("--hide-scrollbars",)) as d:
        yield d


@pytest.mark.parametrize("kind,name", DRAWINGS, ids=["%s-%s" % d for d in DRAWINGS])
def test_drawing_renders(driver, kind, name, tmp_path):
    path = os.path.join(IMG, "%s-%s.svg" % (kind, name))
    driver.get("file://" + path)
    info = driver.execute_script(
        "var r = document.documentElement;"
        "return {root: r.localName, errors: document.getElementsByTagName('parsererror').length,"
        " w: r.width.baseVal.value, h: r.height.baseVal.value, texts: document.getElementsByTagName('text').length};")
    assert info["root"] == "svg" and info["errors"] == 0, info
    assert info["w"] > 0 and info["h"] > 0 and info["texts"] > 0
    if kind == "wiring":
        wires = driver.execute_script(
            "return Array.from(document.querySelectorAll('g.pin')).map(function (g) {"
            " var b = g.getBBox(); return [g.dataset.pin, g.dataset.function, b.width + b.height,"
            " Array.from(g.querySelectorAll('text')).map(function (t) { return t.getComputedTextLength(); })]; });")
        assert len(wires) == len(pin_roles(load(name)))
        for pin, function, size, lengths in wires:
            assert size > 0 and lengths and min(lengths) > 0, "%s (%s) is not drawn" % (pin, function)
    else:
        sizes = driver.execute_script(
            "return Array.from(document.querySelectorAll('g.square')).map(function (g) {"
            " var b = g.getBBox(); return [g.dataset.square, b.width, b.height]; });")
        assert len(sizes) == 64
        assert all(w > 50 and h > 50 for _sq, w, h in sizes), sizes
    folder = PREVIEWS or str(tmp_path)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # the viewport exactly the drawing's size
                           {"width": int(info["w"]), "height": int(info["h"]), "deviceScaleFactor": 1, "mobile": False})
    out = os.path.join(folder, "%s-%s.png" % (kind, name))
    driver.save_screenshot(out)
    assert os.path.getsize(out) > 1000
