"""The web page in real headless Chromium (Debian `chromium` + `chromium-driver`, driven by
Selenium), part of `make test`: several moves played by clicking, LED states checked in the
DOM against the firmware's LEDs, a button pressed on the page, the PGN link; clicks made
while the page lags behind the server; and the README screenshots (docs/img/*.png,
written only with REEDCHESS_SCREENSHOTS=1 as `make test-browser` sets it, else into a
temporary folder, so `make test` leaves the checkout clean). Skipped, with the reason, only
when chromium, chromedriver or selenium is missing: `make test-browser` installs the browser."""
import os
import time
import urllib.request

import chess
import pytest

from host_sim import Simulator
from host_sim.tui import Table
from host_sim.web import WebSimulator
from tests.browser_helper import SKIP_WITHOUT_BROWSER, chromium, console_errors, dom_leds, wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCREENSHOTS = os.path.join(ROOT, "docs", "img") if os.environ.get("REEDCHESS_SCREENSHOTS") else None

pytestmark = [pytest.mark.browser, SKIP_WITHOUT_BROWSER]


@pytest.fixture
def page():
    sim = Simulator(seed=3, level=0)
    app = WebSimulator(Table(sim), port=0, speed=4).start()
    try:
        with chromium() as driver:
            driver.get(app.url)
            yield driver, app
    finally:
        app.stop()
        sim.close()


def click(driver, sq):
    driver.find_element("id", "sq-" + sq).click()


def pieces_in_dom(driver):
    return {el.get_attribute("data-square"): el.get_attribute("data-piece")
            for el in driver.find_elements("css selector", "#board .sq") if el.get_attribute("data-piece")}


def test_play_several_moves_by_clicking_and_check_the_leds(page, tmp_path):
    driver, app = page
    img = SCREENSHOTS or str(tmp_path)  # the README's pictures only under make test-browser
    wait_until(lambda: pieces_in_dom(driver).get("e2") == "P", 30, "the board")
    ours = ("e2e4", "g1f3", "f1c4", "d2d3")
    for n, move in enumerate(ours):
        fen = app.state()["fen"]
        legal = {m.uci() for m in chess.Board(fen).legal_moves}
        if move not in legal:  # the computer's replies decide; stay legal whatever it played
            move = sorted(legal)[0]
        click(driver, move[:2])
        wait_until(lambda: app.state()["hand"], 10, "the piece in hand")
        click(driver, move[2:4])
        try:
            cm = wait_until(lambda: app.state()["computer_move"], 120, "the computer's move")
        except AssertionError as e:
            raise AssertionError("%s after %s; simulator state now: %r" % (e, move, app.state())) from None
        # the page shows exactly the firmware's LEDs: the computer's from and to squares
        want = {cm[:2]: "on", cm[2:4]: "on"}
        wait_until(lambda want=want: dom_leds(driver) == want == app.state()["lit"], 20, "LEDs %r in the DOM" % want)
        assert driver.find_element("id", "computer").text == cm
        if n == 2:
            os.makedirs(img, exist_ok=True)
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(os.path.join(img, "sim-web.png"))
        click(driver, cm[:2])  # make the computer's move by hand: lift, (capture), place
        wait_until(lambda: app.state()["hand"], 10, "the computer's piece in hand")
        click(driver, cm[2:4])
        plies = 2 * n + 2
        wait_until(lambda plies=plies: not dom_leds(driver) and len(app.state()["game"]) == plies, 30, "LEDs off")
    items = driver.find_elements("css selector", "#moves li")
    assert len(items) == len(ours) and items[0].text.startswith("1. e4 ")
    # a button on the page: hint blinks two squares in the DOM, as on the firmware's LEDs
    driver.find_element("id", "btn-hint").click()
    hint = wait_until(lambda: app.state()["state"].get("hint"), 60, "a hint")
    want = {hint[:2]: "blink", hint[2:4]: "blink"}
    wait_until(lambda: dom_leds(driver) == want, 20, "hint LEDs %r" % want)
    display = driver.find_element("id", "display").text
    assert display.strip() and display.splitlines()[0] in "\n".join(app.state()["display"])
    driver.execute_script("window.scrollTo(0, 0);"  # freeze the blinking in its lit phase
                          "document.getAnimations().forEach((a) => { a.currentTime = 0; a.pause(); });")
    driver.save_screenshot(os.path.join(img, "sim-web-hint.png"))
    # the PGN link downloads the firmware's game
    href = driver.find_element("id", "pgn").get_attribute("href")
    pgn = urllib.request.urlopen(href, timeout=10).read().decode()
    assert "1. e4" in pgn and app.state()["result"] in pgn


