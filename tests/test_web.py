"""The web simulator's HTTP API on the real Simulator (no browser needed): state, commands,
PGN download, loopback-only rules, bad requests."""
import http.client
import json

import chess
import chess.pgn
import io
import pytest

from host_sim import Simulator
from host_sim.tui import Table
from host_sim.web import WebError, WebSimulator
from tests.http_helper import cut_off_mid_request


@pytest.fixture
def app():
    sim = Simulator(seed=2, level=0)
    web = WebSimulator(Table(sim), port=0, speed=4).start()
    yield web
    web.stop()
    sim.close()


def request(app, method, path, body=None, host=None):
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=30)
    headers = {"Host": host or "127.0.0.1:%d" % app.port}
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    payload = resp.read()
    conn.close()
    return resp.status, resp.getheader("Content-Type"), resp.getheader("Content-Disposition"), payload


def command(app, line):
    status, _, _, body = request(app, "POST", "/api/command", {"line": line})
    assert status == 200
    return json.loads(body)


def wait_for(app, predicate, timeout_s=60):
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        st = json.loads(request(app, "GET", "/api/state")[3])
        if predicate(st):
            return st
        time.sleep(0.05)
    raise AssertionError("state never satisfied the condition: %r" % st)


def test_page_and_static_files_are_served(app):
    status, ctype, _, body = request(app, "GET", "/")
    assert status == 200 and ctype.startswith("text/html") and b'id="board"' in body
    for name, kind in (("app.js", "text/javascript"), ("style.css", "text/css")):
        status, ctype, _, _ = request(app, "GET", "/static/" + name)
        assert status == 200 and ctype.startswith(kind)
    for path in ("/static/../web.py", "/static/nope.js", "/etc/passwd", "/static/.hidden.css"):
        assert request(app, "GET", path)[0] == 404


def test_moves_by_touches_then_pgn_download(app):
    st = json.loads(request(app, "GET", "/api/state")[3])
    assert st["pieces"]["e2"] == "P" and st["board"] == "pico" and st["buttons"][:2] == ["new", "level"]
    assert command(app, "lift e2")["state"]["hand"] == ["P"]
    res = command(app, "place e4")
    assert res["ok"] and res["state"]["pieces"]["e4"] == "P"
    st = wait_for(app, lambda s: s["computer_move"])
    cm = st["computer_move"]
    assert st["lit"][cm[:2]] == "on" and st["lit"][cm[2:4]] == "on" and st["game"] == ["e2e4"]
    assert st["led_rgb"].get(cm[:2])  # NeoPixel board: the colour of the move LEDs
    command(app, "lift " + cm[:2])
    if cm[2:4] in st["pieces"]:
        command(app, "lift " + cm[2:4])
    command(app, "place " + cm[2:4])
    st = wait_for(app, lambda s: len(s["game"]) == 2 and not s["lit"])
    assert st["moves"][0] == ["1.", "e4"]
    status, ctype, disp, body = request(app, "GET", "/api/pgn")
    assert status == 200 and "pgn" in ctype and "attachment" in disp
    game = chess.pgn.read_game(io.StringIO(body.decode()))
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", cm]


def test_errors_are_answers_not_crashes(app):
    res = command(app, "lift e5")
    assert not res["ok"] and "no piece on e5" in res["error"]
    res = command(app, "quit")
    assert not res["ok"] and "close the browser tab" in res["error"]
    assert request(app, "POST", "/api/command", b"{not json")[0] == 400
    assert request(app, "POST", "/api/command", {"line": 5})[0] == 400
    assert request(app, "POST", "/api/command", b"x" * 5000)[0] == 400
    assert request(app, "POST", "/api/other", {"line": "hint"})[0] == 404
    assert command(app, "hint")["ok"]  # still serving


def test_loopback_only(app):
    assert request(app, "GET", "/api/state", host="evil.example:80")[0] == 403
    assert request(app, "GET", "/api/state", host="localhost:%d" % app.port)[0] == 200
    assert app.httpd.server_address[0] == "127.0.0.1"
    with pytest.raises(WebError):
        WebSimulator(Table(Simulator(seed=0)), port=0, host="0.0.0.0")
    with pytest.raises(WebError):
        WebSimulator(app.table, port=0, speed=0)


