"""SPSA: tune the engine's numbers on self-play at a fixed number of nodes per move, the
objective that counts (run by hand; results in docs/engine.md and docs/benchmarks.md).

    python tools/spsa.py run --pairs 3000            # -> build/spsa/state.json (resumable)
    python tools/spsa.py show                         # start -> now, for every number
    python tools/spsa.py write                        # the rounded values -> tunables.py, pesto.py

Simultaneous perturbation stochastic approximation, as fishtest runs it for Stockfish: for
each game pair every number is moved by +c or -c at random (the same signs, opposite ways, for
the two engines), the two play an opening with both colours, and every number steps towards
the side that scored more: theta += r_k * c_k * (wins - losses of the plus engine) * sign.
c_k = c_end * (N / k)^0.101 and r_k = a_k / c_k^2 with a_k = a_end * ((A + N) / (A + k))^0.602,
A = N / 10 and a_end = r_end * c_end^2, N being --pairs: the first steps are larger and the
last perturbations are c_end.

The engines are tools/spsa_uci.py (the firmware's UCI engine with every tuned number as an
option) under the MicroPython unix port, kept running: between pairs the tuner sets their
numbers with `setoption`. Games start from the book lines' positions (bench/selfplay.py's
sets), each pair a new opening. --workers runs that many pairs at once (one per core), each
with its own two engines; the numbers they share are updated under a lock as each pair ends.
The state (numbers, pairs played, each pair's result) is saved after every pair, so a run
stopped is continued with the same command.

A plan is a file of lines `NAME C_END` (options of tools/spsa_uci.py: RFP_MARGIN,
FUTILITY_MARGIN[1], PASSED_EG%, MATERIAL_MG[2], KNIGHT_MG% (a piece-square table scaled
about its mean), ...), `#` starting a comment; without
--plan, PLAN below (run 1's; tools/spsa_plans/ keeps the later runs' plans). Every number
stays >= 0 (the evaluation's terms are magnitudes). A table's NAME% and its entries NAME[i]
do not go in one plan (each would undo the other; parse_plan refuses it).
Whatever SPSA finds is a candidate: it lands only after bench/selfplay.py shows the gain.
"""
import argparse
import json
import os
import random
import re
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

OUT = os.path.join(ROOT, "build", "spsa", "state.json")
ALPHA = 0.602  # the gain sequences' exponents (Spall's; fishtest's too)
GAMMA = 0.101
# name, c_end: the perturbation at the end of the run (about what one step of hand tuning was)
PLAN = (
    ("MATERIAL_MG[1]", 4), ("MATERIAL_MG[2]", 8), ("MATERIAL_MG[3]", 8), ("MATERIAL_MG[4]", 10),
    ("MATERIAL_MG[5]", 15),
    ("MATERIAL_EG[1]", 4), ("MATERIAL_EG[2]", 8), ("MATERIAL_EG[3]", 8), ("MATERIAL_EG[4]", 10),
    ("MATERIAL_EG[5]", 15),
    ("ASPIRATION", 5), ("RFP_MARGIN", 8), ("RAZOR_MARGIN", 25), ("FUTILITY_MARGIN[1]", 12),
    ("FUTILITY_MARGIN[2]", 20), ("DELTA_MARGIN", 20), ("LAZY_MARGIN", 30), ("NULL_EXTRA_MARGIN", 25),
    ("TEMPO", 3), ("PAWN_THREAT_MG", 6), ("THREAT_MINOR_MG", 6), ("KING_OPEN_FILE", 3),
    ("PASSED_EG%", 8), ("KING_ATTACK_PENALTY%", 8),
)


class PlanError(ValueError):
    pass