# Holds every answer the page's fetch() gets until __release(): a slow or busy browser, whose
# copy of the state lags behind the server (answers still on their way). __release(true)
# hands the held answers over newest first (out of order, as two connections may deliver).
HOLD_ANSWERS_JS = """
window.__held = [];
window.__hold = true;
const realFetch = window.fetch;
window.fetch = (...args) => realFetch(...args).then((r) => window.__hold
    ? new Promise((ok) => window.__held.push(() => ok(r))) : r);
window.__release = (newestFirst) => {
  window.__hold = false;
  const held = window.__held.splice(0);
  (newestFirst ? held.reverse() : held).forEach((go) => go());
};
"""


def test_a_click_is_not_lost_while_the_page_lags_behind(page):
    """The second click of a move may come before the page has the answer to the first (the
    piece in hand): judged on the page's old state (empty hand, empty square) it would be
    dropped, the move never completed and the computer never answer. Here the page gets no
    answer at all until both clicks are made."""
    driver, app = page
    wait_until(lambda: pieces_in_dom(driver).get("e2") == "P", 30, "the board")
    driver.execute_script(HOLD_ANSWERS_JS)
    click(driver, "e2")
    wait_until(lambda: app.state()["hand"] == ["P"], 10, "the pawn in hand (on the server)")
    assert pieces_in_dom(driver).get("e2") == "P"  # the page has not heard of it yet
    click(driver, "e4")
    driver.execute_script("window.__release(true)")
    try:
        cm = wait_until(lambda: app.state()["computer_move"], 120, "the computer's move")
    except AssertionError as e:
        raise AssertionError("%s; simulator state now: %r" % (e, app.state())) from None
    assert app.state()["game"] == ["e2e4"]
    wait_until(lambda: pieces_in_dom(driver).get("e4") == "P" and dom_leds(driver) == app.state()["lit"], 20,
               "the page catching up")
    # An answer overtaken by a newer one never takes the page back: drawn in the wrong order,
    # the older state (a black queen in hand, say) must not replace the newer.
    new = app.state()
    old = dict(new, rev=new["rev"] - 1, hand=["q"])
    hand = driver.execute_script("render(arguments[0]); render(arguments[1]);"
                                 "return document.getElementById('hand').textContent;", new, old)
    assert hand == "-", "the page drew an older state over a newer one"
    assert cm == app.state()["computer_move"]


