"""Memory probe: a whole engine-vs-engine game on a board's configuration with the heap
measured. Runs under MicroPython and CPython; tests/test_memory.py and bench/memory.py run it.

    from tests.memory_probe import MemoryGame, TOP_LEVEL
    g = MemoryGame("pico", TOP_LEVEL, node_cap=600, journal_dir="/tmp/j")  # harness only
    g.reserve(210 * 1024)   # MicroPython: ballast, so exactly this much heap is left, contiguous
    g.build()               # the device side: drivers, Searcher, book, journal, App; boot
    r = g.run()             # plays to the end: moves, result, heap figures
    d = g.deep_search(23400)  # then one full-length top-level search in the same heap

Who owns which bytes. Everything the *test harness* needs is allocated before `reserve`:
the model of the board's electronics (host_sim.electronics) with every fake pin and device
(made in advance by PrebuiltFactory: on a board machine.Pin objects are static and cost no
heap), the physical board, and the opponent - a second engine with a small Searcher of its
own that decides the human side's moves and plays them as lifts and placements on the
simulated reed switches. Everything the *device* allocates comes after it: the board's real
io drivers, the Searcher with the board's `tt_entries`, the opening book, the journal, the
App with controller and board sync, and all garbage of the game. With `reserve(n)` the
device side gets exactly n bytes, as on a board with n bytes free after boot and its
firmware's bytecode frozen in flash (see docs/memory.md).

The computer plays Black through the controller at `level` with pondering, book and journal
on. `node_cap` caps every search's nodes without changing anything else of the level (its
time limit, the board's transposition table, the history, the search's depth and ply
limits): a long time level then finishes in a test, with shallower searches; `deep_search`
adds one search of the length the level has on the chip, to reach its recursion depth.

Heap figures (MicroPython; CPython reports zeros), bytes relative to the start of the
device side: `steps` = [(name, held after that construction step)], `peak_live` = the most
held at any sample (gc.collect() then gc.mem_alloc(), every `sample_every` clock reads; the
clock is read on every main-loop pass and in every search poll, so samples land inside deep
searches), `deepest_ply` = the deepest search ply seen at any clock read.
"""
import gc

from boards.config import build_hardware
from firmware.app import GC_THRESHOLD_BYTES, App
from firmware.loader import borrow, release
from firmware.controller import ui
from firmware.controller.computer import Computer
from firmware.controller.journal import Journal
from firmware.controller.settings import Settings
from firmware.engine.book import default_book_path, open_book_or_none
from firmware.engine.fen import set_fen
from firmware.engine.levels import LEVELS, MOVETIME, Limits
from firmware.engine.notation import uci
from firmware.engine.search import Searcher
from host_sim.electronics import VirtualBoardElectronics
from host_sim.physical import PhysicalBoard
from host_sim.pins import FakePinFactory
from tests.mpy_game_player import HAND_MS, MS_PER_NODE, PASS_MS, ScriptedGame


def _top_level():
    """The strongest playing level: the longest fixed time per move."""
    best = -1
    for i in range(len(LEVELS)):
        if LEVELS[i].kind == MOVETIME and (best < 0 or LEVELS[i].value > LEVELS[best].value):
            best = i
    return best


TOP_LEVEL = _top_level()

# The opponent: a small engine of its own (harness memory, allocated before the reserve).
OPPONENT_TT = 256
OPPONENT_NODES = 150
OPPONENT_MOVE_STACK = 512

# A middlegame for the full-length search (Queen's Gambit structure, many captures around).
DEEP_FEN = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"

_MAX_CHUNKS = 2048
_CHUNK = 16384


def _mem_alloc():
    return gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0


def held():
    """Bytes in use after a full collection (0 on CPython)."""
    gc.collect()
    return _mem_alloc()


def board_config(name):
    if name == "pico":
        from boards.pico import CONFIG
    elif name == "esp32":
        from boards.esp32 import CONFIG
    elif name == "pico2":
        from boards.pico2 import CONFIG
    elif name == "esp32s3":
        from boards.esp32s3 import CONFIG
    else:
        raise ValueError("no board config %r" % (name,))
    return CONFIG


def _fill(chunks):
    """Allocate ballast until nothing fits any more; returns how many chunks."""
    n = 0
    size = _CHUNK
    while size >= 16 and n < len(chunks) - 1:
        try:
            chunks[n] = bytearray(size)
            n += 1
        except MemoryError:
            size //= 2
    return n


