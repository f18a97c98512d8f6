"""The simulator as a local web page: the firmware runs in this Python process.

    server = WebSimulator(table, port=0, speed=1.0)   # 127.0.0.1 only; port 0 picks a free one
    server.start()                                    # serves in background threads
    print(server.url)                                 # http://127.0.0.1:<port>/
    server.stop()

`serve(table, port, speed)` does the same in the foreground until Ctrl-C (`python -m host_sim
--web`). Simulated time runs with the wall clock (`speed` x) in a ticker thread; every
request and every tick holds one lock, so the firmware never sees two hands at once.

HTTP API (JSON; the page in static/ uses nothing else):
    GET  /                 the page (static/index.html, app.js, style.css)
    GET  /api/state        Table.snapshot() plus "rev" and "error" (why simulated time stopped,
                           else null): pieces, lit LEDs, display, thinking, moves, ...
    POST /api/command      {"line": "lift e2"} -> {"ok": true, "reply": "...", "state": {...}}
                           or {"ok": false, "error": "..."} (any Table command, and `click`)
    GET  /api/pgn          the game as a PGN download
Only loopback clients are served, and requests must name a loopback Host (no DNS rebinding).

`click <square> [piece letter] [lift]` is the page's click on a square, decided here on the
table's own state at the moment the command runs (`click`): lift the piece there if the hand
is empty, else put the piece down (on an occupied square: take the piece there off first, a
capture). The page must not decide that itself: its copy of the state is always a little
old (the answer to the previous touch may not have arrived yet on a slow or busy machine),
and a click judged on an old state - "nothing in hand, an empty square: ignore it" - was
lost, so the move was never completed and the computer never answered. Commands run in
the order the page sent them, so each click sees what the previous one did.

Every snapshot carries `rev`, which grows with every change (tick or command): answers can
reach the page out of order (a state poll sent before a touch, answered after it), and the
page draws no state older than the one it shows.
"""
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler

from host_sim.http_server import QuietHTTPServer
from host_sim.simulator import SimulatorError
from host_sim.tui import CommandError, Quit, internal_error

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
MAX_BODY = 4096
MAX_STEP_MS = 500  # the ticker never jumps further at once (keeps requests responsive)
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml"}


class WebError(ValueError):
    """A bad web-simulator option (e.g. a non-loopback address)."""


