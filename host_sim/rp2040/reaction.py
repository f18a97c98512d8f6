"""Measured on the emulated chip: from lifting a piece to its legal targets on the LEDs.

    .venv/bin/python -m host_sim.rp2040.reaction [samples] [--no-display] [--board pico_mcp]   # default 8 per case

Flashes Reedchess into the emulated stock Pico (host_sim/rp2040/board.mjs; powered on from the
saved flash when this build was flashed before, PicoBoard.flash_or_reuse), boots main.py and,
in emulated time, lifts a piece at random moments and times the first WS2812 frame (decoded
from the data pin) that shows all its legal targets, in three cases as bench/reaction_latency.py:
- idle: the player's turn, no search running (the start position, g1);
- thinking: the computer searches its move at the Analysis level (after 1.e4, g8 lifted);
- pondering: the engine thinks on the player's time (after the computer's reply, g1).
Also: power-on (soft reset) to the first scan of the reed matrix and to the console answering,
and the gaps between two scans (a touch or press shorter than a gap can go unseen).
Results go to docs/benchmarks.md by hand. Emulated time: see docs/pin-model.md for its limits.
"""
import random
import statistics
import sys
import time

import chess

from firmware.engine.levels import find_level
from host_sim.rp2040.pico_board import PicoBoard, colour_role, play, scan_gaps, wait_computer, wait_status


def lift_to_targets(b, sq, limit_ms=1500):
    """Emulated ms from lifting `sq` to the first frame showing all its targets (None: none in
    limit_ms); the piece goes back after. Also the longest scan gap in that stretch."""
    frm = chess.parse_square(sq)
    targets = {m.to_square for m in b.board.legal_moves if m.from_square == frm}
    t_lift = b.lift(sq)
    b.run(limit_ms)
    hit = None
    for t, px in b.frames(t_lift):
        if t <= t_lift:
            continue
        lit = {b._pixel_cell[i] for i, rgb in enumerate(px[:64]) if colour_role(rgb) == "info"}
        if targets <= lit:
            hit = (t - t_lift) / 1e6
            break
    _, gaps = scan_gaps(b, t_lift, gap_ms=0)
    longest = max((c - a for a, c in gaps if a * 1e6 < t_lift + limit_ms * 1e6), default=0)
    b.place(sq)
    return hit, longest


def measure(b, sq, samples, rng):
    hits, gaps = [], []
    for _ in range(samples):
        b.run(rng.randrange(300, 700))
        hit, gap = lift_to_targets(b, sq)
        hits.append(hit)
        gaps.append(gap)
    return hits, gaps


def summary(name, hits, gaps):
    ok = [h for h in hits if h is not None]
    return ("%-10s n=%d mean %.0f ms, min %.0f, max %.0f, unseen %d; longest scan gap %.0f ms"
            % (name, len(hits), statistics.mean(ok) if ok else -1, min(ok, default=-1), max(ok, default=-1),
               len(hits) - len(ok), max(gaps)))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    display = "--no-display" not in argv
    argv = [a for a in argv if a != "--no-display"]
    board = "pico"
    if "--board" in argv:
        i = argv.index("--board")
        board = argv[i + 1]
        del argv[i:i + 2]
    samples = int(argv[0]) if argv else 8
    rng = random.Random(1)
    host0 = time.monotonic()
    with PicoBoard(board=board, display=display) as b:
        b.flash_or_reuse()  # make flash's work, or this build's saved flash
        t_reset = b.ctl("time")["ns"]
        b.boot()
        ready = b.ctl("time")["ns"]
        first_scan = b.ctl("scans", since_ns=t_reset, gap_ms=10 ** 6)["first"]
        lines = ["board %s, display %s" % (board, "SSD1306 on I2C" if display else "none (no answer on I2C)"),
                 "boot (soft reset -> first matrix scan) %.0f ms; -> console answers %.0f ms"
                 % ((first_scan - t_reset) / 1e6, (ready - t_reset) / 1e6)]
        lines.append("boot printed: %s" % [line for line in b.pico.transcript if line.strip()])
        b.console("nodes 0", lambda line: line == "ok")
        b.run(1000)
        lines.append(summary("idle", *measure(b, "g1", samples, rng)))
        b.console("level %d" % (find_level("Analysis") + 1), lambda line: line.startswith("level"))
        play(b, "e2e4")
        b.run(300)
        hits, gaps = measure(b, "g8", samples, rng)
        phase = wait_status(b, lambda s: True)[0]
        lines.append(summary("thinking", hits, gaps) + " (phase after: %s)" % phase)
        b.console("level %d" % (find_level("10 s/move") + 1), lambda line: line.startswith("level"))
        b.press("move")  # move now
        play(b, wait_computer(b))
        b.run(500)
        hits, gaps = measure(b, "g1", samples, rng)
        lines.append(summary("pondering", hits, gaps))
        lines.append("host %.0f s, emulated %.1f s" % (time.monotonic() - host0, b.now_ms() / 1000))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
