"""The chess computer in a web page: the firmware on a modelled board, under MicroPython's
WebAssembly port in a Web Worker (web_demo/worker.js runs this module; tools/web_demo.py builds
the site).

    demo = DemoBoard(board="pico", human="white", post=fn, take_mail=fn, ticks_ms=fn)
    demo.tick()                   # one main-loop pass of the firmware (a whole search when due)
    demo.command(7, "click e2")   # a line from the page, as `make sim-web` takes them

What runs is the same as in `make sim-web`: the board's real drivers (boards/config.py
build_hardware) on the simulator's electronics model and fake pins (host_sim/electronics.py,
host_sim/pins.py), the real App (firmware/app.py), and the person at the board is the
simulator's Table (host_sim/tui.py: lift, place, buttons, long presses, "do", moves, PGN).
Only the clock differs: the firmware reads real time (the page's performance.now through
`ticks_ms`), and the engine searches at the speed of MicroPython's bytecode on WebAssembly.

The worker is one thread and a search is one long call, so the page's touches reach the
firmware from inside the search's poll: DemoApp's poll asks `take_mail()` (worker.js: the
page's lines, read synchronously through the service worker's mailbox) before each service
pass, as a board's poll reads its reed switches. A touch needs no time; what a hand does over
time (a press held for a long press, the pause between two touches) runs service passes
until that much real time has passed (DemoBoard.run), never a nested search.

Every answer and state goes out through `post(json_text)`; a line that fails says why
({"ok": false, "error": ...}), and an exception inside the firmware is reported with its
traceback while the game goes on.
"""
import io
import json
import sys

from firmware.app import App
from firmware.controller.settings import BLACK, NOBODY, WHITE, Settings
from firmware.engine.fen import START_FEN
from firmware.engine.levels import DEFAULT_LEVEL
from firmware.features.boot import make_searcher
from host_sim.electronics import build_simulated
from host_sim.physical import cell_of
from host_sim.readout import FirmwareReadout
from host_sim.tui import Quit, Table

BOARDS = ("pico", "pico2", "esp32", "esp32s3")  # the boards whose drivers the page can show
SIDES = {"white": BLACK, "black": WHITE, "both": NOBODY}
STATE_EVERY_MS = 100  # the page gets a state at most this often (and after every line)
SEARCH_STATE_EVERY_MS = 400  # ... and while the engine thinks (decoding the display costs ~20 ms)
MAIL_EVERY_MS = 15  # the search's poll reads the page's lines at most this often


_rev = [0]  # the states' running number, across boards (the page draws no older state)


class DemoError(ValueError):
    """A bad choice from the page (unknown board or side)."""


class DemoApp(App):
    """The firmware's App; its search poll first hands the page's lines to the board."""

    demo = None
    fault = False  # set by the page's test hook: the next pass raises (an exception in the firmware)

    def service(self, now_ms):
        if self.fault:
            self.fault = False
            raise RuntimeError("a fault injected by the page (test hook)")
        App.service(self, now_ms)

    def _poll(self, searcher):
        self.demo.during_search()
        return App._poll(self, searcher)


