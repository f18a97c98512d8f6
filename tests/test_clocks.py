"""Chess clocks: sudden death, Fischer increment, Bronstein delay, staged controls (unit tests
of firmware/features/clock.py), and in the Simulator: a Fischer and a Bronstein game
lost on time and drawn on time when the opponent cannot mate (python-chess's
has_insufficient_material semantics), the pause button (ok, or two buttons at once), the
computer's own clock, and the clocks surviving a power cut at any journal write."""
import chess
import pytest

from firmware.features.clock import (
    BRONSTEIN,
    FISCHER,
    PRESETS,
    RECORD_BYTES,
    SUDDEN,
    ClockError,
    GameClock,
    TimeControl,
    format_ms,
)
from firmware.controller.settings import NOBODY, Settings
from firmware.engine.levels import find_level
from host_sim import Simulator
from host_sim.flash import FakeFlash
from tests.mpy import run_mpy

FISCHER_3_2 = [p.name if p else None for p in PRESETS].index("3+2 Fischer")
BRONSTEIN_5_3 = [p.name if p else None for p in PRESETS].index("5 min d3 Bronst")
PASS_US = 20000  # a coarse main loop: minutes of clock time in a second or two


# ---- the clock itself ---------------------------------------------------------------------------
def test_fischer_adds_the_increment_whatever_the_move_took():
    c = GameClock()
    c.configure(TimeControl("", ((0, 60000, 2000),), FISCHER))
    c.run(0, 0)
    c.moved(0, 10000)  # 10 s used, 2 s back
    assert c.left_ms(0, 10000) == 52000
    c.run(8, 10000)
    assert c.left_ms(8, 10500) == 59500 and c.left_ms(0, 99999) == 52000  # only Black runs now
    c.moved(8, 10500)
    assert c.left_ms(8, 10500) == 61500  # a Fischer clock can gain


def test_bronstein_gives_back_the_time_used_up_to_the_delay():
    c = GameClock()
    c.configure(TimeControl("", ((0, 60000, 3000),), BRONSTEIN))
    c.run(0, 0)
    c.moved(0, 2000)  # within the delay: free
    assert c.left_ms(0, 2000) == 60000
    c.run(8, 2000)
    c.moved(8, 12000)  # 10 s used, 3 s back
    assert c.left_ms(8, 12000) == 53000
    c.run(0, 12000)
    c.run(-1, 13000)  # paused 1 s into White's move ...
    c.run(0, 50000)  # ... resumed much later: the pause is not time used
    c.moved(0, 51000)
    assert c.left_ms(0, 51000) == 60000  # 2 s used in all, 2 s back: never gains


def test_staged_control_adds_the_next_stage_and_its_increment():
    # 2 moves in 60 s, then 30 s + 5 s per move (a small "40/90 then 30+30")
    c = GameClock()
    c.configure(TimeControl("", ((2, 60000, 0), (0, 30000, 5000)), FISCHER))
    assert c.moves_to_go(0) == 2
    c.moved(0, None)
    assert c.remaining[0] == 60000 and c.moves_to_go(0) == 1
    c.moved(0, None)  # the control is reached: the second stage's time arrives
    assert c.remaining[0] == 90000 and c.stage[0] == 1 and c.moves_to_go(0) == 0
    c.moved(0, None)  # from now on 5 s per move
    assert c.remaining[0] == 95000
    st = c.state(0, 0)
    assert st["winc_ms"] == 5000 and st["binc_ms"] == 0 and st["movestogo"] == 0
    c.undo(0)
    assert c.moves_done[0] == 2 and c.remaining[0] == 95000  # a take back keeps the times


def test_repeating_stage_and_sudden_death():
    c = GameClock()
    c.configure(PRESETS[[p.name if p else None for p in PRESETS].index("40/2h repeating")])
    for _ in range(40):
        c.moved(8, None)
    assert c.remaining[1] == 2 * 7200000 and c.moves_to_go(8) == 40
    c.configure(TimeControl("", ((0, 1000, 0),), SUDDEN))
    c.run(0, 0)
    assert c.flag(999) == -1 and c.flag(1000) == 0
    c.moved(0, 500)
    assert c.left_ms(0, 500) == 500