def _release(chunks, n, free_bytes):
    """Drop the highest-addressed full-size chunks (and whatever lies above them) until about
    `free_bytes` will come free. (A function of its own, so no stale reference to a chunk
    stays in the caller's frame, which the garbage collector scans conservatively.)"""
    import uctypes

    total = 0
    cut = -1
    i = n - 1
    while i >= 0 and total < free_bytes:
        if len(chunks[i]) == _CHUNK:
            a = uctypes.addressof(chunks[i])
            if cut < 0 or a < cut:
                cut = a
            total += _CHUNK
        i -= 1
    for i in range(n):
        if chunks[i] is not None and uctypes.addressof(chunks[i]) >= cut:
            chunks[i] = None


class QuietI2C:
    """The I2C bus of the simulated electronics without its write log and copies: like
    machine.I2C.writeto, a write allocates nothing of size (the display model still decodes
    every byte)."""

    def __init__(self, bus):
        self.devices = bus.devices

    def writeto(self, addr, buf, stop=True):
        self.devices[addr].receive(memoryview(buf))
        return len(buf)


class LightNeoPixel:
    """neopixel.NeoPixel as on a board: one bytearray of 3 bytes per pixel (host_sim's
    FakeNeoPixel keeps Python tuples, harness memory that would count against the budget)."""

    def __init__(self, count):
        self.n = count
        self.buf = bytearray(3 * count)
        self.writes = 0

    def __len__(self):
        return self.n

    def __setitem__(self, i, rgb):
        j = 3 * i
        self.buf[j] = rgb[1]  # GRB order, as the WS2812 wants it
        self.buf[j + 1] = rgb[0]
        self.buf[j + 2] = rgb[2]

    def __getitem__(self, i):
        j = 3 * i
        return self.buf[j + 1], self.buf[j], self.buf[j + 2]

    def write(self):
        self.writes += 1


class PrebuiltFactory:
    """The boards/config.py pin factory over the simulated electronics, handing out fakes made
    once in advance (harness memory: they record what is written to them; on a board
    machine.Pin objects are static and cost no heap). A second build gets the same objects;
    an output pin is driven to its initial level again. The display bus and the NeoPixel
    chain are the allocation-free stand-ins above."""

    sleep_us = None

    def __init__(self, electronics):
        self.inner = FakePinFactory(electronics)
        self.made = {}

    def _get(self, key, make, *args):
        obj = self.made.get(key)
        if obj is None:
            obj = make(*args)
            self.made[key] = obj
        return obj

    def pin(self, pin_id, mode, pull=None, value=None):
        fresh = ("pin", pin_id) not in self.made
        p = self._get(("pin", pin_id), self.inner.pin, pin_id, mode, pull, value)
        if not fresh and mode == "out":
            p.value(1 if value else 0)
        return p

    def pwm(self, pin_id):
        return self._get(("pwm", pin_id), self.inner.pwm, pin_id)

    def neopixel(self, pin_id, count):
        return self._get(("neopixel", pin_id), LightNeoPixel, count)

    def i2c(self, bus_id, scl, sda, freq_hz):
        return self._get(("i2c", bus_id), QuietI2C, self.inner.i2c(bus_id, scl, sda, freq_hz))

    def spi(self, bus_id, sck, miso, baudrate):
        return self._get(("spi", bus_id), self.inner.spi, bus_id, sck, miso, baudrate)


