"""The Simulator: the real firmware on a simulated reed-switch board, driven by scripts.

    from host_sim import Simulator
    sim = Simulator(seed=0)            # start position on the board, firmware booted,
                                       # human plays White (human="black": the computer is White;
                                       # human="both": two-player mode, the computer referees)
    sim.lift("e2"); sim.place("e4")    # touches; the firmware sees them only by scanning its pins
    sim.run(500)                       # simulated milliseconds; the firmware main loop runs
    sim.press("hint"); sim.press("new", long=True)
    sim.lit()                          # {"e7": "on", "e5": "on"}: LEDs lit now ("on", "blink",
                                       # "blink-fast"), read from the board's LED driver
    sim.computer_move()                # "e7e5": the move the LEDs show and the firmware waits
                                       # to see executed, else None
    sim.game()                         # ["e2e4", ...]: the firmware's game record
    sim.fen()                          # the position the firmware believes is on the board

Extras: `play("e2e4", order=...)` (a person's lift/place sequence with timing, see
physical.py), `execute()` (carry out the computer's shown move), `wait_computer(max_ms)`,
`settle()`, `display_text()`, `state()`, `thinking_line()`, `console(line)` (the USB serial
console: "pgn", "fen", "new <FEN>" ...), `pgn()`, `board_fen()` (the physical pieces),
`hold(name)` / `release(name)`, `now_ms()`, `close()`; attributes `app`, `controller`,
`electronics`, `hw`, `flash`, `physical`, `config`.

How it runs: `build_hardware(config, FakePinFactory(electronics))` builds the board's real
drivers on modelled electronics; the real App (firmware/app.py) runs in a worker thread whose
clock is the simulated one (host_sim/clock.py): every main-loop pass and every searched node
costs the device's time, and the thread blocks until `run(ms)` grants that time. One thread
runs at a time, so a simulation is deterministic for a given seed. The journal lives in an
in-memory flash (host_sim/flash.py); pass `flash=` to boot on an existing one (power cuts).
"""
import importlib
import threading
import traceback

from firmware.app import App
from firmware.features.boot import make_searcher
from firmware.controller.journal import Journal
from firmware.controller.settings import BLACK, NOBODY, WHITE, Settings
from firmware.engine.fen import START_FEN
from firmware.engine.levels import DEFAULT_LEVEL
from host_sim.clock import SimClock, SimulatorClosed, device_speed
from host_sim.electronics import build_simulated
from host_sim.flash import FakeFlash, PowerCut
from host_sim.physical import PhysicalBoard, cell_of
from host_sim.readout import PATTERN_NAMES, FirmwareReadout  # noqa: F401 (PATTERN_NAMES: as before)

HAND_MS = 250  # pause between two touches of one move
BOOT_MS = 50
SIDES = {"white": BLACK, "black": WHITE, "both": NOBODY, "none": NOBODY}


class SimulatorError(RuntimeError):
    """The firmware thread died; the message holds its traceback."""


