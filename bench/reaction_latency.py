"""Sensor-to-LED reaction while the engine works, in device-equivalent milliseconds.

    .venv/bin/python bench/reaction_latency.py [board] [samples]

Runs the real firmware in the Simulator (simulated device time: a main-loop pass and every
searched node cost what they cost on the chip, see host_sim/clock.py) and measures, many
times at random moments, how long after a piece is lifted its legal targets light up:
- idle: the player's turn, no search running;
- thinking: the computer searches its move (the Analysis level, so the search outlasts the
  measurement), a piece of the side to move lifted;
- pondering: the engine thinks on the player's time, the player lifts a piece.
Each case twice: with the App's adaptive poll interval (default) and with a fixed
`poll_nodes` from the board config. The times include the debounce time of the board config
(a change must be steady that long before it counts). Results go to docs/benchmarks.md.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from firmware.engine.levels import find_level  # noqa: E402
from host_sim import Simulator  # noqa: E402
from host_sim.clock import device_speed  # noqa: E402

LEVEL = find_level("10 s/move")


def measure(sim, square, rng, samples, limit_ms=2000):
    out = []
    for _ in range(samples):
        sim.run(rng.randrange(20, 200))
        sim.lift(square)
        t0 = sim.now_ms()
        while not sim.lit() and sim.now_ms() - t0 < limit_ms:
            sim.run(1)
        out.append(sim.now_ms() - t0)
        sim.place(square)
        sim.run(400)
    return out


def scenario(board, kind, adaptive, samples, seed=1):
    level = find_level("Analysis") if kind == "thinking" else LEVEL
    sim = Simulator(board=board, level=level, book=False, ponder=(kind == "pondering"), seed=seed)
    if not adaptive:
        sim.app.poll_target_ms = 0
        sim.app.searcher.poll_nodes = sim.config["poll_nodes"]
    rng = random.Random(seed)
    if kind == "idle":
        times = measure(sim, "g1", rng, samples)
    elif kind == "thinking":
        sim.play("e2e4")
        sim.run(300)
        times = measure(sim, "g8", rng, samples)
        assert sim.state()["thinking"], "the search ended during the measurement"
    else:
        sim.play("e2e4")
        sim.wait_computer()
        sim.execute()
        sim.run(300)
        times = measure(sim, "g1", rng, samples)
        assert sim.state()["pondering"], "pondering ended during the measurement"
    sim.close()
    return times, sim.app.searcher.poll_nodes


def search_rate(board, adaptive, seconds=20):
    """Nodes per simulated second while the computer analyses (the price of polling)."""
    sim = Simulator(board=board, level=find_level("Analysis"), book=False, ponder=False)
    if not adaptive:
        sim.app.poll_target_ms = 0
        sim.app.searcher.poll_nodes = sim.config["poll_nodes"]
    sim.play("e2e4")
    sim.run(100)
    n0, t0 = sim.app.work_nodes, sim.now_ms()
    sim.run(seconds * 1000)
    rate = (sim.app.work_nodes - n0) * 1000.0 / (sim.now_ms() - t0)
    sim.close()
    return rate


def main():
    board = sys.argv[1] if len(sys.argv) > 1 else "pico"
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    sim = Simulator(board=board, book=False)
    cfg = sim.config
    nps, pass_us = device_speed(cfg)
    sim.close()
    print("board %s (%s): %d nodes/s, %.1f ms per pass, debounce %d ms, poll_nodes %d"
          % (board, cfg["mcu"], nps, pass_us / 1000.0, cfg["debounce_ms"], cfg["poll_nodes"]))
    print("%-10s %-9s %8s %8s %8s %12s" % ("case", "poll", "mean ms", "p90 ms", "max ms", "poll_nodes"))
    for kind in ("idle", "thinking", "pondering"):
        for adaptive in (True, False):
            if kind == "idle" and not adaptive:
                continue
            times, pn = scenario(board, kind, adaptive, samples)
            times.sort()
            print("%-10s %-9s %8.1f %8d %8d %12d" % (kind, "adaptive" if adaptive else "fixed", sum(times) / len(times),
                                                     times[int(len(times) * 0.9) - 1], times[-1], pn))
    print("search speed while analysing: adaptive %.0f nodes/s, fixed %.0f nodes/s (device %d)"
          % (search_rate(board, True), search_rate(board, False), nps))


if __name__ == "__main__":
    main()
