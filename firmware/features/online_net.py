"""The board's own client for the Lichess Board API (a feature on demand: loaded for the
console lines `online wifi|token|server|net ...`, kept while it plays, dropped after).

    online wifi <ssid> [<password>]       the Wi-Fi network (network.WLAN; none on the unix port)
    online token <token | file>           the personal API token (scope board:play): stored in
                                          online.cfg beside the journal, never printed
    online server <url>                   https://lichess.org unless set (tests: http://127.0.0.1:PORT)
    online net seek <min>+<inc>           a public seek
    online net challenge <user> <min>+<inc>
    online net accept                     wait for a challenge to this account
    online net game <id>                  go on with a running game (also after a restart)

It speaks HTTP/1.1 with MicroPython's own socket (and ssl for https) through
features/online_http.py: the event stream, the game's stream and a seek are ndjson streams
read without waiting, the player's moves, offers and resignation short POSTs on one kept
connection. It plays through features/online.py exactly as the USB bridge does
(online/bridge.py): a server state becomes the calls the bridge's console lines make
(`start`, `moves`, `clock`, `offer`, `end`, `say`), and the board's own lines ("online played
e2e4 1", "online draw", ...) become Board API calls. One game flow for both ways.

Network: it runs in Online.poll (the controller's tick), at most every _POLL_MS; nothing
blocks but the Wi-Fi association's start, one DNS lookup per start, and (https) the TLS key
exchange, which is CPU work inside a read. A dropped or silent stream (Lichess sends an empty
line every 7 s) is opened again after _RETRY_MS and the game's stream brings the whole
state (nothing lost); 429 pauses every request for a minute; 401 stops the client with a
message about the token (the game waits: `online net game <id>` again); a refused move is
said ("Move refused") and the board is guided back to the server's position.

The token goes only into the Authorization header of each request: never printed, never in
the journal, the sensor log or a PGN (those never see it).
"""
import json

from firmware.compat import const, ticks_add, ticks_diff
from firmware.features.online_http import Conn
from firmware.features.online_state import OnlineGame
from firmware.loader import borrow

_POLL_MS = const(10)  # the sockets are looked at this often (the scan runs in between)
_RETRY_MS = const(2000)  # a dropped stream is opened again after this
_RATE_MS = const(60000)  # after 429 Too Many Requests (Lichess: wait a minute)
_SILENT_MS = const(20000)  # a stream without a byte this long is taken as dropped
_WIFI_MS = const(20000)  # the Wi-Fi association's limit (a running game: tried again after it)
_AGAIN_MS = const(10000)  # a running game whose server's name was not found: looked up again after this
_EVENT_LINE = const(2048)  # the longest line kept per stream (a longer one is dropped)
_GAME_LINE = const(4096)  # a gameFull of ~600 plies
_CALL_LINE = const(512)  # answers of calls (only the account's name is read)
CFG_FILE = "online.cfg"
CA_FILE = "online.ca"
DEFAULT_SERVER = "https://lichess.org"


class NetError(ValueError):
    """A setup line that cannot be carried out (the text never holds the token)."""


# ---- the console lines ---------------------------------------------------------------------
def command(app, word, args, now_ms):
    """`online wifi|token|server|net ...` (features/online.py hands them here); the answer."""
    files = _files(app)
    if word == "wifi":
        if not args:
            raise NetError("usage: online wifi <ssid> [<password>]")
        ssid = " ".join(args[:-1]) if len(args) > 1 else args[0]
        _save(files, "ssid", ssid)
        _save(files, "pass", args[-1] if len(args) > 1 else "")
        return "ok"
    if word == "token":
        if len(args) != 1:
            raise NetError("usage: online token <token | file holding it>")
        token = _read_file(files, args[0])
        token = token.split("\n")[0].strip() if token is not None else args[0]
        if not token or " " in token or len(token) > 100:
            raise NetError("that is no token (a Lichess personal API token, scope board:play)")
        _save(files, "token", token)
        return "ok token stored (%d characters)" % len(token)
    if word == "server":
        if len(args) != 1 or not (args[0].startswith("http://") or args[0].startswith("https://")):
            raise NetError("usage: online server <http(s)://host[:port]>")
        _save(files, "server", args[0].rstrip("/"))
        return "ok"
    return _net(app, files, args, now_ms)