def test_click_is_decided_on_the_server_state(app):
    """`click` (the page's click) lifts, puts down or captures by what the table holds when
    the command runs, never by the page's possibly old copy, so no click is lost."""
    res = command(app, "click e4")
    assert not res["ok"] and "nothing in hand" in res["error"] and "e4" in res["error"]
    assert command(app, "click e2")["state"]["hand"] == ["P"]  # empty hand: lift
    res = command(app, "click e4")  # holding: put it down
    assert res["ok"] and res["state"]["hand"] == [] and res["state"]["pieces"]["e4"] == "P"
    st = wait_for(app, lambda s: s["computer_move"])
    cm = st["computer_move"]
    command(app, "click " + cm[:2])
    res = command(app, "click " + cm[2:4])  # an occupied target is a capture: victim off first
    assert res["ok"] and res["state"]["pieces"][cm[2:4]] == st["pieces"][cm[:2]] and not res["state"]["hand"]
    st = wait_for(app, lambda s: len(s["game"]) == 2 and not s["lit"])
    assert st["game"] == ["e2e4", cm]
    # shift-click lifts even while holding; a named piece comes from the hand
    command(app, "click d2")
    assert command(app, "click e4 lift")["state"]["hand"] == ["P", "P"]
    res = command(app, "click e4 P")
    assert res["ok"] and res["state"]["pieces"]["e4"] == "P" and res["state"]["hand"] == ["P"]
    for bad in ("click", "click z9", "click e5 Q lift extra", "click e5 Q R"):
        res = command(app, bad)
        assert not res["ok"] and ("usage: click" in res["error"] or "not a square" in res["error"]), bad


def test_states_carry_a_growing_revision(app):
    """The page draws no answer older than the one it shows; `rev` orders them."""
    before = json.loads(request(app, "GET", "/api/state")[3])["rev"]
    after = command(app, "lift e2")["state"]["rev"]
    assert after > before
    assert json.loads(request(app, "GET", "/api/state")[3])["rev"] >= after
    assert app.state()["error"] is None


def test_a_firmware_crash_is_reported_not_silent():
    sim = Simulator(seed=2, level=0)
    web = WebSimulator(Table(sim), port=0, speed=4).start()
    try:
        def broken(*args):
            raise RuntimeError("boom")

        sim.controller.on_button = broken
        res = command(web, "hint")
        assert not res["ok"] and "simulated time stopped" in res["error"] and "boom" in res["error"]
        assert "boom" in web.state()["error"]
    finally:
        web.stop()
        sim.close()


def test_a_client_cut_off_mid_request_leaves_no_traceback(app, capfd):
    # A browser tab closed while it sends a request resets the connection: the simulator goes
    # on serving and says nothing (socketserver's default prints a traceback on stderr).
    cut_off_mid_request(app.port, b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    assert request(app, "GET", "/api/state")[0] == 200
    assert "Traceback" not in capfd.readouterr().err


def test_a_bug_in_the_ui_is_shown_and_time_goes_on():
    sim = Simulator(seed=2, level=0)
    table = Table(sim)
    web = WebSimulator(table, port=0, speed=4).start()
    try:
        real_wait = table.wait
        calls = {"n": 0}

        def wait(ms):
            calls["n"] += 1
            if calls["n"] == 1:
                raise KeyError("tick bug")
            real_wait(ms)

        table.wait = wait
        table.thinking = lambda: 1 / 0  # every snapshot meets this bug
        st = wait_for(web, lambda s: s["error"] and "thinking line failed" in s["error"])
        assert "(the game goes on)" in st["error"] and st["pieces"]["e2"] == "P"
        before = st["time_ms"]
        assert wait_for(web, lambda s: s["time_ms"] > before + 200)  # the clock still runs
        assert command(web, "e2e4")["ok"]
        assert wait_for(web, lambda s: s["moves"] and s["moves"][0] == ["1.", "e4"])
    finally:
        web.stop()
        sim.close()
