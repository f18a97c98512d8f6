"""The emulated Pico's host cost: host CPU seconds of the runner per emulated second of a busy
chip, with rp2040js as published against the runner's table decoding and SRAM-first writes
(docs/emulated-pico.md, "How the runner saves host time"). Run by hand:

    .venv/bin/python bench/emulator_pace.py [--rounds 2]

Each round starts a bare emulated Pico (tools/emulated_pico.py) once with REEDCHESS_PLAIN_CORE=1
and once without, runs the same busy MicroPython loop at its REPL, and reads the runner's
user + system CPU from /proc around it. The emulated time the loop took is the same both ways
(the chip computes the same); the ratio of the two host figures is what the runner saves.
Linux only (/proc). Results go to docs/benchmarks.md by hand.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.web_demo import _tree_cpu_s  # noqa: E402  (the runner has no children: its own CPU)
from tools.emulated_pico import EmulatedPico, unavailable  # noqa: E402

LOOP = """
import time
t = time.ticks_ms()
s = 0
for i in range(200000):
    s += i * i % 7
d = {}
for i in range(3000):
    d[i] = str(i)
print('EMULATED_MS', time.ticks_diff(time.ticks_ms(), t))
"""


def one_run(plain):
    """(emulated seconds, runner CPU seconds) of LOOP on a fresh bare Pico."""
    os.environ["REEDCHESS_PLAIN_CORE"] = "1" if plain else "0"
    try:
        with EmulatedPico(hold_heap=False) as pico:
            before = _tree_cpu_s(pico.proc.pid)
            out = pico.exec(LOOP, timeout=900)
            cpu = _tree_cpu_s(pico.proc.pid) - before
    finally:
        os.environ.pop("REEDCHESS_PLAIN_CORE", None)
    emulated_ms = int(out.split("EMULATED_MS")[1].split()[0])
    return emulated_ms / 1000, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2, help="plain/table pairs to run (default 2)")
    args = ap.parse_args()
    why = unavailable()
    if why:
        sys.exit("no emulated Pico: %s" % why)
    ratios = []
    for r in range(args.rounds):
        emulated, plain = one_run(True)
        emulated2, table = one_run(False)
        assert emulated == emulated2, (emulated, emulated2)  # the same computation both ways
        ratios.append(table / plain)
        print("round %d: %.2f s emulated; runner CPU %.1f s plain (%.2f per emulated s), %.1f s with "
              "the table (%.2f); ratio %.2f" % (r + 1, emulated, plain, plain / emulated, table,
                                                table / emulated, table / plain), flush=True)
    ratios.sort()
    print("median ratio (table / plain): %.2f over %d rounds" % (ratios[len(ratios) // 2], len(ratios)))


if __name__ == "__main__":
    main()
