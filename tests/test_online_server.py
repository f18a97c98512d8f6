"""The local Lichess stand-in (online/lichess_server.py) speaks the Board API's formats: ndjson
streams with chunked encoding (gameFull first, then gameState / chatLine; the stream closes at
the end), the event stream's gameStart / gameFinish / challenge, and Lichess's status codes
(401, 404, 400, 429). Raw HTTP (requests) so the wire format itself is checked."""
import json
import threading

import pytest
import requests

from online.lichess_server import LichessServer
from tests.http_helper import cut_off_mid_request


@pytest.fixture
def server():
    s = LichessServer(keepalive_s=0.2)
    s.add_user("alice", "tok-a")
    s.add_user("bob", "tok-b")
    s.start()
    yield s
    s.stop()


def H(token):
    return {"Authorization": "Bearer " + token}


class Stream:
    """Reads an ndjson stream in a thread: `lines` (raw, empty keep-alives included), `closed`."""

    def __init__(self, server, path, token, method="GET", data=None):
        self.lines = []
        self.closed = threading.Event()
        self.error = None
        self.resp = requests.request(method, server.url + path, headers=H(token), data=data, stream=True, timeout=10)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            # as berserk reads (512-byte chunks: only the chunked encoding makes each line come at once)
            for raw in self.resp.iter_lines():
                self.lines.append(raw.decode())
        except Exception as exc:  # a cut stream (requests), or closed by the test (AttributeError)
            self.error = exc
        self.closed.set()

    def objects(self):
        return [json.loads(x) for x in self.lines if x]

    def wait(self, n, timeout=5):
        end = threading.Event()
        for _ in range(int(timeout / 0.02)):
            if len(self.objects()) >= n or self.closed.is_set():
                break
            end.wait(0.02)
        return self.objects()


def post(server, path, token="tok-a", **data):
    return requests.post(server.url + path, headers=H(token), data=data, timeout=5)


def test_account_and_status_codes(server):
    r = requests.get(server.url + "/api/account", headers=H("tok-a"), timeout=5)
    assert r.status_code == 200 and r.json()["username"] == "alice"
    r = requests.get(server.url + "/api/account", headers=H("nope"), timeout=5)
    assert r.status_code == 401 and r.json() == {"error": "No such token"}
    assert requests.get(server.url + "/api/account", timeout=5).status_code == 401
    assert post(server, "/api/board/game/nosuch/move/e2e4").status_code == 404
    server.fail("/api/account", 429)
    r = requests.get(server.url + "/api/account", headers=H("tok-a"), timeout=5)
    assert r.status_code == 429 and "error" in r.json()
    assert requests.get(server.url + "/api/account", headers=H("tok-a"), timeout=5).status_code == 200
    assert all("tok-" not in repr(entry) for entry in server.requests)


def test_seek_pairs_two_players_and_the_event_stream_announces_the_game(server):
    ev = Stream(server, "/api/stream/event", "tok-a")
    seek_a = Stream(server, "/api/board/seek", "tok-a", "POST", {"time": "5", "increment": "3"})
    server.wait_for(lambda: server.seeks)
    assert ev.wait(1, 0.5) == [] and not seek_a.closed.is_set()
    seek_b = Stream(server, "/api/board/seek", "tok-b", "POST", {"time": "5", "increment": "3"})
    assert seek_a.closed.wait(5) and seek_b.closed.wait(5) and seek_a.error is None
    assert seek_a.objects() == []  # a seek's stream carries nothing but keep-alives
    start = ev.wait(1)[0]
    assert start["type"] == "gameStart"
    game = start["game"]
    assert set(game) >= {"fullId", "gameId", "fen", "color", "opponent", "isMyTurn", "secondsLeft", "compat"}
    assert game["color"] == "white" and game["opponent"]["username"] == "bob" and game["isMyTurn"]
    ev.resp.close()


def test_game_stream_formats_moves_offers_and_the_end(server):
    g = server.create_game("alice", "bob", 60, 2)
    st = Stream(server, "/api/board/game/stream/" + g.id, "tok-b")
    full = st.wait(1)[0]
    assert full["type"] == "gameFull" and full["id"] == g.id and full["initialFen"] == "startpos"
    assert full["white"]["name"] == "alice" and full["clock"] == {"initial": 60000, "increment": 2000}
    state = full["state"]
    assert state == {"type": "gameState", "moves": "", "wtime": 60000, "btime": 60000, "winc": 2000,
                     "binc": 2000, "status": "started"}
    assert post(server, "/api/board/game/%s/move/e2e4" % g.id).json() == {"ok": True}
    r = post(server, "/api/board/game/%s/move/e7e5" % g.id)  # not alice's turn
    assert r.status_code == 400 and "error" in r.json()
    assert post(server, "/api/board/game/%s/move/e7e6" % g.id, "tok-b").status_code == 200
    assert post(server, "/api/board/game/%s/move/e4e6" % g.id).status_code == 400  # illegal
    assert post(server, "/api/board/game/%s/draw/yes" % g.id, "tok-b").status_code == 200
    assert post(server, "/api/board/game/%s/chat" % g.id, room="player", text="hi").status_code == 200
    assert post(server, "/api/board/game/%s/abort" % g.id).status_code == 400  # both have moved
    assert post(server, "/api/board/game/%s/resign" % g.id).status_code == 200
    assert st.closed.wait(5) and st.error is None  # the server closes the stream at the end
    objs = st.objects()
    assert [o["type"] for o in objs] == ["gameFull", "gameState", "gameState", "gameState", "chatLine", "gameState"]
    assert objs[2]["moves"] == "e2e4 e7e6" and objs[3].get("bdraw") is True
    assert objs[4] == {"type": "chatLine", "room": "player", "username": "alice", "text": "hi"}
    assert objs[5]["status"] == "resign" and objs[5]["winner"] == "black" and "bdraw" not in objs[5]
    # opened after the end: gameFull with the final state, then closed
    late = Stream(server, "/api/board/game/stream/" + g.id, "tok-a")
    assert late.closed.wait(5)
    assert [o["state"]["status"] for o in late.objects()] == ["resign"]
    assert post(server, "/api/board/game/%s/move/a2a3" % g.id).status_code == 400


