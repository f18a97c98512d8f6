"""The static web demo (`make web-demo`) in real headless Chromium: the site built into a temporary
folder, served by a plain static file server on loopback (http.server, no API), the firmware
running on MicroPython's WebAssembly port in the page's worker. A short game played by clicking,
the computer's moves read from the lit squares, a take back guided by the LEDs, a hint; *move*
(move now) during a long search; a fault in the firmware shown with the game going on; and the
bad conditions (opened from file://, no WebAssembly, a file missing, no service worker) each
said on the page. Any console error fails the game tests. Skipped, with the reason, without
chromium + chromedriver, selenium or the wasm port (`make test-browser`, `make emulators`)."""
import functools
import os
import shutil
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import chess
import pytest

from tests.browser_helper import SKIP_WITHOUT_BROWSER, chromium, console_errors, dom_leds, wait_until
from tools import web_demo
from tools.wasm_port import unavailable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCREENSHOTS = os.path.join(ROOT, "docs", "img") if os.environ.get("REEDCHESS_SCREENSHOTS") else None
pytestmark = [pytest.mark.browser, SKIP_WITHOUT_BROWSER]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass


class StaticServer:
    """`python -m http.server` for a folder, on 127.0.0.1 (a free port), in a thread."""

    def __init__(self, folder):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=folder))
        self.url = "http://127.0.0.1:%d/" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    why = unavailable()
    if why:
        pytest.skip(why)
    out = str(tmp_path_factory.mktemp("web") / "web")
    web_demo.build(out, log=None)
    return out


@pytest.fixture
def browser():
    with chromium(window="1180,900", console_log=True) as driver:
        driver.set_script_timeout(60)
        yield driver


@pytest.fixture
def page(site, browser):
    server = StaticServer(site)
    try:
        browser.get(server.url)
        wait_until(lambda: browser.execute_script("return window.reedchessDemo.firstScreenMs") is not None, 60,
                   "the first screen (%s)" % notice(browser))
        yield browser
    finally:
        server.stop()


def notice(driver):
    el = driver.find_elements("id", "notice")
    return el[0].text if el else ""


def pieces_in_dom(driver):
    return {el.get_attribute("data-square"): el.get_attribute("data-piece")
            for el in driver.find_elements("css selector", "#board .sq") if el.get_attribute("data-piece")}


def click(driver, sq):
    driver.find_element("id", "sq-" + sq).click()


def hand(driver):
    return driver.find_element("id", "hand").text.strip() not in ("", "-")


def page_state(driver):
    return driver.execute_script("return window.reedchessDemo.state()")


def plies(driver):
    return len(page_state(driver)["game"])


def computer_move_from_leds(driver):
    """The computer's move as its LEDs show it: two steady squares, the one with its piece first."""
    lit = dom_leds(driver)
    if sorted(lit.values()) != ["on", "on"]:
        return None
    a, b = sorted(lit)
    pieces = pieces_in_dom(driver)
    black = page_state(driver)["fen"].split()[1] == "b"

    def mine(sq):  # the computer's piece stands there
        p = pieces.get(sq)
        return p is not None and (p.islower() if black else p.isupper())

    if mine(a) and not mine(b):
        return a + b
    if mine(b) and not mine(a):
        return b + a
    return None


def play_by_clicking(driver, move):
    click(driver, move[:2])
    wait_until(lambda: hand(driver), 10, "the piece in hand")
    click(driver, move[2:4])


