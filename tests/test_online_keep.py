"""The local game in progress is kept while online play is used (firmware/features/online.py:
online.keep beside the journal) and comes back afterwards with its moves, level, sides and
clock, the LEDs guiding the pieces; power cuts at every flash operation on the way there and
back lose neither game; the options' chess clock stays off during an online game. In the
simulator (the firmware sees the pieces only through its sensor scan) and under the
MicroPython unix port (a real journal directory, a restart in between)."""
import os

import chess

from firmware.controller.journal import Journal
from firmware.engine.notation import uci
from firmware.controller.settings import Settings
from firmware.features.clock import PRESETS
from host_sim import Simulator
from host_sim.flash import FakeFlash
from tests.mpy import run_mpy
from tests.test_controller_mpy import SETUP

START = chess.STARTING_BOARD_FEN
LOCAL_SETTINGS = "level 2, computer Black"


def one(sim, line, ms=20):
    out = sim.console(line, ms)
    assert len(out) == 1, (line, out)
    return out[0]


def pieces_of(moves):
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    return board.board_fen()


def archived(flash):
    """The archive's games as lists of UCI moves."""
    return [[uci(m) for m in g.moves] for g in Journal("", open_fn=flash.open, fs=flash).games()]


def local_game(**kw):
    """A game against the computer (level 2, it plays Black), two moves each."""
    sim = Simulator(seed=1, book=False, ponder=False, human="white", level=0, **kw)
    assert one(sim, "level 2") == "level 2: Fun 2"
    for move in ("e2e4", "d2d4"):
        sim.play(move)
        assert sim.wait_computer()
        sim.execute()
    moves = sim.game()
    assert len(moves) == 4 and sim.state()["phase"] == "player"
    return sim, moves


def online_game(sim, game_id="g1"):
    """An online game as Black from the start position: 1. e4 c5, then White resigns."""
    assert one(sim, "online start b " + game_id) == "ok"
    assert sim.state()["phase"] == "verify"  # the LEDs guide the pieces to the start position
    sim.arrange(START)
    sim.run(600)
    assert one(sim, "online moves 0 e2e4") == "ok"
    sim.execute()
    sim.play("c7c5")
    assert one(sim, "online end 0-1 resign") == "ok"
    assert sim.state()["phase"] == "over" and sim.game() == ["e2e4", "c7c5"]
    return ["e2e4", "c7c5"]


def assert_local_back(sim, local, online):
    assert sim.game() == local
    assert one(sim, "settings").startswith(LOCAL_SETTINGS)
    assert one(sim, "online status") == "online off"
    assert "online.keep" not in sim.flash.files and "online.run" not in sim.flash.files
    games = archived(sim.flash)
    assert local not in games and games.count(online) == 1, games


def test_the_local_game_comes_back_after_the_online_game():
    sim, local = local_game()
    online = online_game(sim)
    assert "online.keep" in sim.flash.files  # kept beside the journal, not archived
    assert archived(sim.flash) == []
    sim.press("new")  # after the online game: leave online play
    sim.run(50)
    assert sim.console_lines[-1] == "online left"
    assert_local_back(sim, local, online)
    assert sim.state()["phase"] == "verify" and sim.display_text()[1] == "Back to your game"
    lit = sim.lit()
    assert lit["d4"] == "on" and lit["d2"] == lit["c5"] == "blink-fast" and lit["c7"] == "on", lit  # guided back
    sim.arrange(pieces_of(local))
    sim.run(600)
    assert sim.state()["phase"] == "player"
    searches = sim.app.searches
    sim.play("g1f3")  # the computer plays its side again, at its level
    assert sim.wait_computer() and sim.app.searches > searches
    assert sim.state()["level_name"] == "Fun 2"


def test_stop_an_aborted_game_and_two_online_games_in_a_row():
    sim, local = local_game()
    online = online_game(sim)
    assert one(sim, "online start w g2") == "ok"  # the next online game at once: the local game stays kept
    assert "online.keep" in sim.flash.files and archived(sim.flash) == [online]
    sim.arrange(START)
    sim.run(600)
    sim.play("d2d4")
    assert sim.game() == ["d2d4"] and sim.console_lines[-1] == "online played d2d4 1"
    assert one(sim, "online stop") == "ok"  # leaves: the running game is dropped, the local one is back
    assert sim.game() == local and archived(sim.flash) == [online, ["d2d4"]]
    assert_local_back(sim, local, online)
    sim.arrange(pieces_of(local))
    sim.run(600)
    assert one(sim, "online start b g3") == "ok"
    assert one(sim, "online end * aborted") == "ok"  # aborted: back at once
    assert sim.game() == local and sim.display_text()[1] == "Aborted: your game"
    assert "online.keep" not in sim.flash.files


