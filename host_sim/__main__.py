"""`python -m host_sim` (`make sim`): the Reedchess chess computer on your desk.

    python -m host_sim                       # terminal UI (full screen on a terminal, lines in a pipe)
    python -m host_sim --web [--port 8000]   # the web page on http://127.0.0.1:8000/
    python -m host_sim --board esp32s3 --human black --seed 3
    python -m host_sim --record game.log     # write every touch and button press to a sensor log
    python -m host_sim --selftest            # switched on with *hint* held: the self-test
    python -m host_sim --replay game.log     # replay a sensor log (from the simulator or a real
                                             # board), show what the firmware made of it, go on
    python -m host_sim --eboard millennium --serial-link /tmp/reedchess
                                             # the board as an e-board (dgt or millennium) on a
                                             # pseudo-terminal: chess programs open /tmp/reedchess
"""
import argparse
import importlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SELFTEST_BUTTON = "hint"  # firmware/features/boot.py: held at power-on, it starts the self-test
SELFTEST_HOLD_MS = 500
EBOARDS = ("dgt", "millennium")  # settings.eboard 1, 2


def board_names():
    """Board modules in boards/ that define a CONFIG (sorted)."""
    names = []
    for fn in sorted(os.listdir(os.path.join(ROOT, "boards"))):
        if fn.endswith(".py") and not fn.startswith("_") and fn not in ("config.py", "machine_factory.py", "blinka.py"):
            names.append(fn[:-3])
    return names


def load_board(name):
    """The CONFIG dict of boards/<name>.py; ValueError listing the boards otherwise."""
    if name not in board_names():
        raise ValueError("unknown board %r (boards: %s)" % (name, ", ".join(board_names())))
    return importlib.import_module("boards." + name).CONFIG


def make_parser():
    p = argparse.ArgumentParser(prog="python -m host_sim", description="Reedchess simulator: the real firmware "
                                "on a simulated reed-switch board.")
    p.add_argument("--web", action="store_true", help="serve the web page on 127.0.0.1 instead of the terminal UI")
    p.add_argument("--port", type=int, default=8000, help="web page port (default 8000, 0 = any free port)")
    p.add_argument("--board", default=None, help="board config to simulate (default pico; LED kind, buttons,"
                   " display and limits follow it): %s" % ", ".join(board_names()))
    p.add_argument("--human", choices=("white", "black", "both"), default=None,
                   help="the colour you play (default white; both: two players, the computer referees)")
    p.add_argument("--level", type=int, default=None, help="start on this level (1 = the first; default: the"
                   " firmware's default level)")
    p.add_argument("--seed", type=int, default=None, help="random seed of the simulation (default 0)")
    p.add_argument("--replay", metavar="FILE", help="replay a sensor log first (its header gives board,"
                   " human and seed unless set here)")
    p.add_argument("--record", metavar="FILE", help="record every touch and button press to a sensor log")
    p.add_argument("--speed", type=float, default=1.0, help="simulated time per real time in the live UIs"
                   " (default 1: the device's real pace)")
    p.add_argument("--lines", action="store_true", help="line-by-line UI even on a terminal")
    p.add_argument("--eboard", choices=EBOARDS, default=None, help="start in the e-board mode: the board"
                   " speaks DGT's or the Millennium ChessLink protocol on --serial-link (docs/eboard.md)")
    p.add_argument("--serial-link", metavar="PATH", help="with --eboard: make a pseudo-terminal and a symlink"
                   " to it at PATH, the board's USB serial port for a chess program")
    p.add_argument("--selftest", action="store_true", help="switch on with *hint* held: the self-test"
                   " (a long press of new moves to the next test; after the last the game starts)")
    return p


