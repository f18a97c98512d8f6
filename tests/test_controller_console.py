"""The console protocol for tests and for a unit without sensors (features/feed.py): feed,
lift, place, press, computer, lit, mem, nodes - one answer line per command, "error: ..." for
bad input (nothing changes) - under CPython (the Simulator) and the MicroPython unix port (the
App on fake pins with nothing on them, like the emulated Pico). A fed game is a real game: the
fed changes go through the debouncer and the board sync."""
import re

from host_sim import Simulator
from tests.mpy import run_mpy
from tests.test_controller_mpy import SETUP


def one(sim, line, ms=20):
    out = sim.console(line, ms)
    assert len(out) == 1, (line, out)
    return out[0]


def test_feed_a_game_through_the_console_in_the_simulator():
    sim = Simulator(seed=1, book=False, ponder=False)
    assert one(sim, "lift e2").startswith("error: not in feed mode")
    assert one(sim, "nodes 300") == "ok"
    assert one(sim, "feed") == "ok"
    assert one(sim, "computer") == "-"
    assert one(sim, "lit") == "lit -"
    # the physical pins no longer count: only the fed board does
    sim.lift("d2")
    sim.settle()
    assert sim.game() == []
    assert one(sim, "lift e2") == "ok"
    sim.run(300)
    assert one(sim, "place e4") == "ok"
    sim.settle()
    assert sim.game() == ["e2e4"]
    move = sim.wait_computer()
    assert move is not None and one(sim, "computer") == move
    assert sim.app.searcher.nodes <= 300 + 64  # the cap (a poll interval late at most)
    lit = one(sim, "lit")
    by_rank = sorted(sim.lit().items(), key=lambda x: (x[0][1], x[0][0]))
    assert lit == "lit " + " ".join("%s:%s" % (sq, p) for sq, p in by_rank)
    assert "%s:on" % move[:2] in lit and "%s:on" % move[2:4] in lit
    assert one(sim, "lift " + move[:2]) == "ok"
    sim.run(300)
    assert one(sim, "place " + move[2:4]) == "ok"
    sim.settle()
    assert sim.game() == ["e2e4", move] and one(sim, "computer") == "-"
    assert one(sim, "place " + move[2:4]).startswith("error: %s is occupied" % move[2:4])


def test_console_errors_change_nothing():
    sim = Simulator(seed=1, book=False, ponder=False)
    assert one(sim, "feed 00000000000000ff") == "ok"  # only rank 1 occupied
    for bad in ("feed 123", "feed 00000000000000fg", "feed 1 2", "lift", "lift e9", "lift i2", "lift e4",
                "place e1", "press", "press nosuch", "press hint longer", "nodes", "nodes -1", "nodes x",
                "computer now", "lit e2", "mem 1", "frobnicate"):
        assert one(sim, bad).startswith("error: "), bad
    assert sim.app.fed == bytearray(b"\xff\x00\x00\x00\x00\x00\x00\x00")
    assert sim.app.node_cap == 0
    assert re.match(r"^mem free=0 max_block=0 used=0$", one(sim, "mem"))  # CPython has no heap figures
    assert one(sim, "press level long") == "ok"
    assert sim.state()["menu"] == "options"
    assert one(sim, "press ok") == "ok"
    assert sim.state()["menu"] == ""
    assert one(sim, "status").startswith(("verify", "player"))


MPY = r"""
out = []
class Lines:
    def __init__(s): s.q = []
    def readline(s): return s.q.pop(0) if s.q else None
lines = Lines()
for i in range(64):
    b.closed[i] = 0   # nothing on the pins, like the emulated Pico
T = [0]
app = App(hw, Searcher(tt_entries=256, poll_nodes=64, clock_ms=lambda: T[0]), ticks_ms=ticks, console=lines,
          write=out.append)
app.boot(ticks())
def say(line, ms=30):
    del out[:]
    lines.q.append(line)
    run(ms)
    print(line, "->", " | ".join(out))
run(200)
say("status")
say("lift e3")
say("nodes 200")
say("feed")
run(800)
say("status")
say("lift e2")
run(300)
say("place e4")
run(600)
say("moves")
for i in range(400):
    run(100)
    if app.controller.phase == 2:
        break
say("computer")
say("lit")
say("mem")
say("press nosuch")
say("press hint")
say("feed ffff00000000ffff")
say("feed xyz")
"""


def test_console_protocol_under_micropython():
    out = run_mpy(SETUP + MPY, timeout=600)
    got = dict(line.split(" -> ", 1) for line in out.split("\n") if " -> " in line)
    assert got["status"].startswith(("verify", "player"))
    assert got["lift e3"].startswith("error: not in feed mode") and got["lift e2"] == "ok"
    assert got["nodes 200"] == "ok" and got["feed"] == "ok"
    assert got["place e4"] == "ok" and got["moves"] == "e2e4"
    move = got["computer"]
    assert re.match(r"^[a-h][1-8][a-h][1-8]$", move), out
    assert got["lit"].startswith("lit ") and "%s:on" % move[:2] in got["lit"], out
    m = re.match(r"^mem free=(\d+) max_block=(\d+) used=(\d+)$", got["mem"])
    assert m and 0 < int(m.group(2)) <= int(m.group(1)) and int(m.group(3)) > 0, got["mem"]
    assert got["press nosuch"].startswith("error: no button")
    assert got["press hint"] == "ok"
    assert got["feed ffff00000000ffff"] == "ok" and got["feed xyz"].startswith("error: usage: feed")
