"""The board's own Board API client (firmware/features/online_net.py, "direct Wi-Fi") against
the local Lichess stand-in: its HTTP reader on every split of a chunked stream, the client in
the CPython simulator (a game, a dropped stream, 401, the token kept out of every output), and
two boards playing a whole game through the server - one through the USB bridge, one through
the firmware's own client running under the MicroPython unix port (no WLAN there: the client
goes straight to the server's http://127.0.0.1 URL)."""
import os
import subprocess
import threading
import time

import chess
import pytest

from host_sim import Simulator
from online.bridge import Bridge, Redactor, make_client
from online.lichess_server import LichessServer
from online.links import SimLink
from tests.mpy import ROOT, micropython_path, released
from tests.test_controller_mpy import SETUP
from tests.test_online_bridge import OPERA

TOKEN_A = "lip_wifiAlice0123456789"
TOKEN_B = "lip_wifiBob9876543210"


@pytest.fixture
def server():
    s = LichessServer(keepalive_s=0.3)
    s.add_user("alice", TOKEN_A)
    s.add_user("bob", TOKEN_B)
    s.start()
    yield s
    s.stop()


# ---- the HTTP reader ------------------------------------------------------------------------
class FakeStream:
    """A non-blocking stream that hands out `data` in the given pieces (None: nothing yet)."""

    def __init__(self, pieces):
        self.pieces = list(pieces)
        self.written = b""

    def write(self, data):
        self.written += bytes(data)
        return len(data)

    def readinto(self, buf):
        if not self.pieces:
            return 0
        piece = self.pieces.pop(0)
        if piece is None:
            return None
        buf[:len(piece)] = piece
        return len(piece)

    def close(self):
        pass


class Sink:
    def __init__(self):
        self.lines = []
        self.ends = []
        self.status = []

    def on_line(self, conn):
        self.lines.append(bytes(conn.line[:conn.n]))

    def on_status(self, conn):
        self.status.append(conn.status)

    def on_end(self, conn, why):
        self.ends.append(why)


def _read(pieces, line_bytes=64):
    from firmware.features.online_http import _SEND, Conn

    sink = Sink()
    conn = Conn(sink, "game", line_bytes)
    conn.stream = FakeStream(pieces)
    conn.state = _SEND
    conn.out = b"GET / HTTP/1.1\r\n\r\n"
    conn.keep = True
    for _ in range(len(pieces) + 2):
        conn.poll()
    return sink, conn


def test_the_http_reader_on_every_split_of_a_chunked_ndjson_stream():
    body = [b'{"type":"gameFull","id":"x"}\n', b"\n", b'{"type":"gameState",', b'"moves":"e2e4"}\n']
    wire = b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
    for part in body:
        wire += b"%x;ext=1\r\n%s\r\n" % (len(part), part)
    wire += b"0\r\n\r\n"
    want = [b'{"type":"gameFull","id":"x"}', b"", b'{"type":"gameState","moves":"e2e4"}']
    for cut in range(1, len(wire)):
        for cut2 in (cut + 1, cut + 7, len(wire)):
            sink, conn = _read([wire[:cut], None, wire[cut:cut2], wire[cut2:]])
            assert sink.status == [200] and sink.lines == want and sink.ends == [None], (cut, cut2)
    # a line longer than the buffer is dropped whole, the next one still comes
    long_body = b'{"a":"' + b"x" * 100 + b'"}\n{"b":1}\n'
    sink, conn = _read([b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(long_body) + long_body])
    assert sink.lines == [b'{"b":1}'] and conn.lost == 1 and sink.ends == [None]
    # a JSON answer without a newline, ended by Content-Length; a stream cut mid-way
    sink, _ = _read([b'HTTP/1.1 401 Unauthorized\r\nContent-Length: 26\r\n\r\n{"error": "No such token"}'])
    assert sink.status == [401] and sink.lines == [b'{"error": "No such token"}']
    sink, _ = _read([wire[:120]])
    assert sink.ends == ["closed"]
    # the client closes the connection from on_line (the game is known): nothing more is read
    from firmware.features.online_http import _IDLE

    closing = Sink()
    closing.on_line = lambda c: (closing.lines.append(bytes(c.line[:c.n])), c.close())
    from firmware.features.online_http import _SEND, Conn

    conn = Conn(closing, "event", 64)
    conn.stream = FakeStream([wire, wire])
    conn.state = _SEND
    conn.out = b"x"
    for _ in range(4):
        conn.poll()
    assert closing.lines == want[:1] and conn.state == _IDLE and closing.ends == []