class DemoBoard(FirmwareReadout):
    """The `sim` a host_sim Table drives (see host_sim/simulator.py for the same API on
    simulated time), here on real time and without threads."""

    def __init__(self, board="pico", human="white", level=None, seed=0, post=None, take_mail=None, ticks_ms=None):
        if board not in BOARDS:
            raise DemoError("unknown board %r (the page offers %s)" % (board, ", ".join(BOARDS)))
        if human not in SIDES:
            raise DemoError("you play white, black or both, not %r" % (human,))
        __import__("boards." + board)
        self.config = sys.modules["boards." + board].CONFIG
        self.board_name = board
        self.human = human
        self.start_fen = START_FEN
        self._post = post or (lambda text: None)
        self._take_mail = take_mail or (lambda: None)
        self.ticks = ticks_ms
        self.searching = False
        self._last_state_ms = None
        self._last_mail_ms = None
        self._releases = []  # [(name, at_ms)] buttons held by a press, released when due
        self.electronics, self.hw = build_simulated(self.config, clock=self.now_ms)
        for c in _start_cells():
            self.electronics.set_cell(c, True)
        searcher = make_searcher(self.config, clock_ms=ticks_ms, seed=seed)
        from firmware.engine.book import default_book_path, open_book_or_none

        book = open_book_or_none(default_book_path())
        settings = Settings(level=DEFAULT_LEVEL if level is None else level, computer_side=SIDES[human])
        self.console_lines = []
        self.app = DemoApp(self.hw, searcher, book=book, journal=None, ticks_ms=ticks_ms, console=None,
                           write=self.console_lines.append, settings=settings, seed=seed, log=None)
        self.app.demo = self
        self.controller = self.app.controller
        self.app.boot(ticks_ms())
        self._ram = None
        self._text = []
        self.table = DemoTable(self, config=self.config, human=human)

    # ---- the clock ------------------------------------------------------------------------
    def now_ms(self):
        return self.ticks()

    def run(self, ms):
        """What a hand's pause of `ms` is on the board: service passes for that long (real
        time), buttons released when due; never a search (see the module docstring)."""
        app = self.app
        start = self.ticks()
        now = start
        while True:
            self._release_due(now)
            app.service(now)
            now = self.ticks()
            if now - start >= ms:
                break

    def _release_due(self, now):
        if self._releases:
            for item in list(self._releases):
                if now - item[1] >= 0:
                    self._releases.remove(item)
                    self.electronics.release(item[0])

    # ---- the physical board (Table calls these) -------------------------------------------
    def lift(self, sq):
        self.electronics.set_cell(cell_of(sq), False)

    def place(self, sq, piece=None):
        self.electronics.set_cell(cell_of(sq), True)

    def press(self, name, long=False):
        """Press `name` and let go after a click (80 ms) or a long press (long_press_ms and a
        margin): the firmware sees it held that long, whatever else happens meanwhile."""
        self.electronics.press(name)
        held = self.config["long_press_ms"] + 100 if long else 80
        self._releases.append((name, self.ticks() + held))
        self.run(held + 20)

    # ---- what the firmware shows (lit, computer_move, game, fen, thinking_line, state: ----
    # ---- host_sim/readout.py, shared with host_sim.Simulator) ------------------------------
    def display_text(self):
        """The display's lines, decoded from its RAM again only when the RAM changed."""
        disp = self.electronics.display
        if disp is None:
            return []
        ram = bytes(disp.ram)
        if ram != self._ram:
            self._ram = ram
            self._text = disp.read_text()
        return self._text

    # ---- the worker's calls ---------------------------------------------------------------
    def tick(self):
        """One pass of the main loop: the page's lines, then the firmware (App.step: a
        search runs to its end inside, its poll taking the page's lines), then the state."""
        self._mail()
        now = self.ticks()
        self._release_due(now)
        t = self.table
        try:
            if t.auto and not t.busy() and self.computer_move():
                t.play(self.computer_move())
            self.searching = True
            try:
                self.app.step(now)
            finally:
                self.searching = False
        except MemoryError:
            self.app.out_of_memory(self.ticks())
        except Exception as exc:  # a firmware bug: shown on the page, the game goes on
            self.report(exc)
        self.post_state()

    def during_search(self):
        """From the search's poll: the page's lines (at most every MAIL_EVERY_MS), a state
        now and then, buttons let go when due."""
        now = self.ticks()
        self._release_due(now)
        if self._last_mail_ms is None or now - self._last_mail_ms >= MAIL_EVERY_MS:
            self._last_mail_ms = now
            self._mail()
        self.post_state(SEARCH_STATE_EVERY_MS)

    def _mail(self):
        text = self._take_mail()
        if not text:
            return
        for item in json.loads(text):
            self.command(item[0], item[1])

    def command(self, ident, line):
        """One line from the page (a Table command or `click`); posts the answer."""
        ok, reply = True, ""
        try:
            reply = self.table.execute(line, settle=False)  # `click` included (Table.click)
        except Quit:
            ok, reply = False, "close the browser tab to leave"
        except ValueError as exc:  # CommandError: what the person typed cannot be done
            ok, reply = False, str(exc)
        except MemoryError:
            self.app.out_of_memory(self.ticks())
            ok, reply = False, "out of memory"
        except Exception as exc:
            ok, reply = False, self.report(exc)
        self._send({"type": "reply", "id": ident, "ok": ok, "reply" if ok else "error": reply,
                    "state": self.snapshot()})

    def report(self, exc):
        """Say on the page that the firmware raised `exc` (with the traceback); returns the text."""
        buf = io.StringIO()
        try:
            sys.print_exception(exc, buf)
        except AttributeError:  # CPython (the tests run this module there too)
            import traceback

            traceback.print_exception(type(exc), exc, exc.__traceback__, file=buf)
        text = "the firmware raised %s: %s (the game goes on)" % (type(exc).__name__, exc)
        self._send({"type": "fault", "error": text, "traceback": buf.getvalue()})
        return text

    def snapshot(self):
        _rev[0] += 1
        snap = self.table.snapshot()
        snap["rev"] = _rev[0]
        snap["error"] = None
        return snap

    def post_state(self, every_ms=STATE_EVERY_MS):
        now = self.ticks()
        if self._last_state_ms is not None and now - self._last_state_ms < every_ms:
            return
        self._last_state_ms = now
        self._send({"type": "state", "state": self.snapshot()})

    def _send(self, obj):
        self._post(json.dumps(obj))


class DemoTable(Table):
    """host_sim's Table, its move list kept between states (it replays the game in SAN)."""

    _moves_for = None
    _moves = None

    def move_list(self):
        game = tuple(self.sim.game())
        if game != self._moves_for:
            self._moves = Table.move_list(self)
            self._moves_for = game
        return self._moves


def _start_cells():
    """The cells the start position occupies."""
    rows = START_FEN.split()[0].split("/")
    for i in range(8):
        f = 0
        for ch in rows[i]:
            if ch in "12345678":
                f += ord(ch) - 48
            else:
                yield (7 - i) * 8 + f
                f += 1
