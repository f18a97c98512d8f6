"""The quiescence search (Searcher._qsearch) is one loop with each ply's state in an array
(viper machine code under MicroPython). It must search exactly what the plain recursion it
replaced searched: the same score, the same nodes, the same selective depth, the position and
the move stack left as found. The recursion below is that algorithm as docs/engine.md states
it (stand pat, the table's cutoff, lazy evaluation, delta pruning, the exchange test, all
evasions in check), written the obvious way; every case runs on a table filled by a short
search, so the table's cutoffs and mate scores take part."""
import json

import chess

from firmware.engine.evaluate import evaluate
from firmware.engine.position import Position
from firmware.engine.search import _INF, MATE, MATE_BOUND, Limits, Searcher, _pick
from firmware.engine.see import see
from firmware.engine.tunables import DELTA_MARGIN, LAZY_MARGIN, ORDER_VALUE
from tests.mpy import run_mpy
from tests.positions import PERFT
from tests.randomgames import random_positions

_EXACT, _LOWER, _UPPER = 3, 2, 1
WINDOWS = ((-_INF, _INF), (-60, 60), (-1, 0), (200, 201), (-400, -399))


def _store(s, score, beta):
    """A finished node's score into its bucket's always-replace slot: depth 0, no move, a
    lower bound at or above beta, else an upper one; mate scores not at all."""
    if -MATE_BOUND < score < MATE_BOUND:
        pos, tt = s.pos, s.tt
        slot = (pos.hash_lo & tt.mask) + 1
        tt.keys[slot] = pos.hash_hi
        tt.data[slot] = (_LOWER if score >= beta else _UPPER) << 19 | tt.age << 27
        tt.scores[slot] = score
    return score


def recursive_qsearch(s, alpha, beta, ply, in_check):
    """The quiescence search as a recursion (its state on the Python stack)."""
    s.nodes += 1
    if ply > s.seldepth:
        s.seldepth = ply
    pos = s.pos
    start = s.sp
    if ply >= s.max_ply or start + 256 > s.move_stack:
        return s._static()
    slot = s.tt.probe(pos.hash_lo, pos.hash_hi)
    if slot >= 0:
        score = s.tt.scores[slot]
        if score >= MATE_BOUND:
            score -= ply
        elif score <= -MATE_BOUND:
            score += ply
        bound = (s.tt.data[slot] >> 19) & 3
        if bound == _EXACT or (bound == _LOWER and score >= beta) or (bound == _UPPER and score <= alpha):
            return score
    moves, scores, board = s.moves, s.mscore, pos.board
    if in_check:
        best = -MATE + ply
        end = s._filter_evasions(start, pos.gen_moves(moves, start))
        stand = -_INF
    else:
        c = pos.counts
        cheap = (pos.score_mg + pos.score_eg) >> 1
        if pos.stm:
            cheap = -cheap
        if c[1] and c[9] and (cheap - LAZY_MARGIN >= beta or cheap + LAZY_MARGIN <= alpha):
            stand = cheap
        else:
            stand = s._static()
        if stand >= beta:
            return _store(s, stand, beta)
        if stand > alpha:
            alpha = stand
        elif stand + DELTA_MARGIN + 100 <= alpha and s._hopeless(stand, alpha):
            return _store(s, stand, beta)
        best = stand
        end = pos.gen_captures(moves, start)
    s.sp = end
    for k in range(start, end):
        m = moves[k]
        victim, promo = board[(m >> 7) & 127], (m >> 14) & 7
        if victim:
            scores[k] = ORDER_VALUE[victim & 7] * 16 - (board[m & 127] & 7) + promo * 100
        else:
            scores[k] = 8000 if promo == 5 else (1599 if m >> 17 == 2 else (1 if promo else 0))
    for k in range(start, end):
        _pick(scores, moves, k, end)
        m = moves[k]
        if not in_check:
            promo = (m >> 14) & 7
            if promo:
                if promo != 5:
                    continue
            else:
                gain = 100 if m >> 17 == 2 else ORDER_VALUE[board[(m >> 7) & 127] & 7]
                if stand + gain + DELTA_MARGIN <= alpha:
                    continue
                if ORDER_VALUE[board[m & 127] & 7] > gain + 50 and see(pos, m) < 0:
                    continue
        answer = pos.play(m, in_check + 5)
        if not answer:
            continue
        score = -recursive_qsearch(s, -beta, -alpha, ply + 1, answer - 1)
        pos.unmake()
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    s.sp = start
    return _store(s, best, beta)


def _tactical(limit):
    """Positions after a capture in the perft positions: recaptures to come."""
    boards = []
    for fen, _ in PERFT.values():
        board = chess.Board(fen)
        for move in board.legal_moves:
            if board.is_capture(move):
                boards.append(board.copy())
                boards[-1].push(move)
    return boards[:limit]


