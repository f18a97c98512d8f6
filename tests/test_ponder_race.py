"""The player's move at every point of the ponder cycle: the computer always answers.

The stall guarded against: with pondering on and adaptive polling off
(`App.poll_target_ms = 0`, a poll every `poll_nodes` nodes, ~0.5 s of device time apart on a
Pico), a move made wholly between two polls - or spread over two - might reach the controller
in a phase that rejects it, leaving the board sync on the old position and the computer silent.
Instead of hoping that load hits the window, the player's hand here acts at an exact clock read
of the App: the k-th read during the ponder search (each one is a search poll), for every k the
search has, and at reads after it ended (its node budget spent, the answer kept for a hit); the
reply is the move the computer expects (ponder hit) or another one (miss). Each run checks that
the computer shows its answer and the board sync agrees with the board.

A capture made wholly between two scans (or with only its victim's lift in the scan before,
which the debounce drops: the scans are ~0.5 s apart here) shows the sensors nothing but the
capturing piece gone from its square: the board sync cannot tell it from a piece held in the
hand, and waits, as any occupancy-only board must. Lifting the piece on the target square
and putting it back then completes the capture (docs/playing.md); the test does that when a
capture was not answered within CAPTURE_WAIT_MS and checks the answer comes. (With the
engine's evaluation the expected reply after 1. e4 d5 is the capture 2. exd5. With the App's
adaptive polling, about every 10 ms, a hand never beats the scan.)

The sweep keeps that window covered: a controller that sends such a move back - e.g.
rejecting moves while a search runs - fails here with the stall's picture: phase player, sync
to_clear = the move's to-square, to_fill = its from-square. (A click the web page loses is
tests/test_web_browser.py's case.)
"""
import pytest

from boards.pico import CONFIG
from firmware.app import App
from firmware.controller import ui
from firmware.controller.flow import WORK_PONDER
from firmware.controller.board_sync import occupancy_of, same
from firmware.controller.settings import Settings
from firmware.engine.levels import DEPTH, LEVELS, NODES
from firmware.engine.notation import uci
from firmware.engine.rules import legal_moves
from firmware.engine.search import Searcher
from host_sim.electronics import build_simulated
from host_sim.physical import PhysicalBoard, cell_of

PASS_MS = 2  # one main-loop pass
MS_PER_NODE = 8  # a Pico: a poll every 64 nodes is ~0.5 s apart
HAND_MS = 250
LEVEL = next(i for i, lv in enumerate(LEVELS) if lv.kind == NODES and lv.value == 1000)
QUICK = next(i for i, lv in enumerate(LEVELS) if lv.kind == DEPTH and lv.value == 2)  # the first reply
AFTER_PONDER = 3  # injection points after the ponder search ended (0, 50, 100 reads later)
CAPTURE_WAIT_MS = 5000  # an unseen capture: how long the test waits before the player fixes it


class Rig:
    """The real App on the Pico's drivers over simulated electronics; the clock is the App's
    reads: each costs a pass plus the device time of the nodes searched since the last one.
    `on_read` (if set) is called at every read, before the pass or poll that follows scans
    the board: the hand acts there."""

    def __init__(self):
        self.t = 0
        self.seen = 0
        self.reads = 0
        self.elec, hw = build_simulated(CONFIG, clock=lambda: self.t)
        self.board = PhysicalBoard()
        self.elec.set_occupancy(self.board.occupancy())
        searcher = Searcher(tt_entries=CONFIG["tt_entries"], poll_nodes=CONFIG["poll_nodes"],
                            clock_ms=lambda: self.t, seed=1)
        settings = Settings(level=LEVEL, computer_side=8)
        settings.ponder = True
        settings.book = False
        self.app = App(hw, searcher, ticks_ms=self.ticks, settings=settings, seed=1, poll_target_ms=0)
        self.c = self.app.controller
        self.on_read = None

    def ticks(self):
        w = self.app.work_nodes
        self.t += PASS_MS + (w - self.seen) * MS_PER_NODE
        self.seen = w
        self.reads += 1
        if self.on_read is not None:
            self.on_read()
        return self.t

    def touch(self, step):
        cell = self.board.do(step)
        if cell is not None:
            self.elec.set_cell(cell, cell in self.board.pieces)

    def play(self, move):
        """A person's move, HAND_MS between touches, main loop running meanwhile."""
        for step in self.board.plan(move):
            self.run_ms(HAND_MS)
            self.touch(step)

    def run_ms(self, ms):
        end = self.t + ms
        while self.t < end:
            self.app.step(self.ticks())

    def run_until(self, cond, max_ms):
        end = self.t + max_ms
        while not cond() and self.t < end:
            self.app.step(self.ticks())
        return cond()


