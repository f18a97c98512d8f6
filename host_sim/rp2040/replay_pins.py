"""Replay a sensor log into the board at the pins of an emulated Pico.

    python -m host_sim.rp2040.replay_pins LOG [--image FLASH] [--fen FEN] [--nodes N]

    from host_sim.replay import SensorLog
    from host_sim.rp2040.replay_pins import replay
    replay(b, SensorLog.load("sensors.log"))   # b: a booted host_sim.rp2040.pico_board.PicoBoard

A sensor log (host_sim/replay.py's format: written by the firmware when its sensor log is on,
firmware/features/sensor_log.py, or by the simulator's --record) holds every debounced touch
and button press with its time. `replay` performs them on the modelled board's pins at their
logged times, relative to the moment it starts (the first event now, then the gaps kept in
emulated time): `lift`/`place` open/close the reed switch, `press` holds the button for
PRESS_MS ending at the logged time (the firmware logs a short press when it sees the
release), `hold` presses it long_press_ms + 60 ms before the logged time (a long press is
logged once held long enough) and lets go 60 ms after; `note` lines are skipped.

The command line boots a board (flashed with `make flash BOARD=pico`, or powered on from a
saved flash image: PicoBoard.save_flash / power_cut), the pieces of FEN (default: the start
position) on the switches, replays the log, printing each event with the LEDs after it
(read from the pins between two events: the firmware is not asked, so the gaps stay), then
the game record (`moves`) and the display.
"""
import argparse
import sys
import time

import chess

from host_sim.replay import SensorLog
from host_sim.rp2040.pico_board import PRESS_MS

HOLD_MARGIN_MS = 60


def actions(b, log, press_ms=PRESS_MS):
    """[(time_ms, kind, arg, event)] of the pin changes that perform `log` (kind: "lift",
    "place", "down", "up"), in time order; times are the log's."""
    long_ms = b.config["long_press_ms"]
    out = []
    for n, ev in enumerate(log.events):
        if ev.action in ("lift", "place"):
            out.append((ev.time_ms, n, ev.action, ev.arg.split()[0], ev))
        elif ev.action == "press":
            out.append((ev.time_ms - press_ms, n, "down", ev.arg, ev))
            out.append((ev.time_ms, n, "up", ev.arg, None))
        elif ev.action == "hold":
            out.append((ev.time_ms - long_ms - HOLD_MARGIN_MS, n, "down", ev.arg, ev))
            out.append((ev.time_ms + HOLD_MARGIN_MS, n, "up", ev.arg, None))
    out.sort(key=lambda a: (a[0], a[1]))
    return [(t, kind, arg, ev) for t, _, kind, arg, ev in out]


def replay(b, log, on_event=None, press_ms=PRESS_MS, settle_ms=1000):
    """Perform `log`'s events on PicoBoard `b` at their logged times (the first now, the gaps
    kept in emulated time); then let the board run `settle_ms`. `on_event(event, ms)` after
    each (ms: the emulated time it happened at). Returns the number of events performed.
    Raises ValueError for a button the board does not have."""
    steps = actions(b, log, press_ms)
    for _, kind, arg, _ in steps:
        if kind in ("down", "up") and arg not in b.config["buttons"]:
            raise ValueError("the log presses %r, the %s board has %s" % (arg, b.board_name,
                                                                      ", ".join(sorted(b.config["buttons"]))))
    if not steps:
        return 0
    base = b.ctl("time")["ns"] - steps[0][0] * 10 ** 6
    done = 0
    for t, kind, arg, ev in steps:
        due = base + t * 10 ** 6
        if due > b.last_ns:
            b.run((due - b.last_ns) / 1e6)
        if kind == "lift":
            b.lift(arg)
        elif kind == "place":
            b.place(arg)
        elif kind == "down":
            b.hold(arg)
        else:
            b.release(arg)
        if ev is not None:
            done += 1
            if on_event is not None:
                on_event(ev, b.last_ns / 1e6)
    b.run(settle_ms)
    return done


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m host_sim.rp2040.replay_pins",
                                description="Replay a sensor log at the pins of the emulated Pico.")
    p.add_argument("log", help="a sensor log (firmware or simulator)")
    p.add_argument("--image", help="power on from this saved flash image instead of flashing")
    p.add_argument("--fen", default=chess.STARTING_FEN, help="the pieces on the board when the log starts")
    p.add_argument("--nodes", type=int, default=0, help="cap every search at N nodes (console `nodes`)")
    p.add_argument("--quiet", action="store_true", help="no line per event")
    args = p.parse_args(argv)
    from host_sim.rp2040.pico_board import PicoBoard
    from tools.emulated_pico import unavailable

    log = SensorLog.load(args.log)
    why = unavailable()
    if why:
        print(why, file=sys.stderr)
        return 2
    t0 = time.monotonic()
    b = PicoBoard(fen=args.fen)
    try:
        if args.image:
            b.occupied = {sq for sq in chess.SQUARES if b.board.piece_at(sq)}
            b.power_on(args.image)
        else:
            b.start()
            b.flash()
            b.boot()
        if args.nodes:
            b.console("nodes %d" % args.nodes, lambda line: line == "ok")
        print("booted (%.0f s host); replaying %d events of %s" % (time.monotonic() - t0, len(log.events), args.log),
              flush=True)

        def show(ev, ms):
            if args.quiet:
                return
            lit = " ".join("%s:%s" % (sq, pat) for sq, pat in sorted(b.lit().items())) or "-"
            print("%8.0f ms  %-16s LEDs %s" % (ms, ev.command(), lit), flush=True)

        replay(b, log, on_event=show)
        print("moves: %s" % " ".join(b.game()))
        print("display: %s" % " | ".join(line for line in b.display_text() if line.strip()))
        print("%.0f s host, %.1f s emulated" % (time.monotonic() - t0, b.now_ms() / 1000))
    finally:
        b.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
