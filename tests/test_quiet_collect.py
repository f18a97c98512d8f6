"""The App collects the garbage once the board has been quiet for a while after a touch or a
press (app._QUIET_MS), so a collection (~25 ms on an RP2040) rarely falls between the next
lift and its LEDs. Not during the touch's handling, not again without a new touch."""
from firmware import app as app_module
from host_sim import Simulator

QUIET = app_module._QUIET_MS


def test_one_collection_after_each_quiet_spell():
    sim = Simulator(seed=1, book=False, ponder=False)
    collections = []
    sim.app.collect = lambda: collections.append(sim.app.now)
    sim.run(2 * QUIET)
    assert collections == []  # nothing touched since boot
    sim.lift("e2")
    sim.run(QUIET // 4)
    assert collections == []  # the lift's handling: no collection yet
    sim.run(QUIET)
    assert len(collections) == 1
    sim.run(3 * QUIET)
    assert len(collections) == 1  # quiet on: no more
    sim.place("e4")
    sim.run(QUIET // 4)
    assert len(collections) == 1
    sim.run(QUIET)
    assert len(collections) >= 2
    sim.press("hint")
    before = len(collections)
    sim.run(2 * QUIET)
    assert len(collections) > before
