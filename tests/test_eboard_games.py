"""Whole games through both e-board protocols, as a host plays them (tests/eboard_play.py):
the host lights each move, the player makes it on the simulated board, and the host follows
the board's reports to the position after it; en passant, a capture, a promotion and
castling on both sides. The same script runs under CPython and under the MicroPython unix port.
"""
import pytest

from tests.eboard_play import MOVES, play
from tests.mpy import run_mpy


@pytest.mark.parametrize("kind", [1, 2], ids=["dgt", "millennium"])
def test_a_host_follows_a_whole_game(kind):
    result = play(kind)
    assert result["ok"], result.get("why")
    assert result["firmware"] == list(MOVES)
    assert result["answers"] >= len(MOVES)


def test_the_same_games_under_micropython():
    out = run_mpy("from tests.eboard_play import main\nmain(1)\nmain(2)\n", heapsize="1M")
    want = "RESULT True " + " ".join(MOVES)
    assert out.strip().splitlines()[-2:] == [want, want]
