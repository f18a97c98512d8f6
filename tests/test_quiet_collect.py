"""The App collects the garbage once the board has been quiet for a while after a touch or a
press (app._QUIET_MS), so a collection (~25 ms on an RP2040) rarely falls between the next
lift and its LEDs. Not during the touch's handling, not again without a new touch, and not
while a search runs (it would cost the search's heap frames their room: compat.fill_heap_holes);
then after the search's end."""
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
    c = sim.app.controller
    assert c.searching  # the computer thinks about its reply
    sim.press("hint")
    before = len(collections)
    during = []
    sim.app.collect = lambda: (collections.append(sim.app.now), during.append(c.searching))
    while c.searching:  # the quiet spell's collection waits for the search's end
        sim.run(QUIET // 4)
    sim.run(2 * QUIET)
    assert len(collections) > before
    assert during and not any(during)  # none while the search ran


# The board's USB console reader runs every pass. MicroPython's select.poll().poll() builds a
# list at each call: ~63 bytes a pass, a 26 ms collection every ~75 ms on a Pico while idle.
_READER = r"""
from firmware.app import StdinReader
from firmware.compat import heap_lock, heap_unlock
def polls(reader, n):  # locals only: a new global would grow the module's dict
    heap_lock()
    try:
        for i in range(n):
            if reader.readline() is not None:
                return 2
    except MemoryError:
        return 1
    finally:
        heap_unlock()
    return 0
r = StdinReader()
first = r.readline()
while first is None:
    first = r.readline()
print(first, polls(r, 500))
"""


def test_console_reader_allocates_nothing_while_no_byte_comes():
    import subprocess

    from tests.mpy import ROOT, micropython_path

    proc = subprocess.Popen([micropython_path(), "-c", _READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, cwd=ROOT, env={"MICROPYPATH": ROOT})
    try:
        proc.stdin.write("level 3\n")
        proc.stdin.flush()
        line = proc.stdout.readline()  # the stream stays open and empty while it polls
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert line.split() == ["level", "3", "0"], line
