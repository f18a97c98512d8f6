"""Power cuts on the emulated Pico, pin for pin: does the journal keep the game?

    python -m host_sim.rp2040.power_cut [N] [--seed S] [--nodes 40]    # default: 20 cuts

One game on the `pico` board model (host_sim/rp2040/board.mjs, docs/pin-model.md), flashed with
`make flash BOARD=pico`: the hand plays White (random legal moves), the computer's moves are
read from the LEDs and executed by hand. N times the power goes at a random emulated moment
(seeded, the seed printed): even cuts at a uniformly random time in the next `--window-ms`,
odd ones just before a random one of the next three erase/program calls of the flash (the
journal's writes: one 256-byte program per move, littlefs's compactions erase and program
several). The flash as it was at that moment is kept; a new runner boots from it with the
pieces where the hand left them, main.py resumes the game, the LEDs guide the pieces back, the
hand does what they show, and play goes on.

What the journal promises (firmware/controller/journal.py, docs/playing.md "Power loss"):
the game resumes at the last move whose record was complete. The firmware writes a move's
record in the same main-loop pass that counts it (flow.py: game.push, then journal.record_move,
which appends and closes the file), before its console can report it. So, with C the record
the firmware had reported before the cut, R the record it reports just after the cut moment
(the chip runs on a little after the snapshot of its flash, so it can be asked), and W the
flash calls between the cut and that answer:
  - the resumed record is a prefix of R and holds all of C (a reported move is never lost);
  - with W empty it is R exactly (everything R counts was on the flash at the cut);
  - a move of R missing from it is one whose journal write the cut interrupted (W not empty).
A lost game is any other outcome. Also checked: the LEDs show exactly the squares where the
pieces disagree with the resumed game (fast blink: take away, steady: put a piece), and the
game goes on after the hand fixed them.
"""
import argparse
import random
import sys
import time

import chess

from host_sim.rp2040.pico_board import CutFired, PicoBoard, play, wait_computer, wait_lit, wait_status

WINDOW_MS = 3000  # a time cut falls in the next WINDOW_MS of emulated time (about a move each)
FLASH_CALLS = 3  # a flash cut falls before one of the next FLASH_CALLS erase/program calls


def _status(b):
    line = b.console("status", lambda l: " ply " in l)
    phase, _, ply, result = line.split()[:4]
    return phase, int(ply), result


class PowerGame:
    """One game by hand on PicoBoard `b`, with power cuts (see the module doc)."""

    def __init__(self, b, rng, nodes=40, log=print):
        self.b = b
        self.rng = rng
        self.nodes = nodes
        self.log = log
        self.confirmed = [(0, [])]  # [(ns, record)]: what the firmware reported, and when (ns after it)
        self.steps = []  # [(ns, text)]: what the hand was doing from ns on
        self.start_fen = chess.STARTING_FEN

    # ---- playing ------------------------------------------------------------------------------
    def begin(self):
        """After a boot or power-on: cap the searches, note what the firmware reports."""
        self.b.console("nodes %d" % self.nodes, lambda l: l == "ok")
        self.confirm()

    def confirm(self):
        record = self.b.game()
        self.confirmed.append((self.b.ctl("time")["ns"], record))
        return record

    def _note(self, text):
        self.steps.append((self.b.ctl("time")["ns"], text))

    def step(self):
        """One move: the hand's own, or the computer's read from the LEDs and executed by hand
        (a new game when the last one ended). May raise CutFired."""
        b = self.b
        if b.board.is_game_over() or _status(b)[0] == "over":
            self._note("new game")
            b.console("new", lambda l: True)
            b.board = chess.Board()
            b.run(200)
            b.arrange(b.board)
            wait_status(b, lambda s: s[0] == "player" and s[1] == 0)
        elif b.board.turn == chess.WHITE:
            moves = [m for m in b.board.legal_moves if not m.promotion] or list(b.board.legal_moves)
            move = self.rng.choice(moves)
            self._note("the hand plays %s" % move.uci())
            play(b, move)
        else:
            self._note("the computer thinks")
            move = wait_computer(b)
            self._note("the hand executes the computer's %s" % move.uci())
            play(b, move, choose=False)
            if move.promotion:  # the LEDs do not say which piece: the record does
                b.board.pop()
                b.board.push_uci(b.game()[-1])
        self.confirm()

    # ---- a cut --------------------------------------------------------------------------------
    def cut(self, mode, max_steps=12, flash_call=None):
        """Arm a cut ("time" or "flash"), play until it fires, power on from the flash it kept,
        check the resumed game, follow the LEDs back. Returns a dict describing it.
        flash_call: the flash cut's call (default: random, 1..FLASH_CALLS)."""
        b = self.b
        start_ns = b.ctl("time")["ns"]
        if mode == "time":
            at = start_ns + int(self.rng.uniform(0, WINDOW_MS) * 1e6)
            path = b.arm_cut(at_ns=at)
            what = "at %.0f ms" % (at / 1e6)
        else:
            k = flash_call or self.rng.randint(1, FLASH_CALLS)
            path = b.arm_cut(flash_call=k)
            what = "before flash call %d from now" % k
        b.stop_at_cut = True
        try:
            for _ in range(max_steps):
                self.step()
            raise AssertionError("the cut (%s) did not come within %d moves" % (what, max_steps))
        except CutFired:
            pass
        cut_ns = b.cut["ns"]
        # the chip ran on past the cut: what it reports now, and the flash calls since the cut
        phase2, _, _ = _status(b)
        after = b.game()
        t2 = b.ctl("time")["ns"]
        if phase2 == "promote":
            after = after[:-1]  # counted once the piece is chosen (never the case: the hand avoids promotions)
        writes = [op for op in b.flash_ops(cut_ns - 1) if op[0] <= t2]  # the call the cut came before too
        before = [rec for ns, rec in self.confirmed if ns <= cut_ns][-1]
        doing = [(ns, text) for ns, text in self.steps if ns <= cut_ns]
        step_ns = doing[-1][0] if doing else start_ns
        touched = sum(1 for ns, _ in b.touch_log if step_ns < ns <= cut_ns)  # of the step under way
        occupied = b.occupied_at(cut_ns)
        t0 = time.monotonic()
        b.power_on(path, occupied=occupied)
        boot_s = time.monotonic() - t0
        boot_ms = b.now_ms()
        resumed = b.game()
        ok = resumed == after[:len(resumed)] and resumed[:len(before)] == before and len(resumed) >= len(before)
        if not writes:
            ok = ok and resumed == after
        out = {
            "mode": mode, "what": what, "cut_ms": cut_ns / 1e6, "phase": doing[-1][1] if doing else "-",
            "firmware_after": phase2, "touches": touched, "reported_before": len(before), "counted_after": len(after),
            "writes_after": len(writes), "resumed": len(resumed), "ok": ok, "resumed_record": resumed,
            "lost": list(after[len(resumed):]) if not ok else [],
            "unwritten": after[len(resumed):] if ok else [], "boot_s": boot_s, "boot_ms": boot_ms,
        }
        # the host's picture: the resumed game; the pieces where the hand left them
        b.board = chess.Board(self.start_fen)
        for text in resumed:
            b.board.push_uci(text)
        self.confirmed = [(0, resumed)]
        self.steps = []
        out["guided"] = self.guide_back()
        self.begin()
        return out

    def guide_back(self, timeout=180):
        """The LEDs show the squares where the pieces disagree with the game (fast blink: take
        the piece away, steady: put one there); the hand does what they show. Returns
        {"take": [...], "put": [...]} (what was shown and done)."""
        b = self.b
        want = {sq for sq in chess.SQUARES if b.board.piece_at(sq)}
        extra = sorted(b.occupied - want)
        missing = sorted(want - b.occupied)
        shown = {"take": [chess.square_name(s) for s in extra], "put": [chess.square_name(s) for s in missing]}
        if extra or missing:
            expect = {chess.square_name(s): "blink-fast" for s in extra}
            expect.update({chess.square_name(s): "on" for s in missing})
            wait_lit(b, lambda lit: {sq: p for sq, (p, role) in lit.items() if role == "info"} == expect,
                     timeout=timeout)
            for s in extra:
                b.lift(s)
                b.run(250)
            for s in missing:
                b.place(s)
                b.run(250)
        wait_status(b, lambda s: s[0] != "verify", timeout=timeout)
        return shown


