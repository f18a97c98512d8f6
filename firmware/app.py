"""The composition root: one chess computer = a board's hardware + engine + controller.

    import boards.pico as board
    from firmware import app
    app.main(board)                  # builds everything and runs the main loop forever

    a = App(hw, searcher, book=None, journal=None, ticks_ms=None)   # hw: boards.config.Hardware
    a.boot(now_ms)                   # first scan, resume the journal
    a.step(now_ms)                   # one main-loop pass (runs a search when one is due)

The modules of the controller are imported when the first App is built (main() allocates the
engine's tables before that, so they get contiguous room). What is rarely used lives in
firmware/features/ and is loaded on demand: the console's command handling (this module keeps
only a non-blocking line reader; features/feed.py, and features/console.py for the lines feed
does not know, are loaded when a line arrives and dropped after), the options menu,
statistics, PGN export, the mate trainer, touch-move, chess clocks.

The main loop is cooperative. `service(now_ms)` is one pass of everything that must stay
responsive: scan the reed switches, debounce, feed BoardSync with events and the debounced
occupancy, hand its verdicts and the button presses to the Controller, console input,
timeouts, LEDs, buzzer and display. When the engine has work (the computer's move, a hint,
pondering on the player's time), `step` runs `searcher.iterate` with a poll function that
calls the same `service` and returns True when the controller wants the search to stop
("move now", the player moved during pondering, new game, take back). The poll interval
adapts so a poll comes about every `poll_target_ms` (10 ms) of real time: it starts at one
node, halves when polls come too late and doubles when they come early, up to the board
config's `poll_nodes`. That keeps the sensor-to-LED reaction under 50 ms (debounce included)
on a chip that searches only a few hundred nodes per second, at the price of one service
pass (~2 ms) per poll; fast boards poll every `poll_nodes` nodes.
Nothing in `service` allocates while nothing happens on the board.

`ticks_ms` is the clock (compat.ticks_ms on a board; the simulator passes its simulated
clock); it is read once per pass. `work_nodes` counts every node searched so far (the
simulator turns it into device time).
"""
from firmware.compat import const, heap_figures, ticks_diff
from firmware.engine.position import Position
from firmware.engine.search import mate_in_moves
from firmware import loader

_TYPE_CHECKING = const(0)  # the names the field declarations use, for the type checker only
if _TYPE_CHECKING:
    from typing import Callable

    from boards.config import Hardware
    from firmware.controller.board_sync import BoardSync
    from firmware.controller.computer import Computer
    from firmware.controller.flow import Controller
    from firmware.controller.game import Game
    from firmware.controller.journal import Journal
    from firmware.controller.settings import Settings
    from firmware.controller.ui import Ui
    from firmware.engine.search import Searcher
    from firmware.features.sensor_log import SensorLog
    from firmware.io.buttons import Buttons
    from firmware.io.debounce import OccupancyDebouncer
    from firmware.io.matrix import ReedMatrix
    from firmware.io.mcp23017 import Mcp23017Sensors
    from firmware.io.shift165 import Shift165

