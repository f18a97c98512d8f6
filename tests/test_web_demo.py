"""The static web demo (`make web-demo`, tools/web_demo.py, web_demo/): the built site holds every
file its page loads; the modules it lists import on MicroPython's WebAssembly port under Node
and play there (marked wasm: skipped, with the reason, without node and the port); and the
MicroPython-side board (web_demo/demo_board.py) on CPython: clicks, answers, errors, a fault
in the firmware, the page's lines taken inside a search."""
import json
import os
import re
import time

import pytest

from tools import web_demo
from tools.wasm_port import run, unavailable
from web_demo.demo_board import DemoBoard, DemoError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    why = unavailable()
    if why:
        pytest.skip(why)
    out = str(tmp_path_factory.mktemp("web") / "web")
    manifest = web_demo.build(out, log=None)
    return out, manifest


# ---- the build output ----------------------------------------------------------------------

def _local_refs(html):
    return re.findall(r'(?:src|href)="([^"#:]+)"', html)


def test_every_file_the_page_loads_is_there(site):
    out, manifest = site
    with open(os.path.join(out, "index.html")) as f:
        html = f.read()
    refs = _local_refs(html)
    assert "static/board_ui.js" in refs and "static/page.js" in refs and "static/style.css" in refs
    for ref in refs:
        assert not ref.startswith("/"), "%s: an absolute path breaks a site in a sub-folder" % ref
        assert os.path.isfile(os.path.join(out, ref)), ref
    with open(os.path.join(out, "static", "page.js")) as f:
        page = f.read()
    for name in re.findall(r'(?:new Worker|register)\("([^"]+)"', page):  # worker.js, sw.js
        assert os.path.isfile(os.path.join(out, name)), name
    with open(os.path.join(out, "worker.js")) as f:
        worker = f.read()
    for name in re.findall(r'from "\./([^"]+)"', worker):  # the port's module
        assert os.path.isfile(os.path.join(out, name)), name
    assert os.path.isfile(os.path.join(out, "mpwasm", "micropython.wasm"))
    for entry in manifest["files"]:
        path = os.path.join(out, "py", entry["path"])
        assert os.path.getsize(path) == entry["bytes"], entry
    with open(os.path.join(out, "files.json")) as f:
        assert json.load(f) == manifest
    assert os.path.exists(os.path.join(out, ".nojekyll"))


def test_the_site_holds_the_firmware_the_boards_and_the_book(site):
    from tools import fileset

    _, manifest = site
    paths = {e["path"] for e in manifest["files"]}
    for rel in fileset.firmware_sources(ROOT):
        assert rel[:-3] + ".mpy" in paths, rel
    assert "firmware/data/book.bin" in paths
    for board in web_demo.BOARDS:
        assert "boards/%s.mpy" % board in paths
    assert "web_demo/demo_board.mpy" in paths and "host_sim/tui.mpy" in paths
    assert not any(p.endswith(".py") for p in paths)
    assert set(manifest["boards"]) == set(web_demo.BOARDS)


def test_the_page_is_the_simulators_page():
    with open(os.path.join(ROOT, "host_sim", "static", "index.html")) as f:
        sim = f.read()
    page = web_demo.edit_page(sim)
    for key in ('id="board"', 'id="display"', 'id="moves"', 'id="buttons"', 'id="pgn"', 'id="cmdform"'):
        assert key in page
    assert 'id="notice"' in page and "<noscript>" in page
    with pytest.raises(web_demo.WebDemoError, match="PAGE_EDITS"):
        web_demo.edit_page(sim.replace("</header>", "</div>"))


@pytest.mark.wasm
def test_the_listed_modules_import_and_play_on_the_wasm_port(site):
    out, manifest = site
    code = """
import sys, time, json
mods = %r
for m in mods:
    __import__(m)
print('IMPORTED', len(mods))
from web_demo.demo_board import DemoBoard
posts = []
mail = [[1, 'click e2'], [2, 'click e4']]
def take():
    if not mail:
        return None
    t = json.dumps(mail)
    del mail[:]
    return t
d = DemoBoard(post=posts.append, take_mail=take, ticks_ms=time.ticks_ms)
end = time.ticks_add(time.ticks_ms(), 8000)
while d.computer_move() is None and time.ticks_diff(end, time.ticks_ms()) > 0:
    d.tick()
print('GAME', ' '.join(d.game()))
print('SHOWN', d.computer_move(), sorted(d.lit()))
print('REPLIES', sum(1 for p in posts if json.loads(p)['type'] == 'reply'))
""" % (manifest["modules"],)
    text = run(code, tree=os.path.join(out, "py"), heap_bytes=8 * 1024 * 1024, timeout=300)
    assert "IMPORTED %d" % len(manifest["modules"]) in text
    game = re.search(r"^GAME (.*)$", text, re.M).group(1).split()
    shown = re.search(r"^SHOWN (\w+) (.*)$", text, re.M)
    assert game == ["e2e4"], text
    move = shown.group(1)
    assert eval(shown.group(2)) == sorted([move[:2], move[2:4]])  # the LEDs show the computer's move
    assert "REPLIES 2" in text