class MemoryGame(ScriptedGame):
    """See the module docstring. The clock (`ticks`) is simulated: `pass_ms` per read plus
    `ms_per_node` per searched node; the player's hand takes `hand_ms` per touch."""

    def __init__(self, board, level=TOP_LEVEL, node_cap=0, journal_dir=None, book=True, ponder=True, seed=1,
                 tt_entries=None, sample_every=64, pass_ms=PASS_MS, ms_per_node=MS_PER_NODE, hand_ms=HAND_MS):
        self.config = board_config(board)
        self.tt_entries = tt_entries or self.config["tt_entries"]
        self.level = level
        self.node_cap = node_cap
        self.journal_dir = journal_dir
        self.use_book = book
        self.ponder = ponder
        self.seed = seed
        self.sample_every = sample_every
        self.pass_ms = pass_ms
        self.ms_per_node = ms_per_node
        self.hand_ms = hand_ms
        self.t = 0
        self.seen_nodes = 0
        self.reads = 0
        self.done_ply = -1
        self.pending = []
        self.plies_by_player = 0
        self.steps = []
        self.peak_live = 0
        self.deepest_ply = 0
        self.app = None
        self.hw = None
        self.ballast = None
        # ---- harness (not the device's memory) ----
        self.elec = VirtualBoardElectronics(self.config, clock=self.now)
        self.board = PhysicalBoard()
        self.elec.set_occupancy(self.board.occupancy())
        self.factory = PrebuiltFactory(self.elec)
        build_hardware(self.config, self.factory)  # makes the fakes; these drivers are dropped
        self.opponent = Computer(Searcher(tt_entries=OPPONENT_TT, poll_nodes=64, clock_ms=self.now, seed=seed + 1,
                                          move_stack=OPPONENT_MOVE_STACK))
        self.reply = 0
        self.reply_ply = -1
        self.base = held()

    # ---- memory layout ------------------------------------------------------------------
    def reserve(self, free_bytes):
        """Leave `free_bytes` of heap (to within 2 KB) for the device side, in one contiguous
        region as on a board after boot: fill every hole and the rest of the heap with
        ballast, then let go of the highest-addressed ballast until that much is free (the
        heap must be large enough to have that much free in one piece at its end).
        Returns the free bytes (MicroPython only; a no-op returning 0 on CPython)."""
        if not hasattr(gc, "mem_free"):
            return 0
        chunks = [None] * _MAX_CHUNKS  # allocated first: a growing list would land amid the region
        gc.collect()
        n = _fill(chunks)
        _release(chunks, n, free_bytes)
        gc.collect()
        extra = gc.mem_free() - free_bytes
        if extra > 2048:  # a little too much came free: take it back from the region's bottom
            chunks[n] = bytearray(extra - 1024)
        self.ballast = chunks
        self.base = held()
        return gc.mem_free()

    def _step(self, name):
        self.steps.append((name, held() - self.base))

    def build(self):
        """Construct the device side as firmware.app.main does, measuring after each step."""
        cfg = self.config
        self.base = held()
        if hasattr(gc, "threshold"):
            gc.threshold(GC_THRESHOLD_BYTES)  # as firmware.app.main does
        self.hw = build_hardware(cfg, self.factory)
        self._step("drivers")
        # make_searcher lives in features/boot.py, as on a board; run_probe imported that module
        # with the rest of the code before `base`, so the searcher step holds the searcher alone
        # (released here, as main() releases it)
        searcher = borrow("firmware.features.boot").make_searcher(cfg, clock_ms=self.now, seed=self.seed,
                                                                  tt_entries=self.tt_entries)
        release("firmware.features.boot")
        self._step("searcher")
        book = open_book_or_none(default_book_path()) if self.use_book else None
        self._step("book")
        journal = Journal(self.journal_dir) if self.journal_dir else None
        self._step("journal")
        settings = Settings(level=self.level, computer_side=8)
        settings.ponder = self.ponder
        settings.book = self.use_book
        self.app = App(self.hw, searcher, book=book, journal=journal, ticks_ms=self.ticks, settings=settings,
                       seed=self.seed, collect=gc.collect if hasattr(gc, "mem_alloc") else None)
        if self.node_cap:
            self._cap_nodes(self.app.computer, self.node_cap)
        self._step("app")
        self.app.boot(self.ticks())
        self._step("boot")
        # The state after boot is the first sample of the high-water mark: boot's temporaries
        # may be freed before the game's first sample, so the peak must include it.
        self.peak_live = self.steps[-1][1]
        return self.steps

    @staticmethod
    def _cap_nodes(computer, cap):
        level_limits = computer.limits

        def capped(index, clock_state=None, ponder=False):
            limits = level_limits(index, clock_state, ponder)
            limits.nodes = cap
            return limits

        computer.limits = capped

    # ---- the clock: also the sampling point ------------------------------------------------
    def ticks(self):
        """The App's clock: every read is a main-loop pass or a search poll; it advances the
        simulated time, lets the player act, and samples the heap."""
        app = self.app
        w = app.work_nodes if app is not None else 0
        self.t += self.pass_ms + (w - self.seen_nodes) * self.ms_per_node
        self.seen_nodes = w
        self.reads += 1
        if self.reads & 15 == 0:
            self.forget_recordings()  # the fakes' write logs are harness memory: keep them short
        self.act()
        if app is not None:
            d = app.computer.position.ply
            if d > self.deepest_ply:
                self.deepest_ply = d
            if self.sample_every and self.reads % self.sample_every == 0:
                self._sample()
        return self.t

    def _sample(self):
        self.forget_recordings()
        a = held() - self.base
        if a > self.peak_live:
            self.peak_live = a

    # ---- the opponent ---------------------------------------------------------------------
    def _think(self, after_move):
        """The opponent's reply in the game position after `after_move` (0: as it is)."""
        game_pos = self.app.controller.game.position
        pos = self.opponent.prepare(game_pos, after_move)
        r = self.opponent.searcher.search(pos, Limits(nodes=OPPONENT_NODES))
        self.reply = r.best_move
        self.reply_ply = game_pos.ply + (1 if after_move else 0)

    def act(self):
        self.do_due()
        if self.pending or self.app is None:
            return
        c = self.app.controller
        if c.phase == ui.OFFER:
            self.decline_offer()
            return
        if c.game.over or c.game.ply == self.done_ply:
            return
        self.done_ply = -1
        if c.phase == ui.SHOWING and c.shown_move:
            # decide the reply now, while the computer is not searching
            self._think(c.shown_move)
            self.schedule(uci(c.shown_move))
        elif c.phase == ui.PLAYER and c.game.position.stm == 0:
            if self.reply_ply != c.game.ply:
                self._think(0)
            self.plies_by_player += 1
            self.schedule(uci(self.reply))

    # ---- playing ------------------------------------------------------------------------
    def run(self, max_plies=400, max_ms=10 * 3600 * 1000, moves=True):
        """Play to the end; the figures (and with `moves` the game's moves as UCI text - a
        list the harness would have to build inside the device's budget: main() prints them
        one by one instead)."""
        app = self.app
        game = app.controller.game
        while not game.over and game.ply < max_plies and self.t < max_ms:
            app.step(self.ticks())
        self._sample()
        end = held() - self.base
        return {
            "moves": game.uci_moves() if moves else None,
            "result": game.result,
            "reason": game.reason_name(),
            "searches": app.searches,
            "nodes": app.work_nodes,
            "ponder_hits": app.controller.ponder_hits,
            "level": app.settings.level,
            "steps": self.steps,
            "peak_live": self.peak_live,
            "end_live": end,
            "deepest_ply": self.deepest_ply,
        }

    def deep_search(self, nodes, fen=DEEP_FEN):
        """One search at the game's level, `nodes` long (the chip's nodes for the level's
        time), on `fen`, by the App's searcher with the App's own poll (a service pass every
        few nodes), after the game, in the same heap. Returns (nodes, deepest ply, peak)."""
        app = self.app
        pos = app.computer.position
        set_fen(pos, fen)
        limits = app.computer.limits(self.level)
        limits.nodes = nodes
        self.deepest_ply = 0
        app.searcher.search(pos, limits, app._poll)
        self._sample()
        return app.searcher.nodes, self.deepest_ply, self.peak_live


