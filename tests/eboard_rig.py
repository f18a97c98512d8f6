"""The chess computer in its e-board mode without threads (runs under CPython and MicroPython):
the real App on the pico board's io drivers over the simulated electronics, an in-memory
serial link (host_sim/eboard_link.py) and a hand that moves the physical pieces.

    rig = Rig(2)                        # 1: DGT, 2: Millennium
    rig.host.host_write(b"...")         # the host's bytes; rig.host.host_read() the board's
    rig.run(100)                        # simulated ms of main-loop passes
    rig.play("e2e4")                    # a person's touches for the move, HAND_MS apart
"""
from boards.pico import CONFIG
from firmware.app import App
from firmware.controller.settings import Settings
from firmware.engine.search import Searcher
from host_sim.eboard_link import PipeLink
from host_sim.electronics import build_simulated
from host_sim.physical import PhysicalBoard, cell_of

PASS_MS = 2
HAND_MS = 150


class Rig:
    def __init__(self, kind, tt_entries=256):
        self.t = 0
        self.elec, self.hw = build_simulated(CONFIG, clock=self.now)
        self.board = PhysicalBoard()
        self.elec.set_occupancy(self.board.occupancy())
        searcher = Searcher(tt_entries=tt_entries, poll_nodes=CONFIG["poll_nodes"], clock_ms=self.now)
        settings = Settings(level=0, computer_side=8)
        settings.eboard = kind
        self.host = PipeLink()
        self.lines = []
        self.app = App(self.hw, searcher, ticks_ms=self.now, settings=settings, write=self.lines.append)
        self.app.link = self.host
        self.app.boot(self.t)

    def now(self):
        return self.t

    def run(self, ms):
        end = self.t + ms
        app = self.app
        while self.t < end:
            self.t += PASS_MS
            app.step(self.t)
        elec = self.elec  # the fakes record every write; a board keeps none of it
        elec.i2c.log.clear()
        if elec.display is not None:
            elec.display.commands.clear()

    def touch(self, step):
        cell = self.board.do(step)
        if cell is not None:
            self.elec.set_cell(cell, cell in self.board.pieces)
        self.run(HAND_MS)

    def play(self, uci_text, order="natural", settle=True):
        """The touches of a move; with `settle`, then still hands until the move counts."""
        for step in self.board.plan(uci_text, order):
            self.touch(step)
        if settle:
            self.run(CONFIG["stable_ms"] + 2 * CONFIG["debounce_ms"] + 120)

    def lift(self, name):
        self.touch(("lift", cell_of(name)))

    def place(self, name, letter=None):
        self.touch(("place", cell_of(name), letter))

    def press(self, name, hold_ms=100):
        self.elec.press(name)
        self.run(hold_ms)
        self.elec.release(name)
        self.run(50)