def parse_plan(text):
    """[(name, c_end)] from a plan file's text; a clear error for a malformed line."""
    plan = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        try:
            if len(words) != 2:
                raise ValueError
            c_end = float(words[1])
        except ValueError:
            raise PlanError("plan line %d: want 'NAME C_END', got %r" % (number, line)) from None
        if c_end <= 0:
            raise PlanError("plan line %d: C_END must be above 0, got %r" % (number, line))
        plan.append((words[0], c_end))
    if not plan:
        raise PlanError("the plan names no numbers")
    names = [name for name, _ in plan]
    for name in names:
        if names.count(name) > 1:
            raise PlanError("the plan names %s twice" % name)
        if name.endswith("%") and any(other.startswith(name[:-1] + "[") for other in names):
            raise PlanError("the plan scales %s and tunes its entries too: each would undo the other" % name)
    return plan


def gains(k, pairs, c_end, r_end):
    """(c_k, r_k) for pair k (1-based) of a run of `pairs` (see the module's docstring)."""
    big_a = pairs / 10.0
    c_k = c_end * (pairs / float(k)) ** GAMMA
    a_k = r_end * c_end * c_end * ((big_a + pairs) / (big_a + k)) ** ALPHA
    return c_k, a_k / (c_k * c_k)


class Tuner:
    """The numbers (floats) and their updates; shared by the workers under `lock`."""

    def __init__(self, plan, start, pairs, r_end, seed=1):
        self.plan = plan
        self.pairs = pairs
        self.r_end = r_end
        self.start = dict(start)
        self.theta = {name: float(start[name]) for name, _ in plan}
        self.k = 0  # pairs handed out
        self.results = []  # (k, wins - losses of the plus engine)
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def perturb(self):
        """A new pair: (k, signs, plus numbers, minus numbers), the numbers rounded for the engines."""
        with self.lock:
            self.k += 1
            k = self.k
            signs, plus, minus = {}, {}, {}
            for name, c_end in self.plan:
                c_k, _ = gains(k, self.pairs, c_end, self.r_end)
                signs[name] = self.rng.choice((-1, 1))
                plus[name] = max(0, round(self.theta[name] + c_k * signs[name]))
                minus[name] = max(0, round(self.theta[name] - c_k * signs[name]))
            return k, signs, plus, minus

    def update(self, k, signs, result):
        """Pair k ended with `result` (wins - losses of the plus engine, -2..2)."""
        with self.lock:
            for name, c_end in self.plan:
                c_k, r_k = gains(k, self.pairs, c_end, self.r_end)
                self.theta[name] = max(0.0, self.theta[name] + r_k * c_k * result * signs[name])
            self.results.append((k, result))

    def state(self):
        with self.lock:
            return {"plan": self.plan, "pairs": self.pairs, "r_end": self.r_end, "start": self.start,
                    "theta": dict(self.theta), "k": len(self.results), "results": list(self.results),
                    "rng": list(self.rng.getstate()[1]) + [self.rng.getstate()[2]]}

    @classmethod
    def from_state(cls, state):
        plan = [tuple(p) for p in state["plan"]]
        tuner = cls(plan, state["start"], state["pairs"], state["r_end"])
        tuner.theta = dict(state["theta"])
        tuner.results = [tuple(r) for r in state["results"]]
        tuner.k = state["k"]
        words = state["rng"]
        tuner.rng.setstate((3, tuple(words[:-1]), words[-1]))
        return tuner


_SAVING = threading.Lock()  # the workers save through one temporary file