def test_capture_by_clicking_the_victim_square(page):
    driver, app = page
    wait_until(lambda: pieces_in_dom(driver).get("e2") == "P", 30, "the board")
    app.command("arrange 4k3/8/8/3p4/4P3/8/8/4K3")  # by hand: the firmware sees a new board
    with app.lock:
        app.table.sim.console("new 4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    wait_until(lambda: app.state()["fen"].startswith("4k3/8/8/3p4/4P3"), 30, "the new position")
    wait_until(lambda: not app.state()["lit"], 30, "a quiet board")
    click(driver, "e4")
    wait_until(lambda: app.state()["hand"] == ["P"], 10, "the pawn in hand")
    click(driver, "d5")  # an occupied square while holding a piece: the victim comes off first
    wait_until(lambda: app.state()["game"][-1:] == ["e4d5"], 60, "the capture in the game")
    st = app.state()
    assert st["pieces"]["d5"] == "P" and "p" in st["box"]
    box = driver.find_element("id", "box").text
    assert box.strip() not in ("", "-")


@pytest.fixture
def game_page():
    """The page on the firmware's default level (pondering on), time at 20x."""
    sim = Simulator(seed=5)
    app = WebSimulator(Table(sim), port=0, speed=20).start()
    try:
        with chromium(console_log=True) as driver:
            driver.get(app.url)
            yield driver, app
    finally:
        app.stop()
        sim.close()


def _text(driver, element_id):
    return driver.find_element("id", element_id).text.strip()


def _press(driver, name):
    driver.find_element("id", "btn-" + name).click()


def _make(driver, move):
    """Make `move` on the page's board: two clicks (a capture too); castling, en passant and
    promotion, which touch more squares, through the page's command line."""
    board = chess.Board(_text(driver, "fen"))
    m = chess.Move.from_uci(move[:4] + ("q" if board.piece_type_at(chess.parse_square(move[:2])) == chess.PAWN
                                        and move[3] in "18" else ""))
    if board.is_castling(m) or board.is_en_passant(m) or m.promotion:
        driver.find_element("id", "cmd").send_keys(m.uci() + "\n")
        return
    click(driver, move[:2])
    wait_until(lambda: _text(driver, "hand") not in ("", "-"), 10, "the piece in hand")
    click(driver, move[2:4])


@pytest.mark.slow
def test_a_whole_game_with_pondering_on_the_page(game_page):
    """`make sim-web` as a person uses it: 40+ plies against the computer with pondering on,
    read from the page alone (display, computer's move, thinking line), each of our moves from
    a hint, the computer's made by clicking its squares or "make it", and on the way the level
    menu opened and closed, a take back, and *move* pressed while it ponders. Any error shown
    on the page or in the browser's console fails the test."""
    driver, app = game_page
    wait_until(lambda: _text(driver, "display").startswith("Your move"), 30, "the board")
    done = set()
    plies = 0
    seen_ponder = False
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and plies < 41:
        reply = _text(driver, "reply")
        assert not reply.startswith("error"), reply
        if _text(driver, "result") not in ("*", ""):
            break
        display = _text(driver, "display").splitlines() or [""]
        computer = _text(driver, "computer")
        pondering = _text(driver, "thinking").startswith("pondering")
        seen_ponder = seen_ponder or pondering
        if len(computer) >= 4 and computer[0] in "abcdefgh":
            if plies % 4 == 1:
                driver.find_element("id", "do").click()
            else:
                _make(driver, computer)
            wait_until(lambda cm=computer: _text(driver, "computer") != cm, 30, "the computer's move made")
            plies += 1
        elif display[0].startswith("I resign?"):  # the computer, lost, offers to resign: *move* plays on
            _press(driver, "move")
            wait_until(lambda: not _text(driver, "display").startswith("I resign?"), 30, "the game played on")
        elif display[0].startswith("Paused"):
            _press(driver, "move")
            wait_until(lambda: not _text(driver, "display").startswith("Paused"), 30, "the computer to play")
        elif display[0].startswith("Your move"):  # "Your move +" in check
            if plies >= 14 and "level-menu" not in done:
                done.add("level-menu")
                _press(driver, "level")
                wait_until(lambda: _text(driver, "display").startswith("Level"), 20, "the level menu")
                _press(driver, "level")
                _press(driver, "takeback")
                _press(driver, "ok")
                wait_until(lambda: _text(driver, "display").startswith("Your move"), 20, "the menu closed")
                continue
            if plies >= 20 and "takeback" not in done:
                done.add("takeback")
                _press(driver, "takeback")
                wait_until(lambda: "Check board" in _text(driver, "display"), 30, "the take back")
                driver.find_element("id", "cmd").send_keys("sync\n")  # the pieces put back as lit
                wait_until(lambda: "Check board" not in _text(driver, "display"), 30, "the board checked")
                plies -= 1
                continue
            if pondering and plies >= 26 and "move-while-pondering" not in done:
                done.add("move-while-pondering")
                _press(driver, "move")  # the computer plays our side now
                wait_until(lambda: len(_text(driver, "computer")) >= 4, 60, "the computer's move for us")
                continue
            if pondering:
                done.add("hint-while-pondering")
            _press(driver, "hint")
            hint = wait_until(lambda: next((ln[6:10] for ln in _text(driver, "display").splitlines()
                                            if ln.startswith("Hint: ")), None), 60, "a hint")
            want = {hint[:2]: "blink", hint[2:4]: "blink"}
            wait_until(lambda want=want: dom_leds(driver) == want, 20, "the hint's LEDs %r" % want)
            _make(driver, hint)
            try:
                wait_until(lambda: not _text(driver, "display").startswith("Your move"), 30, "our move taken")
            except AssertionError as e:
                raise AssertionError("%s after %s; state %r" % (e, hint, app.state())) from None
            plies += 1
        else:
            time.sleep(0.2)
        if os.environ.get("REEDCHESS_TEST_TRACE"):
            print("%6.1f s  ply %d  %s" % (time.monotonic() - deadline + 600, plies, display[0]))
    assert not console_errors(driver), console_errors(driver)
    assert seen_ponder, "the computer never pondered"
    assert done == {"hint-while-pondering", "level-menu", "takeback", "move-while-pondering"}, done
    game = app.state()["game"]
    board = chess.Board()
    for move in game:
        board.push_uci(move)  # raises on an illegal move
    assert len(game) >= 40 or board.is_game_over(), (game, _text(driver, "display"))
    items = driver.find_elements("css selector", "#moves li")
    assert len(items) == (len(game) + 1) // 2