def _net(app, files, args, now_ms):
    mode = args[0].lower() if args else ""
    arg = None
    if mode == "seek" and len(args) == 2:
        arg = _clock_arg(args[1])
    elif mode == "challenge" and len(args) == 3:
        arg = (args[1],) + _clock_arg(args[2])
    elif mode == "game" and len(args) == 2:
        arg = args[1]
    elif not (mode == "accept" and len(args) == 1):
        raise NetError("usage: online net seek <min>+<inc> | challenge <user> <min>+<inc> | accept | game <id>")
    cfg = _load(files)
    if not cfg.get("token"):
        raise NetError("no token: online token <token | file> first (docs/online.md)")
    c = app.controller
    online = c.hold("online")
    o = c.online
    if o is not None and o.net is not None:
        raise NetError("the board's client runs already (online stop first)")
    if o is not None and not (mode == "game" and o.game_id == arg):
        raise NetError("an online game runs (online stop first)")
    client = NetClient(app, cfg, mode, arg, files)  # NetError: a bad server, no CA for https
    if o is None:
        o = online.Online(c, app.write, 0, None)  # waiting for a game of the client
        c.online = o
    o.net = client
    borrow("firmware.features.online_net")  # held for the client: Online.drop_net lets it go
    client.start(now_ms)
    c.dirty = True
    return "ok"


def resume(app, game_id, now_ms):
    """A restart during a game of this client (features/online.py's resume found "net" in
    online.run): connect again, as `online net game <id>` would (`app`: the controller and a
    write, an App or online._Host)."""
    return _net(app, _files(app), ["game", game_id], now_ms)


def _clock_arg(text):
    minutes, _, inc = text.partition("+")
    try:
        return (float(minutes) if "." in minutes else int(minutes)), int(inc or "0")
    except ValueError:
        raise NetError("a clock is <minutes>+<increment s>, e.g. 10+0") from None


def _files(app):
    j = app.controller.journal
    if j is not None:
        return j.files
    from firmware.controller.flashfile import FlashFiles

    return FlashFiles()


def _read_file(files, name):
    try:
        f = files.open(name, "rb")
    except OSError:
        return None
    try:
        return f.read().decode()
    finally:
        f.close()


def _load(files):
    """online.cfg as a dict (lines "key value")."""
    text = _read_file(files, files.name(CFG_FILE)) or ""
    cfg = {}
    for line in text.split("\n"):
        key, _, value = line.partition(" ")
        if key:
            cfg[key] = value
    return cfg


def _save(files, key, value):
    cfg = _load(files)
    cfg[key] = value
    files.rewrite(files.name(CFG_FILE), "".join("%s %s\n" % kv for kv in cfg.items()).encode())


