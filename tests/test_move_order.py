"""The main search's move ordering (search._score_moves and _pick, viper machine code under
MicroPython): the same scores on both interpreters, every score >= 0 (the 64-bit unix port
reads the 32-bit cells zero-extended, so a negative score would sort differently there than
on a chip), and the order the search documents (docs/engine.md, "Search": move ordering)."""
import json
import random

import chess

from firmware.engine.notation import uci
from firmware.engine.position import PST_EG, PST_MG, Position
from firmware.engine.search import (
    _BAD_CAPTURE,
    _CAPTURE,
    _COUNTER,
    _HISTORY_ZERO,
    _KILLER1,
    _KILLER2,
    _ORDER_ARGS,
    _SPARED,
    _TT_MOVE,
    Searcher,
    _pick,
    _score_moves,
)
from firmware.engine.see import see
from firmware.engine.tunables import ORDER_VALUE
from firmware.engine.zobrist import PIECE_BASE
from tests.mpy import run_mpy
from tests.randomgames import random_positions

# Runs under both interpreters: for each (fen, history seed, hash move index, killer indexes),
# the scores _score_moves gives and the order _pick brings the moves in.
ORDER_SCRIPT = """
import json
from firmware.engine.position import Position
from firmware.engine.search import Searcher, _ORDER_ARGS, _pick, _score_moves
s = Searcher(tt_entries=64, move_stack=512)
out = []
for fen, seed, tt_i, k1_i, k2_i, cm_i in json.loads(%r):
    p = Position(fen, 4)
    h = s.history
    x = seed
    for i in range(len(h)):  # a spread of history values, negative ones too
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        h[i] = x %% 32001 - 16000
    mv = s.moves
    end = p.gen_moves(mv, 0)
    a = _ORDER_ARGS
    a[0] = 0
    a[1] = end
    a[2] = mv[tt_i %% end] if tt_i >= 0 else 0
    a[3] = mv[k1_i %% end]
    a[4] = mv[k2_i %% end]
    a[5] = mv[cm_i %% end] & 0xFFFF
    _score_moves(p.board, mv, s.mscore, h, p)
    scores = [s.mscore[i] for i in range(end)]
    for k in range(end):
        _pick(s.mscore, mv, k, end)
    out.append([scores, [mv[i] for i in range(end)]])
print('ORDER', json.dumps(out))
"""


def cases(count=120, seed=7):
    rng = random.Random(seed)
    return [(b.fen(), rng.randrange(1 << 20), rng.randrange(-1, 60), rng.randrange(60), rng.randrange(60),
             rng.randrange(60))
            for b in random_positions(count, seed=seed) if not b.is_game_over()]



def test_move_order_is_the_same_under_micropython():
    case_list = cases()
    code = ORDER_SCRIPT % json.dumps(case_list)
    printed = []
    exec(compile(code.replace("print('ORDER', ", "printed.append("), "order", "exec"), {"printed": printed})
    expected = json.loads(printed[0])
    out = run_mpy(code)
    line = [x for x in out.splitlines() if x.startswith("ORDER ")]
    assert line, out
    ours = json.loads(line[0][6:])
    assert len(ours) == len(expected) == len(case_list)
    wrong = [c[0] for c, a, b in zip(case_list, expected, ours) if a != b]
    assert not wrong, wrong[:3]
    # every score >= 0 and below 2^30: what makes the unix port's unsigned reads agree
    assert all(0 <= s < 1 << 30 for scores, _ in expected for s in scores)


def _table_gain(pos, m):
    """A quiet move's piece-square gain as the ordering adds it: tapered by the phase, from
    the mover's view, // 32 (about 3/4 of a centipawn); 0 where endgame.py's knowledge decides."""
    c = pos.counts
    phase = min(24, c[2] + c[3] + c[10] + c[11] + 2 * (c[4] + c[12]) + 4 * (c[5] + c[13]))
    if not c[1] or not c[9] or phase <= 2:
        return 0
    base = PIECE_BASE[pos.board[m & 127]]
    fr, to = base + (m & 127), base + ((m >> 7) & 127)
    gain = (PST_MG[to] - PST_MG[fr]) * phase + (PST_EG[to] - PST_EG[fr]) * (24 - phase)
    return (-gain if pos.board[m & 127] & 8 else gain) >> 5