def test_bad_time_controls_and_records_are_rejected():
    with pytest.raises(ClockError):
        TimeControl("", (), FISCHER)
    with pytest.raises(ClockError):
        TimeControl("", ((0, 1000, 5),), SUDDEN)
    with pytest.raises(ClockError):
        TimeControl("", ((0, -1, 0),), FISCHER)
    with pytest.raises(ClockError):
        TimeControl("", ((0, 1000, 0),), 7)
    with pytest.raises(ClockError):
        GameClock.source_of(b"\x01\x02")
    c = GameClock()
    c.configure(PRESETS[FISCHER_3_2])
    bad = bytearray(c.to_bytes())
    bad[14] = 9  # a stage the control does not have
    with pytest.raises(ClockError):
        c.restore(bytes(bad))


def test_record_round_trip_and_text():
    c = GameClock()
    c.configure(PRESETS[[p.name if p else None for p in PRESETS].index("40/90+30+30s")])
    c.source = 107
    c.run(0, 0)
    for i in range(41):
        c.moved(0, 1000 * i)
        c.moved(8, None)
    data = c.to_bytes(41000)
    assert len(data) == RECORD_BYTES and GameClock.source_of(data) == 107
    d = GameClock()
    d.configure(PRESETS[[p.name if p else None for p in PRESETS].index("40/90+30+30s")])
    d.restore(data)
    for side in (0, 8):
        assert d.left_ms(side, None) == max(0, c.left_ms(side, 41000))
        assert d.moves_to_go(side) == c.moves_to_go(side)
    assert d.stage == c.stage and d.moves_done == c.moves_done
    assert format_ms(5400000) == "1:30:00" and format_ms(59999) == "0:59" and format_ms(-5) == "0:00"


def test_clock_under_micropython_and_its_hot_path_allocates_nothing():
    out = run_mpy(
        "from firmware.compat import heap_lock, heap_unlock\n"
        "from firmware.features.clock import GameClock, PRESETS\n"
        "c = GameClock(); c.configure(PRESETS[5]); c.run(0, 0); c.moved(0, 2000); c.run(8, 2000)\n"
        "c.moved(8, 12000); print(c.left_ms(0, 12000), c.left_ms(8, 12000), c.text(12000))\n"
        "d = GameClock(); d.configure(PRESETS[5]); d.restore(c.to_bytes(12000)); print(d.left_ms(8, 0))\n"
        "def passes(t):\n"
        "    while t < 14000:\n"
        "        c.run(t & 8, t); c.flag(t); c.left_ms(0, t); c.left_ms(8, t)\n"
        "        t += 1\n"
        "r = 'ok'\n"
        "heap_lock()\n"
        "try:\n"
        "    passes(12000)\n"
        "except MemoryError:\n"
        "    r = 'allocated'\n"
        "heap_unlock()\n"
        "print(r)\n"
        "from firmware.controller.game import Game\n"
        "from firmware.features.clock import time_out\n"
        "g = Game(); g.new('7k/8/8/8/8/8/R7/K7 b - - 0 1'); time_out(g, 8); print(g.result, g.reason_name())\n"
        "g.new('7k/8/8/8/8/8/R7/K7 w - - 0 1'); time_out(g, 0); print(g.result, g.reason_name())\n"
    )
    assert out.split("\n")[:5] == ["300000 293000 5:00 4:53", "293000", "ok", "1-0 time", "1/2-1/2 time"]


# ---- in the simulator -----------------------------------------------------------------------------
def clock_sim(preset, fen=None, human="both", level=None, **kw):
    s = Settings(level=find_level("Depth 2") if level is None else level,
                 computer_side=NOBODY if human == "both" else 8)
    s.clock = preset
    s.ponder = False
    return Simulator(human=human, settings=s, fen=fen, book=False, pass_us=PASS_US, **kw)


def expected_on_time(fen_text, flagged):
    """python-chess: the side whose flag fell loses unless the opponent has insufficient
    material on its own (has_insufficient_material(opponent)) - then it is a draw."""
    board = chess.Board(fen_text)
    winner = not flagged
    if board.has_insufficient_material(winner):
        return "1/2-1/2"
    return "1-0" if winner == chess.WHITE else "0-1"


