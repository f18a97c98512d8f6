"""Start-up, used once and released (app.main loads it, App.boot too): build the chess
computer for a board (build), show the hardware faults, first scan and resume from the
journal (boot_app). Nothing here stays on the heap while the game runs.
"""
from firmware.compat import const, ticks_diff
from firmware.compat import ticks_ms as _ticks_ms
from firmware.app import GC_THRESHOLD_BYTES, App, StdinReader
from firmware.engine.search import MOVE_STACK, Searcher
from firmware.loader import borrow, call, drop_unused, release

_MIN_POLL_NODES = const(1)  # copy of firmware.app._MIN_POLL_NODES
_UNEXPLAINED_MS = const(3000)
_FAULT_PAUSE_MS = const(20)  # show_faults: between two updates of the corners (a fast blink is 128 ms on, 128 off)
_DEFAULT_GAME_PLIES = const(600)  # copy of firmware.controller.game.DEFAULT_GAME_PLIES
_BOOK = "firmware.engine.book"


def _game_plies(cfg):
    """The board config's game record size (plies)."""
    return cfg.get("game_plies") or _DEFAULT_GAME_PLIES


def init_app(self, hw, searcher, book, journal, ticks_ms, console, write, settings, start_fen, seed, log,
             poll_target_ms, sensor_log, collect):
    """App.__init__ (see there)."""
    from firmware.controller.board_sync import BoardSync
    from firmware.controller.computer import Computer
    from firmware.controller.flow import Controller
    from firmware.controller.game import Game
    from firmware.controller.settings import Settings
    from firmware.controller.ui import Ui

    cfg = hw.config
    self.hw = hw
    self.config = cfg
    self.sensors = hw.sensors
    faults = getattr(hw, "faults", None)
    self.faults = faults if faults is not None else []  # boot's show_faults says those there now
    self._faults_seen = len(self.faults)
    self.buttons = hw.buttons
    self.button_names = hw.buttons.names
    self.debouncer = hw.make_debouncer()
    self.raw = bytearray(8)
    self.sync = BoardSync(stable_ms=cfg["stable_ms"], unexplained_ms=cfg.get("unexplained_ms", _UNEXPLAINED_MS))
    self.game = Game(_game_plies(cfg))
    self.searcher = searcher
    self.computer = Computer(searcher, book, seed)
    self.settings = settings.copy() if settings is not None else Settings(level=self.computer.default_level())
    self.ui = Ui(hw.leds, hw.buzzer, hw.display, getattr(hw, "status", None))
    self.journal = journal
    self._chord = 0  # buttons whose next event belongs to a two-button "clock" chord
    self.log = log
    self.sensor_log = sensor_log
    self.controller = Controller(self.game, self.sync, self.settings, self.debouncer.stable, self.ui,
                                 journal, self.computer, log)
    self.ticks_ms = ticks_ms if ticks_ms is not None else _ticks_ms
    self.console_in = console
    self.link = None  # the e-board mode's serial link (features/eboard.py); None: the board's USB serial
    self.write = write if write is not None else print
    self.fed = None  # the console-fed occupancy, bytearray(8) (features/feed.py "feed"), else None
    self.node_cap = 0  # console "nodes N": every search stops after N nodes (0: off)
    self.start_fen = start_fen
    self.now = 0
    self.work_nodes = 0
    self._seen_nodes = 0
    self.max_poll_nodes = searcher.poll_nodes
    self.poll_target_ms = poll_target_ms
    if poll_target_ms:
        searcher.poll_nodes = _MIN_POLL_NODES  # start responsive; fast chips ramp up quickly
    self._last_poll_ms = 0
    self.searches = 0
    self.collect = collect
    self._event_ms = None  # the last touch or press not yet followed by a quiet collection
    self.pause = None  # build() sets time.sleep_ms on a board (App.run)
    self._oom_ms = None  # when the last MemoryError came (App.out_of_memory)


SELFTEST_BUTTON = "hint"  # held while switching on: the self-test (features/selftest.py)


def held_at_power_on(buttons, name):
    """Is button `name` pressed right now? One raw read: at power-on a held button is firmly
    closed. Active low (pull-up): pressed reads 0. When every button reads pressed, none is:
    the lines float low (no pull-ups, e.g. a board model without them, or buttons not wired)."""
    names = buttons.names
    if name not in names or buttons._get[names.index(name)]():
        return False
    for get in buttons._get:
        if get():
            return True  # another button reads released: this one is really held
    return False


def boot_app(self, now_ms):
    """App.boot: the self-test if *hint* is held (features/selftest.py), first scan (taken as
    the settled board) and resume from the journal."""
    if held_at_power_on(self.buttons, SELFTEST_BUTTON):
        call("firmware.features.selftest", "run", self.hw, self.ticks_ms, self.write)
        drop_unused("firmware.io.diagnostics")  # selftest's import: it goes with it
        now_ms = self.ticks_ms()
    self.now = now_ms
    self.sensors.scan_into(self.raw)
    self.debouncer.reset(self.raw, now_ms)
    saved = None
    if self.journal is not None:
        self.journal.scratch = self.game.position  # the journal replays into it (journal_rare)
        try:
            saved = self.journal.load()
        except OSError as exc:
            self.controller.journal_ok = False
            if self.log:
                self.log("journal unreadable: %s" % (exc,))
        finally:
            self.journal.scratch = None
    if saved is not None and saved.settings is not None:
        from firmware.controller.settings import Settings, SettingsError

        try:
            s = Settings.from_bytes(saved.settings)
            s.check(self.computer.level_count())
            self.settings.assign(s)
        except SettingsError:
            pass
    self.ui.sound = self.settings.sound
    if saved is not None and not saved.found:
        saved = None
    self.controller.boot(saved, now_ms, self.start_fen)
    self.ui.refresh(self.controller, now_ms)
    import gc

    if hasattr(gc, "threshold"):
        # The main loop runs without the allocation threshold build() set. A call of a
        # function with many locals takes its frame from the heap and gives it back at once;
        # the threshold counts those bytes too, and with a 2 KB threshold it set off a 26 ms
        # collection every fourth idle pass on a Pico and every few dozen nodes of a search.
        # Real garbage is collected when the board goes quiet, before every search and after
        # every console line (firmware/app.py), or when the heap is full.
        gc.threshold(-1)