def opening():
    """A game at 1. e4, the computer's reply shown and just executed by hand: the App sees it
    at its next passes, then ponders on the reply it expects (set `on_read` first)."""
    rig = Rig()
    rig.app.boot(rig.ticks())
    rig.app.settings.level = QUICK  # a quick first search (its PV's second move is the ponder move)
    rig.play("e2e4")
    assert rig.run_until(lambda: rig.c.phase == ui.SHOWING, 600000)
    assert rig.c.expected_reply
    rig.app.settings.level = LEVEL
    rig.play(uci(rig.c.shown_move))
    return rig


def ponder_reads():
    """How many clock reads (search polls) the ponder search takes, on an undisturbed run."""
    rig = opening()
    count = [0]

    def tally():
        if rig.c.searching == WORK_PONDER:
            count[0] += 1

    rig.on_read = tally
    assert rig.run_until(lambda: rig.c.ponder_outcome is not None, 60000)  # ended on its node budget
    assert rig.c.ponder_move and rig.c.game.ply == 2
    return count[0]


def reply_for(c, hit):
    expected = uci(c.ponder_move)
    if hit:
        return expected
    return sorted(uci(m) for m in legal_moves(c.game.position) if uci(m) != expected)[0]


def play_reply_at(k, hit, spread):
    """The player's whole reply lands at the k-th clock read after the ponder search began
    (`spread`: the lift at read k, the place at read k + 1, i.e. across two polls). Returns
    (rig, reply, where) with `where` what the App was doing when the hand acted."""
    rig = opening()
    c = rig.c
    state = {}  # "start": the read at which the ponder search polled first; "steps": the touches
    where = []

    def act():
        if "start" not in state:
            if c.searching != WORK_PONDER:
                return
            state["start"] = rig.reads
            state["move"] = reply_for(c, hit)
            state["steps"] = rig.board.plan(state["move"])
            state["capture"] = cell_of(state["move"][2:4]) in rig.board.pieces
        n = rig.reads - state["start"]
        steps = state["steps"]
        if n == k or (spread and n == k + 1):
            where.append(c.searching)
            for step in (steps[:1] if spread and n == k else steps[1:] if spread else steps):
                rig.touch(step)
            if not spread or n == k + 1:
                rig.on_read = None

    rig.on_read = act
    done = lambda: c.game.ply == 3 and c.phase == ui.SHOWING  # noqa: E731
    rig.run_until(lambda: rig.on_read is None, 120000)  # the hand has acted
    answered = rig.run_until(done, CAPTURE_WAIT_MS)
    move = state.get("move")
    if not answered and state.get("capture") and c.game.ply == 2:
        # a capture the sensors never saw as one (see the module docstring): the board sync
        # holds the mover as lifted and nothing is made of it; the player lifts the piece on
        # the target square and puts it back, as docs/playing.md says
        assert not c.errors_shown
        to = cell_of(move[2:4])
        rig.run_ms(HAND_MS)
        rig.touch(("lift", to))
        rig.run_ms(HAND_MS)
        rig.touch(("place", to, None))
    answered = answered or rig.run_until(done, 120000)
    assert answered, ("no answer to %s played at read %d (%s): phase %s, searching %d, game %s, sync to_clear "
                      "%r to_fill %r" % (move, k, where, ui.PHASE_NAMES[c.phase], c.searching, c.game.uci_moves(),
                                         c.sync.to_clear, c.sync.to_fill))
    return rig, move, where


@pytest.fixture(scope="module")
def reads_in_ponder():
    n = ponder_reads()
    assert n >= 8  # the window is really swept: a 1000-node ponder search polls every 64 nodes
    return n


@pytest.mark.parametrize("hit", [True, False], ids=["ponder-hit", "ponder-miss"])
def test_reply_at_every_poll_of_the_ponder_search(reads_in_ponder, hit):
    points = [(k, spread) for k in range(reads_in_ponder) for spread in (False, True)]
    points += [(reads_in_ponder + 50 * i, False) for i in range(AFTER_PONDER)]  # after it ended
    in_search = 0
    for k, spread in points:
        rig, move, where = play_reply_at(k, hit, spread)
        c = rig.c
        assert c.game.uci_moves()[2] == move
        in_search += where[0] == WORK_PONDER
        assert (c.ponder_hits, c.ponder_misses) == ((1, 0) if hit else (0, 1))
        # the board sync took the reply: no error shown, its position is the board's
        assert not c.errors_shown
        assert same(rig.board.occupancy(), occupancy_of(c.game.position, bytearray(8)))
    assert in_search >= 2 * reads_in_ponder - 2  # the hand really acted inside the ponder search