# ---- the client ----------------------------------------------------------------------------
class NetClient(OnlineGame):
    """The connections and the calls; what a server state means for the board (and a board's
    line for the server) is OnlineGame's (features/online_state.py, the USB bridge's too)."""

    def __init__(self, app, cfg, mode, arg, files):
        OnlineGame.__init__(self, arg if mode == "game" else None)
        self.app = app
        self.c = app.controller
        self.mode = mode
        self.arg = arg
        self.token = cfg["token"]
        self.ssid = cfg.get("ssid") or ""
        self.wifi_pass = cfg.get("pass") or ""
        url = cfg.get("server") or DEFAULT_SERVER
        tls = url.startswith("https://")
        hostport = url.split("://", 1)[1].split("/")[0]
        host, _, port = hostport.partition(":")
        if not host or port and not port.isdigit():
            raise NetError("bad server address (online server <url>)")
        self.host = host
        self.port = int(port) if port else (443 if tls else 80)
        self.host_header = hostport
        self.tls = _tls_context(files) if tls else None
        self.addr = None
        self.wlan = None
        self.state = "wifi"  # wifi, account, play, off
        self.since = 0
        self.now = 0
        self.next_poll = 0
        self.pause_until = None  # after 429: no request before this (ticks)
        self.call_due = 0  # a call that failed is tried again from then on (ticks)
        self.events = Conn(self, "event", _EVENT_LINE)  # closed once the game is known
        self.game = Conn(self, "game", _GAME_LINE)
        self.seek = Conn(self, "seek", 64)
        self.call = Conn(self, "call", _CALL_LINE)
        self.reopen = {}  # conn kind -> ticks when it is opened again
        self.last = {}  # conn kind -> ticks of its last byte
        self.calls = []  # (method, path, body, what) waiting, the first one under way

    # ---- life -------------------------------------------------------------------------
    def start(self, now_ms):
        self.now = now_ms
        self.since = now_ms
        try:
            import network
        except ImportError:
            network = None  # the unix port, CPython: the host's network is there
        if network is not None and hasattr(network, "WLAN"):
            wlan = network.WLAN(network.STA_IF)
            wlan.active(True)
            if not wlan.isconnected():
                if not self.ssid:
                    raise NetError("no Wi-Fi: online wifi <ssid> <password> first")
                wlan.connect(self.ssid, self.wifi_pass)
            self.wlan = wlan

    def close(self):
        for conn in (self.events, self.game, self.seek, self.call):
            conn.close()
        self.state = "off"

    def state_text(self):
        if self.state == "wifi":
            return "Wi-Fi..."
        if self.pause_until is not None:
            return "rate limit: wait"
        if self.state == "account":
            return "signing in"
        if self.mode == "seek" and self.game_id is None:
            return "seeking %s+%d" % self.arg
        if self.mode == "challenge" and self.game_id is None:
            return "challenged " + self.arg[0]
        return "waiting for a game"

    def _log(self, text):
        self.app.write("online net: " + text)

    def _say(self, text):
        self.c.say(text, self.now)

    def _fatal(self, text, say):
        """Stop the client: a game waits for `online net game <id>`, no game: online play ends."""
        self._log(text)
        self.close()
        o = self.c.online
        if o is not None:
            o.drop_net()
            if o.game_id is None:
                o.leave(self.c, self.now, False)
        self._say(say)

    # ---- the main loop's turn ------------------------------------------------------------
    def poll(self, now_ms):
        if ticks_diff(now_ms, self.next_poll) < 0:
            return
        self.next_poll = ticks_add(now_ms, _POLL_MS)
        self.now = now_ms
        if self.state == "wifi":
            self._wifi(now_ms)
            return
        if self.pause_until is not None and ticks_diff(now_ms, self.pause_until) >= 0:
            self.pause_until = None
        for conn in (self.events, self.game, self.seek, self.call):
            if self.state == "off":
                return
            conn.poll()
            silent = ticks_diff(now_ms, self.last.get(conn.kind, now_ms))
            if conn.busy() and conn.kind != "call" and silent > _SILENT_MS:
                conn.close()  # silent too long: open it again
                self._dropped(conn, "silent")
        for kind, due in self.reopen.items():
            if ticks_diff(now_ms, due) >= 0 and self.pause_until is None:
                del self.reopen[kind]
                self._open(kind)
                break
        if (self.calls and not self.call.busy() and self.pause_until is None
                and ticks_diff(now_ms, self.call_due) >= 0):
            self._request(self.call, *self.calls[0][:3])

    def _wifi(self, now_ms):
        wlan = self.wlan
        if wlan is not None and not wlan.isconnected():
            if ticks_diff(now_ms, self.since) > _WIFI_MS:
                if self.mode != "game":
                    self._fatal("no Wi-Fi connection to %s" % self.ssid, "Wi-Fi: no connection")
                    return
                # a running game waits for the network (after a power cut the router may
                # still be starting): the association is started again
                self._log("no Wi-Fi connection to %s yet: trying again" % self.ssid)
                self._say("Wi-Fi: trying again")
                self.since = now_ms
                try:
                    wlan.connect(self.ssid, self.wifi_pass)
                except OSError:
                    pass
            return
        try:
            import socket

            self.addr = socket.getaddrinfo(self.host, self.port)[0][-1]  # one lookup per start
        except OSError as exc:
            if self.mode != "game":
                self._fatal("cannot find %s: %s" % (self.host, exc), "Server not found")
                return
            self._log("cannot find %s: %s (trying again)" % (self.host, exc))
            self._say("Server not found")
            self.next_poll = ticks_add(now_ms, _AGAIN_MS)
            return
        self.state = "account"
        self.calls.append(("GET", "/api/account", None, "account"))

    def _signed_in(self):
        self.state = "play"
        self._log("signed in as " + self.username)
        if self.mode != "game":
            self._open("event")  # only until the game is known: one connection (and TLS session) less
        if self.mode == "seek":
            self._open("seek")
        elif self.mode == "challenge":
            user, minutes, inc = self.arg
            self.calls.append(("POST", "/api/challenge/" + user,
                               "clock.limit=%d&clock.increment=%d" % (int(minutes * 60), inc), "challenge"))
        elif self.mode == "game":
            self._open("game")
        self.c.dirty = True

    def _open(self, kind):
        if kind == "event":
            self._request(self.events, "GET", "/api/stream/event")
        elif kind == "game":
            if self.game_id is not None:
                self._request(self.game, "GET", "/api/board/game/stream/" + self.game_id)
        elif kind == "seek" and self.game_id is None:
            self._request(self.seek, "POST", "/api/board/seek", "time=%s&increment=%d" % self.arg)

    def _request(self, conn, method, path, body=None):
        head = "%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nUser-Agent: Reedchess\r\n" % (
            method, path, self.host_header, self.token)
        if body is not None:
            head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s" % (
                len(body), body)
        else:
            head += "\r\n"
        self.last[conn.kind] = self.now
        try:
            conn.request(self.addr, self.host, self.tls, head.encode())
        except OSError as exc:
            self._log("%s: cannot connect (%s)" % (conn.kind, exc.args[0] if exc.args else exc))
            self.on_end(conn, "connect")

    # ---- Conn's callbacks ----------------------------------------------------------------
    def on_status(self, conn):
        code = conn.status
        if code == 200:
            return
        if code == 401:
            self._fatal("Lichess refused the token (401): online token <token | file> "
                        "(a personal API token with the scope board:play)", "Token refused (401)")
            return
        if code == 429:
            self.pause_until = ticks_add(self.now, _RATE_MS)
            self._log("rate limited (429): no request for 60 s")
            self._say("Rate limit: wait")
            conn.keep = False  # the answer's body is not read; the retry comes later
            conn.close()
            if conn.kind == "call":
                self._request_next(retry=True)
            else:
                self.reopen[conn.kind] = self.pause_until
            return
        # another refusal: its body (the server's error) is read and logged in on_line
        conn.refused = code

    def on_line(self, conn):
        self.last[conn.kind] = self.now
        if not conn.n:
            return  # a keep-alive line
        try:
            obj = json.loads(bytes(conn.line[:conn.n]))
        except ValueError:
            self._log("%s: an answer that is not JSON: %r" % (conn.kind, bytes(conn.line[:min(conn.n, 40)])))
            return
        code = conn.refused
        if code:
            if conn.kind == "call" and self.calls:
                self._refused(self.calls[0], code, obj.get("error") if isinstance(obj, dict) else None)
            else:
                self._log("%s: %d %s" % (conn.kind, code, obj.get("error") if isinstance(obj, dict) else ""))
            return
        if conn.kind == "event":
            self._event(obj)
        elif conn.kind == "game":
            self.on_game_state(obj)
        elif conn.kind == "call" and self.calls and self.calls[0][3] == "account":
            self.username = obj.get("username") or obj.get("id") or "?"

    def on_end(self, conn, why):
        code = conn.refused
        conn.refused = 0
        if self.state == "off":
            return
        if isinstance(why, str) and why.startswith("certificate"):
            self._fatal("the server's %s (online.ca must hold the root certificate of %s)" % (
                why, self.host), "Certificate refused")
            return
        if conn.kind == "call":
            if why is not None and not code:
                self._log("request dropped (%s): again" % why)
                self._request_next(retry=True)
                return
            what = self.calls[0][3] if self.calls else None
            self._request_next(retry=False)
            if what == "account" and not code and self.username:
                self._signed_in()
            elif what == "account":
                self._fatal("cannot sign in (%d)" % code, "Sign-in failed")
            return
        if conn.kind == "game" and code == 404:
            self._fatal("game %s not found" % self.game_id, "Game not found")
            return
        self._dropped(conn, why)

    def _dropped(self, conn, why):
        kind = conn.kind
        if kind == "game" and self.ended:
            return  # the game is over: its stream closes for good
        if kind != "game" and self.game_id is not None:
            return  # the game is known: its stream is the only one needed
        if why is not None and kind == "game":
            self._log("game stream dropped: reconnecting")
            self._say("Reconnecting")
        self.reopen[kind] = ticks_add(self.now, _RETRY_MS)

    def _request_next(self, retry):
        if retry:
            if not self.calls:
                return
            self.call.close()  # the next try opens a fresh connection
            self.call_due = ticks_add(self.now, _RETRY_MS)
            return
        if self.calls:
            self.calls.pop(0)

    def _refused(self, call, code, text):
        method, path, body, what = call
        self._log("%s refused (%d): %s" % (what, code, text or ""))
        if what == "move":
            self.on_refused_move(path.rsplit("/", 1)[1])  # said, back to the server's position

    # ---- OnlineGame's hooks: the server's news -> the board, the board's lines -> calls -----------
    def to_board(self, words):
        """A line for features/online.py, carried out at once (as the bridge's console lines)."""
        try:
            self.app.controller.hold("online").run(self.app, words, self.now)
        except ValueError as exc:
            self._log("board: %s" % (exc,))

    def to_api(self, name, arg):
        base = "/api/board/game/%s/" % self.game_id
        if name == "move":
            self.calls.append(("POST", base + "move/" + arg, "", "move"))
        elif name == "takeback" or name == "draw":
            self.calls.append(("POST", base + name + ("/yes" if arg else "/no"), "", name))
        else:  # resign, abort
            self.calls.append(("POST", base + name, "", "resign"))

    def note(self, text):
        self._log(text)

    def board_line(self, line):
        """A line of features/online.py (what the bridge reads from serial)."""
        if self.game_id is not None:
            self.on_board_line(line)

    def _event(self, event):
        t = event.get("type")
        if t == "gameStart":
            game = event.get("game") or {}
            gid = game.get("gameId") or game.get("id")
            if self.game_id in (None, gid) and not (self.game.busy() or "game" in self.reopen):
                self.game_id = gid
                self.seek.close()
                self.events.close()  # the game's stream says all from here on
                self.reopen.pop("seek", None)
                self.reopen.pop("event", None)
                self._open("game")
        elif t == "challenge":
            chal = event.get("challenge") or {}
            dest = (chal.get("destUser") or {}).get("name")
            if (self.mode == "accept" and dest == self.username and chal.get("status") == "created"
                    and self.game_id is None):
                self._log("accepting the challenge of %s" % (chal.get("challenger") or {}).get("name"))
                self.calls.append(("POST", "/api/challenge/%s/accept" % chal.get("id"), "", "accept"))
        elif t == "challengeDeclined":
            self._say("Challenge declined")


def _tls_context(files):
    """An ssl context that checks the server's certificate against online.ca beside the journal
    (the root certificate, DER or PEM); without it https is refused (the token would go to
    whoever answers)."""
    import ssl

    ca = None
    try:
        f = files.open(files.name(CA_FILE), "rb")
        try:
            ca = f.read()
        finally:
            f.close()
    except OSError:
        pass
    if not ca:
        raise NetError("https needs the server's root certificate in %s (docs/online.md)" % CA_FILE)
    if ca.startswith(b"-----"):
        import binascii

        body = b"".join(x for x in ca.split(b"\n") if x and not x.startswith(b"-----"))
        ca = binascii.a2b_base64(body)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(cadata=ca)
    return ctx