POLL_TARGET_MS = 10
# While it builds and boots, main() collects the garbage after every this many bytes
# allocated (gc.threshold): garbage then never piles up between long-lived objects, which
# would split the free heap into pieces too small for the next 1 KB request (docs/memory.md).
# The main loop runs without it (features/boot.py, boot_app): a function call with many
# locals borrows its frame from the heap, and a threshold counts those bytes too - with
# 2 KB it set off a ~25 ms collection every fourth idle pass and every few dozen search
# nodes on an RP2040. There the garbage is collected at known moments instead: once the
# board has been quiet _QUIET_MS after a touch or press, before every search, after every
# console line (and by MicroPython itself when the heap is full).
GC_THRESHOLD_BYTES = 2048
_QUIET_MS = const(400)
_PASS_MS = const(4)  # the main loop's pace on a board (App.run): ~250 scans a second at most
_MIN_POLL_NODES = const(1)
_IDLE = const(0)  # copy of firmware.controller.board_sync.IDLE
_WORK_NONE = const(0)  # copy of firmware.controller.flow.WORK_NONE
_WORK_THINK = const(1)  # copy of firmware.controller.flow.WORK_THINK
_WORK_PONDER = const(2)  # copy of firmware.controller.flow.WORK_PONDER
_STOP_NONE = const(0)  # copy of firmware.controller.flow.STOP_NONE
_OOM_AGAIN_MS = const(10000)  # a second MemoryError within this: restart (App.out_of_memory)
_HEAP = const(1)  # copy of firmware.features.feed.HEAP: `mem`
_NOT_FEED = const(2)  # copy of firmware.features.feed.NOT_MINE: a line for the console
_NEW_GAME = const(3)  # copy of firmware.features.console._NEW_GAME: `new [FEN]`, its FEN checked
_BOOT = "firmware.features.boot"  # building and booting, loaded for them
_FAULTS = "firmware.features.faults"  # a device lost or back while playing: said, loaded for it