def test_nothing_is_kept_without_a_game_in_progress():
    sim = Simulator(seed=1, book=False, ponder=False, human="white", level=0)
    assert one(sim, "online start w g4") == "ok"
    assert "online.keep" not in sim.flash.files
    sim.play("e2e4")
    assert one(sim, "online end 1-0 resign") == "ok"
    sim.press("new")
    sim.run(50)
    assert sim.game() == [] and archived(sim.flash) == [["e2e4"]]
    assert one(sim, "settings").startswith("level 1, computer Black")  # as before


def test_a_power_cut_at_any_flash_operation_of_the_way_back_loses_neither_game():
    sim, local = local_game()
    online = online_game(sim)
    mark = len(sim.flash.ops)
    sim.press("new")
    sim.run(100)
    ops = list(sim.flash.ops)
    assert len(ops) - mark >= 6, ops[mark:]
    kinds = set()
    for k in range(mark, len(ops) + 1):
        for torn in ((None, 3) if k < len(ops) and ops[k][0] == "write" else (None,)):
            flash = FakeFlash.replay(ops, k, torn)
            again = Simulator(seed=1, book=False, ponder=False, human="white", flash=flash,
                              pieces=pieces_of(local))
            try:
                assert_local_back(again, local, online)
                kinds.add(ops[k][0] if k < len(ops) else "done")
            finally:
                again.close()
    assert {"write", "rename", "remove", "done"} <= kinds, kinds


def test_a_power_cut_at_any_flash_operation_of_the_way_there():
    """Cut while the online game starts (the local game kept, the online one begun, marked):
    the board resumes the online game if it was marked, else the local game is back at once;
    either way the local game comes back once online play is left, and is never archived."""
    sim, local = local_game()
    mark = len(sim.flash.ops)
    online = online_game(sim)
    ops = list(sim.flash.ops)
    resumed = 0
    for k in range(mark, len(ops) + 1):
        for torn in ((None, 3) if k < len(ops) and ops[k][0] == "write" else (None,)):
            flash = FakeFlash.replay(ops, k, torn)
            again = Simulator(seed=1, book=False, ponder=False, human="white", flash=flash, pieces=START)
            try:
                if one(again, "online status") != "online off":  # marked: the online game goes on
                    resumed += 1
                    assert again.game() == online[:len(again.game())]
                    assert one(again, "online start b g1").startswith("ok resume")
                    assert one(again, "online end 0-1 resign") == "ok"
                    again.press("new")
                    again.run(50)
                    assert again.game() == local
                    games = archived(again.flash)
                    assert local not in games and len(games) <= 1, games
                else:  # the local game was never replaced, or the online one was over
                    assert again.game() == local and one(again, "settings").startswith(LOCAL_SETTINGS)
                    assert archived(again.flash) in ([], [online])
                assert "online.keep" not in again.flash.files
            finally:
                again.close()
    assert resumed >= 3


def test_a_power_cut_after_the_online_game_brings_the_local_game_back():
    sim, local = local_game()
    online = online_game(sim)
    again = Simulator(seed=1, book=False, ponder=False, human="white", flash=sim.flash.copy(),
                      pieces=sim.board_fen())
    assert_local_back(again, local, online)
    assert again.state()["phase"] == "verify" and again.display_text()[1] == "Back to your game"
    again.arrange(pieces_of(local))
    again.run(600)
    assert again.state()["phase"] == "player"


def test_the_options_clock_is_off_online_and_goes_on_after():
    """A 5-minute clock set in the options: during an online game it neither runs, nor lets a
    flag fall, nor takes the display's line; the local game gets its time back after."""
    s = Settings(level=0, computer_side=8)
    s.clock = [p.name if p else None for p in PRESETS].index("5 min")
    s.ponder = False
    sim = Simulator(seed=1, book=False, human="white", settings=s, pass_us=20000)
    sim.play("e2e4")
    sim.wait_computer()
    sim.execute()
    local = sim.game()
    sim.run(3000)
    left = one(sim, "clock")
    assert left.startswith("4:5") and sim.display_text()[2] == left
    assert one(sim, "online start w g5") == "ok"
    sim.run(200)
    assert one(sim, "clock") == "no clock" and sim.display_text()[2] == "Lichess g5"
    sim.arrange(START)
    assert one(sim, "online clock 900000 900000 w") == "ok"
    sim.run(400000)  # longer than the local clock's 5 minutes
    assert sim.state()["result"] == "*" and sim.state()["phase"] == "player"
    assert sim.display_text()[1].startswith("W 8:") and one(sim, "clock") == "no clock"
    sim.play("e2e4")
    assert one(sim, "online end 1-0 resign") == "ok"
    assert sim.display_text()[2] == "W 15:00 B 15:00"  # the server's clocks as last sent, not the local one
    sim.press("new")
    sim.run(100)
    assert sim.game() == local and one(sim, "clock") == left  # its time as it was left
    sim.arrange(pieces_of(local))
    sim.run(3000)
    assert one(sim, "clock") < left  # running again