def describe(i, r):
    text = "cut %2d %-5s %-29s at %9.0f ms, %s (%d touch%s of it done); reported %d plies before, %d after " \
           "(%s), %d flash call%s between; resumed %d plies" % (
               i, r["mode"], "(%s)" % r["what"], r["cut_ms"], r["phase"], r["touches"],
               "" if r["touches"] == 1 else "es", r["reported_before"], r["counted_after"], r["firmware_after"],
               r["writes_after"], "" if r["writes_after"] == 1 else "s", r["resumed"])
    if r["unwritten"]:
        text += " (%s: not on the flash yet at the cut)" % " ".join(r["unwritten"])
    if r["guided"]["take"] or r["guided"]["put"]:
        text += "; LEDs guided back: take %s, put %s" % (" ".join(r["guided"]["take"]) or "-",
                                                        " ".join(r["guided"]["put"]) or "-")
    text += "; boot %.1f s emulated, %.0f s host" % (r["boot_ms"] / 1000, r["boot_s"])
    if not r["ok"]:
        text += "  LOST %s" % " ".join(r["lost"])
    return text


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m host_sim.rp2040.power_cut", description=__doc__.split("\n")[0])
    p.add_argument("cuts", nargs="?", type=int, default=20, help="how many power cuts (default 20)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock, printed)")
    p.add_argument("--nodes", type=int, default=40, help="every search's node cap (default 40)")
    args = p.parse_args(argv)
    from tools.emulated_pico import unavailable

    why = unavailable()
    if why:
        print(why, file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    print("power cuts: %d, seed %d, nodes %d" % (args.cuts, seed, args.nodes), flush=True)
    rng = random.Random(seed)
    t0 = time.monotonic()
    b = PicoBoard()
    b.start()
    results = []
    try:
        b.flash()
        print("flashed in %.0f s host" % (time.monotonic() - t0), flush=True)
        b.boot()
        game = PowerGame(b, rng, nodes=args.nodes)
        game.begin()
        for i in range(1, args.cuts + 1):
            r = game.cut("time" if i % 2 else "flash")
            results.append(r)
            print(describe(i, r), flush=True)
        game.step()  # and the game goes on
        record = game.confirm()
        ref = chess.Board()
        for text in record:
            ref.push_uci(text)  # python-chess replays the firmware's record (raises if illegal)
    finally:
        b.stop()
        b.forget_images()
    lost = [r for r in results if not r["ok"]]
    unwritten = sum(1 for r in results if r["unwritten"])
    guided = sum(1 for r in results if r["guided"]["take"] or r["guided"]["put"])
    print("%d cuts, %d lost; %d came before a counted move's journal write was on the flash (that move not "
          "resumed, as promised); "
          "%d left the pieces off the game (LEDs guided them back); game at %d plies; %.0f s host "
          "(seed %d)" % (len(results), len(lost), unwritten, guided, len(record), time.monotonic() - t0, seed))
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
