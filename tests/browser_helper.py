"""Headless Chromium for the browser tests (Debian `chromium` + `chromium-driver`, driven by
Selenium): one way to start it, one reason to skip.

    pytestmark = [pytest.mark.browser, SKIP_WITHOUT_BROWSER]
    with chromium(window="1180,860", console_log=True) as driver: ...

Started as root needs --no-sandbox; the network flags keep it from calling out (this machine
has no network but the package registries)."""
import contextlib
import shutil
import tempfile
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
CHROME_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync")
SKIP_WITHOUT_BROWSER = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no headless browser: install Debian chromium + chromium-driver (make test-browser)")


@contextlib.contextmanager
def chromium(window="1180,860", extra_flags=(), console_log=False):
    """A fresh headless Chromium (its own empty profile, removed after); `console_log`: keep
    the page's console messages for driver.get_log("browser")."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install '.[test]')")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="reedchess-chromium-")
    opts = Options()
    opts.binary_location = CHROMIUM
    for flag in CHROME_FLAGS + tuple(extra_flags) + ("--window-size=" + window, "--user-data-dir=" + profile):
        opts.add_argument(flag)
    if console_log:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_until(fn, timeout_s=60, what="condition"):
    """fn()'s first true answer within `timeout_s` (polled every 0.1 s), else AssertionError
    naming `what` and the last answer."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError("timed out waiting for %s (last: %r)" % (what, last))


def dom_leds(driver):
    """{square: pattern} of every square whose LED the board page (sim-web, the web demo) shows lit."""
    out = {}
    for el in driver.find_elements("css selector", "#board .sq"):
        led = el.get_attribute("data-led")
        if led != "off":
            out[el.get_attribute("data-square")] = led
    return out


def console_errors(driver):
    """The page's console errors so far (a driver started with console_log=True)."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