# sys.platform of the MicroPython port each board's "mcu" runs
_PORTS = {"RP2040": "rp2", "RP2350": "rp2", "ESP32": "esp32", "ESP32-S3": "esp32", "ESP32S3": "esp32"}


def _board_stack_bytes(config):
    """The config's `stack_bytes` when this is the board's own MicroPython port (not the unix
    port of an emulated device, whose stack is another size), else 0."""
    import sys

    port = _PORTS.get(str(config.get("mcu", "")).upper())
    return (config.get("stack_bytes") or 0) if port and sys.platform == port else 0


def show_faults(hw, ticks_ms=_ticks_ms, write=print, ms=1500, pause=None):
    """Say once which devices did not answer (`hw.faults`, strings; none: nothing) on serial,
    on the display and as the error pattern on the LEDs (the four corners blinking fast) for
    `ms`; the unit plays on without them. `pause(ms)` (App.pause: time.sleep_ms on a board)
    sleeps between the LEDs' updates, so the chip waits instead of spinning. Returns the
    faults."""
    faults = getattr(hw, "faults", None) or ()
    if not faults:
        return faults
    write("faults: " + ", ".join(faults))
    try:
        if hw.display is not None:
            hw.display.show_text(("Hardware fault", faults[0][:21], "playing on", "", ""))
        from firmware.io.leds import BLINK_FAST, ERROR

        leds = hw.leds
        leds.show({0: BLINK_FAST | ERROR, 7: BLINK_FAST | ERROR, 56: BLINK_FAST | ERROR, 63: BLINK_FAST | ERROR})
        start = ticks_ms()
        now = start
        while ticks_diff(now, start) < ms:
            leds.update(now)
            if pause is not None:
                pause(_FAULT_PAUSE_MS)
            now = ticks_ms()
        leds.show({})
    except (OSError, AttributeError) as exc:
        write("fault display: %s" % (exc,))
    return faults


def make_searcher(config, clock_ms=None, seed=0, tt_entries=None, stack_bytes=0):
    """The board's Searcher: the config's `tt_entries` (or the one given), `poll_nodes` and
    `move_stack` (default search.MOVE_STACK); boards/config.py validates them. `stack_bytes`:
    the C stack of the port it runs on - build() passes the config's on the board itself; the
    simulator and the tests run on other ports and leave it 0 (unknown)."""
    return Searcher(tt_entries=tt_entries or config["tt_entries"], poll_nodes=config["poll_nodes"],
                    clock_ms=clock_ms, seed=seed, move_stack=config.get("move_stack") or MOVE_STACK,
                    stack_bytes=stack_bytes)


def build(board_module, journal_path="/", book_path=None, sensor_log_path=None):
    """Build the chess computer for `board_module` (e.g. boards.pico) and run it forever.

    The engine's tables (Searcher) are allocated first, right after the engine is imported,
    so they get contiguous room; then the drivers, the book, the journal and the controller.
    `sensor_log_path` (or the board config's "sensor_log" entry) turns on the sensor log: every
    debounced sensor event and button press is appended to that file, to be replayed with
    `python -m host_sim --replay FILE`."""
    import gc

    cfg = board_module.CONFIG
    if hasattr(gc, "threshold"):
        # "boot_gc_threshold": a board with room to spare collects less often while building (the
        # images, firmware/frozen_main.py: a collection every 2 KB was 80 % of their boot)
        gc.threshold(cfg.get("boot_gc_threshold") or GC_THRESHOLD_BYTES)
    gc.collect()
    searcher = make_searcher(cfg, stack_bytes=_board_stack_bytes(cfg))
    hw = board_module.make_hardware()
    cfg = hw.config
    from firmware.controller.journal import Journal
    book_module = borrow(_BOOK)  # the Computer borrows it per lookup (computer.py)
    book_path = book_path or book_module.default_book_path()
    book = book_module.open_book_or_none(book_path, print)  # checked once here; looked up on demand after
    book_module = None
    release(_BOOK)
    if book is not None:
        book.close()
        book = book_path
    journal = Journal(journal_path, plies=_game_plies(cfg) + 8)  # replayed into the game's room
    try:
        console = StdinReader()
    except (ImportError, OSError, AttributeError):
        console = None
    sensor_log = None
    log_path = sensor_log_path or cfg.get("sensor_log")
    if log_path:
        from firmware.features.sensor_log import open_sensor_log

        try:
            sensor_log = open_sensor_log(log_path, cfg.get("name", "board"), _ticks_ms())
        except (OSError, ValueError) as exc:
            print("sensor log off: %s" % (exc,))
    app = App(hw, searcher, book=book, journal=journal, console=console, log=print, sensor_log=sensor_log,
              collect=gc.collect)
    app.pause = _pause_function()
    show_faults(hw, pause=app.pause)
    gc.collect()
    return app


def _pause_function():
    """What App.run sleeps out the rest of a quiet pass with: time.sleep_ms on a board's own
    MicroPython port (the chip waits for an interrupt instead of spinning), None elsewhere (the
    unix port, CPython: their clocks are the simulator's and the tests')."""
    import sys

    if sys.platform not in _PORTS.values():
        return None
    import time

    return time.sleep_ms
