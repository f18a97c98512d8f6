"""The USB bridge: a Reedchess board's serial console <-> a Lichess account (Board API, berserk).

    python -m online.bridge --port /dev/ttyACM0 --seek 10+0        # a real board, a public seek
    python -m online.bridge --port /dev/ttyACM0 --challenge NAME 5+3
    python -m online.bridge --port /dev/ttyACM0 --accept           # wait for a challenge
    python -m online.bridge --sim --seek 10+0                      # the simulator as the board
    make online ARGS="--port /dev/ttyACM0 --seek 10+0"

The token: REEDCHESS_LICHESS_TOKEN or --token-file FILE (a personal API token with the
board:play scope). It is sent only in the Authorization header; every line this program
prints or logs passes `Redactor`, and nothing of it goes to the board (docs/online.md).

How it works (the board's side: firmware/features/online.py): Lichess's event stream tells
when a game starts; the game's stream gives the moves, clocks, offers and the end. What they
mean for the board is firmware/features/online_state.py's OnlineGame (the board's own Wi-Fi
client uses the same): every
server state is compared with what the board holds (`board_moves`): the difference is sent
as `online moves <from> ...` (the board lights one new opponent's move like the computer's,
or guides the pieces to the server's position after a take back or a reconnection), the
clocks as `online clock`, offers as `online offer`, the end as `online end`. The board's own
lines (`online played e2e4 1`, `online draw`, `online takeback 4`, `online decline`,
`online resign`, `online left`) become Board API calls.

Network: the blocking streams run in threads and put what they read on one queue; calls
(moves, offers) run one at a time in a worker thread, so `step()` never waits for the net.
A dropped stream is opened again (the game's state comes back in full: nothing is lost),
429 pauses every request for `rate_wait_s` (Lichess asks for a minute), 401 stops with a
message about the token, a move the server refuses is said on the display and the board is
guided back to the server's position.
"""
import argparse
import os
import queue
import sys
import threading
import time

from firmware.features.online_state import OnlineGame

TOKEN_ENV = "REEDCHESS_LICHESS_TOKEN"
LICHESS_URL = "https://lichess.org"


class BridgeError(RuntimeError):
    """Something the bridge cannot go on without (no token, token refused, no board)."""


def read_token(token_file=None, environ=None):
    """The token from `token_file` (first line) or $REEDCHESS_LICHESS_TOKEN; BridgeError if none."""
    environ = os.environ if environ is None else environ
    if token_file:
        try:
            with open(token_file) as f:
                token = f.readline().strip()
        except OSError as exc:
            raise BridgeError("cannot read the token file %s: %s" % (token_file, exc.strerror)) from None
    else:
        token = environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise BridgeError("no Lichess token: set %s or pass --token-file FILE (a personal API token "
                          "with the board:play scope, https://lichess.org/account/oauth/token)" % TOKEN_ENV)
    return token


class Redactor:
    """Prints (or hands to `out`) log lines with the token replaced by '***'."""

    def __init__(self, token, out=None):
        self.token = token
        self.out = out or (lambda text: print(text, flush=True))

    def __call__(self, text):
        text = str(text)
        if self.token:
            text = text.replace(self.token, "***")
        self.out(text)


def make_client(token, base_url=None):
    import berserk

    session = berserk.TokenSession(token)
    return berserk.Client(session, base_url=base_url or LICHESS_URL)


def _status_code(exc):
    return getattr(exc, "status_code", None)