MPY = r"""
import os
from firmware.controller.journal import Journal
out = []
class Lines:
    def __init__(s): s.q = []
    def readline(s): return s.q.pop(0) if s.q else None
lines = Lines()
T = [0]
app = App(hw, Searcher(tt_entries=256, poll_nodes=64, clock_ms=lambda: T[0]), ticks_ms=ticks, console=lines,
          write=out.append, journal=Journal(JOURNAL_DIR, open, os))
app.boot(ticks())
def say(line, ms=30):
    del out[:]
    lines.q.append(line)
    run(ms)
    print(line, "->", " | ".join(out))
def touch(what, sq, ms=300):
    lines.q.append(what + " " + sq)
    run(ms)
def move(m):
    touch("lift", m[:2])
    touch("place", m[2:4], 800)
run(200)
say("feed " + OCCUPANCY)
run(800)
STEPS
say("moves")
say("settings")
say("online status")
"""

FIRST = """
say("level 2")
move("e2e4")
run(20000)
say("computer")
m = [x for x in out][0]
move(m)
say("moves")
say("online start b m1")
move(m[2:4] + m[:2])
move("e4e2")
run(800)
say("online moves 0 d2d4")
move("d2d4")
move("d7d5")
"""
SECOND = """
say("online start b m1")
say("online end 1-0 resign")
say("press new")
"""


def test_kept_and_back_under_micropython_with_a_restart_in_between(tmp_path):
    """Under the unix port with a journal directory: a local game against the computer, an
    online game, the power goes (the process ends); booted again the online game goes on, and
    once it is over and left the local game is back with its level and sides."""
    def board_hex(moves):
        board = chess.Board()
        for m in moves:
            board.push_uci(m)
        bits = 0
        for sq in board.piece_map():
            bits |= 1 << sq
        return "%016x" % bits

    def play(steps, occupancy):
        code = SETUP + MPY.replace("JOURNAL_DIR", repr(str(tmp_path))).replace("OCCUPANCY", repr(occupancy))
        out = run_mpy(code.replace("STEPS", steps), timeout=300)
        got = {}
        for line in out.split("\n"):
            if " -> " in line:
                key, _, value = line.partition(" -> ")
                got.setdefault(key, []).append(value)
        return got, out

    got, out = play(FIRST, board_hex([]))
    reply = got["computer"][0]
    local = ["e2e4", reply]
    assert got["moves"] == [" ".join(local), "d2d4 d7d5"], out
    assert got["online start b m1"] == ["ok"], out
    assert got["online status"] == ["online m1 b ply 2 thinking"], out
    assert sorted(os.listdir(tmp_path)) == ["game.jnl", "online.keep", "online.run"]
    got, out = play(SECOND, board_hex(["d2d4", "d7d5"]))
    assert got["online start b m1"] == ["ok resume 2"], out
    assert got["press new"] == ["online left | ok"], out
    assert got["moves"] == [" ".join(local)], out
    assert got["settings"][0].startswith(LOCAL_SETTINGS), out
    assert got["online status"] == ["online off"], out
    assert sorted(os.listdir(tmp_path)) == ["game.jnl", "games.jnl"]



def test_the_boards_own_client_keeps_the_local_game_too():
    """Waiting for a game (the board's own client) leaves the local game on the board: *new*
    cancels and it goes on; once a game starts it is kept and comes back after."""
    import time

    from online.lichess_server import LichessServer

    server = LichessServer(keepalive_s=0.3)
    server.add_user("alice", "lip_keepAlice012345")
    server.add_user("bob", "lip_keepBob0123456")
    server.start()
    sim, local = local_game()

    def spin(cond, timeout=8.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            sim.run(20)
            if cond():
                return
            time.sleep(0.002)
        raise AssertionError("timed out: %s" % sim.console_lines[-8:])

    try:
        assert one(sim, "online server " + server.url) == "ok"
        assert one(sim, "online token lip_keepAlice012345").startswith("ok token stored")
        assert one(sim, "online net accept") == "ok"
        spin(lambda: server.open_streams("alice") == 1)
        assert sim.display_text()[0] == "Online" and sim.game() == local
        sim.press("new")  # cancels the wait: the local game goes on
        sim.run(50)
        assert one(sim, "online status") == "online off" and sim.game() == local
        assert one(sim, "settings").startswith(LOCAL_SETTINGS) and "online.keep" not in sim.flash.files
        assert one(sim, "online net accept") == "ok"
        spin(lambda: server.open_streams("alice") == 1)
        server.challenge("bob", "alice", **{"clock.limit": 300, "color": "black"})
        spin(lambda: sim.console("online status")[0].endswith("w ply 0 verify"))
        assert "online.keep" in sim.flash.files and sim.game() == []
        g = next(iter(server.games.values()))
        sim.arrange(START)
        sim.run(600)
        sim.play("e2e4")
        spin(lambda: g.moves == ["e2e4"])
        server.act("bob", g.id, "resign")
        spin(lambda: sim.state()["phase"] == "over")
        sim.press("new")
        spin(lambda: sim.game() == local)
        assert_local_back(sim, local, ["e2e4"])
    finally:
        sim.close()
        server.stop()
