"""A whole game on the chess computer without threads (runs under MicroPython and CPython):
the real App (controller, board sync, engine, journal) on the board's real io drivers over the
simulated electronics, and a scripted player who acts whenever the firmware reads its clock.

    from tests.mpy_game_player import play_game
    result = play_game(level=17, max_plies=300, journal_dir="/tmp/x")

The clock function is the only link: each read advances simulated time by one main-loop
pass plus the device time of the nodes searched since the last read (as in host_sim/clock.py),
then performs the player's due touches and, when nothing is pending, plans the next ones
(carry out the computer's shown move, or make the player's own move). So the player also
acts while the engine searches or ponders, through the search's poll. Prints nothing; returns
a dict with the moves, the result and the heap in use at the end (MicroPython).
"""
import gc

from firmware.app import App
from firmware.controller import board_sync, computer, flow, game, ui  # noqa: F401 (App imports them lazily:
# loaded here they count as code, as on a frozen build, not as the game's heap)
from firmware.controller.journal import Journal
from firmware.controller.settings import Settings
from firmware.engine.notation import uci
from firmware.engine.rules import legal_moves
from firmware.engine.search import Searcher
from host_sim.electronics import build_simulated
from host_sim.physical import PhysicalBoard

PASS_MS = 2
MS_PER_NODE = 8
HAND_MS = 250


class ScriptedGame:
    def __init__(self, config, level, journal_dir=None, ponder=True, seed=1):
        self.t = 0
        self.elec, self.hw = build_simulated(config, clock=self.now)
        self.board = PhysicalBoard()
        self.elec.set_occupancy(self.board.occupancy())
        searcher = Searcher(tt_entries=config["tt_entries"], poll_nodes=config["poll_nodes"], clock_ms=self.now,
                            seed=seed)
        settings = Settings(level=level, computer_side=8)
        settings.ponder = ponder
        journal = Journal(journal_dir) if journal_dir else None
        self.app = App(self.hw, searcher, journal=journal, ticks_ms=self.ticks, settings=settings, seed=seed)
        self.pending = []  # [(at_ms, step)]
        self.hand_ms = HAND_MS  # the player's hand: per touch, and how long a button is held
        self.seen_nodes = 0
        self.plies_by_player = 0
        self.reads = 0
        self.done_ply = -1

    def now(self):
        return self.t

    def ticks(self):
        app = self.app
        w = app.work_nodes
        self.t += PASS_MS + (w - self.seen_nodes) * MS_PER_NODE
        self.seen_nodes = w
        self.reads += 1
        if self.reads & 63 == 0:
            self.forget_recordings()
        self.act()
        return self.t

    def forget_recordings(self):
        """The fakes record every write (the test helpers read them); a whole game's worth
        of display frames would fill the heap, and a real board keeps none of it."""
        elec = self.elec
        elec.i2c.log.clear()
        if elec.display is not None:
            elec.display.commands.clear()
        for pwm in elec.pwms.values():
            pwm.history.clear()

    def do_due(self):
        """Carry out the steps whose time has come: touches on the board, a button let go."""
        while self.pending and self.pending[0][0] <= self.t:
            step = self.pending.pop(0)[1]
            if step[0] == "release":
                self.elec.release(step[1])
                continue
            cell = self.board.do(step)
            if cell is not None:
                self.elec.set_cell(cell, cell in self.board.pieces)

    def decline_offer(self):
        """The computer offers to resign (phase OFFER): say no with a short press of *move*,
        so that the game is played out (the offer comes once a game)."""
        self.elec.press("move")
        self.pending.append((self.t + self.hand_ms, ("release", "move")))

    def act(self):
        self.do_due()
        if self.pending:
            return
        c = self.app.controller
        if c.phase == ui.OFFER:
            self.decline_offer()
            return
        if c.game.over or c.game.ply == self.done_ply:
            return  # wait until the firmware has seen the last move
        self.done_ply = -1
        if c.phase == ui.SHOWING and c.shown_move:
            self.schedule(uci(c.shown_move))
        elif c.phase == ui.PLAYER and c.game.position.stm == 0:
            moves = sorted(uci(m) for m in legal_moves(c.game.position))
            self.plies_by_player += 1
            expected = uci(c.ponder_move) if c.ponder_move else None
            if expected in moves and self.plies_by_player % 3 == 0:
                self.schedule(expected)  # now and then the move the computer ponders on: a hit
            else:
                self.schedule(moves[(self.plies_by_player * 7 + 3) % len(moves)])

    def schedule(self, text):
        self.done_ply = self.app.controller.game.ply
        at = self.t + self.hand_ms
        for step in self.board.plan(text):
            self.pending.append((at, step))
            if step[0] in ("lift", "place"):
                at += self.hand_ms

    def run(self, max_plies, max_ms):
        app = self.app
        app.boot(self.ticks())
        record = app.controller.game
        while not record.over and record.ply < max_plies and self.t < max_ms:
            app.step(self.ticks())
        gc.collect()
        return {
            "moves": record.uci_moves(),
            "result": record.result,
            "reason": record.reason_name(),
            "sim_ms": self.t,
            "searches": app.searches,
            "nodes": app.work_nodes,
            "ponder_hits": app.controller.ponder_hits,
            "alloc_after": gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0,
        }


def play_game(level=17, max_plies=300, max_ms=30 * 60 * 1000, journal_dir=None, ponder=True, board="pico"):
    if board == "pico":
        from boards.pico import CONFIG
    else:
        from boards.esp32 import CONFIG
    return ScriptedGame(CONFIG, level, journal_dir, ponder).run(max_plies, max_ms)