class App:
    """See the module docstring. Its state is declared here; features/boot.py's `init_app` sets
    it (that code runs once, so it does not stay in a board's heap)."""

    # -- the board
    hw: "Hardware"
    config: dict  # the board's CONFIG
    sensors: "ReedMatrix | Shift165 | Mcp23017Sensors"  # scan_into(bytearray(8))
    faults: list  # devices that do not answer now (boards/config.py), said once on the display
    _faults_seen: int  # len(faults) when they were last said
    buttons: "Buttons"
    button_names: tuple
    debouncer: "OccupancyDebouncer"
    raw: bytearray  # the last scan, 8 rank bytes
    # -- the chess computer
    sync: "BoardSync"
    game: "Game"
    searcher: "Searcher"
    computer: "Computer"
    settings: "Settings"
    ui: "Ui"
    journal: "Journal | None"
    controller: "Controller"
    _chord: int  # buttons whose next event belongs to a two-button "clock" chord
    # -- the outside world
    log: "Callable[[str], None] | None"
    sensor_log: "SensorLog | None"  # records every debounced event and press (replay)
    ticks_ms: "Callable[[], int]"
    console_in: "StdinReader | None"  # readline() -> a line or None (the USB serial; the simulator's own)
    link: object  # the e-board mode's serial link (features/eboard.py); None: the board's USB serial
    write: "Callable[[str], None]"  # prints a console answer
    fed: "bytearray | None"  # the console-fed occupancy (features/feed.py "feed"), else None
    node_cap: int  # console "nodes N": every search stops after N nodes (0: off)
    start_fen: "str | None"
    # -- the main loop
    now: int  # the pass's time (ms)
    work_nodes: int  # every node searched so far
    _seen_nodes: int
    max_poll_nodes: int  # the board's poll_nodes; the search's poll interval adapts below it
    poll_target_ms: int
    _last_poll_ms: int
    searches: int
    collect: "Callable[[], None] | None"  # gc.collect on a board (the constructor says when)
    _event_ms: "int | None"  # the last touch or press not yet followed by a quiet collection
    _oom_ms: "int | None"  # when the last MemoryError came (out_of_memory)
    pause: "Callable[[int], None] | None"  # time.sleep_ms on a board (run), else None

    def __init__(self, hw, searcher, book=None, journal=None, ticks_ms=None, console=None, write=None,
                 settings=None, start_fen=None, seed=0, log=None, poll_target_ms=POLL_TARGET_MS,
                 sensor_log=None, collect=None):
        """`settings` / `start_fen`: used when the journal holds none (a fresh unit).
        `collect`: gc.collect on a board (main() passes it), called before every search, after
        every console line and when the board goes quiet after a touch: the garbage goes, and
        what the next move keeps lands low in the heap instead of splitting the free room
        (fragmentation); None (the simulator): never.
        `sensor_log`: an optional features.sensor_log.SensorLog that records every debounced
        sensor event and button press (for replay in the simulator). `console`: an object whose
        readline() returns a line or None (the USB serial line), `write`: prints a console answer.
        The statistics live beside the journal (none without one)."""
        loader.call(_BOOT, "init_app", self, hw, searcher, book, journal, ticks_ms, console, write, settings, start_fen,
             seed, log, poll_target_ms, sensor_log, collect)

    # ---- start-up ---------------------------------------------------------------------------
    def boot(self, now_ms):
        """First scan (taken as the settled board) and resume from the journal: the start-up
        code lives in features/boot.py, loaded for it and released after."""
        loader.call(_BOOT, "boot_app", self, now_ms)

    # ---- the main loop ---------------------------------------------------------------------
    def service(self, now_ms):
        """One responsive pass (see the module docstring). Allocates nothing while idle."""
        self.now = now_ms
        deb = self.debouncer
        sync = self.sync
        c = self.controller
        fed = self.fed  # the console's fed occupancy (features/feed.py), else the reed switches
        if fed is None:
            self.sensors.scan_into(self.raw)
        else:
            raw = self.raw
            for i in range(8):
                raw[i] = fed[i]
        if len(self.faults) != self._faults_seen:  # a device stopped answering, or answers again
            loader.call(_FAULTS, "news", self, now_ms)  # loaded for the news, released after
        deb.update(self.raw, now_ms)
        ev = deb.pop()
        if ev >= 0:
            self._event_ms = now_ms
        while ev >= 0:
            cell = ev & 63
            kind = ev >> 6
            c.on_event(cell, kind)
            sync.event(cell, kind, deb.event_ms)
            if self.sensor_log is not None:
                self.sensor_log.sensor(cell, kind, deb.event_ms)
            ev = deb.pop()
        code = sync.update(deb.stable, now_ms)
        n = 0
        while code != _IDLE and n < 8:
            c.on_sync(code, now_ms)
            code = sync.update(deb.stable, now_ms)
            n += 1
        buttons = self.buttons
        buttons.poll(now_ms)
        ev = buttons.pop()
        if ev >= 0:
            self._event_ms = now_ms
        while ev >= 0:
            if self.sensor_log is not None:
                self.sensor_log.button(self.button_names[ev & 15], ev >> 4, buttons.event_ms)
            c.act("button_event", self, ev, now_ms)  # chords, then on_button (features/actions.py)
            ev = buttons.pop()
        if self._chord:
            for i in range(len(self.button_names)):
                if self._chord & (1 << i) and not buttons.is_pressed(i):
                    self._chord &= ~(1 << i)
        if c.eboard is not None:  # the serial link is the e-board protocol's (features/eboard.py)
            c.eboard.serve(self, now_ms)
        elif self.console_in is not None:
            line = self.console_in.readline()
            if line is not None:
                self.command(line, now_ms)
        c.tick(now_ms)
        self.ui.refresh(c, now_ms)
        self.ui.update(now_ms)
        # Not while a search runs (it waits for the search's end): a collection sends
        # MicroPython's allocator back to the heap's start, which the search's heap frames
        # then pay for (compat.fill_heap_holes).
        if self._event_ms is not None and not c.searching and ticks_diff(now_ms, self._event_ms) >= _QUIET_MS:
            self._event_ms = None
            if self.collect is not None:
                self.collect()

    def command(self, line, now_ms=0):
        """One console line: features/feed.py (the small test protocol: 2 KB) is loaded for
        it, and features/console.py (the rest: 5 KB) only if feed does not know the line;
        each is dropped after."""
        try:
            done = loader.call("firmware.features.feed", "handle", self, line, now_ms)
            if done == _NOT_FEED:
                done = loader.call("firmware.features.console", "handle", self, line, now_ms)
        finally:
            self.controller.tidy()
            if self.collect is not None:
                self.collect()
        if done == _HEAP:  # `mem`: the heap as the unit holds it at work, the feature code gone
            self.write("mem free=%d max_block=%d used=%d" % heap_figures())
        elif done == _NEW_GAME:  # with the console's code gone: the actions it loads need the room
            c = self.controller
            text = " ".join(line.split()[1:]) or None
            try:
                if text is not None:
                    Position(None, 2).load_fen(text)  # a bad FEN raises here, before the trainer is left
                c.leave_trainer(now_ms)
                c.new_game(now_ms, text)
            except (ValueError, OSError) as exc:  # as the console answered them (console.handle)
                self.write("error: %s" % (exc,))
                return
            self.write("ok")

    def step(self, now_ms):
        """One main-loop pass; runs the engine to the end of a search when one is due."""
        self.service(now_ms)
        work = self.controller.engine_work()
        if work != _WORK_NONE:
            self._engine(work)

    def run(self, booted=False):
        """Boot (unless main() did) and loop forever (the device's main). A MemoryError in the
        loop does not lose the game (the journal holds every move): see out_of_memory."""
        ticks = self.ticks_ms
        pause = self.pause
        if not booted:
            self.boot(ticks())
        while True:
            try:
                while True:
                    start = ticks()
                    self.step(start)
                    if pause is not None:
                        # a quiet pass takes ~2.4 ms on a Pico: sleep the rest of _PASS_MS (the
                        # chip idles instead of spinning; a search's passes take longer)
                        left = _PASS_MS - ticks_diff(ticks(), start)
                        if left > 0:
                            pause(left)
            except MemoryError:
                self.out_of_memory(ticks())

    def out_of_memory(self, now_ms):
        """After a MemoryError: drop the search, collect, say so on serial and the display,
        light the error pattern (the four corners), and go on with the game. A second one
        within _OOM_AGAIN_MS means the heap stays too full or split to go on (every command
        and search would fail, and the unit would seem dead): on a board the App then restarts
        MicroPython (machine.soft_reset), and main.py boots again with a clean heap and the
        journal's game, the LEDs guiding the board back to it. Elsewhere it goes on."""
        again = self._oom_ms is not None and ticks_diff(now_ms, self._oom_ms) < _OOM_AGAIN_MS
        self._oom_ms = now_ms
        if again:
            self.restart()
        c = self.controller
        c.searching = _WORK_NONE
        c.stop = _STOP_NONE
        c.ponder_hit = False
        self.controller.tidy()
        if self.collect is not None:
            self.collect()
        try:
            self.write("out of memory")
            c.say("out of memory", now_ms)
            c.show_errors((0, 7, 56, 63), ())
            self.ui.beep("error")
        except MemoryError:
            pass

    def restart(self):
        """Restart MicroPython on a board (Hardware.soft_reset_function: main.py runs again and
        the journal resumes the game); where it cannot (CPython, the unix port) do nothing."""
        find = getattr(self.hw, "soft_reset_function", None)
        reset = find() if find is not None else None
        if reset is None:
            return
        try:
            self.write("out of memory again: restarting (the journal keeps the game)")
        except MemoryError:
            pass
        reset()

    # ---- the engine -----------------------------------------------------------------------
    def _engine(self, work):
        c = self.controller
        comp = self.computer
        level = self.settings.level
        comp.set_level(level)
        if self.collect is not None:
            self.collect()
        from firmware.controller.flow import Outcome

        if work == _WORK_THINK:
            if self.settings.book and c.trainer is None:
                move = comp.book_move(self.game.position, level)
                if move:
                    c.search_started(work)
                    c.search_done(Outcome(move, book=True), self.now)
                    self.ui.refresh(c, self.now)
                    return
            pos = comp.prepare(self.game.position)
            limits = c.limits_for(level, self.now)
        elif work == _WORK_PONDER:
            if comp.is_analysis(level):
                c.ponder_tried = True
                return
            pos = comp.prepare(self.game.position, c.ponder_move)
            limits = c.limits_for(level, self.now, ponder=True)
        else:
            pos = comp.prepare(self.game.position)
            limits = comp.hint_limits(level)
        cap = self.node_cap
        if cap and (not limits.nodes or limits.nodes > cap):
            limits.nodes = cap
        c.search_started(work)
        self.searches += 1
        self._seen_nodes = 0
        self._last_poll_ms = self.now
        searcher = self.searcher
        for info in searcher.iterate(pos, limits, self._poll):
            c.search_info(info.score_cp, info.mate_in, info.depth, info.nodes, info.pv if work == _WORK_THINK else None)
        self._count_nodes(searcher)
        self.now = self.ticks_ms()  # the search took time: the result is known only now
        score = searcher.best_score
        mate_in = mate_in_moves(score)
        c.search_done(Outcome(searcher.best_move, searcher.ponder_move, None if mate_in is not None else score,
                              mate_in, searcher.done_depth), self.now)
        self.ui.refresh(c, self.now)  # show the answer now, not one pass later

    def _count_nodes(self, searcher):
        n = searcher.nodes
        self.work_nodes += n - self._seen_nodes
        self._seen_nodes = n

    def _poll(self, searcher):
        """The search's poll: one service pass; True stops the search."""
        self._count_nodes(searcher)
        now = self.ticks_ms()
        target = self.poll_target_ms
        if target:
            dt = ticks_diff(now, self._last_poll_ms)
            pn = searcher.poll_nodes
            if dt > target and pn > _MIN_POLL_NODES:
                pn = pn * target // dt
                searcher.poll_nodes = pn if pn > _MIN_POLL_NODES else _MIN_POLL_NODES
            elif dt * 2 < target and pn < self.max_poll_nodes:
                pn *= 2
                searcher.poll_nodes = pn if pn < self.max_poll_nodes else self.max_poll_nodes
        self.service(now)
        self._last_poll_ms = self.now
        c = self.controller
        if c.ponder_hit:
            c.ponder_hit = False
            searcher.ponderhit()
        return c.stop != _STOP_NONE


