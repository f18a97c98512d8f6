"""BoardSync under the MicroPython unix port, inside the Pico heap budget: moves of
several kinds through it, with the heap locked around every event(), update(), set_position()
and expect_move() call except where a WRONG/ILLEGAL/UNEXPLAINED report builds its cell lists.
So: quiet passes, events, and even settling on a move allocate nothing."""
from tests.mpy import PICO_HEAP, run_mpy

SNIPPET = r"""
import gc
from firmware.compat import heap_lock, heap_unlock
from firmware.controller import board_sync as bs
from firmware.controller.board_sync import occupancy_of
from firmware.engine.position import Position
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci

FILES = "abcdefgh"
pos = Position()
gc.collect()
free_before = gc.mem_free()
sync = bs.BoardSync(stable_ms=400, unexplained_ms=3000)
gc.collect()
sync_bytes = free_before - gc.mem_free()
occ = occupancy_of(pos)
now = 0
log = []
locked = [0]
strict = True  # lock the heap around update() too

def set_position():
    # Every BoardSync call runs with the heap locked: a MemoryError means it allocated.
    heap_lock()
    try:
        sync.set_position(pos)
    finally:
        heap_unlock()
    locked[0] += 1

set_position()

def cell(name):
    return (ord(name[1]) - 49) * 8 + FILES.index(name[0])

def handle(code):
    if code in (bs.MOVE, bs.EXECUTED, bs.TAKEBACK):
        log.append(bs.CODE_NAMES[code] + " " + uci(sync.move))
        if code == bs.TAKEBACK:
            pos.unmake()
        else:
            pos.make(sync.move)
        set_position()
    elif code in (bs.WRONG, bs.ILLEGAL):
        log.append(bs.CODE_NAMES[code] + " " + ",".join(str(c) for c in sync.wrong_cells))
    elif code == bs.UNEXPLAINED:
        clear = ",".join(str(c) for c in sync.to_clear)
        log.append("UNEXPLAINED " + clear + "/" + ",".join(str(c) for c in sync.to_fill))
    elif code != bs.LIFTED and code != bs.PUT_BACK:
        log.append(bs.CODE_NAMES[code])

def step():
    if not strict:
        return sync.update(occ, now)
    heap_lock()
    try:
        code = sync.update(occ, now)
    finally:
        heap_unlock()
    locked[0] += 1
    return code

def run(ms):
    global now
    end = now + ms
    while now < end:
        now += 10
        code = step()
        while code != bs.IDLE:
            handle(code)
            code = step()

def play(text, gap=120):
    for s in text.split():
        run(gap)
        c = cell(s[1:])
        kind = bs.PLACE if s[0] == "+" else bs.LIFT
        if kind == bs.PLACE:
            occ[c >> 3] |= 1 << (c & 7)
        else:
            occ[c >> 3] &= 255 ^ (1 << (c & 7))
        heap_lock()
        try:
            sync.event(c, kind, now)
        finally:
            heap_unlock()
        locked[0] += 1

def expect(text):
    m = parse_uci(pos, text)
    heap_lock()
    try:
        sync.expect_move(m)
    finally:
        heap_unlock()
    locked[0] += 1

play("-e2 +e4"); run(500)                              # normal move
expect("d7d5"); play("-d7 +d5"); run(500)              # computer move executed
play("-d5 -e4 +d5"); run(500)                          # capture, victim first
expect("d8d5"); play("-d8 -d5 +d5 -g1 +f3"); run(500)  # computer recaptures, fast reply
play("-f3 +g1"); run(500)                              # take back by hand
play("-g1 +h3 -h3 +f3"); run(500)                      # lifted, put down, moved on
strict = False                                          # error reports build cell lists
play("-a2 +a5"); run(3500)                             # illegal, then unexplained
play("-a5 +a2"); run(500)                              # restored
strict = True
expect("b8c6"); play("-c8 +d7"); run(20); strict = False; run(500)
strict = True
play("-d7 +c8"); run(500)                              # wrong piece put back
play("-b8 +c6"); run(500)                              # executed
print("|".join(log))
print("locked", locked[0], "bytes", sync_bytes)
"""


def test_board_sync_runs_under_micropython_and_allocates_nothing_but_error_lists():
    lines = run_mpy(SNIPPET, heapsize=PICO_HEAP).strip().splitlines()
    log, counts = lines[0].split("|"), lines[1].split()
    assert log == [
        "MOVE e2e4",
        "EXECUTED d7d5",
        "MOVE e4d5",
        "EXECUTED d8d5",
        "MOVE g1f3",
        "TAKEBACK g1f3",
        "MOVE g1f3",
        "ILLEGAL 8,32",
        "UNEXPLAINED 32/8",
        "RESTORED",
        "WRONG 51,58",
        "RESTORED",
        "EXECUTED b8c6",
    ]
    assert counts[0] == "locked" and int(counts[1]) > 500


def test_the_board_syncs_setup_is_dropped_after_building_it_under_micropython():
    """BoardSync.__init__'s work lives in board_sync_setup.py, loaded for the call and dropped
    (firmware/loader.py), so its code does not stay on a board's heap; a bad argument is still
    refused with SyncError."""
    out = run_mpy(
        "import sys\n"
        "from firmware.controller.board_sync import BoardSync, SyncError\n"
        "a = BoardSync(stable_ms=400, unexplained_ms=3000)\n"
        "package = sys.modules['firmware.controller']\n"
        "print('board_sync_setup' in package.__dict__, 'firmware.controller.board_sync_setup' in sys.modules)\n"
        "print(a.stable_ms, a.unexplained_ms, len(a._queue_occ))\n"
        "try:\n"
        "    BoardSync(stable_ms=0)\n"
        "    print('accepted')\n"
        "except SyncError:\n"
        "    print('refused')\n"
    ).strip().splitlines()
    assert out == ["False False", "400 3000 24", "refused"], out
