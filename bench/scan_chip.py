"""One full-board sensor scan on the emulated Pico, per board: the reed matrix (`pico`) against
the MCP23017 expanders (`pico_mcp`). Run by hand:

    .venv/bin/python bench/scan_chip.py [pico pico_mcp] [--scans 200]

Each board is flashed into the emulated stock Pico with its own electronics at the pins
(host_sim/rp2040/board.mjs: the matrix with its diodes; the expanders on I2C0, every byte
taking 9 SCL periods at the bus's clock), its drivers are built at the REPL with the real
`machine` factory, and `scans` scans of a board with 32 pieces are timed with time.ticks_us
(emulated time: what the chip would take). The matrix's figure includes its 8 x settle_us.
Results go to docs/benchmarks.md by hand.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CODE = r"""
import time
from boards.config import build_hardware
from boards.machine_factory import MachineFactory
import boards.%s as B
hw = build_hardware(B.CONFIG, MachineFactory())
raw = bytearray(8)
s = hw.sensors
for i in range(5):
    s.scan_into(raw)
t0 = time.ticks_us()
for i in range(%d):
    s.scan_into(raw)
us = time.ticks_diff(time.ticks_us(), t0) / %d
print("scan_us %%.0f pieces %%d faults %%r" %% (us, sum(bin(b).count("1") for b in raw), hw.faults))
"""


def measure(board, scans):
    import chess

    from host_sim.rp2040.pico_board import PicoBoard

    host0 = time.monotonic()
    with PicoBoard(board) as b:
        b.flash_or_reuse()
        b.arrange(chess.Board())  # the 32 pieces of the start position on their sensors
        out = b.pico.exec(CODE % (board, scans, scans))
    line = [x for x in out.splitlines() if x.startswith("scan_us")][-1]
    return "%-9s %s (host %.0f s)" % (board, line, time.monotonic() - host0)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    scans = 200
    if "--scans" in argv:
        i = argv.index("--scans")
        scans = int(argv[i + 1])
        del argv[i:i + 2]
    for board in argv or ["pico", "pico_mcp"]:
        print(measure(board, scans), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