class Bridge(OnlineGame):
    """One board, one account. Drive it with step() (or run()); it plays one game and is
    `done` when the player leaves the finished game (button `new`). What a server state means
    for the board, and a board's line for the server: OnlineGame (firmware/features/online_state.py,
    the board's own Wi-Fi client uses the same)."""

    def __init__(self, client, link, log=print, seek=None, challenge=None, accept=True, rate_wait_s=60.0,
                 retry_s=2.0, game_id=None):
        """`seek`: (minutes, increment s) for a public seek; `challenge`: (username, minutes,
        increment s); `accept`: accept incoming challenges; `game_id`: join a running game."""
        OnlineGame.__init__(self, game_id)
        self.client = client
        self.link = link
        self.log = log
        self.seek = seek
        self.challenge = challenge
        self.accept = accept
        self.rate_wait_s = rate_wait_s
        self.retry_s = retry_s
        self.events = queue.Queue()  # (kind, payload) from the threads
        self.calls = queue.Queue()  # (name, args) for the worker
        self.stopping = threading.Event()
        self.pause_until = 0.0  # after a 429: no request before this (time.monotonic())
        self.done = False
        self.error = None
        self._threads = []
        self._game_thread = None
        self.board_lost = None  # time.monotonic() of the last try while the board is away

    # ---- start and stop ------------------------------------------------------------------
    def start(self):
        try:
            account = self._call(self.client.account.get)
        except Exception as exc:
            if _status_code(exc) == 401:
                raise BridgeError("Lichess refused the token (401): check %s / --token-file and that "
                                  "the token has the board:play scope" % TOKEN_ENV) from None
            raise BridgeError("cannot reach Lichess: %s" % (exc,)) from None
        self.username = account["username"]
        self.log("signed in as %s" % self.username)
        self._thread(self._event_loop, "events")
        self._thread(self._worker, "calls")
        if self.game_id:
            self._watch_game(self.game_id)
        elif self.challenge:
            user, minutes, inc = self.challenge
            self.calls.put(("challenge", (user, minutes, inc)))
        elif self.seek:
            self._thread(self._seek_loop, "seek")
        return self

    def stop(self):
        self.stopping.set()
        self.calls.put(None)

    def run(self, poll_s=0.02):
        """Until the game is over and left on the board (or stop())."""
        while not self.done and not self.stopping.is_set():
            self.step()
            time.sleep(poll_s)

    def _thread(self, target, name, *args):
        t = threading.Thread(target=target, args=args, daemon=True, name="bridge-" + name)
        t.start()
        self._threads.append(t)
        return t

    # ---- network threads -------------------------------------------------------------------
    def _wait_pause(self):
        while not self.stopping.is_set():
            left = self.pause_until - time.monotonic()
            if left <= 0:
                return
            self.stopping.wait(min(left, 0.5))

    def _call(self, fn, *args):
        self._wait_pause()
        return fn(*args)

    def _failed(self, what, exc):
        """A request failed: 429 pauses everything; returns True when it is worth retrying."""
        code = _status_code(exc)
        if code == 429:
            self.pause_until = time.monotonic() + self.rate_wait_s
            self.events.put(("say", "Rate limit: wait"))
            self.log("%s: rate limited (429), waiting %.0f s" % (what, self.rate_wait_s))
            return True
        if code == 401:
            self.events.put(("fatal", "Lichess refused the token (401)"))
            return False
        if code is not None and 400 <= code < 500:
            return False
        self.log("%s: %s" % (what, exc))
        return True

    def _event_loop(self):
        while not self.stopping.is_set():
            try:
                for event in self._call(self.client.board.stream_incoming_events):
                    if self.stopping.is_set():
                        return
                    self.events.put(("event", event))
                self.log("event stream closed")
            except Exception as exc:
                if not self._failed("event stream", exc):
                    return
            self.stopping.wait(self.retry_s)

    def _seek_loop(self):
        minutes, inc = self.seek
        while not self.stopping.is_set() and self.game_id is None:
            try:
                self.log("seeking a %s+%d game" % (minutes, inc))
                self._call(self.client.board.seek, minutes, inc)
                return  # closed: paired (the event stream brings gameStart) or expired
            except Exception as exc:
                if not self._failed("seek", exc):
                    self.events.put(("say", "Seek refused"))
                    return
            self.stopping.wait(self.retry_s)

    def _game_loop(self, game_id):
        """The game's stream, opened again after a drop until the game is over."""
        over = False
        while not self.stopping.is_set():
            try:
                for state in self._call(self.client.board.stream_game_state, game_id):
                    self.events.put(("game", state))
                    status = (state.get("state") or state).get("status")
                    over = over or status not in (None, "created", "started")
                self.events.put(("game_closed", game_id))
                if over:
                    return
            except Exception as exc:
                self.events.put(("game_dropped", game_id))
                if not self._failed("game stream", exc):
                    return
            if self.stopping.wait(self.retry_s):
                return

    def _worker(self):
        board = self.client.board
        while True:
            item = self.calls.get()
            if item is None:
                return
            name, args = item
            while not self.stopping.is_set():
                try:
                    if name == "move":
                        self._call(board.make_move, self.game_id, args)
                    elif name == "draw":
                        self._call(board.handle_draw_offer, self.game_id, args)
                    elif name == "takeback":
                        self._call(board.handle_takeback_offer, self.game_id, args)
                    elif name == "resign":
                        self._call(board.resign_game, self.game_id)
                    elif name == "abort":
                        self._call(board.abort_game, self.game_id)
                    elif name == "accept":
                        self._call(self.client.challenges.accept, args)
                    elif name == "challenge":
                        user, minutes, inc = args
                        self._call(self.client.challenges.create, user, False, int(minutes * 60), inc)
                    self.events.put(("done", (name, args)))
                    break
                except Exception as exc:
                    if not self._failed(name, exc):
                        self.events.put(("refused", (name, args, str(exc))))
                        break
                    self.stopping.wait(self.retry_s if _status_code(exc) != 429 else 0)

    def _watch_game(self, game_id):
        if self._game_thread is not None and self._game_thread.is_alive():
            return
        self.game_id = game_id
        self._game_thread = self._thread(self._game_loop, "game", game_id)

    # ---- the main loop's step --------------------------------------------------------------
    def step(self):
        """Read the board's lines and the network's news, act on them. Never blocks long.
        A board that goes away (unplugged: OSError) is opened again every `retry_s` and set
        up again from the server's state; the network side goes on meanwhile."""
        if self.board_lost is not None:
            self._reopen_board()
        if self.board_lost is None:
            try:
                lines = self.link.poll()
            except OSError as exc:
                self._lose_board(exc)
                lines = ()
            for line in lines:
                self._board_line(line)
        while True:
            try:
                kind, payload = self.events.get_nowait()
            except queue.Empty:
                break
            self._network(kind, payload)

    def _send(self, line):
        if self.board_lost is not None:
            return  # set up in full when it is back
        try:
            self.link.send(line)
        except OSError as exc:
            self._lose_board(exc)

    def _lose_board(self, exc):
        self.log("board lost: %s (trying again every %.0f s)" % (exc, self.retry_s))
        self.board_lost = time.monotonic()

    def _reopen_board(self):
        if time.monotonic() - self.board_lost < self.retry_s:
            return
        self.board_lost = time.monotonic()
        try:
            reopen = getattr(self.link, "reopen", None)
            if reopen is not None:
                reopen()
            self.link.poll()
        except OSError:
            return
        self.board_lost = None
        self.log("board back")
        self.board_again()

    def _board_line(self, line):
        words = line.split()
        if not words:
            return
        if words[0] == "error:":
            self.log("board: %s" % line)
            if "no online game" in line and self.color is not None:
                self.board_again()  # the board restarted: set it up again
            return
        if self.on_board_line(line) == "left":
            self.done = True

    # ---- OnlineGame's hooks ------------------------------------------------------------------
    def to_board(self, words):
        self._send("online " + " ".join(words))

    def to_api(self, name, arg):
        self.calls.put((name, arg))

    def note(self, text):
        self.log(text)

    def board_end(self, state):
        if OnlineGame.board_end(self, state) == "*":
            self.done = True

    def board_again(self):
        """The board lost what it knew (unplugged, restarted): set it up in full again."""
        self.board_moves = None
        if self.color is not None:
            self.board_start()
            self.board_sync()
            if self.result_words is not None:
                self.to_board(self.result_words)

    def _network(self, kind, payload):
        if kind == "event":
            self._event(payload)
        elif kind == "game":
            self.on_game_state(payload)
        elif kind == "say":
            if self.color is not None:
                self._send("online say " + payload)
        elif kind == "refused":
            name, args, text = payload
            self.log("%s refused: %s" % (name, text))
            if name == "move":
                self.on_refused_move(args)  # said, the board goes back to the server's position
        elif kind == "game_dropped":
            self.log("game stream dropped: reconnecting")
            if self.color is not None and not self.ended:
                self._send("online say Reconnecting")
        elif kind == "fatal":
            self.error = payload
            self.log(payload)
            self.stop()

    def _event(self, event):
        t = event.get("type")
        if t == "gameStart":
            game = event["game"]
            gid = game.get("gameId") or game.get("id")
            if self.game_id in (None, gid):
                self.log("game %s starts, you play %s against %s" % (
                    gid, game.get("color"), (game.get("opponent") or {}).get("username", "?")))
                self._watch_game(gid)
        elif t == "challenge":
            chal = event["challenge"]
            dest = (chal.get("destUser") or {}).get("name")
            if self.accept and dest == self.username and chal.get("status") == "created" and self.game_id is None:
                self.log("accepting the challenge of %s" % chal["challenger"]["name"])
                self.calls.put(("accept", chal["id"]))
        elif t == "challengeDeclined":
            self.log("challenge declined")
            self.done = True
        elif t == "gameFinish":
            pass  # the game's stream brings the final state (also after a reconnection)


