"""Sequential probability ratio test for self-play (bench/selfplay.py --sprt): stop a match
as soon as its games say, with the chosen error rates, which of two Elo differences is the
likelier one, instead of after a fixed number of games.

The test is the generalised SPRT of chess engine testing (fishtest, OpenBench): H0 says
the working tree is elo0 stronger than its base, H1 says elo1 (logistic Elo: expected score
1 / (1 + 10^(-elo/400))). After N game pairs, each pair being one opening played with both
colours (so the two games' luck from the opening cancels), the log-likelihood ratio of H1
over H0 is, with m and v the mean and variance of the pairs' scores (0, 0.25, .., 1):

    LLR = N * (s1 - s0) * (2 m - s0 - s1) / (2 v)

(the normal approximation to the pair scores' distribution). Stop and accept H1 when
LLR >= log((1 - beta) / alpha), accept H0 when LLR <= log(beta / (1 - alpha)), else play on.
With alpha = beta = 0.05 the bounds are +-2.94. A candidate that is really elo1 better is
accepted 95 % of the time, one that is really elo0 is rejected 95 % of the time; one in
between takes longest. Typical use: `--sprt 0,10` for "is it a gain at all".
"""
import math

from bench.match_stockfish import elo_from_score


class SprtError(ValueError):
    """Bad SPRT parameters (bounds that are not two numbers, elo0 >= elo1, ...)."""


def expected_score(elo):
    """The expected score of a side `elo` stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def parse_bounds(text):
    """"elo0,elo1" -> (elo0, elo1), refusing anything else with a clear message."""
    parts = text.split(",")
    try:
        elo0, elo1 = (float(p) for p in parts)
    except ValueError:
        raise SprtError("--sprt wants two Elo numbers, elo0,elo1 (e.g. 0,10), got %r" % text) from None
    if not elo0 < elo1:
        raise SprtError("--sprt: elo0 must be below elo1, got %r" % text)
    return elo0, elo1


def llr_bounds(alpha=0.05, beta=0.05):
    """(lower, upper): accept H0 at or below lower, H1 at or above upper."""
    if not (0.0 < alpha < 0.5 and 0.0 < beta < 0.5):
        raise SprtError("alpha and beta must lie between 0 and 0.5, got %r, %r" % (alpha, beta))
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def pair_scores(results):
    """Each full pair's mean score: games 2k and 2k+1 are one opening with both colours (an
    odd last game waits for its partner)."""
    return [(results[i] + results[i + 1]) / 2.0 for i in range(0, len(results) - 1, 2)]


def llr(results, elo0, elo1):
    """The log-likelihood ratio of H1 (elo1) over H0 (elo0) after these games (1, 0.5, 0 each,
    in pairs as play_match plays them). 0 until the pairs' scores vary at all."""
    pairs = pair_scores(results)
    return _llr(len(pairs), sum(pairs), sum(p * p for p in pairs), elo0, elo1)


def _llr(n, total, squares, elo0, elo1):
    """llr() from the pairs' count, sum and sum of squares."""
    if n < 2:
        return 0.0
    mean = total / n
    var = squares / n - mean * mean
    if var <= 1e-12:
        return 0.0
    s0 = expected_score(elo0)
    s1 = expected_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def pair_interval(results):
    """(elo, low, high): the Elo difference of the pairs' mean score with its 95 % interval
    from the pairs' variance (the pentanomial interval: pairing cancels the opening's luck),
    or None before two pairs."""
    pairs = pair_scores(results)
    n = len(pairs)
    if n < 2:
        return None
    mean = sum(pairs) / n
    se = math.sqrt(sum((p - mean) ** 2 for p in pairs) / (n - 1) / n)
    return tuple(elo_from_score(x) for x in (mean, mean - 1.96 * se, mean + 1.96 * se))


class Sprt:
    """The running test: `update(results)` after each game (the whole list so far, as
    play_match keeps it) returns None while it should go on, else "H1" (accept: the change is
    elo1 better) or "H0" (reject). No verdict before `min_pairs` pairs: on a handful of games
    the variance is too rough a guess (simulated, a test deciding from the first pair
    accepted a change of 0 Elo as +60 in 18 % of runs instead of 5 %)."""

    def __init__(self, elo0, elo1, alpha=0.05, beta=0.05, min_pairs=20):
        if not elo0 < elo1:
            raise SprtError("elo0 must be below elo1, got %r, %r" % (elo0, elo1))
        self.elo0 = elo0
        self.elo1 = elo1
        self.lower, self.upper = llr_bounds(alpha, beta)
        self.min_pairs = min_pairs
        self.llr = 0.0
        self._pairs = 0  # pairs counted so far, their scores' sum and sum of squares
        self._total = 0.0
        self._squares = 0.0

    def update(self, results):
        while 2 * self._pairs + 1 < len(results):
            p = (results[2 * self._pairs] + results[2 * self._pairs + 1]) / 2.0
            self._pairs += 1
            self._total += p
            self._squares += p * p
        self.llr = _llr(self._pairs, self._total, self._squares, self.elo0, self.elo1)
        if self._pairs < self.min_pairs:
            return None
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None

    def describe(self):
        return "SPRT elo0 %+g elo1 %+g: LLR %+.2f (bounds %+.2f .. %+.2f)" % (
            self.elo0, self.elo1, self.llr, self.lower, self.upper)