def _cases(count, seed, tactical=0):
    boards = random_positions(count, seed, max_plies=90) + _tactical(tactical)
    boards += [chess.Board(f) for f in (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # kiwipete
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",  # back-rank mate
        "4k3/8/8/3q4/8/8/3Q4/3RK3 b - - 0 1",  # a queen pinned by nothing, defended twice
        "k7/8/8/8/8/8/7p/K7 b - - 0 1",  # a promotion
    )]
    return [(b.fen(), b.is_check()) for b in boards if not b.is_game_over()]


def _prepare(searcher, fen, table=True):
    """The position, and the table filled by a depth-2 search but for the position's own entry
    (which would answer at once); with `table` False an empty table."""
    position = Position(fen)
    searcher.new_game()
    if table:
        searcher.search(position, Limits(depth=2))
        slot = searcher.tt.probe(position.hash_lo, position.hash_hi)
        if slot >= 0:
            searcher.tt.keys[slot] = 0
    searcher.pos = position
    searcher.sp = 0
    searcher.max_ply = 63
    searcher.next_check = 1 << 29
    searcher.stopped = False
    return position


def _run(searcher, search, fen, in_check, window, ply, table=True):
    position = _prepare(searcher, fen, table)
    before = (position.hash_lo, position.hash_hi, bytes(position.board))
    searcher.nodes = 0
    searcher.seldepth = 0
    score = search(window[0], window[1], ply, int(in_check))
    after = (position.hash_lo, position.hash_hi, bytes(position.board))
    assert after == before and searcher.sp == 0, fen
    return score, searcher.nodes, searcher.seldepth


def test_the_loop_searches_what_the_recursion_searches():
    searcher = Searcher(tt_entries=1024, move_stack=1024)
    compared = 0
    deep = 0
    for i, (fen, in_check) in enumerate(_cases(30, 2026, tactical=30)):
        for window in WINDOWS:
            ply = 3
            table = i % 2 == 0
            loop = _run(searcher, searcher._qsearch, fen, in_check, window, ply, table)
            recursion = _run(searcher, lambda a, b, p, c: recursive_qsearch(searcher, a, b, p, c),
                             fen, in_check, window, ply, table)
            assert loop == recursion, (fen, window, table)
            compared += 1
            deep += loop[2] >= ply + 4
    assert compared >= 250 and deep >= 20, (compared, deep)  # lines of captures 4+ plies deep took part


def test_noise_and_a_low_ply_limit_are_honoured_as_by_the_recursion():
    searcher = Searcher(tt_entries=1024, move_stack=1024)
    searcher.set_noise(40, seed=7)
    for fen, in_check in _cases(12, 77):
        for window in ((-_INF, _INF), (-30, 30)):
            loop = _run(searcher, searcher._qsearch, fen, in_check, window, 60)  # 3 plies to max_ply
            recursion = _run(searcher, lambda a, b, p, c: recursive_qsearch(searcher, a, b, p, c),
                             fen, in_check, window, 60)
            assert loop == recursion, (fen, window)


def test_micropython_quiescence_equals_cpython():
    """The viper machine code (signed scores through unsigned cells, biased) gives what the
    plain Python gives."""
    cases = _cases(10, 31, tactical=15)
    searcher = Searcher(tt_entries=1024, move_stack=1024)
    ours = [list(_run(searcher, searcher._qsearch, fen, chk, w, 2)) for fen, chk in cases for w in WINDOWS]
    out = run_mpy(
        "import json\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine.search import Searcher, Limits\n"
        "s = Searcher(tt_entries=1024, move_stack=1024)\n"
        "out = []\n"
        "for fen, chk in json.loads(%r):\n"
        "    for a, b in json.loads(%r):\n"
        "        p = Position(fen)\n"
        "        s.new_game()\n"
        "        s.search(p, Limits(depth=2))\n"
        "        i = s.tt.probe(p.hash_lo, p.hash_hi)\n"
        "        if i >= 0: s.tt.keys[i] = 0\n"
        "        s.pos = p; s.sp = 0; s.max_ply = 63; s.next_check = 1 << 29; s.stopped = False\n"
        "        s.nodes = 0; s.seldepth = 0\n"
        "        v = s._qsearch(a, b, 2, int(chk))\n"
        "        out.append([v, s.nodes, s.seldepth])\n"
        "print(json.dumps(out))\n" % (json.dumps(cases), json.dumps(WINDOWS))
    )
    assert json.loads(out) == ours


def test_evaluate_is_what_a_quiet_position_stands_on():
    """A position without captures: the quiescence is its stand pat, the evaluation."""
    searcher = Searcher(tt_entries=64, move_stack=512)
    fen = "4k3/pppp4/8/8/8/8/4PPPP/4K3 w - - 0 1"
    position = _prepare(searcher, fen, table=False)
    assert searcher._qsearch(-_INF, _INF, 1, 0) == evaluate(position)
