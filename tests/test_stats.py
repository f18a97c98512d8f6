"""Statistics in flash: wins/draws/losses per level against the computer and the mate
trainer's results (firmware/features/stats.py): counting, an atomic file that survives a
power cut at any flash operation, and in the Simulator games won, lost and drawn, a take back
that uncounts, the statistics page of the options menu, the console and a reboot."""
import pytest

from firmware.features.stats import DRAW, LOSS, STATS_FILE, WIN, Stats, StatsError
from firmware.engine.levels import find_level
from host_sim import Simulator
from host_sim.flash import FakeFlash, PowerCut

DEPTH2 = find_level("Depth 2")


def stats_on(flash):
    return Stats("", open_fn=flash.open, fs=flash, levels=26, sets=6)


def test_counts_bests_and_file_round_trip():
    flash = FakeFlash()
    s = stats_on(flash)
    assert s.load() is False and s.games(3) == (0, 0, 0)
    s.record_game(3, WIN)
    s.record_game(3, WIN)
    s.record_game(3, DRAW)
    s.record_game(25, LOSS)
    s.record_game(3, WIN, -1)  # taken back
    s.record_trainer(0, True, 14, 80000)
    s.record_trainer(0, True, 12, 95000)  # fewer moves, slower: each best kept on its own
    s.record_trainer(0, False, 0, 0)
    s.record_trainer(5, False, 0, 0)
    back = stats_on(flash)
    assert back.load() is True
    assert back.games(3) == (1, 1, 0) and back.games(25) == (0, 0, 1) and back.games(0) == (0, 0, 0)
    assert back.trainer(0) == (3, 2, 12, 80000) and back.trainer(5) == (1, 0, 0, 0)
    lines = back.lines(["L%d" % i for i in range(26)], ("KQ", "KR", "KBB", "KBN", "KRN", "KRB"))
    assert lines[:4] == ["L4 L3", "  +1 =1 -0", "L26 L25", "  +0 =0 -1"]
    assert "KQ 2/3 12mv 1:20" in lines and "KRB 0/1" in lines
    with pytest.raises(StatsError):
        s.record_game(26, WIN)
    with pytest.raises(StatsError):
        s.record_game(1, 7)
    with pytest.raises(StatsError):
        s.trainer(6)


def test_a_damaged_file_counts_as_none():
    flash = FakeFlash()
    s = stats_on(flash)
    s.record_game(1, WIN)
    flash.files[STATS_FILE][10] ^= 0xFF
    back = stats_on(flash)
    assert back.load() is False and back.repaired and back.games(1) == (0, 0, 0)


def test_power_cut_at_any_flash_operation_keeps_old_or_new_counts():
    flash = FakeFlash()
    s = stats_on(flash)
    s.record_game(2, WIN)
    before = len(flash.ops)
    s.record_game(2, LOSS)
    ops = flash.ops
    assert [op[0] for op in ops[before:]] == ["truncate", "write", "remove", "rename"]
    for k in range(before, len(ops) + 1):
        for torn in (None, 5):
            state = FakeFlash.replay(ops, k, torn)
            back = stats_on(state)
            back.load()
            assert back.games(2) in ((1, 0, 0), (1, 0, 1)), k
            assert (back.games(2) == (1, 0, 1)) == (k >= len(ops) - 1)  # new once the old is gone
            back.record_game(2, DRAW)  # and it goes on working
            again = stats_on(state)
            again.load()
            assert again.games(2)[1] == 1
    # a cut while writing is not a crash later: the PowerCut is the device switching off
    cut = stats_on(FakeFlash())
    cut.files.fs.cut_at = 1
    with pytest.raises(PowerCut):
        cut.record_game(0, WIN)


def play_position(sim, fen, moves):
    """Start `fen` from the console, set it up on the board, play `moves` (UCI)."""
    sim.console("new " + fen)
    sim.arrange(fen.split()[0])
    sim.settle()
    assert sim.state()["phase"] == "player"
    for m in moves:
        sim.play(m)
    if not sim.controller.game.over:
        sim.wait_computer()
        sim.execute()
    sim.run(500)


def test_games_against_the_computer_are_counted_per_level():
    sim = Simulator(level=DEPTH2, book=False, ponder=False)

    class stats:  # the statistics file, read on demand (features/stats.py)
        @staticmethod
        def games(level):
            return sim.controller.stats_call("games", level)

    play_position(sim, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", ["a1a8"])  # I mate
    assert sim.state()["result"] == "1-0" and stats.games(DEPTH2) == (1, 0, 0)
    sim.press("takeback")  # not over after all
    assert stats.games(DEPTH2) == (0, 0, 0)
    sim.play("a8a1")
    sim.play("a1a8")
    assert stats.games(DEPTH2) == (1, 0, 0)
    play_position(sim, "r5k1/5ppp/8/8/8/1P6/5PPP/6K1 w - - 0 1", ["b3b4"])  # mated on the back rank
    assert sim.state()["result"] == "0-1" and stats.games(DEPTH2) == (1, 0, 1)
    play_position(sim, "8/8/8/8/8/2k5/8/Kr6 w - - 0 1", ["a1b1"])  # K v K
    assert sim.state()["result"] == "1/2-1/2" and stats.games(DEPTH2) == (1, 1, 1)
    # two-player games are not counted
    sim.press("move", long=True)
    play_position(sim, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", ["a1a8"])
    assert stats.games(DEPTH2) == (1, 1, 1)
    # the statistics page of the options menu, the console, and a reboot
    sim.press("level", long=True)
    while sim.display_text()[0].split()[0] != "Statistics":
        sim.press("level")
    assert sim.display_text()[1:3] == ["L18 Depth 2", "  +1 =1 -1"]
    sim.press("hint")
    assert sim.display_text()[1].startswith("KQ 0/0")
    sim.press("ok")
    assert "  +1 =1 -1" in sim.console("stats")
    again = Simulator(flash=sim.flash.copy(), pieces=sim.board_fen(), book=False)
    assert again.controller.stats_call("games", DEPTH2) == (1, 1, 1)


def test_statistics_under_micropython():
    from tests.mpy import run_mpy

    out = run_mpy(
        "from firmware.features.stats import Stats, WIN, LOSS\n"
        "import os\n"
        "d = '/tmp/reedchess_stats_mpy'\n"
        "try:\n"
        "    os.mkdir(d)\n"
        "except OSError:\n"
        "    pass\n"
        "s = Stats(d, levels=26, sets=6)\n"
        "s.load(); s.clear()\n"
        "s.record_game(4, WIN); s.record_game(4, LOSS); s.record_trainer(3, True, 30, 125000)\n"
        "t = Stats(d, levels=26, sets=6)\n"
        "print(t.load(), t.games(4), t.trainer(3))\n"
        "print(open(d + '/stats.bin', 'rb').read() == s.to_bytes())\n"
    )
    assert out.split("\n")[:2] == ["True (1, 0, 1) (1, 1, 30, 125000)", "True"]