def frame_bytes_per_ply(board="esp32", fen=DEEP_FEN, nodes=3000):
    """Heap the search's recursion holds per ply (MicroPython puts a call frame with more than
    a few words of locals on the heap): a search whose poll (every node) records gc.mem_alloc()
    by the search position's ply; nothing else allocates meanwhile. Returns (bytes per ply,
    deepest ply seen); 0 bytes on CPython."""
    from array import array

    from firmware.engine.position import Position

    cfg = board_config(board)
    s = Searcher(tt_entries=cfg["tt_entries"], poll_nodes=1)
    pos = Position(None, 96)
    set_fen(pos, fen)
    top = array("i", bytes(4 * 100))
    deepest = array("i", [0])

    def poll(searcher):
        p = searcher.pos.ply
        a = _mem_alloc()
        if a > top[p]:
            top[p] = a
        if p > deepest[0]:
            deepest[0] = p
        return False

    gc.collect()
    s.search(pos, Limits(nodes=nodes), poll=poll)
    d = deepest[0]
    if d < 2:
        return 0, d
    return (top[d] - top[1]) // (d - 1), d


def main(board, budget=0, node_cap=600, deep_nodes=0, journal_dir=None, sample_every=64, tt_entries=None,
         import_base=0):
    """Play the game (and the deep search) and print the figures as `KEY value` lines for the
    scripts that run this under MicroPython (tests/test_memory.py, bench/memory.py)."""
    code = held() - import_base if import_base else 0
    g = MemoryGame(board, TOP_LEVEL, node_cap=node_cap, journal_dir=journal_dir, sample_every=sample_every,
                   tt_entries=tt_entries, pass_ms=4, ms_per_node=0, hand_ms=100)
    harness = held() - import_base if import_base else 0
    print("CODE", code)
    print("HARNESS", harness - code)
    if budget:
        print("FREE", g.reserve(budget))
        import micropython

        micropython.mem_info()  # "max free sz" (in blocks) shows the free heap is one piece
    for name, n in g.build():
        print("STEP", name, n)
    r = g.run(moves=False)
    print("RESULT", r["result"], r["reason"].replace(" ", "_"), r["searches"], r["nodes"], r["ponder_hits"],
          r["level"])
    game = g.app.controller.game
    print("MOVES", end="")
    for i in range(game.ply):
        print(" " + uci(game.move_at(i)), end="")
    print()
    print("PEAK", r["peak_live"], r["end_live"], r["deepest_ply"])
    r = None  # harness memory (the moves as text): not in the device's heap during the deep search
    if deep_nodes:
        n, ply, peak = g.deep_search(deep_nodes)
        print("DEEP", n, ply, peak)
    print("DONE")


