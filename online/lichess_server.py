"""A local stand-in for the subset of the Lichess Board API that online/bridge.py uses, on
127.0.0.1, for tests without the internet (formats from lichess-org/api, doc/specs):

    GET  /api/account                              {"id", "username", ...}
    GET  /api/stream/event                         ndjson: gameStart, gameFinish, challenge,
                                                   challengeCanceled, challengeDeclined; an empty
                                                   line every `keepalive_s` (Lichess: 7 s)
    POST /api/board/seek                           form time (min), increment (s), color, rated:
                                                   a stream of empty lines until paired, then closed
    POST /api/challenge/{username}                 json or form: clock.limit (s), clock.increment,
                                                   color, rated -> {"id", "url", "status": "created", ...}
    POST /api/challenge/{id}/accept | /decline     {"ok": true}
    GET  /api/board/game/stream/{id}               ndjson: gameFull first, then gameState (moves,
                                                   wtime, btime, winc, binc, status, winner, wdraw,
                                                   bdraw, wtakeback, btakeback), chatLine,
                                                   opponentGone; closed when the game ends
    POST /api/board/game/{id}/move/{uci}           {"ok": true} | 400 {"error": ...}
    POST /api/board/game/{id}/resign | /abort      (abort: before both players moved)
    POST /api/board/game/{id}/draw/{yes|no}        offer / accept / decline
    POST /api/board/game/{id}/takeback/{yes|no}    propose / accept / decline
    POST /api/board/game/{id}/chat                 form room, text

Status codes as Lichess answers them: 401 {"error": "No such token"} without a known bearer
token, 404 {"error": "Not found"}, 400 {"error": ...} for a refused action, 429 {"error":
"Too many requests. Try again later."} when a test asks for it (`fail(path_part, 429)`).
Streams use chunked transfer encoding, one JSON object per chunk, as lichess.org does (a
client reads each line as it comes). Test hooks: `fail(path_part, status, times)`,
`drop_streams(username)` (closes that user's open streams mid-way), `act(...)` (a player's
action without HTTP), `challenge(...)`, `create_game(...)`, `game(id)`, `wait_for(predicate)`.

    server = LichessServer(); server.add_user("alice", "token-a"); server.start()
    berserk.Client(berserk.TokenSession("token-a"), base_url=server.url)
    ...
    server.stop()

Clocks run as on Lichess from each side's second move on (the first moves are free), the
increment is added after a move, a flag falls when a clock reaches zero (status outoftime).
Rules and game ends (mate, stalemate, insufficient material) come from python-chess.
"""
import json
import queue
import random
import string
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, unquote, urlsplit

import chess

from host_sim.http_server import QuietHTTPServer

_DROP = object()  # a stream's queue item: close the connection without the final chunk
_END = object()  # close the stream normally


def _new_id(rng, n=8):
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


class ServerGame:
    """One game on the server. Times in ms; `moves` UCI strings."""

    def __init__(self, game_id, white, black, limit_s, increment_s, rated=False, initial_fen="startpos"):
        self.id = game_id
        self.white = white
        self.black = black
        self.limit_ms = int(limit_s * 1000)
        self.inc_ms = int(increment_s * 1000)
        self.rated = rated
        self.initial_fen = initial_fen
        self.board = chess.Board() if initial_fen == "startpos" else chess.Board(initial_fen)
        self.moves = []
        self.wtime = self.limit_ms
        self.btime = self.limit_ms
        self.turn_start = time.monotonic()
        self.status = "started"
        self.winner = None
        self.wdraw = self.bdraw = False
        self.wtakeback = self.btakeback = False
        self.created_ms = int(time.time() * 1000)

    def color_of(self, user):
        return "white" if user == self.white else ("black" if user == self.black else None)

    def opponent(self, user):
        return self.black if user == self.white else self.white

    @property
    def over(self):
        return self.status not in ("created", "started")

    def clocks(self):
        """(wtime, btime) now: the side to move's clock runs once both sides have moved."""
        w, b = self.wtime, self.btime
        if not self.over and len(self.moves) >= 2:
            run = int((time.monotonic() - self.turn_start) * 1000)
            if self.board.turn == chess.WHITE:
                w = max(0, w - run)
            else:
                b = max(0, b - run)
        return w, b

    def state(self):
        w, b = self.clocks()
        out = {"type": "gameState", "moves": " ".join(self.moves), "wtime": w, "btime": b,
               "winc": self.inc_ms, "binc": self.inc_ms, "status": self.status}
        if self.winner:
            out["winner"] = self.winner
        for key in ("wdraw", "bdraw", "wtakeback", "btakeback"):
            if getattr(self, key):
                out[key] = True
        return out

    def full(self):
        def player(name):
            return {"id": name.lower(), "name": name, "title": None, "rating": 1500}

        return {"type": "gameFull", "id": self.id,
                "variant": {"key": "standard", "name": "Standard", "short": "Std"},
                "clock": {"initial": self.limit_ms, "increment": self.inc_ms},
                "speed": "rapid", "perf": {"name": "Rapid"}, "rated": self.rated,
                "createdAt": self.created_ms, "white": player(self.white), "black": player(self.black),
                "initialFen": self.initial_fen, "state": self.state()}

    def event_info(self, user):
        color = self.color_of(user)
        opp = self.opponent(user)
        info = {"fullId": self.id + "abcd", "gameId": self.id, "id": self.id, "fen": self.board.fen(),
                "color": color, "lastMove": self.moves[-1] if self.moves else "", "source": "lobby",
                "status": {"id": 20 if not self.over else 30, "name": self.status},
                "variant": {"key": "standard", "name": "Standard"}, "speed": "rapid", "perf": "rapid",
                "rated": self.rated, "hasMoved": len(self.moves) > (0 if color == "white" else 1),
                "opponent": {"id": opp.lower(), "username": opp, "rating": 1500},
                "isMyTurn": not self.over and (self.board.turn == chess.WHITE) == (color == "white"),
                "secondsLeft": (self.clocks()[0 if color == "white" else 1]) // 1000,
                "compat": {"bot": False, "board": True}}
        if self.winner:
            info["winner"] = self.winner
        return info