class Simulator(FirmwareReadout):
    def __init__(self, seed=0, human="white", board="pico", fen=None, level=None, flash=None, ponder=None,
                 book=True, pieces=None, bounce=0, settings=None, tt_entries=None, show_targets=None, pass_us=None,
                 sensor_log=None, held_at_boot=(), eboard=0, link=None):
        """`fen`: start a fresh game from this position (pieces set up accordingly);
        `level`: index into the level table (default: the firmware's default level);
        `flash`: a FakeFlash with a journal to resume from (its settings and game win);
        `ponder` / `show_targets`: override those options; `book`: False plays without the
        opening book; `pieces`: a FEN whose board field gives the physical pieces (default:
        `fen`, else the start position); `bounce`: contact bounces per touch; `pass_us`: the
        device time of one main-loop pass (default: the board's, see clock.py; a larger
        value simulates long idle stretches faster, more coarsely); `sensor_log`: a
        firmware.features.sensor_log.SensorLog the App writes every debounced event to;
        `held_at_boot`: buttons held down while the board is switched on (("hint",): the
        self-test), released with release(name); `eboard`: 1 (DGT) or 2 (Millennium) starts the
        board in that e-board mode (settings.eboard), `link` the serial link it speaks on
        (host_sim/eboard_link.py: a PtyLink or a PipeLink)."""
        if human not in SIDES:
            raise ValueError("human must be one of %s, got %r" % (", ".join(sorted(SIDES)), human))
        self.config = importlib.import_module("boards." + board).CONFIG
        self.board_name = board
        self.human = human
        self.seed = seed
        self.bounce = bounce
        self.start_fen = fen or START_FEN
        self.app = None
        nps, board_pass_us = device_speed(self.config)
        self.clock = SimClock(nps, pass_us or board_pass_us, work=self._work)
        self.electronics, self.hw = build_simulated(self.config, clock=self.clock.now_ms)
        self.physical = PhysicalBoard(pieces or fen)
        self._apply_occupancy()
        self.flash = flash if flash is not None else FakeFlash()
        journal = Journal("", open_fn=self.flash.open, fs=self.flash)
        searcher = make_searcher(self.config, clock_ms=self.clock.now_ms, seed=seed, tt_entries=tt_entries)
        book_obj = None
        if book:
            from firmware.engine.book import default_book_path, open_book_or_none

            book_obj = open_book_or_none(default_book_path())
        if settings is None:
            settings = Settings(level=DEFAULT_LEVEL if level is None else level, computer_side=SIDES[human])
            if ponder is not None:
                settings.ponder = ponder
            if show_targets is not None:
                settings.show_targets = show_targets
            settings.eboard = eboard
        self._console_in = []
        self.console_lines = []
        self.log_lines = []
        for name in held_at_boot:
            self.electronics.press(name)
        self.app = App(self.hw, searcher, book=book_obj, journal=journal, ticks_ms=self.clock.firmware_ticks,
                       console=self, write=self.console_lines.append, settings=settings, start_fen=fen, seed=seed,
                       log=self.log_lines.append, sensor_log=sensor_log)
        self.app.link = link  # before the firmware thread boots: the e-board mode claims it there
        self.controller = self.app.controller
        self.power_cut = None
        self._error = None
        self._thread = threading.Thread(target=self._firmware, name="reedchess-firmware", daemon=True)
        self._thread.start()
        self.run(BOOT_MS)

    # ---- the firmware thread ------------------------------------------------------------------
    def _work(self):
        return self.app.work_nodes if self.app is not None else 0

    def _firmware(self):
        try:
            self.app.run()
        except SimulatorClosed:
            pass
        except PowerCut as cut:
            self.power_cut = cut
        except BaseException:
            self._error = traceback.format_exc()
        finally:
            self.clock.firmware_done()

    def readline(self):
        """The console input the firmware polls (the USB serial line)."""
        return self._console_in.pop(0) if self._console_in else None

    def _check(self):
        if self._error is not None:
            raise SimulatorError("the firmware crashed:\n" + self._error)

    # ---- time -----------------------------------------------------------------------------------
    def run(self, ms):
        """Advance simulated time by `ms` milliseconds while the firmware runs."""
        self._check()
        if ms < 0:
            raise ValueError("cannot run backwards (%r ms)" % (ms,))
        if not self.clock.finished:
            self.clock.grant(ms)
        self._check()

    def now_ms(self):
        return self.clock.limit_us // 1000

    def settle(self, ms=None):
        """Run long enough for a touch sequence to count as a move (stable_ms + debounce)."""
        self.run(ms if ms is not None else self.config["stable_ms"] + 2 * self.config["debounce_ms"] + 120)

    def close(self):
        self.clock.close()
        self._thread.join(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- the physical board ---------------------------------------------------------------------
    def _apply_occupancy(self):
        occ = self.physical.occupancy()
        for c in range(64):
            self.electronics.set_cell(c, bool(occ[c >> 3] & (1 << (c & 7))))

    def _set(self, cell, occupied):
        self.electronics.set_cell(cell, occupied, bounces=self.bounce)

    def lift(self, sq):
        """Take the piece off square `sq` ("e2")."""
        cell = cell_of(sq)
        self.physical.lift(cell)
        self._set(cell, False)

    def place(self, sq, piece=None):
        """Put a piece on `sq`: the one in the hand, else `piece` (a FEN letter) or the last
        captured one."""
        cell = cell_of(sq)
        self.physical.place(cell, piece)
        self._set(cell, True)

    def arrange(self, board_fen):
        """Rearrange all pieces at once to a FEN's board field (e.g. to set up a new game)."""
        self.physical.arrange(board_fen)
        self._apply_occupancy()

    def board_fen(self):
        """The physical pieces as a FEN board field."""
        rows = []
        for rank in range(7, -1, -1):
            row = ""
            empty = 0
            for f in range(8):
                p = self.physical.pieces.get(rank * 8 + f)
                if p is None:
                    empty += 1
                else:
                    row += (str(empty) if empty else "") + p
                    empty = 0
            rows.append(row + (str(empty) if empty else ""))
        return "/".join(rows)

    def play(self, move, order="natural", hand_ms=HAND_MS, settle=True, path=()):
        """Carry out `move` (UCI) as a person would: each touch `hand_ms` apart, then wait
        until it counts (settle). `path`: squares a slid piece passes over (each briefly
        occupied on the way)."""
        steps = self.physical.plan(move, order)
        first = True
        for step in steps:
            if step[0] == "place" and path:
                for sq in path:
                    c = cell_of(sq)
                    self.run(hand_ms // 3)
                    self._set(c, True)
                    self.run(hand_ms // 3)
                    self._set(c, False)
            if step[0] in ("lift", "place") and not first:
                self.run(hand_ms)
            cell = self.physical.do(step)
            if cell is not None:
                self._set(cell, cell in self.physical.pieces)
                first = False
        if settle:
            self.settle()

    def execute(self, order="natural"):
        """Carry out the move the computer shows; returns it (None if it shows none)."""
        move = self.computer_move()
        if move is not None:
            self.play(move, order)
        return move

    def wait_computer(self, max_ms=600000, step_ms=100):
        """Run until the computer shows a move (returned) or the game ends / time runs out."""
        waited = 0
        while waited < max_ms:
            move = self.computer_move()
            if move is not None:
                return move
            if self.controller.game.over:
                return None
            self.run(step_ms)
            waited += step_ms
        return self.computer_move()

    # ---- buttons -----------------------------------------------------------------------------------
    def press(self, name, long=False):
        """Press and release a button (long: held past the board's long_press_ms)."""
        self.hold(name)
        self.run(self.config["long_press_ms"] + 100 if long else 80)
        self.release(name)
        self.run(60)

    def hold(self, name):
        self.electronics.press(name)

    def release(self, name):
        self.electronics.release(name)

    # ---- what the firmware shows (lit, computer_move, game, fen, thinking_line, state: readout.py)
    def display_text(self):
        """The display's lines as read back from its RAM ([] on boards without a display)."""
        disp = self.electronics.display
        return disp.read_text() if disp is not None else []

    def buzzer_tones(self):
        """[(time_ms, frequency_hz)] of every tone the buzzer started."""
        pwm = self.electronics.buzzer()
        if pwm is None:
            return []
        return [(t, f) for t, f, d in pwm.history if d and f]

    # ---- the serial console ------------------------------------------------------------------------
    def console(self, line, ms=20):
        """Send one line to the firmware's USB serial console; return what it printed."""
        start = len(self.console_lines)
        self._console_in.append(line)
        self.run(ms)
        return self.console_lines[start:]

    def pgn(self):
        """Every stored game and the current one as PGN text (through the console)."""
        return "\n".join(self.console("pgn"))