# ---- host side (CPython only): build the module tree, run the probe, read its lines ----------
HARNESS_MODULES = ("host_sim/__init__.py", "host_sim/electronics.py", "host_sim/pins.py", "host_sim/physical.py",
                   "tests/__init__.py", "tests/mpy_game_player.py", "tests/memory_probe.py")


def build_tree(board, out_dir):
    """What `make flash BOARD=board` copies (tools.flash.build), compiled for the unix port's
    CPU (x64), plus the harness modules, in `out_dir`. Returns the tools.flash Build."""
    import os

    from tools import flash

    b = flash.build(board, arch="x64", out_dir=out_dir, write_main=False, log=None)
    for rel in HARNESS_MODULES:
        dest = os.path.join(out_dir, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        flash.compile_mpy(os.path.join(flash.ROOT, rel), dest, "x64", rel,
                          cache_dir=os.path.join(flash.ROOT, "build", "mpy-cache"))
    return b


def device_modules(tree):
    """Every firmware module in `tree` (dotted names), imported before the game as a frozen
    build has them all: the few the firmware imports lazily (e.g. the debouncer's) would
    otherwise be charged to the game's heap."""
    import os

    out = []
    top = os.path.join(tree, "firmware")
    for dirpath, _, names in os.walk(top):
        for name in sorted(names):
            if name.endswith(".mpy"):
                rel = os.path.relpath(os.path.join(dirpath, name[:-4]), tree).replace(os.sep, ".")
                out.append(rel[:-9] if rel.endswith(".__init__") else rel)
    return sorted(out)


def run_probe(tree, board, heapsize="1M", timeout=600, **kwargs):
    """Run main(board, **kwargs) under MicroPython with the modules from `tree`; returns the
    parsed lines (see parse_probe). Raises RuntimeError with the output on failure."""
    import os
    import subprocess

    from tests.mpy import micropython_path

    args = ", ".join("%s=%r" % kv for kv in sorted(kwargs.items()))
    # imported as the loader would (its own): a rare part it releases then leaves the heap, as
    # on a board, although the probe imported it first
    code = ("import gc\ngc.collect()\nbase = gc.mem_alloc()\nfor m in %r:\n    __import__(m)\n"
            "import sys\nfrom firmware import loader\nfor m in sys.modules:\n    loader._state[m] = 1\n"
            "from tests.memory_probe import main\nmain(%r, import_base=base, %s)\n"
            % (device_modules(tree), board, args))
    env = dict(os.environ, MICROPYPATH=tree)
    proc = subprocess.run([micropython_path(), "-X", "heapsize=" + heapsize, "-c", code], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or "DONE" not in proc.stdout:
        raise RuntimeError("memory probe failed (%s, %r):\n%s\n%s" % (board, kwargs, proc.stdout[-3000:],
                                                                      proc.stderr[-3000:]))
    return parse_probe(proc.stdout)


def parse_probe(text):
    """{"CODE": [..], "STEP": {name: bytes}, "RESULT": [..], "MOVES": [..], "PEAK": [..],
    "DEEP": [..], "FREE": [..], "max_free_blocks": n} from the probe's output."""
    out = {"STEP": {}}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "STEP":
            out["STEP"][parts[1]] = int(parts[2])
        elif parts[0] in ("CODE", "HARNESS", "FREE", "PEAK", "DEEP", "RESULT", "MOVES"):
            out[parts[0]] = parts[1:]
        elif "max free sz:" in line:
            out["max_free_blocks"] = int(line.rsplit(":", 1)[1])
    return out
