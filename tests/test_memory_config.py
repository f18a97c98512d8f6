"""The memory sizes a board config sets (boards/config.py SIZES: `move_stack`, `game_plies`)
and what makes them safe to lower: the search's move stack never comes near its guard at the
top level, the search position's repetition history keeps only what the search can reach, and
a game that fills its record ends as a draw instead of stopping the unit.
(The heap figures themselves: tests/test_memory.py, bench/memory.py, docs/memory.md.)"""
import ast
import copy
import os

import pytest

from boards.config import SIZES, BoardConfigError, build_hardware, memory_size, validate
from firmware.app import App
from firmware.features.boot import make_searcher
from firmware.controller.computer import SEARCH_PLIES, Computer
from firmware.controller.game import ADJUDICATED, DEFAULT_GAME_PLIES, RESULT_DRAW, Game, IllegalGameMoveError
from firmware.controller.journal import Journal
from firmware.engine import rules
from firmware.engine.fen import set_fen
from firmware.engine.levels import LEVELS
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from firmware.engine.search import MAX_PLY, MOVE_STACK, Limits, Searcher
from host_sim.clock import device_speed
from host_sim.electronics import build_simulated
from host_sim.pins import FakePinFactory
from tests.memory_probe import TOP_LEVEL, MemoryGame, board_config
from tests.mpy import run_mpy

BOARDS = ("pico", "pico2", "esp32", "esp32s3")
GUARD_CELLS = 256  # search.py searches a ply as a leaf when fewer cells than this are left
MARGIN_CELLS = 150  # the top level's deepest lines stay this far from the guard (three plies of 50 moves)


def test_defaults_are_the_engine_and_game_defaults():
    assert SIZES["move_stack"][0] == MOVE_STACK
    assert SIZES["game_plies"][0] == DEFAULT_GAME_PLIES
    assert memory_size({}, "move_stack") == MOVE_STACK and memory_size({"game_plies": 300}, "game_plies") == 300


@pytest.mark.parametrize("board", BOARDS)
def test_board_sizes_are_valid_and_reach_the_engine_and_the_game(board):
    cfg = board_config(board)
    validate(cfg)
    _, hw = build_simulated(cfg)
    searcher = make_searcher(cfg)
    assert searcher.move_stack == memory_size(cfg, "move_stack") and searcher.tt.size <= cfg["tt_entries"]
    app = App(hw, searcher, ticks_ms=lambda: 0)
    assert app.game.max_plies == memory_size(cfg, "game_plies")


def test_small_boards_keep_smaller_tables():
    sizes = {b: (memory_size(board_config(b), "move_stack"), memory_size(board_config(b), "game_plies"))
             for b in BOARDS}
    assert sizes["esp32"][0] < sizes["esp32s3"][0] and sizes["esp32"][1] < sizes["esp32s3"][1]


@pytest.mark.parametrize("key,value", [("move_stack", 512), ("move_stack", "1024"), ("move_stack", True),
                                       ("game_plies", 50), ("game_plies", 10 ** 6), ("game_plies", 300.0)])
def test_bad_sizes_fail_with_a_clear_message(key, value):
    cfg = copy.deepcopy(board_config("esp32"))
    cfg[key] = value
    lo, hi = SIZES[key][1], SIZES[key][2]
    with pytest.raises(BoardConfigError, match="board esp32: '%s' must be an int %d..%d" % (key, lo, hi)):
        validate(cfg)
    with pytest.raises(BoardConfigError):
        build_hardware(cfg, FakePinFactory(None))


# ---- the move stack -------------------------------------------------------------------------
# The positions whose searches reach furthest into the move stack among the search benchmark,
# Bratko-Kopec and perft positions at 30,000 nodes (bench: highest 352 cells, "pos4").
DEEP_LINES = (
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
)


_SEARCH_CODE = """
from firmware.engine.position import Position
from firmware.engine.search import Limits, Searcher
def run(fen, move_stack, nodes):
    s = Searcher(tt_entries=%d, poll_nodes=1, move_stack=move_stack)
    top = [0]
    def poll(searcher):  # every node: searcher.sp is then the cells its ancestors hold
        if searcher.sp > top[0]:
            top[0] = searcher.sp
        return False
    r = s.search(Position(fen), Limits(nodes=nodes), poll)
    print(repr(((r.best_move, r.score, r.depth, r.nodes), top[0])))
"""


def _searches(runs):
    """[((best move, score, depth, nodes), highest cells in use)] of each (fen, move_stack, nodes)
    in `runs`, searched under MicroPython (the node counts are the same as under CPython, and the
    top level's 230,000 nodes take a second there instead of twenty)."""
    code = _SEARCH_CODE % board_config("esp32")["tt_entries"]
    code += "".join("run(%r, %d, %d)\n" % run for run in runs)
    return [ast.literal_eval(line) for line in run_mpy(code, timeout=600).split("\n") if line.strip()]


def _search(fen, move_stack, nodes):
    return _searches([(fen, move_stack, nodes)])[0]


def test_a_1024_cell_move_stack_searches_exactly_like_2048_at_the_top_level():
    # A node whose ancestors hold more than move_stack - 256 cells is searched as a leaf;
    # below that the stack size makes no difference at all. At the top level on the ESP32
    # (3 minutes at its speed) the deepest lines stay clear of that guard by at least
    # MARGIN_CELLS: three more plies of a busy middlegame position's 50 moves. (Not a
    # whole ply of the most moves any position has, 218: the deepest lines come closer to the
    # guard than that, and each evaluation change moves them a little.)
    nps, _ = device_speed(board_config("esp32"))
    nodes = nps * LEVELS[TOP_LEVEL].value // 1000
    results = _searches([(fen, stack, nodes) for fen in DEEP_LINES for stack in (1024, MOVE_STACK)])
    for i, fen in enumerate(DEEP_LINES):
        (small, high), (full, _) = results[2 * i], results[2 * i + 1]
        assert small == full and small[3] == nodes
        assert 0 < high and high + MARGIN_CELLS + GUARD_CELLS <= 1024, (fen, high)