class WebSimulator:
    """A Table served over HTTP on 127.0.0.1, with simulated time running in a ticker."""

    def __init__(self, table, port=8000, speed=1.0, host="127.0.0.1", tick_s=0.05):
        if host not in ("127.0.0.1", "localhost"):
            raise WebError("the simulator serves loopback only (127.0.0.1), not %r" % (host,))
        if not 0 < speed <= 1000:
            raise WebError("speed must be > 0 and <= 1000, got %r" % (speed,))
        self.table = table
        self.speed = speed
        self.tick_s = tick_s
        self.lock = threading.RLock()
        self._stop = threading.Event()
        self._threads = []
        handler = type("Handler", (_Handler,), {"app": self})
        self.httpd = QuietHTTPServer(("127.0.0.1", port), handler)
        self.port = self.httpd.server_address[1]
        self.url = "http://127.0.0.1:%d/" % self.port
        self.paused = False
        self.rev = 0  # grows with every tick and command (under the lock): see the module docstring
        self.error = None  # why simulated time stopped (the firmware crashed), shown on the page
        self.tick_error = None  # what failed in the last tick (time goes on), shown on the page

    # ---- time ----------------------------------------------------------------------------
    def _tick_loop(self):
        last = time.monotonic()
        carry = 0.0
        while not self._stop.wait(self.tick_s):
            now = time.monotonic()
            carry += (now - last) * 1000.0 * self.speed
            last = now
            step = min(int(carry), MAX_STEP_MS)
            carry = min(carry - step, MAX_STEP_MS)
            if step <= 0 or self.paused:
                continue
            with self.lock:
                self.rev += 1
                try:
                    self.table.wait(step)
                    if self.table.auto and not self.table.busy() and self.table.sim.computer_move():
                        self.table.play(self.table.sim.computer_move())
                    self.tick_error = None
                except SimulatorError as e:  # the firmware crashed: say so on the page, not in silence
                    self.error = "simulated time stopped: %s" % (e,)
                    return
                except Exception as e:  # a bug on the simulator's side: shown, and time goes on
                    self.tick_error = "%s (the game goes on)" % internal_error(e)

    # ---- requests ------------------------------------------------------------------------
    def state(self):
        with self.lock:
            return self._snapshot()

    def _snapshot(self):
        snap = self.table.snapshot()
        snap["rev"] = self.rev
        ui = snap.get("ui_error")
        snap["error"] = self.error or self.tick_error or ("%s (the game goes on)" % ui if ui else None)
        return snap

    def command(self, line):
        with self.lock:
            self.rev += 1
            try:
                reply = self.table.execute(line, settle=False)  # `click` included (Table.click)
            except Quit:
                return {"ok": False, "error": "close the browser tab to leave (Ctrl-C stops the server)"}
            except ValueError as e:
                return {"ok": False, "error": str(e), "state": self._snapshot()}
            except SimulatorError as e:
                self.error = "simulated time stopped: %s" % (e,)
                return {"ok": False, "error": self.error, "state": self._snapshot()}
            except Exception as e:  # a bug on the simulator's side: answered, and the game goes on
                return {"ok": False, "error": "%s (the game goes on)" % internal_error(e), "state": self._snapshot()}
            return {"ok": True, "reply": reply, "state": self._snapshot()}

    def click(self, square=None, *rest):
        """The page's click on `square`: Table.click (see the module docstring)."""
        self.table.click(square, *rest)
        return ""

    def pgn(self):
        with self.lock:
            return self.table.pgn()

    # ---- life cycle ----------------------------------------------------------------------
    def start(self):
        for target in (self.httpd.serve_forever, self._tick_loop):
            t = threading.Thread(target=target, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def stop(self):
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        for t in self._threads:
            t.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    app = None  # set per server by WebSimulator
    server_version = "ReedchessSim/1"

    def log_message(self, fmt, *args):  # quiet: the terminal belongs to the person
        pass

    def _allowed(self):
        client = self.client_address[0]
        if not (client.startswith("127.") or client == "::1"):
            self._send(403, "text/plain", b"loopback only\n")
            return False
        header = self.headers.get("Host") or ""
        host = header.split("]")[0] + "]" if header.startswith("[") else header.rsplit(":", 1)[0]
        if host not in LOOPBACK_HOSTS:
            self._send(403, "text/plain", b"loopback only (Host header)\n")
            return False
        return True

    def _send(self, code, ctype, body, extra=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, code, obj):
        self._send(code, "application/json", json.dumps(obj).encode())

    def do_GET(self):
        if not self._allowed():
            return
        path = self.path.split("?", 1)[0]
        if path == "/api/state":
            try:
                return self._json(200, self.app.state())
            except Exception as e:  # never a dead page: the error is the answer, the game goes on
                return self._json(500, {"error": "%s (the game goes on)" % internal_error(e)})
        if path == "/api/pgn":
            return self._send(200, "application/x-chess-pgn", self.app.pgn().encode(),
                              {"Content-Disposition": 'attachment; filename="reedchess.pgn"'})
        if path == "/favicon.ico":  # browsers ask for it unbidden: no icon, and no 404 in their console
            return self._send(204, "image/x-icon", b"")
        if path in ("/", "/index.html"):
            path = "/static/index.html"
        if path.startswith("/static/"):
            name = path[len("/static/"):]
            if "/" not in name and not name.startswith(".") and os.path.splitext(name)[1] in _TYPES:
                full = os.path.join(STATIC, name)
                if os.path.isfile(full):
                    with open(full, "rb") as f:
                        return self._send(200, _TYPES[os.path.splitext(name)[1]], f.read())
        self._send(404, "text/plain", b"not found\n")

    do_HEAD = do_GET

    def do_POST(self):
        if not self._allowed():
            return
        if self.path != "/api/command":
            return self._send(404, "text/plain", b"not found\n")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY:
            return self._json(400, {"ok": False, "error": "body must be 1..%d bytes of JSON" % MAX_BODY})
        try:
            data = json.loads(self.rfile.read(length).decode("utf-8"))
            line = data["line"]
            if not isinstance(line, str):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return self._json(400, {"ok": False, "error": 'expected JSON {"line": "<command>"}'})
        self._json(200, self.app.command(line))


def serve(table, port=8000, speed=1.0, out=None):
    """Serve until Ctrl-C. Returns 0."""
    import sys

    out = out or sys.stdout
    try:
        app = WebSimulator(table, port=port, speed=speed)
    except OSError as e:
        raise WebError("cannot listen on 127.0.0.1:%d: %s (try --port 0)" % (port, e.strerror or e)) from None
    app.start()
    out.write("Reedchess simulator: open %s in your browser (Ctrl-C stops)\n" % app.url)
    out.flush()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        out.write("\nbye\n")
    finally:
        app.stop()
    return 0


__all__ = ["WebSimulator", "WebError", "serve", "CommandError"]