def _pawn_threat(board, move):
    """What the order adds for an enemy pawn's attack, judged by python-chess: minus half the
    piece's value when a knight, bishop, rook or queen moves where an enemy pawn attacks it,
    plus half when it moves out of such an attack (to a square no enemy pawn attacks)."""
    piece = board.piece_at(move.from_square)
    if piece.piece_type in (chess.PAWN, chess.KING):
        return 0
    pawns = board.pieces(chess.PAWN, not piece.color)
    half = ORDER_VALUE[piece.piece_type] >> 1
    if board.attackers(not piece.color, move.to_square) & pawns:
        return -half
    if board.attackers(not piece.color, move.from_square) & pawns:
        return half
    return 0


def _makes_threat(board, move):
    """Does the quiet move make a threat the order spares, judged by python-chess: a pawn that
    then attacks an enemy knight, bishop, rook, queen or king, a knight that then attacks an
    enemy rook, queen or king (the kind attacked at least twice the mover's), a bishop that
    then attacks a rook, queen or king, a rook that then attacks a queen or king. The mover's
    square still blocks its own line (the order looks before the move is made: what lies
    beyond it on that line the piece attacked already)."""
    piece = board.piece_at(move.from_square)
    least = {chess.PAWN: 2, chess.KNIGHT: 4, chess.BISHOP: 4, chess.ROOK: 5}.get(piece.piece_type)
    if least is None:
        return False
    after = board.copy(stack=False)
    after.set_piece_at(move.to_square, piece)
    for square in after.attacks(move.to_square):
        target = after.piece_at(square)
        if target and target.color != piece.color and target.piece_type >= least:
            return True
    return False


# the quiet threats' scores: spared (at or above _SPARED), below the countermove
SPARED = range(_SPARED, _COUNTER)


def test_a_quiet_move_that_makes_a_threat_is_spared_below_the_countermove():
    # e4-e5 attacks the knight on f6 (and d6's bishop); Nd4-f5 attacks the queen on g7;
    # Nd4-b5 attacks only a bishop (d6), Nb1-c3 nothing; a2-a3 nothing
    score = _scores_without_history("4k3/6q1/3b1n2/8/3NP3/8/P7/1N2K3 w - - 0 1")
    assert score["e4e5"] in SPARED
    assert score["d4f5"] in SPARED
    assert score["d4b5"] < _SPARED and score["b1c3"] < _SPARED and score["a2a3"] < _SPARED
    # the same from Black's side: ...e5-e4 attacks the knight on f3, ...Nd5-f4 the queen on g2
    score = _scores_without_history("1n2k3/p7/8/3np3/8/3B1N2/6Q1/4K3 b - - 0 1")
    assert score["e5e4"] in SPARED
    assert score["d5f4"] in SPARED
    assert score["d5b4"] < _SPARED and score["a7a6"] < _SPARED


def test_a_quiet_bishop_or_rook_move_that_makes_a_threat_is_spared_below_the_countermove():
    # Bc1-e3 and Bc1-d2 attack the rook on h6 along the diagonal, Ra1-a4 the queen on g4 along
    # the rank; Bc1-b2, Ra1-a2 and Ra1-b1 attack nothing (b1's line to the east ends at the
    # bishop, to the west at the square the rook leaves)
    score = _scores_without_history("4k3/8/7r/8/6q1/8/8/R1B1K3 w - - 0 1")
    assert score["c1e3"] in SPARED and score["c1d2"] in SPARED and score["a1a4"] in SPARED
    assert max(score["c1b2"], score["a1a2"], score["a1b1"]) < _SPARED
    # the same from Black's side
    score = _scores_without_history("r1b1k3/8/8/6Q1/8/7R/8/4K3 b - - 0 1")
    assert score["c8e6"] in SPARED and score["c8d7"] in SPARED and score["a8a5"] in SPARED
    assert max(score["c8b7"], score["a8a7"], score["a8b8"]) < _SPARED


def test_quiet_threats_are_ordered_among_themselves_by_history():
    # Bc1-e3 (on the rook at h6) and Ra1-a4 (on the queen at g4) both make a threat: the one
    # that history favours comes first, both stay spared below the countermove
    fen_text = "4k3/8/7r/8/6q1/8/8/R1B1K3 w - - 0 1"
    for favoured, other in (("c1e3", "a1a4"), ("a1a4", "c1e3")):
        score = _scores_without_history(fen_text, {favoured: 3000})
        assert score[favoured] > score[other], favoured
        assert score[favoured] in SPARED and score[other] in SPARED