def save(tuner, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with _SAVING:
        with open(path + ".tmp", "w") as f:
            json.dump(tuner.state(), f)
        os.replace(path + ".tmp", path)  # a run stopped while writing keeps the last state


# ---- the engines ------------------------------------------------------------------------------
def open_tuning_engine(micropython=None):
    """tools/spsa_uci.py under `micropython` (a path), else under this CPython."""
    from bench.selfplay import open_engine

    return open_engine(ROOT, micropython, module="tools.spsa_uci")


def start_values(plan, engine):
    """Every planned number's value at start, as the engine's option list gives it."""
    values = {}
    for name, _ in plan:
        option = engine.options.get(name)
        if option is None:
            raise PlanError("%s is not an option of tools/spsa_uci.py (see its `uci` list)" % name)
        values[name] = option.default
    return values


def play_pair(plus, minus, fen, limit):
    """Both colours from `fen`; wins - losses of `plus`."""
    from bench.match_stockfish import play_game

    total = 0
    for plus_white in (True, False):
        score, _, _ = play_game(plus, minus, fen, plus_white, limit)
        total += int(score * 2) - 1  # 1 -> +1, 0.5 -> 0, 0 -> -1
    return total


def worker(tuner, openings, limit, micropython, path, stop_at, log):
    """Play pairs until the run's last; an engine that fails is started again (its pair is
    not counted)."""
    import chess.engine

    engines = None
    try:
        while True:
            k, signs, plus_values, minus_values = tuner.perturb()
            if k > stop_at:
                return
            try:
                if engines is None:
                    engines = open_tuning_engine(micropython), open_tuning_engine(micropython)
                plus, minus = engines
                plus.configure(plus_values)
                minus.configure(minus_values)
                result = play_pair(plus, minus, openings[(k - 1) % len(openings)], limit)
            except chess.engine.EngineError as exc:
                log("pair %d: engine error %s; pair not counted, engines started again" % (k, exc))
                _quit(engines)
                engines = None
                continue
            tuner.update(k, signs, result)
            save(tuner, path)
            log("pair %4d  %+d  %s" % (k, result, summary(tuner, brief=True)))
    finally:
        _quit(engines)


def _quit(engines):
    for engine in engines or ():
        try:
            engine.quit()
        except Exception:  # noqa: BLE001 (a dead engine cannot quit)
            pass


def summary(tuner, brief=False):
    with tuner.lock:
        items = [(name, tuner.start[name], tuner.theta[name]) for name, _ in tuner.plan]
    if brief:
        return " ".join("%s=%.1f" % (name, now) for name, _, now in items[:6]) + " ..."
    return "\n".join("%-24s %7d -> %8.2f  (%+.2f)" % (name, was, now, now - was) for name, was, now in items)


def cmd_run(args):
    from bench.selfplay import micropython_path, openings_for, parse_plies

    import chess.engine

    micro = micropython_path(args.micropython) if args.micropython != "cpython" else None
    if args.resume and os.path.exists(args.out):
        tuner = load(args.out)
        print("continuing %s at pair %d of %d" % (args.out, tuner.k, tuner.pairs))
    else:
        if os.path.exists(args.out) and not args.resume:
            sys.exit("%s exists: --resume to continue it, or another --out" % args.out)
        plan = list(PLAN)
        if args.plan:
            with open(args.plan) as f:
                plan = parse_plan(f.read())
        probe = open_tuning_engine(micro)
        try:
            start = start_values(plan, probe)
        finally:
            probe.quit()
        tuner = Tuner(plan, start, args.pairs, args.r_end, args.seed)
    openings = openings_for(parse_plies(args.book_plies))
    rng = random.Random(args.seed)
    rng.shuffle(openings)  # pairs in a random order of the sets' openings
    limit = chess.engine.Limit(nodes=args.nodes)
    print_lock = threading.Lock()
    t0 = time.time()

    def log(text):
        with print_lock:
            print("%6.0f s  %s" % (time.time() - t0, text), flush=True)

    threads = [threading.Thread(target=worker, args=(tuner, openings, limit, micro, args.out, tuner.pairs, log))
               for _ in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(summary(tuner))


def load(path):
    with open(path) as f:
        return Tuner.from_state(json.load(f))


def cmd_show(args):
    tuner = load(args.state)
    scores = [r for _, r in tuner.results]
    print("%d of %d pairs; plus engine's wins - losses: %+d" % (len(scores), tuner.pairs, sum(scores)))
    print(summary(tuner))


# ---- writing the result into the sources -------------------------------------------------------
_TUNABLES = os.path.join(ROOT, "firmware", "engine", "tunables.py")
_PESTO = os.path.join(ROOT, "firmware", "engine", "pesto.py")


def rewrite(text, name, value):
    """`text` (tunables.py or pesto.py) with the number `name` (an option's name) set to `value`."""
    base = re.match(r"[A-Z_]+", name).group(0)
    if name == base:
        pattern = re.compile(r"^(%s = const\()(\d+)(\))" % base, re.M)
        new, count = pattern.subn(lambda m: m.group(1) + str(value) + m.group(3), text)
    else:
        pattern = re.compile(r"^(%s = \()([\d, ]+)(\))" % base, re.M)
        index = int(name[len(base) + 1:-1]) if name.endswith("]") else None

        def table(m):
            cells = [int(v) for v in m.group(2).split(",") if v.strip()]
            if index is None:  # NAME%: the whole table scaled
                cells = [(v * value + 50) // 100 for v in cells]
            else:
                cells[index] = value
            return m.group(1) + ", ".join(str(v) for v in cells) + m.group(3)

        new, count = pattern.subn(table, text)
    if count != 1:
        raise PlanError("%s: found %d times in the source, not once" % (name, count))
    return new


def rewrite_table(text, name, percent):
    """`text` (pesto.py) with its piece-square table NAME (KNIGHT_MG, ...) scaled about its mean
    to `percent`, as tools/spsa_uci.py plays it; written back 8 cells a row."""
    from tools.spsa_uci import scale_about_mean

    pattern = re.compile(r"^(%s = \(\n)([-\d,\s]+)(\))" % name, re.M)

    def table(m):
        cells = [int(v) for v in m.group(2).split(",") if v.strip()]
        if len(cells) != 64:
            raise PlanError("%s: %d cells in the source, not 64" % (name, len(cells)))
        cells = scale_about_mean(cells, percent, pawn=name.startswith("PAWN"))
        rows = ("    " + ", ".join(str(v) for v in cells[i:i + 8]) + ",\n" for i in range(0, 64, 8))
        return m.group(1) + "".join(rows) + m.group(3)

    new, count = pattern.subn(table, text)
    if count != 1:
        raise PlanError("%s: found %d times in the source, not once" % (name, count))
    return new


def _is_table(name):
    """A piece-square table's scale (KNIGHT_MG%), which lives in pesto.py."""
    from tools.spsa_uci import _PST_NAMES

    return name.endswith("%") and name[:-4] in _PST_NAMES and name[-4:-1] in ("_MG", "_EG")


def cmd_write(args):
    tuner = load(args.state)
    sources = {}
    for path in (_TUNABLES, _PESTO):
        with open(path) as f:
            sources[path] = f.read()
    for name, _ in tuner.plan:
        value = max(0, round(tuner.theta[name]))
        if _is_table(name):
            sources[_PESTO] = rewrite_table(sources[_PESTO], name[:-1], value)
        else:
            path = _PESTO if name.startswith("MATERIAL") else _TUNABLES
            sources[path] = rewrite(sources[path], name, value)
        print("%-24s %d -> %d" % (name, tuner.start[name], value))
    for path, text in sources.items():
        with open(path, "w") as f:
            f.write(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="play pairs and step the numbers")
    run.add_argument("--pairs", type=int, default=3000, help="N: the run's length in game pairs")
    run.add_argument("--nodes", type=int, default=1000, help="nodes per move")
    run.add_argument("--workers", type=int, default=2, help="pairs played at once (one per core)")
    run.add_argument("--r-end", type=float, default=0.01, help="the last steps' learning rate")
    run.add_argument("--plan", default="", help="a plan file (default: PLAN in this file)")
    run.add_argument("--book-plies", default="10,8,12,6,9,7,11,13", help="the opening sets")
    run.add_argument("--micropython", default="auto", help="the unix port's path ('auto': the venv's; "
                                                           "'cpython': run the engines under this Python)")
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--out", default=OUT)
    run.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    for name in ("show", "write"):
        p = sub.add_parser(name)
        p.add_argument("state", nargs="?", default=OUT)
    args = parser.parse_args(argv)
    try:
        {"run": cmd_run, "show": cmd_show, "write": cmd_write}[args.command](args)
    except PlanError as err:
        sys.exit("spsa: %s" % err)


if __name__ == "__main__":
    main()