class LichessServer:
    def __init__(self, host="127.0.0.1", port=0, keepalive_s=7.0, seed=0):
        self.host = host
        self.port = port
        self.keepalive_s = keepalive_s
        self.rng = random.Random(seed)
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.tokens = {}  # token -> username
        self.users = {}  # username -> token
        self.games = {}
        self.challenges = {}
        self.seeks = []  # [username, time_min, inc_s, color, queue]
        self.event_streams = {}  # username -> [queue]
        self.game_streams = {}  # (game id, username) -> [queue]
        self.failures = []  # [path part, status, times left]
        self.requests = []  # (method, path, status) of every request (no headers: no tokens)
        self.chat = {}
        self._httpd = None
        self._threads = []
        self._stopping = threading.Event()

    # ---- set-up -------------------------------------------------------------------------
    def add_user(self, username, token):
        with self.lock:
            self.tokens[token] = username
            self.users[username] = token

    def start(self):
        handler = type("Handler", (_Handler,), {"server_obj": self})
        self._httpd = QuietHTTPServer((self.host, self.port), handler)
        self.port = self._httpd.server_address[1]
        for target in (self._httpd.serve_forever, self._flag_watch):
            t = threading.Thread(target=target, daemon=True, name="lichess-stand-in")
            t.start()
            self._threads.append(t)
        return self

    @property
    def url(self):
        return "http://%s:%d" % (self.host, self.port)

    def stop(self):
        self._stopping.set()
        with self.lock:
            for qs in list(self.event_streams.values()) + list(self.game_streams.values()):
                for q in qs:
                    q.put(_END)
            for seek in self.seeks:
                seek[4].put(_END)
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- test hooks -------------------------------------------------------------------------
    def fail(self, path_part, status, times=1):
        """The next `times` requests whose path contains `path_part` get `status` (429, 500...)."""
        with self.lock:
            self.failures.append([path_part, status, times])

    def drop_streams(self, username):
        """Close every open stream of `username` mid-way (no final chunk): a dropped connection."""
        with self.lock:
            for key, qs in list(self.game_streams.items()):
                if key[1] == username:
                    for q in qs:
                        q.put(_DROP)
            for q in self.event_streams.get(username, []):
                q.put(_DROP)

    def open_streams(self, username):
        with self.lock:
            n = len(self.event_streams.get(username, []))
            return n + sum(len(qs) for key, qs in self.game_streams.items() if key[1] == username)

    def game(self, game_id):
        return self.games.get(game_id)

    def wait_for(self, predicate, timeout=10.0):
        """Wait until predicate() (checked at every change) is true; returns its value."""
        end = time.monotonic() + timeout
        with self.changed:
            while True:
                value = predicate()
                if value:
                    return value
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the server never got there")
                self.changed.wait(min(left, 0.05))

    def act(self, username, game_id, action, arg=None):
        """A player's action without HTTP: ("move", uci), ("resign",), ("abort",), ("draw",
        "yes"|"no"), ("takeback", "yes"|"no"), ("chat", text). Returns (status, body)."""
        with self.lock:
            return self._game_action(username, game_id, action, arg)

    def challenge(self, username, dest, **params):
        """`username` challenges `dest` (params as the HTTP call's: clock.limit, color...)."""
        with self.lock:
            return self._challenge(username, dest, params)

    def create_game(self, white, black, limit_s=300, increment_s=0, rated=False, initial_fen="startpos"):
        with self.lock:
            gid = _new_id(self.rng)
            game = ServerGame(gid, white, black, limit_s, increment_s, rated, initial_fen)
            self.games[gid] = game
            for user in (white, black):
                self._event(user, {"type": "gameStart", "game": game.event_info(user)})
            self.changed.notify_all()
            return game

    # ---- events ---------------------------------------------------------------------------
    def _event(self, user, obj):
        for q in self.event_streams.get(user, []):
            q.put(obj)

    def _game_event(self, game, obj, users=None):
        for user in users or (game.white, game.black):
            for q in self.game_streams.get((game.id, user), []):
                q.put(obj)

    def _state_changed(self, game):
        self._game_event(game, game.state())
        if game.over:
            for user in (game.white, game.black):
                for q in self.game_streams.get((game.id, user), []):
                    q.put(_END)
                self._event(user, {"type": "gameFinish", "game": game.event_info(user)})
        self.changed.notify_all()

    def _finish(self, game, status, winner=None):
        game.wtime, game.btime = game.clocks()
        game.status = status
        game.winner = winner
        game.wdraw = game.bdraw = game.wtakeback = game.btakeback = False

    def _flag_watch(self):
        while not self._stopping.wait(0.05):
            with self.lock:
                for game in self.games.values():
                    if game.over:
                        continue
                    w, b = game.clocks()
                    if w <= 0 or b <= 0:
                        loser_white = w <= 0
                        self._finish(game, "outoftime", "black" if loser_white else "white")
                        self._state_changed(game)

    # ---- actions ---------------------------------------------------------------------------
    def _game_action(self, user, game_id, action, arg):
        game = self.games.get(game_id)
        if game is None:
            return 404, {"error": "Not found"}
        color = game.color_of(user)
        if color is None:
            return 404, {"error": "Not found"}
        if game.over:
            return 400, {"error": "This game is already over"}
        me = color[0]
        if action == "move":
            if (game.board.turn == chess.WHITE) != (color == "white"):
                return 400, {"error": "Not your turn, or game already over"}
            try:
                move = chess.Move.from_uci(arg)
            except ValueError:
                return 400, {"error": "Invalid UCI move: %s" % arg}
            if move not in game.board.legal_moves:
                return 400, {"error": "Illegal move %s" % arg}
            w, b = game.clocks()
            if len(game.moves) >= 1:
                if color == "white":
                    game.wtime = w + (game.inc_ms if len(game.moves) >= 2 else 0)
                else:
                    game.btime = b + (game.inc_ms if len(game.moves) >= 2 else 0)
            game.board.push(move)
            game.moves.append(arg)
            game.turn_start = time.monotonic()
            game.wtakeback = game.btakeback = False
            setattr(game, "wdraw" if me == "b" else "bdraw", False)  # a move declines the opponent's offer
            outcome = game.board.outcome()
            if outcome is not None:
                if outcome.termination == chess.Termination.CHECKMATE:
                    self._finish(game, "mate", color)
                elif outcome.termination == chess.Termination.STALEMATE:
                    self._finish(game, "stalemate")
                else:
                    self._finish(game, "draw")
        elif action == "resign":
            self._finish(game, "resign", "black" if me == "w" else "white")
        elif action == "abort":
            if len(game.moves) >= 2:
                return 400, {"error": "This game can no longer be aborted"}
            self._finish(game, "aborted")
        elif action == "draw":
            if arg not in ("yes", "no"):
                return 404, {"error": "Not found"}
            theirs = "bdraw" if me == "w" else "wdraw"
            if arg == "yes":
                if getattr(game, theirs):
                    self._finish(game, "draw")
                else:
                    setattr(game, me + "draw", True)
            else:
                setattr(game, theirs, False)
        elif action == "takeback":
            if arg not in ("yes", "no"):
                return 404, {"error": "Not found"}
            theirs = "btakeback" if me == "w" else "wtakeback"
            if arg == "yes":
                if getattr(game, theirs):
                    # take back the proposer's last move (and the reply to it)
                    proposer_white = theirs == "wtakeback"
                    n = 1 if (game.board.turn == chess.WHITE) != proposer_white else 2
                    for _ in range(min(n, len(game.moves))):
                        game.board.pop()
                        game.moves.pop()
                    game.turn_start = time.monotonic()
                    game.wtakeback = game.btakeback = False
                elif game.moves:
                    setattr(game, me + "takeback", True)
                else:
                    return 400, {"error": "No move to take back"}
            else:
                setattr(game, theirs, False)
        elif action == "chat":
            line = {"type": "chatLine", "room": "player", "username": user, "text": arg or ""}
            self._game_event(game, line)
            return 200, {"ok": True}
        else:
            return 404, {"error": "Not found"}
        self._state_changed(game)
        return 200, {"ok": True}

    def _challenge(self, user, dest, params):
        if dest not in self.users:
            return 404, {"error": "Not found"}
        cid = _new_id(self.rng)
        limit = int(params.get("clock.limit") or 300)
        inc = int(params.get("clock.increment") or 0)
        color = params.get("color") or "random"
        chal = {"id": cid, "url": "http://lichess.test/" + cid, "status": "created",
                "challenger": {"id": user.lower(), "name": user, "rating": 1500},
                "destUser": {"id": dest.lower(), "name": dest, "rating": 1500},
                "variant": {"key": "standard", "name": "Standard", "short": "Std"},
                "rated": str(params.get("rated")).lower() == "true", "speed": "rapid",
                "timeControl": {"type": "clock", "limit": limit, "increment": inc,
                                "show": "%d+%d" % (limit // 60, inc)},
                "color": color, "finalColor": color if color != "random" else "white",
                "perf": {"icon": "", "name": "Rapid"}}
        self.challenges[cid] = chal
        for u in (user, dest):
            self._event(u, {"type": "challenge", "challenge": chal, "compat": {"bot": False, "board": True}})
        self.changed.notify_all()
        return 200, chal

    def _accept(self, user, cid, accept):
        chal = self.challenges.get(cid)
        if chal is None or chal["destUser"]["name"] != user or chal["status"] != "created":
            return 404, {"error": "Not found"}
        challenger = chal["challenger"]["name"]
        if not accept:
            chal["status"] = "declined"
            self._event(challenger, {"type": "challengeDeclined", "challenge": chal})
            self.changed.notify_all()
            return 200, {"ok": True}
        chal["status"] = "accepted"
        tc = chal["timeControl"]
        white, black = (challenger, user) if chal["finalColor"] == "white" else (user, challenger)
        self.create_game(white, black, tc["limit"], tc["increment"], chal["rated"])
        return 200, {"ok": True}

    def _seek(self, user, params):
        """A new seek: paired with a waiting one of another user and the same clock, else queued.
        Returns the seek's queue."""
        q = queue.Queue()
        t = float(params.get("time") or 0)
        inc = int(params.get("increment") or 0)
        color = params.get("color") or "random"
        for other in self.seeks:
            if other[0] != user and other[1] == t and other[2] == inc:
                self.seeks.remove(other)
                first_white = other[3] != "black" and color != "white"
                white, black = (other[0], user) if first_white else (user, other[0])
                self.create_game(white, black, t * 60, inc, str(params.get("rated")).lower() == "true")
                other[4].put(_END)
                q.put(_END)
                return q
        self.seeks.append([user, t, inc, color, q])
        self.changed.notify_all()
        return q

    def _cancel_seek(self, q):
        with self.lock:
            self.seeks = [s for s in self.seeks if s[4] is not q]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_obj = None  # the LichessServer (set on a subclass by start())

    def log_message(self, fmt, *args):  # quiet: tests read server.requests instead
        pass

    # ---- plumbing ---------------------------------------------------------------------------
    def _send_json(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        s = self.server_obj
        with s.lock:
            s.requests.append((self.command, self.path.split("?")[0], status))

    def _params(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode() if n else ""
        if self.headers.get("Content-Type", "").startswith("application/json") and raw:
            try:
                return json.loads(raw)
            except ValueError:
                return {}
        q = parse_qs(raw)
        q.update(parse_qs(urlsplit(self.path).query))
        return {k: v[-1] for k, v in q.items()}

    def _user(self):
        auth = self.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else None
        return self.server_obj.tokens.get(token)

    def _failure(self, path):
        s = self.server_obj
        with s.lock:
            for f in s.failures:
                if f[0] in path and f[2] > 0:
                    f[2] -= 1
                    return f[1]
        return None

    def _stream(self, q, first=(), on_close=None):
        """ndjson over chunked transfer encoding until _END (final chunk) or _DROP (cut)."""
        s = self.server_obj
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with s.lock:
            s.requests.append((self.command, self.path.split("?")[0], 200))
        items = list(first)
        try:
            while True:
                if items:
                    item = items.pop(0)
                else:
                    try:
                        item = q.get(timeout=s.keepalive_s)
                    except queue.Empty:
                        item = None  # keep-alive: an empty line
                if item is _DROP:
                    self.close_connection = True
                    return
                if item is _END:
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    return
                data = (json.dumps(item) + "\n").encode() if item is not None else b"\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
        except OSError:
            self.close_connection = True
        finally:
            if on_close:
                on_close()

    # ---- requests ----------------------------------------------------------------------------
    def do_GET(self):
        self._route("GET")

    def do_POST(self):
        self._route("POST")

    def _route(self, method):
        s = self.server_obj
        path = unquote(urlsplit(self.path).path)
        params = self._params() if method == "POST" else {}
        status = self._failure(path)
        if status == 429:
            return self._send_json(429, {"error": "Too many requests. Try again later."})
        if status:
            return self._send_json(status, {"error": "Internal error"})
        user = self._user()
        if user is None:
            return self._send_json(401, {"error": "No such token"})
        parts = [p for p in path.split("/") if p]
        if method == "GET" and path == "/api/account":
            return self._send_json(200, {"id": user.lower(), "username": user, "perfs": {}})
        if method == "GET" and path == "/api/stream/event":
            return self._event_stream(user)
        if method == "POST" and path == "/api/board/seek":
            with s.lock:
                q = s._seek(user, params)
            return self._stream(q, on_close=lambda: s._cancel_seek(q))
        if parts[:2] == ["api", "challenge"] and len(parts) == 3 and method == "POST":
            with s.lock:
                return self._send_json(*s._challenge(user, parts[2], params))
        if parts[:2] == ["api", "challenge"] and len(parts) == 4 and parts[3] in ("accept", "decline"):
            with s.lock:
                return self._send_json(*s._accept(user, parts[2], parts[3] == "accept"))
        if method == "GET" and parts[:4] == ["api", "board", "game", "stream"] and len(parts) == 5:
            return self._game_stream(user, parts[4])
        if method == "POST" and parts[:3] == ["api", "board", "game"] and len(parts) >= 5:
            arg = parts[5] if len(parts) > 5 else None
            if parts[4] == "chat":
                arg = params.get("text", "")
            with s.lock:
                return self._send_json(*s._game_action(user, parts[3], parts[4], arg))
        return self._send_json(404, {"error": "Not found"})

    def _event_stream(self, user):
        s = self.server_obj
        q = queue.Queue()
        with s.lock:
            # Lichess: only one event stream per token; the previous one is closed
            for old in s.event_streams.get(user, []):
                old.put(_END)
            s.event_streams[user] = [q]
            first = [{"type": "gameStart", "game": g.event_info(user)} for g in s.games.values()
                     if not g.over and g.color_of(user)]
            first += [{"type": "challenge", "challenge": c, "compat": {"bot": False, "board": True}}
                      for c in s.challenges.values() if c["status"] == "created"
                      and user in (c["destUser"]["name"], c["challenger"]["name"])]
            s.changed.notify_all()

        def closed():
            with s.lock:
                qs = s.event_streams.get(user, [])
                if q in qs:
                    qs.remove(q)
                s.changed.notify_all()

        self._stream(q, first, closed)

    def _game_stream(self, user, game_id):
        s = self.server_obj
        with s.lock:
            game = s.games.get(game_id)
            if game is None or not game.color_of(user):
                return self._send_json(404, {"error": "Not found"})
            q = queue.Queue()
            first = [game.full()]
            if game.over:
                q.put(_END)  # "the server closes the stream ... if the game has already ended"
            s.game_streams.setdefault((game_id, user), []).append(q)
            s.changed.notify_all()

        def closed():
            with s.lock:
                qs = s.game_streams.get((game_id, user), [])
                if q in qs:
                    qs.remove(q)
                s.changed.notify_all()

        self._stream(q, first, closed)


def main(argv=None):
    """Run the stand-in by hand: python -m online.lichess_server --port 18700 --user alice:tokA --user bob:tokB"""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--port", type=int, default=18700)
    ap.add_argument("--user", action="append", default=[], help="name:token (repeat)")
    args = ap.parse_args(argv)
    server = LichessServer(port=args.port)
    for spec in args.user or ["alice:token-alice", "bob:token-bob"]:
        name, _, token = spec.partition(":")
        server.add_user(name, token)
    server.start()
    print("Lichess stand-in on %s (users: %s)" % (server.url, ", ".join(server.users)))
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