def _clock_arg(text):
    minutes, _, inc = text.partition("+")
    return float(minutes), int(inc or 0)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m online.bridge",
                                 description="Play on Lichess with a Reedchess board.")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", help="the board's USB serial port (e.g. /dev/ttyACM0)")
    where.add_argument("--sim", action="store_true",
                       help="the simulator as the board (type moves: e2e4, do, press NAME)")
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--seek", metavar="MIN+INC", help="a public seek, e.g. 10+0")
    what.add_argument("--challenge", nargs=2, metavar=("USER", "MIN+INC"), help="challenge a player")
    what.add_argument("--game", metavar="ID", help="go on with a running game")
    ap.add_argument("--accept", action="store_true",
                    help="accept incoming challenges (default without --seek/--challenge)")
    ap.add_argument("--token-file", help="file holding the token (else $%s)" % TOKEN_ENV)
    ap.add_argument("--server", default=LICHESS_URL, help="API base URL (the local stand-in: http://127.0.0.1:18700)")
    ap.add_argument("--board", default="pico", help="the simulated board (with --sim)")
    args = ap.parse_args(argv)
    try:
        token = read_token(args.token_file)
    except BridgeError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    log = Redactor(token)
    sim = None
    if args.sim:
        from host_sim import Simulator
        from online.links import SimLink

        sim = Simulator(board=args.board, human="both")
        link = SimLink(sim)
    else:
        from online.links import LinkError, SerialLink

        try:
            link = SerialLink(args.port)
        except LinkError as exc:
            log("error: %s" % exc)
            return 2
    bridge = Bridge(make_client(token, args.server), link, log=log,
                    seek=_clock_arg(args.seek) if args.seek else None,
                    challenge=(args.challenge[0],) + _clock_arg(args.challenge[1]) if args.challenge else None,
                    accept=args.accept or not (args.seek or args.challenge), game_id=args.game)
    try:
        bridge.start()
    except BridgeError as exc:
        log("error: %s" % exc)
        return 2
    if sim is not None:
        _sim_console(bridge, sim, log)
    try:
        bridge.run()
    except KeyboardInterrupt:
        log("stopped (the game goes on at lichess.org)")
    finally:
        bridge.stop()
        link.close()
    return 1 if bridge.error else 0


def _sim_console(bridge, sim, log):
    """--sim: a thread reads moves and buttons from stdin for the simulated board."""
    link = bridge.link

    def loop():
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            with link.lock:
                if words[0] == "do":
                    sim.execute()
                elif words[0] == "press" and len(words) > 1:
                    sim.press(words[1], long=len(words) > 2)
                elif len(words[0]) in (4, 5):
                    sim.play(words[0])
                log(" | ".join(sim.display_text() or ()))

    threading.Thread(target=loop, daemon=True).start()
    log("simulated board: type a move (e2e4), do (make the opponent's lit move), press NAME [long]")


if __name__ == "__main__":
    sys.exit(main())