def follow_the_leds(driver, want_plies, timeout_s=30):
    """Do what the take-back LEDs ask, one touch at a time, until the game has `want_plies` and
    the LEDs are off: lift a piece from a blinking square, put the piece in hand on the lit
    empty square where the firmware's position has it, bring a captured piece back from off
    the board to the lit empty square that wants it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        lit = dom_leds(driver)
        st = page_state(driver)
        if not lit and len(st["game"]) == want_plies:
            return
        wanted = chess.Board(st["fen"])
        pieces = pieces_in_dom(driver)

        def wants(sq, wanted=wanted):
            p = wanted.piece_at(chess.parse_square(sq))
            return p.symbol() if p else None

        lift = [sq for sq, led in sorted(lit.items()) if sq in pieces and pieces[sq] != wants(sq)]
        empty = [sq for sq in sorted(lit) if sq not in pieces and wants(sq)]
        held = [sq for sq in empty if wants(sq) in st["hand"]]
        boxed = [sq for sq in empty if wants(sq) in st["box"]]
        if held:
            click(driver, held[0])
        elif not st["hand"] and lift:
            click(driver, lift[0])
        elif not st["hand"] and boxed:
            driver.find_element("css selector", '#box .piece[data-piece="%s"]' % wants(boxed[0])).click()
            click(driver, boxed[0])
        time.sleep(0.5)
    raise AssertionError("the take back did not finish: LEDs %r, %d plies" % (dom_leds(driver), plies(driver)))


def test_a_short_game_by_clicking_take_back_and_hint(page, tmp_path):
    driver = page
    assert pieces_in_dom(driver).get("e2") == "P"
    assert driver.execute_script("return window.reedchessDemo.mailbox") is True
    for n, move in enumerate(("e2e4", "g1f3", "f1c4")):
        legal = {m.uci() for m in chess.Board(page_state(driver)["fen"]).legal_moves}
        if move not in legal:  # the computer's replies decide; stay legal whatever it played
            move = sorted(legal)[0]
        play_by_clicking(driver, move)
        cm = wait_until(lambda: computer_move_from_leds(driver), 60, "the computer's move on the LEDs")
        assert driver.find_element("id", "computer").text == cm
        assert chess.Move.from_uci(cm) in chess.Board(page_state(driver)["fen"]).legal_moves
        if n == 2:
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(os.path.join(SCREENSHOTS or str(tmp_path), "web-demo.png"))
        play_by_clicking(driver, cm)
        wait_until(lambda n=n: not dom_leds(driver) and plies(driver) == 2 * n + 2, 30, "the computer's move made")
    items = driver.find_elements("css selector", "#moves li")
    assert len(items) == 3 and items[0].text.startswith("1. e4 ")
    # take back the computer's move and ours, the LEDs guiding the pieces back
    for want in (5, 4):
        driver.find_element("id", "btn-takeback").click()
        follow_the_leds(driver, want)
    assert len(driver.find_elements("css selector", "#moves li")) == 2
    # a hint blinks a legal move of ours
    driver.find_element("id", "btn-hint").click()
    def two_blinking():  # the page may be drawn between the two squares' updates: wait for both
        squares = sorted(sq for sq, led in dom_leds(driver).items() if led == "blink")
        return squares if len(squares) == 2 else None

    blinking = wait_until(two_blinking, 60, "the hint's two blinking squares")
    board = chess.Board(page_state(driver)["fen"])
    hint = page_state(driver)["state"]["hint"]
    assert sorted([hint[:2], hint[2:4]]) == blinking and chess.Move.from_uci(hint) in board.legal_moves
    # the PGN the download link saves
    res = driver.execute_async_script("window.reedchessDemo.send('pgn').then(arguments[0])")
    assert res["ok"] and "1. e4" in res["reply"]
    assert console_errors(driver) == []


def test_move_now_during_a_long_search_and_a_fault_in_the_firmware(page):
    driver = page
    out = driver.execute_async_script(
        "window.reedchessDemo.python('_demo.app.settings.book = False\\n_demo.app.settings.level = 10\\n"
        "print(_demo.controller.level_name(10))').then(arguments[0])")
    assert out["ok"] and "1 min/move" in out["output"]
    play_by_clicking(driver, "e2e4")
    wait_until(lambda: "depth" in driver.find_element("id", "thinking").text, 30, "the computer thinking")
    assert computer_move_from_leds(driver) is None
    driver.find_element("id", "btn-move").click()  # move now: reaches the firmware inside the search
    cm = wait_until(lambda: computer_move_from_leds(driver), 40, "the computer's move after *move*")
    assert chess.Move.from_uci(cm) in chess.Board(page_state(driver)["fen"]).legal_moves
    # an exception inside the firmware: shown on the page, and the game goes on
    driver.execute_script("window.reedchessDemo.fault()")
    wait_until(lambda: "RuntimeError" in notice(driver), 10, "the fault on the page")
    assert "the game goes on" in notice(driver)
    play_by_clicking(driver, cm)
    wait_until(lambda: not dom_leds(driver) and plies(driver) == 2, 30, "the computer's move made after the fault")
    assert console_errors(driver) == []


def test_opened_from_a_file_it_says_to_serve_the_folder(site, browser):
    browser.get("file://" + os.path.join(site, "index.html"))
    wait_until(lambda: "file://" in notice(browser), 20, "the file:// message")
    assert "http.server" in notice(browser)


@pytest.mark.parametrize("missing, message", [("WebAssembly", "no WebAssembly"), ("Worker", "no Web Workers")])
def test_without_webassembly_or_workers_it_says_so(site, browser, missing, message):
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.%s;" % missing})
    server = StaticServer(site)
    try:
        browser.get(server.url)
        wait_until(lambda: message in notice(browser), 20, "the message %r" % message)
    finally:
        server.stop()


def test_a_file_that_fails_to_load_is_named(site, browser, tmp_path):
    broken = str(tmp_path / "web")
    shutil.copytree(site, broken)
    os.remove(os.path.join(broken, "py", "firmware", "engine", "search.mpy"))
    server = StaticServer(broken)
    try:
        browser.get(server.url)
        wait_until(lambda: "search.mpy" in notice(browser), 30, "the missing file named")
        assert "404" in notice(browser)
    finally:
        server.stop()


def test_without_a_service_worker_it_still_plays(site, browser):
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                            {"source": "Object.defineProperty(Navigator.prototype, 'serviceWorker', "
                                       "{get() { return undefined; }});"})
    server = StaticServer(site)
    try:
        browser.get(server.url)
        wait_until(lambda: browser.execute_script("return window.reedchessDemo.firstScreenMs") is not None, 60,
                   "the first screen")
        assert browser.execute_script("return window.reedchessDemo.mailbox") is False
        assert "between its searches" in notice(browser)
        play_by_clicking(browser, "e2e4")
        wait_until(lambda: computer_move_from_leds(browser), 60, "the computer's move")
    finally:
        server.stop()