@pytest.mark.parametrize("preset", [FISCHER_3_2, BRONSTEIN_5_3], ids=["fischer", "bronstein"])
def test_time_forfeit_is_a_loss(preset):
    sim = clock_sim(preset)
    base = PRESETS[preset].stages[0][1]
    sim.run(10000)
    sim.play("e2e4")
    left = sim.controller.clock.left_ms(0, None)
    if preset == FISCHER_3_2:
        assert base - 11000 + 2000 < left <= base - 10000 + 2000  # 10 s + the hand, 2 s back
    else:
        assert base - 11000 + 3000 < left <= base - 10000 + 3000  # at most the 3 s delay back
    sim.play("e7e5")  # quick: Bronstein gives all of it back, Fischer adds 2 s
    black = sim.controller.clock.left_ms(8, None)
    assert black == (base if preset == BRONSTEIN_5_3 else base + 2000) or base < black < base + 2000
    assert sim.display_text()[2] == sim.controller.clock.text(sim.now_ms())[:21]
    sim.run(left + 1000)  # White never moves again
    st = sim.state()
    assert st["result"] == expected_on_time(sim.fen(), chess.WHITE) == "0-1" and st["reason"] == "time"
    assert sim.display_text()[:2] == ["0-1", "time"]


@pytest.mark.parametrize("preset, fen, result", [
    (FISCHER_3_2, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "1/2-1/2"),  # White's flag; a lone king cannot mate
    (BRONSTEIN_5_3, "3qk3/8/8/8/8/8/8/1N2K3 b - - 0 1", "1/2-1/2"),  # Black's flag; K+N cannot mate K+Q
    (BRONSTEIN_5_3, "3rk3/8/8/8/8/8/8/1N2K3 b - - 0 1", "1-0"),  # ... but K+N can mate K+R (helpmate)
], ids=["fischer-lone-king", "bronstein-knight-vs-queen", "bronstein-knight-vs-rook"])
def test_time_forfeit_is_a_draw_when_the_opponent_cannot_mate(preset, fen, result):
    sim = clock_sim(preset, fen=fen)
    flagged = chess.Board(fen).turn
    assert expected_on_time(fen, flagged) == result  # the python-chess rule
    sim.run(PRESETS[preset].stages[0][1] + 1000)
    st = sim.state()
    assert st["result"] == result and st["reason"] == "time"


def test_clock_pauses_with_ok_or_two_buttons_at_once():
    sim = clock_sim(FISCHER_3_2)
    sim.run(5000)
    sim.press("ok")  # a board with an "ok" button: ok pauses when nothing else wants it
    assert sim.controller.clock.paused and "paused" in sim.display_text()[2]
    left = sim.controller.clock.left_ms(0, None)
    sim.run(20000)
    assert sim.controller.clock.left_ms(0, sim.now_ms()) == left
    sim.press("ok")
    sim.run(3000)
    assert left - 3100 < sim.controller.clock.left_ms(0, sim.now_ms()) <= left - 2900
    # esp32s3: no ok, no clock button: hold one button and press another
    s3 = clock_sim(FISCHER_3_2, board="esp32s3")
    s3.run(2000)
    s3.hold("hint")
    s3.run(100)
    s3.press("move")
    s3.release("hint")
    s3.run(200)
    st = s3.state()
    assert s3.controller.clock.paused and st["hint"] is None and st["computer"] == "nobody"
    left = s3.controller.clock.left_ms(0, None)
    s3.run(5000)
    assert s3.controller.clock.left_ms(0, s3.now_ms()) == left
    s3.press("hint")  # the chord is over: a plain press acts normally again (a hint)
    s3.run(5000)
    assert s3.state()["hint"] is not None and s3.controller.clock.paused
    s3.hold("move")  # the other way round: the clock runs again
    s3.run(100)
    s3.press("hint")
    s3.release("move")
    s3.run(100)
    assert not s3.controller.clock.paused and s3.state()["computer"] == "nobody"


def test_the_computer_uses_and_loses_its_own_time():
    sim = clock_sim(FISCHER_3_2, human="white", level=find_level("1 s/move"))
    sim.play("e2e4")
    sim.wait_computer()
    left = sim.controller.clock.left_ms(8, sim.now_ms())
    assert 178500 < left < 180000  # about 1 s of thinking
    sim.run(5000)  # nobody's clock runs while the computer's move waits to be made
    assert sim.controller.clock.left_ms(8, sim.now_ms()) == left
    assert sim.controller.clock.left_ms(0, sim.now_ms()) == sim.controller.clock.remaining[0]
    sim.execute()
    assert sim.controller.clock.left_ms(8, None) == left + 2000  # the increment once it is made
    # a level slower than the clock allows is capped by it (3 min/move with 3 minutes left)
    slow = clock_sim(FISCHER_3_2, human="white", level=find_level("3 min/move"))
    slow.play("e2e4")
    slow.wait_computer(max_ms=120000)
    assert slow.computer_move() is not None and slow.controller.clock.left_ms(8, None) > 100000