def test_takeback_draw_abort_and_mate(server):
    g = server.create_game("alice", "bob")
    assert server.act("alice", g.id, "abort") == (200, {"ok": True})
    assert g.status == "aborted"
    g = server.create_game("alice", "bob")
    for user, m in (("alice", "f2f3"), ("bob", "e7e5"), ("alice", "g2g4")):
        assert server.act(user, g.id, "move", m)[0] == 200
    assert server.act("alice", g.id, "takeback", "yes")[0] == 200 and g.wtakeback
    assert server.act("bob", g.id, "takeback", "yes")[0] == 200
    assert g.moves == ["f2f3", "e7e5"] and not g.wtakeback  # alice's move taken back
    assert server.act("bob", g.id, "draw", "yes")[0] == 200 and g.bdraw
    assert server.act("alice", g.id, "draw", "no")[0] == 200 and not g.bdraw
    assert server.act("alice", g.id, "move", "g2g4")[0] == 200
    assert server.act("bob", g.id, "move", "d8h4")[0] == 200
    assert g.status == "mate" and g.winner == "black"
    g = server.create_game("alice", "bob")
    server.act("alice", g.id, "draw", "yes")
    server.act("bob", g.id, "draw", "yes")
    assert g.status == "draw" and g.winner is None


def test_dropped_streams_and_a_game_that_ends_while_a_player_is_offline(server):
    g = server.create_game("alice", "bob")
    st = Stream(server, "/api/board/game/stream/" + g.id, "tok-a")
    ev = Stream(server, "/api/stream/event", "tok-a")
    st.wait(1)
    server.wait_for(lambda: server.open_streams("alice") == 2)
    server.drop_streams("alice")
    assert st.closed.wait(5) and ev.closed.wait(5)
    assert st.error is not None  # cut mid-way: no final chunk, the client sees an error
    server.wait_for(lambda: server.open_streams("alice") == 0)
    server.act("bob", g.id, "resign")  # while alice is offline
    ev2 = Stream(server, "/api/stream/event", "tok-a")
    assert ev2.wait(1, 0.5) == []  # a finished game is not announced again
    back = Stream(server, "/api/board/game/stream/" + g.id, "tok-a")
    assert back.closed.wait(5)
    (full,) = back.objects()
    assert full["state"]["status"] == "resign" and full["state"]["winner"] == "white"
    ev2.resp.close()


def test_challenge_accept_and_decline(server):
    ev_b = Stream(server, "/api/stream/event", "tok-b")
    r = requests.post(server.url + "/api/challenge/bob", headers=H("tok-a"),
                      json={"rated": False, "clock.limit": 180, "clock.increment": 2, "color": "black"}, timeout=5)
    assert r.status_code == 200 and r.json()["status"] == "created"
    cid = r.json()["id"]
    chal = ev_b.wait(1)[0]
    assert chal["type"] == "challenge" and chal["challenge"]["id"] == cid
    assert chal["challenge"]["timeControl"]["limit"] == 180
    assert post(server, "/api/challenge/%s/accept" % cid, "tok-a").status_code == 404  # not alice's to accept
    assert post(server, "/api/challenge/%s/accept" % cid, "tok-b").json() == {"ok": True}
    start = ev_b.wait(2)[1]
    assert start["type"] == "gameStart" and start["game"]["color"] == "white"  # alice asked for black
    r = requests.post(server.url + "/api/challenge/bob", headers=H("tok-a"), json={"clock.limit": 60}, timeout=5)
    assert post(server, "/api/challenge/%s/decline" % r.json()["id"], "tok-b").status_code == 200
    assert post(server, "/api/challenge/nosuch/accept", "tok-b").status_code == 404
    ev_b.resp.close()


def test_the_clock_runs_after_both_first_moves_and_a_flag_falls(server):
    g = server.create_game("alice", "bob", 0.3, 0)
    server.act("alice", g.id, "move", "e2e4")
    server.act("bob", g.id, "move", "e7e5")
    assert g.status == "started"
    server.wait_for(lambda: g.over, timeout=3)
    assert g.status == "outoftime" and g.winner == "black" and g.clocks()[0] == 0


def test_a_client_cut_off_mid_request_leaves_no_traceback(server, capfd):
    # A board whose power goes while it sends a request resets the connection: the server
    # goes on serving, and says nothing (socketserver's default prints a traceback on stderr).
    cut_off_mid_request(server.port, b"GET /api/account HTTP/1.1\r\nHost: x\r\n")
    assert requests.get(server.url + "/api/account", headers=H("tok-a"), timeout=5).status_code == 200
    assert "Traceback" not in capfd.readouterr().err
