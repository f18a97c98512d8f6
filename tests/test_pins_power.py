"""Power cuts and a sensor log replayed on the emulated Pico, pin for pin (host_sim/rp2040/, docs/pin-model.md).

Power cuts: `make flash BOARD=pico`, main.py boots, a game is played through the pins, and the
power goes (host_sim/rp2040/power_cut.py's PowerGame: the flash is kept as it was at that
emulated moment, a new runner boots from it with the pieces where the hand left them) just
before the journal's write of the hand's move (the
move was counted but is not on the flash: the resumed game must lack exactly it, and the LEDs
must show its squares until the hand puts the piece back). After each power-on the resumed
record must be what the journal promises (power_cut.py's module doc: nothing the firmware had
reported is lost; a move missing is one not on the flash at the cut), the LEDs must show
exactly the squares where the pieces disagree with it, and after the hand fixed them the game
goes on (a further move each side, the record checked with python-chess).

Sensor log replay (opt-in, REEDCHESS_PINS_REPLAY=1: ~2.5 more minutes of host time, see
docs/pin-model.md): a main.py with the firmware's sensor log on, a few moves by hand in
two-player mode (a long press, a capture, a hint), the log copied off with `mpremote cp`, then
on a power-on from the flash as it was before those moves the log is replayed into the pins
(host_sim/rp2040/replay_pins.py): the game record must be the same.

Skipped, with the reason, without node or the emulator (`make emulators` installs it).
"""
import os
import random
import subprocess
import sys
import tempfile
import time

import chess
import pytest

from tools.emulated_pico import ROOT, unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

SEED = 1616  # the random moments and the hand's moves
NODES = 40


@pytest.fixture(scope="module")
def board():
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard

    b = PicoBoard()
    b.tmp = tempfile.mkdtemp(prefix="pins-power-")
    try:
        t0 = time.monotonic()
        b.image = b.saved_flash()[0]  # make flash's, once per build
        b.flash_s = time.monotonic() - t0
        yield b
    finally:
        b.stop()
        b.forget_images()
        for name in os.listdir(b.tmp):
            os.remove(os.path.join(b.tmp, name))
        os.rmdir(b.tmp)


def _replays(record):
    ref = chess.Board()
    for text in record:
        ref.push_uci(text)
    return ref


def test_power_cuts_resume_the_game(board):
    from host_sim.rp2040.pico_board import wait_status
    from host_sim.rp2040.power_cut import PowerGame, describe

    b = board
    t0 = time.monotonic()
    b.power_on(b.image, occupied={sq for sq in chess.SQUARES if b.board.piece_at(sq)})
    game = PowerGame(b, random.Random(SEED), nodes=NODES)
    game.begin()
    game.step()  # the hand's first move
    assert b.game() == [m.uci() for m in b.board.move_stack]

    # (cuts at random moments: python -m host_sim.rp2040.power_cut, 20 of them, docs/pin-model.md;
    # one here too cost ~1 min of CI time, which is near its limit)
    # 2: just before the flash call that writes the hand's next move
    while b.board.turn != chess.WHITE:
        game.step()
    wait_status(b, lambda s: s[0] == "player")
    r2 = game.cut("flash", flash_call=1)
    print(describe(2, r2))
    assert r2["ok"], describe(2, r2)
    assert len(r2["unwritten"]) == 1 and r2["counted_after"] == r2["resumed"] + 1, describe(2, r2)
    assert r2["guided"]["put"], "the LEDs showed nothing to put back: %s" % describe(2, r2)

    # the game goes on from the resumed position: a move of each side through the pins
    ply = len(b.board.move_stack)
    while len(b.board.move_stack) < ply + 2 and not b.board.is_game_over():
        game.step()
    record = b.game()
    assert record == [m.uci() for m in b.board.move_stack]
    _replays(record)
    print("power cut: flash %.0f s, the rest %.0f s host; boot after the cut %.1f s emulated"
          % (b.flash_s, time.monotonic() - t0, r2["boot_ms"] / 1000))


def _mpremote(b, *args, timeout=300):
    """mpremote on the board's USB serial (it stops main.py with Ctrl-C, as on a real board)."""
    b.pico.disconnect()
    cmd = [sys.executable, "-m", "mpremote", "connect", b.pico.url] + list(args)
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, "mpremote %s: %s" % (" ".join(args), proc.stdout + proc.stderr)
    return proc.stdout


@pytest.mark.skipif(not os.environ.get("REEDCHESS_PINS_REPLAY"),
                    reason="sensor-log replay at the pins costs ~2.5 min more host time: REEDCHESS_PINS_REPLAY=1")
def test_sensor_log_replays_into_the_pins(board):
    from host_sim.replay import SensorLog
    from host_sim.rp2040.pico_board import play, wait_status
    from tools.fileset import main_py

    b = board
    t0 = time.monotonic()
    if b.pico.proc is None or b.halted:
        pytest.skip("the board is not at the REPL")
    main = os.path.join(b.tmp, "main.py")
    with open(main, "w") as f:
        f.write(main_py("pico").replace("app.main(board)", "app.main(board, sensor_log_path='/sensors.log')"))
    _mpremote(b, "cp", main, ":main.py", "+", "exec",
              "import os\nfor n in ('game.jnl', 'game.jnl.new'):\n    try:\n        os.remove(n)\n"
              "    except OSError:\n        pass")  # a fresh game, the default settings
    b.pico.connect()
    b.pico.write(b"\x02\r\n")
    b.pico.read_until(b">>> ", timeout=60)
    start = b.save_flash(os.path.join(b.tmp, "log-start.img"))
    b.board = chess.Board()
    b.boot()
    b.press("move", long=True)  # two players: the computer only referees, so a replay meets no search
    wait_status(b, lambda s: s[0] == "player")
    for move, order in (("e2e4", "natural"), ("d7d5", "natural"), ("e4d5", "mover-first"), ("d8d5", "natural")):
        play(b, move, order=order)
    b.press("hint")
    b.run(1500)
    play(b, "b1c3")
    record = b.game()
    assert record == ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3"]
    local = os.path.join(b.tmp, "sensors.log")
    _mpremote(b, "cp", ":sensors.log", local)
    log = SensorLog.load(local)
    actions = {ev.action for ev in log.events}
    assert {"lift", "place", "hold", "press"} <= actions, log.text()

    b.board = chess.Board()
    b.occupied = {sq for sq in chess.SQUARES if b.board.piece_at(sq)}
    b.power_on(start)
    assert b.game() == []
    n = b.replay(log)
    assert n == len([ev for ev in log.events if ev.action != "note"])
    wait_status(b, lambda s: s[1] == len(record) and s[0] != "verify")
    assert b.game() == record
    print("sensor log: %d events replayed; %.0f s host" % (n, time.monotonic() - t0))