class StdinReader:
    """Non-blocking line reader on sys.stdin (USB serial on a board). readline() returns a
    complete line without its newline, or None."""

    def __init__(self):
        import select
        import sys

        self._stdin = sys.stdin
        self._poller = select.poll()
        self._poller.register(sys.stdin, select.POLLIN)
        self._buf = ""

    def readline(self):
        while True:
            # MicroPython's ipoll allocates nothing; poll() builds a list each call, and at one
            # call a pass (~63 bytes) that alone set off a 26 ms collection every ~75 ms on a Pico.
            for _ in self._poller.ipoll(0):
                break
            else:
                return None
            ch = self._stdin.read(1)
            if not ch:
                return None
            if ch in "\r\n":
                if self._buf:
                    line, self._buf = self._buf, ""
                    return line
            elif len(self._buf) < 200:
                self._buf += ch


def main(board_module, journal_path="/", book_path=None, sensor_log_path=None):
    """Build the chess computer for `board_module` (e.g. boards.pico), boot it and run it
    forever. The building and booting live in features/boot.py (see build there), released
    before the main loop starts."""
    import gc

    try:
        boot = loader.borrow(_BOOT)
        app = boot.build(board_module, journal_path, book_path, sensor_log_path)
        boot.boot_app(app, app.ticks_ms())
    except MemoryError:
        boot = app = None
        loader.release(_BOOT)
        gc.collect()
        print("Reedchess cannot start: out of memory (%d bytes free now). The saved game is kept on "
              "flash. Check that only Reedchess's files are on the board and that the board config "
              "fits (docs/memory.md)" % heap_figures()[0])
        return
    boot = None
    loader.release(_BOOT)
    gc.collect()
    app.run(booted=True)