def build(args, header=None):
    """A Table on a fresh Simulator from parsed args and an optional replay log header."""
    from host_sim import Simulator
    from host_sim.replay import Recorder
    from host_sim.tui import Table

    header = header or {}
    board = args.board or header.get("board") or "pico"
    human = args.human or header.get("human") or "white"
    seed = args.seed if args.seed is not None else int(header.get("seed", 0))
    config = load_board(board)
    kwargs = {}
    level = args.level if args.level is not None else (int(header["level"]) if "level" in header else None)
    if level is not None:
        from firmware.engine.levels import LEVELS

        if not 1 <= level <= len(LEVELS):
            raise ValueError("level must be 1..%d, got %d" % (len(LEVELS), level))
        kwargs["level"] = level - 1
    if getattr(args, "selftest", False):
        kwargs["held_at_boot"] = (SELFTEST_BUTTON,)
    eboard = getattr(args, "eboard", None)
    link_path = getattr(args, "serial_link", None)
    if eboard and not link_path:
        raise ValueError("--eboard needs --serial-link PATH (the pseudo-terminal's symlink, e.g. /tmp/reedchess)")
    if link_path and not eboard:
        raise ValueError("--serial-link needs --eboard dgt|millennium")
    if eboard:
        from host_sim.eboard_link import PtyLink

        kwargs["eboard"] = EBOARDS.index(eboard) + 1
        kwargs["link"] = PtyLink(link_path)
    sim = Simulator(seed=seed, human=human, board=board, **kwargs)
    if getattr(args, "selftest", False):
        sim.run(SELFTEST_HOLD_MS)  # the hand lets go of the button once the board is on
        sim.release(SELFTEST_BUTTON)
    recorder = None
    if args.record:
        try:
            stream = open(args.record, "w")
        except OSError as e:
            raise ValueError("cannot write %s: %s" % (args.record, e.strerror or e)) from None
        level_now = sim.state().get("level") if hasattr(sim, "state") else None
        head = {"board": board, "human": human, "seed": seed, "source": "simulator"}
        if level_now is not None:
            head["level"] = level_now + 1
        recorder = Recorder(stream, head)
    return Table(sim, config=config, recorder=recorder, human=human)


def run_replay(table, log, out):
    """Replay `log` on `table`, printing each event and what the firmware showed after it."""
    from host_sim.replay import replay

    def show(ev, reply):
        lit = " ".join("%s:%s" % (sq, p) for sq, p in sorted(table.lit().items())) or "-"
        disp = " | ".join(ln for ln in table.display_lines() if ln) or "-"
        out.write("%8d ms  %-14s LEDs %s  display %s\n" % (ev.time_ms, ev.command(), lit, disp))

    out.write("replaying %d events\n" % len(log.events))
    replay(table, log, on_event=show)
    table.settle()
    out.write("after the replay: moves %s\n" % (table.moves_text() or "-"))


def main(argv=None):
    args = make_parser().parse_args(argv)
    out = sys.stdout
    table = None
    try:
        header = None
        log = None
        if args.replay:
            from host_sim.replay import SensorLog

            log = SensorLog.load(args.replay)
            header = log.header
        table = build(args, header)
        if log is not None:
            run_replay(table, log, out)
        if args.web:
            from host_sim.web import serve

            return serve(table, port=args.port, speed=args.speed)
        from host_sim.tui import run_lines, run_terminal

        link = table.sim.app.link
        if link is not None:
            out.write("e-board (%s): the serial link is %s -> %s\n" % (args.eboard, link.path, link.device))
            out.flush()
        full_screen = sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM", "dumb") != "dumb"
        if link is not None and (args.lines or not full_screen):
            # the board answers the host while the line UI waits for a typed line
            from host_sim.eboard_link import RealTimeInput

            return run_lines(table, infile=RealTimeInput(table, sys.stdin, args.speed))
        if args.lines:
            return run_lines(table)
        return run_terminal(table, speed=args.speed)
    except ValueError as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    finally:
        if table is not None and table.recorder is not None:
            table.recorder.close()
        if table is not None and getattr(table.sim.app, "link", None) is not None:
            table.sim.app.link.close()


if __name__ == "__main__":
    sys.exit(main())