def test_clocks_survive_a_power_cut_at_every_journal_write():
    flash = FakeFlash()
    snaps = []
    holder = []

    def observer(i):
        sim = holder[0] if holder else None
        c = sim.controller if sim else None
        if c is None or c.clock is None:
            snaps.append(None)
        else:
            snaps.append((c.game.uci_moves(), c.clock.remaining[0], c.clock.remaining[1]))

    flash.observer = observer
    sim = clock_sim(FISCHER_3_2, flash=flash)
    holder.append(sim)
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]
    for i, m in enumerate(moves):
        sim.run(3000 + 1000 * i)
        sim.play(m)
    sim.press("ok")  # a pause is recorded too
    ops = list(flash.ops)
    clock_writes = [k for k, op in enumerate(ops) if op[0] == "write" and op[2][1:2] == b"\x08"]
    assert len(clock_writes) == len(moves) + 1
    last = None  # (moves, white ms, black ms) of the last complete clock record
    for k in range(len(ops) + 1):
        if k and (k - 1) in clock_writes:
            last = snaps[k - 1]
        torn = len(ops[k][2]) // 2 if k < len(ops) and ops[k][0] == "write" else None
        board = chess.Board()
        for m in (snaps[k - 1][0] if k and snaps[k - 1] else []):
            board.push_uci(m)
        again = Simulator(human="both", flash=FakeFlash.replay(ops, k, torn), book=False, pass_us=PASS_US,
                          pieces=board.fen())
        try:
            c = again.controller
            if last is None:  # no clock record yet: fresh clocks (if the settings made it)
                assert c.clock is None or c.clock.remaining == [180000, 180000]
                continue
            assert c.settings.clock == FISCHER_3_2 and c.clock is not None
            # the clocks resume exactly as the last complete record left them (the running
            # side's time is settled only when the turn changes)
            assert c.clock.remaining == [last[1], last[2]], "cut at operation %d" % k
            assert c.clock.paused == (k > clock_writes[-1])
        finally:
            again.close()
    assert last is not None and last[0] == moves


def test_a_paused_clock_shows_the_minutes_on_the_squares_without_a_display():
    sim = clock_sim(FISCHER_3_2, board="esp32s3")
    sim.run(65000)  # White: 1:55 left -> 2 squares; Black 3:00 -> 3 squares
    sim.hold("hint")
    sim.run(100)
    sim.press("move")
    sim.release("hint")
    sim.run(100)
    assert sim.controller.clock.paused
    assert sim.lit() == {"a1": "on", "b1": "on", "h8": "blink", "g8": "blink", "f8": "blink"}
    sim.hold("move")
    sim.run(100)
    sim.press("hint")
    sim.release("move")
    sim.run(100)
    assert sim.lit() == {}


def test_journal_keeps_the_last_clock_record_through_compaction():
    from firmware.controller.journal import Journal
    from firmware.engine.position import Position
    from firmware.engine.uci_parse import parse_uci

    flash = FakeFlash()
    j = Journal("", open_fn=flash.open, fs=flash)
    j.start_game(Settings().to_bytes())
    c = GameClock()
    c.configure(PRESETS[FISCHER_3_2])
    pos = Position()
    for i, m in enumerate(("e2e4", "e7e5")):
        move = parse_uci(pos, m)
        pos.make(move)
        j.record_move(move)
        c.moved(i * 8, None)
        j.record_clock(c.to_bytes())
    last = c.to_bytes()
    j.record_undo()  # forces a compaction on the next load
    saved = Journal("", open_fn=flash.open, fs=flash).load()
    assert saved.clock == last and len(saved.moves) == 1
    again = Journal("", open_fn=flash.open, fs=flash).load()  # after the rewrite
    assert again.clock == last and not again.repaired
    j2 = Journal("", open_fn=flash.open, fs=flash)
    j2.start_game(None)
    assert j2.load().clock is None  # a new game starts without one