def _scores_without_history(fen_text, history=None):
    """{uci: order score} of every move of the position, with an empty history (but for the
    cells of `history`, {uci: value}), no hash move, no killers and no countermove."""
    searcher = Searcher(tt_entries=64, move_stack=512)
    pos = Position(fen_text, 4)
    h = searcher.history
    for i in range(len(h)):
        h[i] = 0
    moves = searcher.moves
    end = pos.gen_moves(moves, 0)
    for i in range(end):
        value = (history or {}).get(uci(moves[i]))
        if value is not None:
            h[PIECE_BASE[pos.board[moves[i] & 127]] + ((moves[i] >> 7) & 127)] = value
    for i, v in enumerate((0, end, 0, 0, 0, 0)):
        _ORDER_ARGS[i] = v
    _score_moves(pos.board, moves, searcher.mscore, h, pos)
    return {uci(moves[i]): searcher.mscore[i] for i in range(end)}


def test_quiet_moves_without_history_go_by_their_piece_square_gain():
    """With an empty history the centralising knight move comes before the one to the rim (a
    1,000-node search barely fills the history: its cells are mostly -1..1)."""
    score = _scores_without_history("r3k3/pppp4/8/8/8/8/PPPP4/RN2K3 w - - 0 1")
    assert score["b1c3"] > score["b1a3"] and score["b1c3"] > _HISTORY_ZERO


def test_a_piece_moved_into_a_pawns_attack_comes_late_and_one_moved_out_early():
    """With an empty history: the knight the e5 pawn attacks goes up the order when it moves
    to a square no pawn attacks (f3), down when it moves to where the c6 pawn takes it (b5);
    the bishop's move to f4, where the e5 pawn takes it, comes after its quiet e3."""
    score = _scores_without_history("4k3/8/2p5/4p3/3N4/8/P1PB4/4K3 w - - 0 1")
    margin = ORDER_VALUE[2] // 2 - 40  # half a knight, less what the tables could move
    assert score["d4f3"] > score["d2e3"] + margin  # out of the attack
    assert score["d4b5"] < score["d4f3"] - 2 * margin  # into another one
    assert score["d2f4"] < score["d2e3"] - margin


def test_scores_follow_the_documented_order():
    searcher = Searcher(tt_entries=64, move_stack=512)
    rng = random.Random(3)
    checked = 0
    for board in random_positions(60, seed=11):
        if board.is_game_over():
            continue
        pos = Position(board.fen(), 4)
        h = searcher.history
        for i in range(len(h)):
            h[i] = rng.randrange(-16000, 16001)
        moves = searcher.moves
        end = pos.gen_moves(moves, 0)
        tt_move, k1, k2, cm = (moves[rng.randrange(end)] for _ in range(4))
        for i, v in enumerate((0, end, tt_move, k1, k2, cm & 0xFFFF)):
            _ORDER_ARGS[i] = v
        _score_moves(pos.board, moves, searcher.mscore, h, pos)
        b = pos.board
        for i in range(end):
            m, score = moves[i], searcher.mscore[i]
            victim, promo, ep = b[(m >> 7) & 127], (m >> 14) & 7, m >> 17 == 2
            if m == tt_move:
                assert score == _TT_MOVE
            elif victim:
                attacker = b[m & 127] & 7
                loses = (0, 100, 320, 330, 500, 950, 2000)[attacker] > (0, 100, 320, 330, 500, 950, 2000)[
                    victim & 7] + 50 and see(pos, m) < 0
                assert (_BAD_CAPTURE <= score < _SPARED) if loses else score >= _CAPTURE, uci(m)
            elif promo == 5 or ep:
                assert score >= _CAPTURE, uci(m)
            elif m == k1:
                assert score == _KILLER1
            elif m == k2:
                assert score == _KILLER2
            elif m & 0xFFFF == cm & 0xFFFF:
                assert score == _COUNTER, uci(m)  # the countermove: after the killers
            elif promo:
                assert score == 0, uci(m)  # underpromotions last
            else:
                to = PIECE_BASE[b[m & 127]] + ((m >> 7) & 127)
                gain = _table_gain(pos, m) + _pawn_threat(board, chess.Move.from_uci(uci(m)))
                quiet = h[to] + _HISTORY_ZERO + gain
                if _makes_threat(board, chess.Move.from_uci(uci(m))):
                    quiet += _SPARED  # spared, below the countermove, by its quiet score
                    assert quiet < _COUNTER
                assert score == quiet, uci(m)
            checked += 1
        # _pick: each step brings the first of the best remaining scores to the front
        scores = [searcher.mscore[i] for i in range(end)]
        for k in range(end):
            best = max(scores[k:])
            first = scores.index(best, k)
            want = moves[first]
            _pick(searcher.mscore, moves, k, end)
            assert moves[k] == want and searcher.mscore[k] == best
            scores[first], scores[k] = scores[k], scores[first]
    assert checked > 1000
