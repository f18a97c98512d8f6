"""What online play costs in RAM on a 32-bit MicroPython (the official WebAssembly port,
tools/wasm_port.py), from the .mpy files `make flash` builds (bytecode), each part beyond
what is loaded before it (the resident firmware first, as during a game): the figures of
docs/online.md's memory table. And what must not load: a board playing over USB never loads
the Wi-Fi client's modules, nor the kept-game code except when a game is kept or comes back.

Names (qstrs) are counted at their own size: a module's new names go into MicroPython's name
pool, which grows in lumps (a new pool of twice the size when one is full, ~10 KB at this
point); whichever module happens to cross that line would be charged the whole lump, so the
lump is left out and each new name counted at its string plus its pool entry (ENTRY bytes).
On a board the pool state depends on everything loaded since boot (dropped features' names
stay), so where the lump falls there is not where it falls here.
"""
import re

import pytest

from tools.wasm_port import run, unavailable

pytestmark = [pytest.mark.wasm]

ENTRY = 7  # a name's pool entry on 32 bits: its hash (2 bytes), length (1), pointer (4)
RESIDENT = ("firmware.compat", "firmware.engine.position", "firmware.engine.notation",
            "firmware.engine.search", "firmware.controller.ui", "firmware.controller.journal",
            "firmware.controller.flashfile", "firmware.controller.board_sync", "firmware.controller.flow",
            "firmware.controller.game", "firmware.controller.settings", "firmware.features", "firmware.app", "json")
# (label, the modules imported for it): each part is measured beyond the parts before it
PARTS = (
    ("online", ("firmware.features.online",)),
    ("online_keep", ("firmware.features.online_keep",)),
    ("client_code", ("firmware.features.online_state", "firmware.features.online_http",
                     "firmware.features.online_net")),
)
CLIENT = """class C:
    journal = None
class A:
    controller = C()
    def write(s, t): pass
cfg = {'token': 'lip_' + 'x' * 20, 'server': 'http://127.0.0.1:8080'}
client = firmware.features.online_net.NetClient(A(), cfg, 'seek', (10, 0), None)
"""
# upper bounds (bytes) that hold today with a little room: a regression shows here
BOUNDS = {"online": 9 * 1024, "online_keep": 3 * 1024, "client_code": 19 * 1024, "client_object": 12 * 1024}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    why = unavailable()
    if why:
        pytest.skip(why)
    from tools import flash

    folder = str(tmp_path_factory.mktemp("wasm-online"))
    flash.build("pico2", arch=flash.BOARD_ARCH["pico2"], out_dir=folder, write_main=False, log=None, bytecode=True)
    return folder


def _step(label):
    """A top-level call (the port collects garbage only between them) that reports the heap
    and the name pool after the collection the call started with."""
    return ("import micropython\nprint('STEP', %r, gc.mem_alloc())\nmicropython.qstr_info()\ngc.collect()\n"
            % label)


def measure(tree):
    scripts = ["import gc\ngc.collect()\n"]
    scripts += ["__import__(%r)\ngc.collect()\n" % m for m in RESIDENT]
    scripts.append(_step("resident"))
    for label, mods in PARTS:
        scripts += ["__import__(%r)\ngc.collect()\n" % m for m in mods]
        scripts.append("import sys\nprint('MODULES', %r, ' '.join(sorted(m for m in sys.modules "
                       "if m.startswith('firmware.features.'))))\ngc.collect()\n" % label)
        scripts.append(_step(label))
    scripts += ["import firmware.features.online_net\n" + CLIENT + "gc.collect()\n", _step("client_object")]
    out = run(scripts, tree=tree, heap_bytes=4 * 1024 * 1024)
    steps = []
    for m in re.finditer(r"STEP (\S+) (\d+)\nqstr pool: n_pool=\d+, n_qstr=(\d+), n_str_data_bytes=(\d+), "
                         r"n_total_bytes=(\d+)", out):
        steps.append((m.group(1),) + tuple(int(m.group(i)) for i in range(2, 6)))
    assert [s[0] for s in steps] == ["resident"] + [p[0] for p in PARTS] + ["client_object"], out
    costs = {}
    for before, after in zip(steps, steps[1:]):
        heap = after[1] - before[1]
        names = after[2] - before[2]
        pool = after[4] - before[4]  # name pool growth: strings and entries, lumps included
        costs[after[0]] = (heap - pool + (after[3] - before[3]) + ENTRY * names, names)
    modules = dict(line.split(" ", 2)[1:] for line in out.splitlines() if line.startswith("MODULES "))
    return costs, {k: v.split() for k, v in modules.items()}, out


def test_what_online_play_costs_on_32_bits(tree):
    costs, modules, out = measure(tree)
    for label, (cost, names) in costs.items():
        print("online memory (wasm, 32-bit): %-13s %6d bytes (%.1f KB), %d new names" % (label, cost, cost / 1024,
                                                                                          names))
    # over USB a board loads online.py only: not the client, not the kept-game code
    assert modules["online"] == ["firmware.features.online"], modules
    assert "firmware.features.online_state" not in modules["online_keep"], modules
    for label, bound in BOUNDS.items():
        assert 0 < costs[label][0] <= bound, (label, costs[label], out[-2000:])