# ---- the board the worker drives (CPython here) ---------------------------------------------

class Page:
    """What worker.js does for DemoBoard: the clock, the mailbox, the messages."""

    def __init__(self, **kw):
        self.t0 = time.monotonic()
        self.mail = []
        self.posts = []
        self.taken = 0
        self.on_take = None
        self.demo = DemoBoard(post=lambda t: self.posts.append(json.loads(t)), take_mail=self.take,
                              ticks_ms=self.ticks, **kw)

    def ticks(self):
        return int((time.monotonic() - self.t0) * 1000)

    def take(self):
        self.taken += 1
        if self.on_take is not None:
            self.on_take(self)
        if not self.mail:
            return None
        text = json.dumps(self.mail)
        self.mail = []
        return text

    def line(self, text):
        n = len(self.posts)
        self.demo.command(len(self.posts), text)
        return [p for p in self.posts[n:] if p["type"] == "reply"][-1]

    def run_until(self, what, ms=15000):
        end = self.ticks() + ms
        while self.ticks() < end:
            self.demo.tick()
            if what():
                return True
        return False


def test_clicks_make_a_move_and_the_computer_answers_on_the_leds():
    p = Page()
    assert p.line("click e2")["state"]["hand"] == ["P"]
    assert p.line("click e4")["state"]["pieces"]["e4"] == "P"
    assert p.run_until(lambda: p.demo.computer_move() is not None)
    move = p.demo.computer_move()
    assert sorted(p.demo.lit()) == sorted([move[:2], move[2:4]])
    p.demo.post_state(0)
    state = [x for x in p.posts if x["type"] == "state"][-1]["state"]
    assert state["game"] == ["e2e4"] and state["moves"][0] == ["1.", "e4"]


def test_a_line_that_cannot_be_done_says_why():
    p = Page()
    res = p.line("click e5")
    assert res["ok"] is False and "nothing in hand" in res["error"]
    res = p.line("place e9")
    assert res["ok"] is False and "not a square" in res["error"]
    assert p.line("pgn")["ok"] and "[Result" in p.line("pgn")["reply"]
    with pytest.raises(DemoError, match="unknown board"):
        DemoBoard(board="nosuch", ticks_ms=p.ticks)


def test_a_fault_in_the_firmware_is_reported_and_the_game_goes_on():
    p = Page()
    p.demo.app.fault = True
    p.demo.tick()
    faults = [x for x in p.posts if x["type"] == "fault"]
    assert faults and "RuntimeError" in faults[0]["error"] and "injected" in faults[0]["traceback"]
    p.line("click e2")
    p.line("click e4")
    assert p.run_until(lambda: p.demo.computer_move() is not None)
    assert p.demo.game() == ["e2e4"]


def test_the_pages_lines_reach_the_firmware_inside_a_search():
    """The level is 1 min/move, out of book: *move* (move now), sent while the engine thinks,
    is taken by the search's poll and the computer moves at once."""
    p = Page()
    p.demo.app.settings.book = False
    p.demo.app.settings.level = 10  # 1 min/move
    p.line("click e2")
    p.line("click e4")
    sent = []

    def during(page):  # called from the poll once the search runs
        if page.demo.searching and page.demo.controller.searching == 1 and not sent:
            sent.append(page.ticks())
            page.mail.append([99, "move"])

    p.on_take = during
    inside = []
    post = p.demo._post
    p.demo._post = lambda text: (inside.append(p.demo.controller.searching) if '"id": 99' in text else None,
                                 post(text))
    # the level would think a minute: the move within 50 s is the press's doing
    assert p.run_until(lambda: p.demo.computer_move() is not None, ms=50000)
    assert sent, "the search never polled the page"
    replies = [x for x in p.posts if x["type"] == "reply" and x["id"] == 99]
    assert replies and replies[0]["ok"]
    assert inside == [1], "the press was answered inside the search"
