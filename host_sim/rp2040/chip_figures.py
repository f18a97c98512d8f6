"""Measured on the emulated chip, through the whole firmware: search speed, C stack, garbage
collection, boot (results copied into docs/benchmarks.md by hand).

    .venv/bin/python -m host_sim.rp2040.chip_figures [--moves N] [--analysis-s S]

Flashes Reedchess into the emulated stock Pico with the `pico` board at its pins
(host_sim/rp2040/board.mjs), and boots a main.py that is the flashed one plus a few wrappers
that print figures the firmware does not print itself (nothing in the search's hot path):
- after every search: nodes, emulated ms, nodes/s, depth, selective depth, the search's ply
  limit from the C stack (`stack_ply`, lowered when a line ran out of stack) and the deepest C
  stack use seen at a poll (`micropython.stack_use()`, of the 7,936 bytes MicroPython has);
- a timed `gc.collect()` before every search (the App runs one there anyway), with the heap
  in use: the garbage collector's pause grows with the heap it marks.
It then plays N moves at the "3 s/move" level (the player's moves through the pins, the
computer's read from the LEDs), and lets the Analysis level (the strongest: no limit) think on
a middlegame position for S emulated seconds before *move* stops it.
Boot: soft reset to the first scan of the reed matrix and to the console answering.
"""
import argparse
import time

import chess

from firmware.engine.levels import find_level
from host_sim.rp2040.pico_board import PicoBoard, play, wait_computer

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"

PROBE = r'''
import gc, time
import micropython
from firmware import app as A
_deep = [0]
_opoll = A.App._poll
def _poll(self, searcher):
    use = micropython.stack_use()
    if use > _deep[0]:
        _deep[0] = use
    return _opoll(self, searcher)
A.App._poll = _poll
_oengine = A.App._engine
def _engine(self, work):
    gc.collect()  # the App collects here too: this one settles the heap, the next is timed
    used = gc.mem_alloc()
    t = time.ticks_us()
    gc.collect()
    print("FIG gc us %d heap_used %d" % (time.ticks_diff(time.ticks_us(), t), used))
    s = self.searcher
    _deep[0] = 0
    t = time.ticks_ms()
    _oengine(self, work)
    ms = time.ticks_diff(time.ticks_ms(), t)
    if s.nodes:
        print("FIG search work %d nodes %d ms %d nps %d depth %d seldepth %d stack_ply %d stack_use %d"
              % (work, s.nodes, ms, s.nodes * 1000 // max(ms, 1), s.done_depth, s.seldepth, s.stack_ply, _deep[0]))
A.App._engine = _engine
import boards.pico as board
A.main(board)
'''


def figures(b, tag, out):
    """Read the FIG lines printed so far."""
    while True:
        line = b.pico.read_line(timeout=0.3, missing=None)
        if line is None:
            return
        if line.startswith("FIG "):
            words = line.split()
            kind = words[1]
            values = {words[i]: int(words[i + 1]) for i in range(2, len(words) - 1, 2)}
            out.append((tag, kind, values))
            print(tag, line, flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--analysis-s", type=int, default=60)
    args = parser.parse_args(argv)
    host0 = time.monotonic()
    out = []
    with PicoBoard() as b:
        b.flash()
        b.pico.write_file("main.py", PROBE)
        t_reset = b.ctl("time")["ns"]
        b.boot()
        ready = b.ctl("time")["ns"]
        first_scan = b.ctl("scans", since_ns=t_reset, gap_ms=10 ** 6)["first"]
        figures(b, "boot", out)
        b.console("level %d" % (find_level("3 s/move") + 1), lambda line: line.startswith("level"))
        for mine in ("d2d4", "g1f3", "e2e3", "f1d3", "e1g1", "c2c4", "b1c3", "a2a3")[:args.moves]:
            if mine not in {m.uci() for m in b.board.legal_moves}:
                mine = next(iter(b.board.legal_moves)).uci()
            play(b, mine)
            play(b, wait_computer(b, timeout=600), order="mover-first")
            figures(b, "3 s/move", out)
        b.console("level %d" % (find_level("Analysis") + 1), lambda line: line.startswith("level"))
        b.board = chess.Board(MIDDLEGAME)
        b.arrange(b.board)
        b.console("new " + MIDDLEGAME, lambda line: True)
        b.run(1000)
        play(b, "h2h3")  # the computer (black) analyses from here
        b.run(args.analysis_s * 1000)
        b.press("move")  # move now
        wait_computer(b, timeout=600)
        figures(b, "Analysis", out)
        host_s = time.monotonic() - host0
        emulated_s = b.now_ms() / 1000
    searches = [v for tag, kind, v in out if kind == "search" and v["work"] == 1]
    gcs = [v for tag, kind, v in out if kind == "gc"]
    print("\nboot: soft reset -> first matrix scan %.1f s, -> console answers %.1f s (emulated)"
          % ((first_scan - t_reset) / 1e9, (ready - t_reset) / 1e9))
    timed = [v for v in searches if v["ms"] >= 1000]
    if timed:
        nodes = sum(v["nodes"] for v in timed)
        ms = sum(v["ms"] for v in timed)
        print("search (the computer's moves of >= 1 s): %d searches, %d nodes in %.1f s: %d nodes/s (min %d, max %d)"
              % (len(timed), nodes, ms / 1000, nodes * 1000 // ms, min(v["nps"] for v in timed),
                 max(v["nps"] for v in timed)))
    if searches:
        deepest = max(searches, key=lambda v: v["seldepth"])
        print("deepest: depth %d, selective depth %d plies; C stack use at a poll up to %d bytes; "
              "ply limit from the stack %d (63 = never lowered)"
              % (max(v["depth"] for v in searches), deepest["seldepth"], max(v["stack_use"] for v in searches),
                 min(v["stack_ply"] for v in searches)))
    if gcs:
        worst = max(gcs, key=lambda v: v["us"])
        print("gc.collect(): longest %.1f ms with %d bytes of heap in use; shortest %.1f ms (%d searches)"
              % (worst["us"] / 1000, worst["heap_used"], min(v["us"] for v in gcs) / 1000, len(gcs)))
    print("host %.0f s, emulated %.0f s" % (host_s, emulated_s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