def test_the_guard_turns_a_too_small_stack_into_leaves_not_a_crash():
    (move, _, _, nodes), high = _search(DEEP_LINES[0], 512, 3000)
    assert rules.legal_moves(Position(DEEP_LINES[0])).count(move) == 1 and high <= 512 - GUARD_CELLS


# ---- the search position ------------------------------------------------------------------------
def _history_hashes(pos):
    """(lo list, hi list) of every earlier position that counts for repetition, oldest first:
    the prior hashes and the positions before each made ply."""
    lo = list(pos.prior_lo) + [pos.hist_lo[i] for i in range(pos.ply)]
    hi = list(pos.prior_hi) + [pos.hist_hi[i] for i in range(pos.ply)]
    return lo, hi


def _full_history_copy(game_pos):
    """What Computer.prepare did before: the whole game history as the prior hashes."""
    from array import array

    from firmware.engine.fen import fen

    pos = Position(None, SEARCH_PLIES)
    set_fen(pos, fen(game_pos))
    lo, hi = _history_hashes(game_pos)
    pos.prior_lo = array("i", lo)
    pos.prior_hi = array("i", hi)
    return pos


def _play(game, text):
    for t in text.split():
        game.push(parse_uci(game.position, t))


@pytest.mark.parametrize("moves", [
    "",
    "e2e4 e7e5 g1f3 b8c6 f3g1 c6b8 g1f3 b8c6",  # knights back and forth: repetitions close by
    "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 f3g5 d7d5 e4d5 f6d5 g5f7 e8f7 d1f3 f7e6 b1c3 c6b4",
    "d2d4 d7d5 g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 b1c3 b8c6 c3b1 c6b8 b1c3",
])
def test_search_position_keeps_only_the_reachable_history_and_searches_the_same(moves):
    game = Game()
    _play(game, moves)
    comp = Computer(Searcher(tt_entries=1024))
    pos = comp.prepare(game.position)
    lo, hi = _history_hashes(game.position)
    n = game.position.halfmove
    assert list(pos.prior_lo) == lo[len(lo) - n:] and list(pos.prior_hi) == hi[len(hi) - n:]
    assert pos.capacity == SEARCH_PLIES >= MAX_PLY + 2
    old = _full_history_copy(game.position)
    for nodes in (300, 3000):
        a = Searcher(tt_entries=1024).search(pos, Limits(nodes=nodes))
        b = Searcher(tt_entries=1024).search(old, Limits(nodes=nodes))
        assert (a.best_move, a.score, a.nodes) == (b.best_move, b.score, b.nodes)


def test_search_position_history_from_a_resumed_game_and_a_long_quiet_stretch():
    game = Game()
    game.new("4k3/8/8/8/8/8/8/R3K3 w - - 90 120")  # 90 quiet plies before the FEN: none known
    _play(game, "a1a2 e8d8 a2a1 d8e8")
    game.position.prior_lo.extend([11, 12])  # two known from a journal, say
    game.position.prior_hi.extend([21, 22])
    pos = Computer(Searcher(tt_entries=256)).prepare(game.position)
    assert list(pos.prior_lo) == [11, 12] + [game.position.hist_lo[i] for i in range(4)]
    assert list(pos.prior_hi)[:2] == [21, 22]


# ---- a full game record -------------------------------------------------------------------------
def test_a_full_game_record_ends_the_game_as_a_draw():
    g = Game(capacity=6)
    _play(g, "g1f3 g8f6 f3g1 f6g8 g1f3")
    assert g.check_end() == rules.ONGOING
    _play(g, "g8f6")
    assert g.check_end() == ADJUDICATED and g.result == RESULT_DRAW and g.reason_name() == "adjudication"
    with pytest.raises(IllegalGameMoveError):
        g.push(parse_uci(g.position, "f3g1"))


def test_a_game_that_fills_the_record_ends_as_a_draw_on_the_unit(tmp_path):
    # the whole unit (controller, board sync, journal) with a tiny record, set past validation
    g = MemoryGame("esp32", TOP_LEVEL, node_cap=200, journal_dir=str(tmp_path), sample_every=0, pass_ms=4,
                   ms_per_node=0, hand_ms=100)
    g.build()
    g.app.game.max_plies = 24  # the least a config may set is 200: too long a game for a test
    r = g.run(max_plies=60)
    assert len(r["moves"]) == 24 and r["result"] == RESULT_DRAW and r["reason"] == "adjudication"
    saved = Journal(str(tmp_path)).load()
    assert len(saved.moves) == 24 and saved.result == RESULT_DRAW and saved.reason == ADJUDICATED
    assert os.path.isdir(str(tmp_path))


def test_the_stack_size_applies_only_on_the_boards_own_port(monkeypatch):
    import sys

    from boards.esp32 import CONFIG as ESP32
    from boards.pico import CONFIG as PICO
    from firmware.features import boot

    assert boot._board_stack_bytes(PICO) == 0  # CPython on a PC: not the rp2 port
    monkeypatch.setattr(sys, "platform", "rp2")
    assert boot._board_stack_bytes(PICO) == PICO["stack_bytes"] == 8192
    assert boot._board_stack_bytes(ESP32) == 0
    monkeypatch.setattr(sys, "platform", "esp32")
    assert boot._board_stack_bytes(ESP32) == 16384
    assert boot.make_searcher(ESP32, stack_bytes=16384).stack_limit > 0