# ---- the client in the simulator (CPython) --------------------------------------------------
def spin(sim, cond, timeout=8.0, step_ms=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        sim.run(step_ms)
        if cond():
            return
        time.sleep(0.002)
    raise AssertionError("timed out: %s" % sim.console_lines[-8:])


def net_board(server, token, mode):
    sim = Simulator(seed=1, book=False, ponder=False, human="both")
    assert sim.console("online server " + server.url) == ["ok"]
    assert sim.console("online token " + token) == ["ok token stored (%d characters)" % len(token)]
    assert sim.console("online net " + mode) == ["ok"]
    return sim


def test_the_boards_client_plays_resumes_a_dropped_stream_and_keeps_the_token_out(server):
    sim = net_board(server, TOKEN_A, "accept")
    spin(sim, lambda: server.open_streams("alice") == 1)  # signed in, the event stream open
    assert sim.display_text()[0] == "Online" and sim.console("online status") == ["online waiting waiting for a game"]
    server.challenge("bob", "alice", **{"clock.limit": 300, "clock.increment": 2, "color": "black"})
    spin(sim, lambda: sim.console("online status")[0].endswith("w ply 0 player"))
    g = next(iter(server.games.values()))
    sim.play("e2e4")
    spin(sim, lambda: g.moves == ["e2e4"])
    server.act("bob", g.id, "move", "e7e5")
    spin(sim, lambda: sim.computer_move() == "e7e5")
    assert sim.display_text()[0] == "Play e7e5 e5" and sim.display_text()[1].startswith("W 5:0")
    sim.execute()
    # the connection drops; meanwhile the opponent moves: the board catches up from the server
    server.drop_streams("alice")
    sim.play("g1f3")
    spin(sim, lambda: g.moves == ["e2e4", "e7e5", "g1f3"])
    server.drop_streams("alice")
    server.act("bob", g.id, "move", "b8c6")
    spin(sim, lambda: sim.computer_move() == "b8c6", timeout=10)
    assert any("reconnecting" in line for line in sim.console_lines)
    sim.execute()
    # a take back asked on the board, accepted by the opponent: the board is guided back
    sim.press("takeback")
    spin(sim, lambda: g.btakeback or g.wtakeback)
    server.act("bob", g.id, "takeback", "yes")
    spin(sim, lambda: sim.game() == ["e2e4", "e7e5"] and sim.state()["phase"] == "verify")
    assert set(sim.lit()) == {"f3", "g1", "c6", "b8"}
    sim.play("c6b8")
    sim.play("f3g1")
    spin(sim, lambda: sim.state()["phase"] == "player")
    sim.play("d2d4")
    spin(sim, lambda: sim.state()["phase"] == "thinking" and g.moves[-1:] == ["d2d4"])
    assert sim.display_text()[0] == "Opponent's move"
    sim.press("new", long=True)  # resign
    spin(sim, lambda: g.status == "resign" and sim.state()["phase"] == "over")
    assert sim.state()["result"] == "0-1" and sim.app.searches == 0
    sim.press("new")
    spin(sim, lambda: sim.console("online status") == ["online off"])
    assert released("firmware.features.online_net") and released("firmware.features.online_http")
    # the token: only in online.cfg on the board's flash, nowhere else
    texts = sim.console_lines + [sim.pgn(), repr(server.requests)] + list(sim.display_text())
    texts += [bytes(data).decode("latin-1") for name, data in sim.flash.files.items() if "online.cfg" not in name]
    assert not any(TOKEN_A in t for t in texts)
    assert any(TOKEN_A in bytes(d).decode("latin-1") for n, d in sim.flash.files.items() if "online.cfg" in n)


def test_a_refused_token_says_so_and_leaves_online_play(server):
    sim = net_board(server, "lip_wrongToken000", "seek 3+2")
    spin(sim, lambda: sim.console("online status") == ["online off"])
    said = [line for line in sim.console_lines if "401" in line]
    assert said and "refused the token" in said[0] and "board:play" in said[0]
    assert not any("lip_wrongToken000" in line for line in sim.console_lines)
    assert sim.console("online net seek") == ["error: usage: online net seek <min>+<inc> | challenge <user> "
                                              "<min>+<inc> | accept | game <id>"]


def test_a_rate_limit_pauses_and_a_refused_move_guides_back(server):
    import sys

    g = server.create_game("alice", "bob", 300, 0)
    sim = net_board(server, TOKEN_A, "game " + g.id)
    spin(sim, lambda: sim.console("online status")[0].endswith("w ply 0 player"))
    sys.modules["firmware.features.online_net"]._RATE_MS = 300  # Lichess asks for a minute
    server.fail("/move/", 429)
    sim.play("d2d4")
    spin(sim, lambda: g.moves == ["d2d4"])
    assert any("rate limited (429)" in line for line in sim.console_lines)
    server.act("bob", g.id, "move", "d7d5")
    spin(sim, lambda: sim.computer_move() == "d7d5")
    sim.execute()
    server.fail("/move/", 400)
    sim.play("c2c4")
    spin(sim, lambda: sim.state()["phase"] == "verify" and sim.game() == ["d2d4", "d7d5"])
    assert any("move refused (400)" in line for line in sim.console_lines)
    assert sim.lit() == {"c4": "blink-fast", "c2": "on"}
    sim.play("c4c2")
    sim.play("e2e4")
    spin(sim, lambda: g.moves == ["d2d4", "d7d5", "e2e4"])


def test_a_power_cut_during_a_game_of_the_boards_client_reconnects_by_itself(server):
    """online.run says the game was the board's own client's: after a restart the board
    connects again by itself (server and token from online.cfg) and catches up from the
    server's state; nothing is typed."""
    g = server.create_game("alice", "bob", 300, 0)
    sim = net_board(server, TOKEN_A, "game " + g.id)
    spin(sim, lambda: sim.console("online status")[0].endswith("w ply 0 player"))
    sim.play("e2e4")
    spin(sim, lambda: g.moves == ["e2e4"])
    run = bytes(sim.flash.files["online.run"]).decode()
    assert run.split()[2:] == [g.id, "net"] and TOKEN_A not in run
    sim.controller.online.net.close()  # the power goes, and the board's connections with it
    flash, pieces = sim.flash.copy(), sim.board_fen()
    sim.close()
    server.act("bob", g.id, "move", "e7e5")  # while the board is off
    again = Simulator(seed=1, book=False, ponder=False, human="both", flash=flash, pieces=pieces)
    try:
        spin(again, lambda: again.computer_move() == "e7e5", timeout=10)  # lit: reconnected by itself
        assert any("signed in as alice" in line for line in again.log_lines), again.log_lines
        assert again.console_lines[:1] != ["online net game " + g.id]  # (nothing typed)
        again.execute()
        again.play("g1f3")
        spin(again, lambda: g.moves == ["e2e4", "e7e5", "g1f3"])
        assert again.app.searches == 0
        texts = again.console_lines + again.log_lines
        texts += [bytes(d).decode("latin-1") for n, d in again.flash.files.items() if "online.cfg" not in n]
        assert not any(TOKEN_A in t for t in texts)
    finally:
        again.close()


def test_a_running_game_waits_for_the_wifi(server, monkeypatch):
    """No Wi-Fi yet (after a power cut the router may still be starting): a running game's
    client starts the association again instead of giving up; a seek gives up."""
    import sys
    import types

    class WLAN:
        connects = 0
        up_after = 2

        def __init__(self, iface):
            pass

        def active(self, on):
            pass

        def isconnected(self):
            return WLAN.connects >= WLAN.up_after

        def connect(self, ssid, password):
            assert (ssid, password) == ("My Home", "secret")
            WLAN.connects += 1

    network = types.ModuleType("network")
    network.WLAN = WLAN
    network.STA_IF = 0
    monkeypatch.setitem(sys.modules, "network", network)
    g = server.create_game("alice", "bob", 300, 0)
    sim = Simulator(seed=1, book=False, ponder=False, human="both")
    for line in ("online server " + server.url, "online token " + TOKEN_A, "online wifi My Home secret"):
        assert sim.console(line)[0].startswith("ok")
    WLAN.up_after = 99
    assert sim.console("online net seek 3+0") == ["ok"]
    sys.modules["firmware.features.online_net"]._WIFI_MS = 300
    spin(sim, lambda: sim.console("online status") == ["online off"])  # a seek gives up
    assert any("no Wi-Fi connection to My Home" in line for line in sim.console_lines)
    WLAN.connects = 0
    WLAN.up_after = 2
    assert sim.console("online net game " + g.id) == ["ok"]
    sys.modules["firmware.features.online_net"]._WIFI_MS = 300
    spin(sim, lambda: sim.console("online status")[0].endswith("w ply 0 player"))
    assert WLAN.connects == 2 and any("trying again" in line for line in sim.console_lines)


# ---- two boards: the USB bridge and the firmware's own client under MicroPython -------------
MPY_BOARD = SETUP + r"""
import os, sys, time
from firmware.app import StdinReader
from firmware.controller.journal import Journal
for i in range(64):
    b.closed[i] = 0
class Reader:
    def __init__(s):
        s.r = StdinReader()
    def readline(s):
        line = s.r.readline()
        if line == "bye":
            raise SystemExit
        return line
def out(text):
    print(text)
app = App(hw, Searcher(tt_entries=256, poll_nodes=64), ticks_ms=time.ticks_ms, console=Reader(), write=out,
          journal=Journal(JOURNAL_DIR, open, os))
app.boot(time.ticks_ms())
print("ready")
while True:
    app.step(time.ticks_ms())
    time.sleep_ms(1)
"""


class MpyBoard:
    """The firmware under the MicroPython unix port on fake pins, sensors fed from the console,
    running in real time; lines go in on stdin, its console lines are collected from stdout."""

    def __init__(self, journal_dir):
        env = dict(os.environ)
        env["MICROPYPATH"] = ":".join([ROOT, os.path.join(ROOT, ".frozen")])
        code = MPY_BOARD.replace("JOURNAL_DIR", repr(str(journal_dir)))
        self.proc = subprocess.Popen([micropython_path(), "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1, cwd=ROOT, env=env)
        self.out = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            self.out.append(line.rstrip("\n"))

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def close(self):
        try:
            self.send("bye")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


class BridgeBoard:
    def __init__(self, server, token, seed=2):
        self.log = []
        self.sim = Simulator(seed=seed, book=False, ponder=False, human="both")
        self.link = SimLink(self.sim)
        self.bridge = Bridge(make_client(token, server.url), self.link, log=Redactor(token, self.log.append),
                             seek=(3, 2), retry_s=0.05, rate_wait_s=0.3)


def test_two_boards_a_bridge_and_the_firmwares_own_client_under_micropython(server, tmp_path):
    """Board A: the simulator through the USB bridge (alice). Board B: the firmware under the
    MicroPython unix port with its own Board API client (bob). A move made on one board lights
    on the other; both records equal the server's; B's stream is cut once and resumes."""
    mp = MpyBoard(tmp_path)
    a = BridgeBoard(server, TOKEN_A)
    try:
        def pump(cond, timeout=15.0, what=""):
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                a.bridge.step()
                if cond():
                    return
                if mp.proc.poll() is not None:
                    break
                time.sleep(0.002)
            raise AssertionError("timed out %s; board B: %s; bridge: %s" % (what, mp.out[-12:], a.log[-6:]))

        def ask(line, match=lambda text: True):
            mark = len(mp.out)
            mp.send(line)
            pump(lambda: any(match(t) for t in mp.out[mark:]), what=line)
            return [t for t in mp.out[mark:] if match(t)][0]

        pump(lambda: "ready" in mp.out, what="boot")
        assert ask("feed") == "ok"
        assert ask("online server " + server.url) == "ok"
        assert ask("online token " + TOKEN_B).startswith("ok token stored")
        assert ask("online net seek 3+2") == "ok"
        pump(lambda: server.open_streams("bob") == 1 and [x for x in server.seeks if x[0] == "bob"], what="seek")
        a.bridge.start()
        pump(lambda: a.bridge.color and a.bridge.board_moves is not None, what="pairing")
        g = server.game(a.bridge.game_id)
        b_colour = "white" if g.white == "bob" else "black"
        pump(lambda: ask("online status", lambda t: t.startswith("online ")).endswith("ply 0 " + (
            "player" if b_colour == "white" else "thinking")), what="B's start")
        board = chess.Board()

        def touch(what, sq):
            ask(what + " " + sq, lambda t: t == "ok")
            time.sleep(0.07)  # a hand's pause: longer than the debounce (30 ms)

        def b_plays(move):
            m = chess.Move.from_uci(move)
            frm, to = move[:2], move[2:4]
            if board.is_capture(m):
                touch("lift", to)
            touch("lift", frm)
            touch("place", to)
            if board.is_castling(m):
                rook = {"g1": "h1f1", "c1": "a1d1", "g8": "h8f8", "c8": "a8d8"}[to]
                touch("lift", rook[:2])
                touch("place", rook[2:])

        for i, move in enumerate(OPERA):
            white = i % 2 == 0
            if (b_colour == "white") == white:  # B (MicroPython) moves; it lights on A
                b_plays(move)
                pump(lambda m=move: a.sim.computer_move() == m or a.sim.game()[-1:] == [m], what=move)
                if a.sim.computer_move() == move:
                    assert set(a.sim.lit()) >= {move[:2], move[2:4]}
                    a.sim.execute()
                else:
                    assert i == len(OPERA) - 1
                    a.sim.play(move)
                pump(lambda m=move: a.sim.game()[-1:] == [m], what=move)
            else:  # A moves; it lights on B
                a.sim.play(move)
                pump(lambda m=move, i=i: m in g.moves[i:i + 1], what=move)
                if i < len(OPERA) - 1:
                    pump(lambda m=move: ask("computer", lambda t: len(t) in (1, 4, 5)) == m, what=move)
                    assert ask("lit", lambda t: t.startswith("lit ")).count(":") >= 2
                b_plays(move)
                pump(lambda m=move: ask("moves", lambda t: "2" in t or "4" in t).endswith(m), what=move)
            board.push_uci(move)
            if i == 10:  # B's connection drops: it opens the streams again and goes on
                server.drop_streams("bob")
        pump(lambda: a.sim.state()["phase"] == "over", what="A over")
        pump(lambda: ask("status", lambda t: " ply " in t).startswith("over ply 33 1-0"), what="B over")
        assert g.status == "mate" and g.moves == OPERA
        assert a.sim.game() == OPERA
        assert ask("moves", lambda t: "e2e4" in t).split() == OPERA
        assert any("reconnecting" in t for t in mp.out)
        assert ask("press new", lambda t: t == "ok") == "ok"
        assert ask("online status", lambda t: t.startswith("online ")) == "online off"
        # the token: never in B's output, journal or archive (only in online.cfg)
        for name in os.listdir(tmp_path):
            data = open(os.path.join(tmp_path, name), "rb").read().decode("latin-1")
            assert (TOKEN_B in data) == (name == "online.cfg"), name
        assert not any(TOKEN_B in t or TOKEN_A in t for t in mp.out + a.log + a.link.sent)
    finally:
        a.bridge.stop()
        mp.close()


def test_a_power_cut_under_micropython_and_the_client_reconnects_by_itself(server, tmp_path):
    """The firmware under the MicroPython unix port with a journal directory plays a game with
    its own client; the process is killed (the power goes) and started again on the same
    directory: the client reconnects by itself, the opponent's move made meanwhile comes,
    and the game goes on (nothing typed after the restart but the test's fed pieces)."""
    g = server.create_game("bob", "alice", 300, 0)  # bob (this board) has White
    mp = MpyBoard(tmp_path)
    again = None
    try:
        def wait(board, cond, what, timeout=15.0):
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                if cond():
                    return
                if board.proc.poll() is not None:
                    break
                time.sleep(0.01)
            raise AssertionError("timed out %s: %s" % (what, board.out[-12:]))

        def ask(board, line, match=lambda text: True):
            mark = len(board.out)
            board.send(line)
            wait(board, lambda: any(match(t) for t in board.out[mark:]), line)
            return [t for t in board.out[mark:] if match(t)][0]

        wait(mp, lambda: "ready" in mp.out, "boot")
        assert ask(mp, "feed") == "ok"
        assert ask(mp, "online server " + server.url) == "ok"
        assert ask(mp, "online token " + TOKEN_B).startswith("ok token stored")
        assert ask(mp, "online net game " + g.id) == "ok"
        wait(mp, lambda: ask(mp, "online status", lambda t: t.startswith("online ")).endswith("w ply 0 player"),
             "the game")
        for what, sq in (("lift", "e2"), ("place", "e4")):
            ask(mp, "%s %s" % (what, sq), lambda t: t == "ok")
            time.sleep(0.07)
        wait(mp, lambda: g.moves == ["e2e4"], "e2e4 on the server")
        mp.proc.kill()  # the power goes
        mp.proc.wait()
        assert "net" in open(os.path.join(str(tmp_path), "online.run")).read().split()
        server.act("alice", g.id, "move", "e7e5")  # while the board is off
        again = MpyBoard(tmp_path)
        wait(again, lambda: "ready" in again.out, "boot again")
        ask(again, "feed " + "%016x" % sum(1 << sq for sq in chess.Board(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").piece_map()), lambda t: t == "ok")
        # the board booted before its pieces were fed (the board check), so the opponent's move may
        # come lit or already set up with the LEDs: either way it is made on the board
        wait(again, lambda: ask(again, "moves", lambda t: "e2e4" in t) == "e2e4 e7e5", "e7e5 from the server")
        assert ask(again, "online status", lambda t: t.startswith("online ")).startswith("online %s w ply 2" % g.id)
        assert not any(t.startswith("online net game") for t in again.out)  # nothing typed
        for what, sq in (("lift", "e7"), ("place", "e5")):
            ask(again, "%s %s" % (what, sq), lambda t: t == "ok")
            time.sleep(0.07)
        wait(again, lambda: ask(again, "status", lambda t: " ply " in t).startswith("player ply 2"), "e7e5 made")
        for what, sq in (("lift", "g1"), ("place", "f3")):
            ask(again, "%s %s" % (what, sq), lambda t: t == "ok")
            time.sleep(0.07)
        wait(again, lambda: g.moves == ["e2e4", "e7e5", "g1f3"], "g1f3 on the server")
        assert ask(again, "moves", lambda t: "e2e4" in t).split() == g.moves
        assert not any(TOKEN_B in t for t in mp.out + again.out)
    finally:
        mp.close()
        if again is not None:
            again.close()


TLS_CLIENT = r"""
import os, socket, time
from firmware.controller.flashfile import FlashFiles
from firmware.features import online_net
from firmware.features.online_http import Conn
class C:
    def on_status(s, c): print("status", c.status)
    def on_line(s, c): print("line", bytes(c.line[:c.n]))
    def on_end(s, c, why): print("end", why)
try:
    ctx = online_net._tls_context(FlashFiles(DIR, open, os))
except ValueError as exc:
    print("refused:", exc)
    raise SystemExit
c = Conn(C(), "call", 512)
c.request(socket.getaddrinfo("localhost", PORT)[0][-1], "localhost", ctx,
          b"GET /api/account HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer TOKEN\r\n\r\n")
worst = 0
for i in range(1500):
    t = time.ticks_ms()
    c.poll()
    worst = max(worst, time.ticks_diff(time.ticks_ms(), t))
    if not c.busy():
        break
    time.sleep_ms(2)
print("worst poll ms", worst)
"""


def _self_signed(folder, name):
    import shutil

    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a test certificate")
    key, pem = os.path.join(folder, name + ".key"), os.path.join(folder, name + ".pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-keyout", key, "-out", pem, "-days", "2", "-nodes", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    return key, pem


def test_https_under_micropython_checks_the_certificate(server, tmp_path):
    """The client's TLS (MicroPython's ssl, non-blocking handshake) against the stand-in behind
    TLS: with the server's root in online.ca it talks; with another root it refuses; without
    online.ca https is not tried (the token would go to whoever answers)."""
    import ssl

    key, pem = _self_signed(str(tmp_path), "server")
    _, other = _self_signed(str(tmp_path), "other")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pem, key)
    server._httpd.socket = ctx.wrap_socket(server._httpd.socket, server_side=True)
    env = dict(os.environ, MICROPYPATH=ROOT + ":.frozen")  # .frozen: the port's own ssl module
    code = TLS_CLIENT.replace("DIR", repr(str(tmp_path))).replace("PORT", str(server.port)).replace("TOKEN", TOKEN_B)

    def client():
        return subprocess.run([micropython_path(), "-c", code], capture_output=True, text=True, env=env,
                              timeout=60, cwd=ROOT).stdout

    out = client()
    assert "refused: https needs the server's root certificate in online.ca" in out, out
    for src, ok in ((other, False), (pem, True)):
        with open(src) as f, open(os.path.join(str(tmp_path), "online.ca"), "w") as g:
            g.write(f.read())  # PEM here; DER works too
        out = client()
        assert ("status 200" in out and '"username": "bob"' in out) == ok, out
        if not ok:
            assert "end certificate: " in out and "status" not in out, out
