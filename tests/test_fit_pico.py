"""Reedchess fits a stock Pico as flashed. On the emulated stock Pico (MicroPython's
RPI_PICO image on rp2040js, tools/emulated_pico.py, docs/emulated-pico.md):

(a) `make flash BOARD=pico` (tools.flash over mpremote, socket://) completes and verifies (once
    per build: PicoBoard.saved_flash keeps the flash and its output, and the pin tests power on
    from the same flash);
(b) main.py boots into the main loop (the console answers) with the board's transposition
    table (>= 2048 entries), and `mem` then shows >= 40 KB free, the largest free block >= 8 KB;
(c) a whole game at the strongest level ("3 min/move", its searches capped at NODES nodes for
    test time) with pondering, book, journal, a hint, a take back, a promotion and the end of
    the game, played through the console protocol, with the heap's high-water mark <= 200 KB:
    main.py first takes a ballast bytearray so that exactly 200 KB stay free for everything
    main does (imports, drivers, engine, the game), so more would be a MemoryError. The game
    record is checked with python-chess; nothing is attached to the pins, so the boot reports
    the devices it cannot find, once, and nothing crashes;
(d) with the e-board mode on (Millennium), the board boots straight into it after a power
    cycle, answers the host, and keeps the floors of (b).

Skipped, with the reason, without node or the emulator (`make emulators` installs it).
"""
import os
import re
import time

import chess
import pytest

from tests.emulated_helper import REPLY_POLL_MS, ConsolePlayer, helpmate_choice, parse_mem, undo_touches
from tools.emulated_pico import DeviceError, unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

FREE_AFTER_BOOT = 40 * 1024
MAX_BLOCK_AFTER_BOOT = 8 * 1024
MIN_TT_ENTRIES = 2048
HIGH_WATER = int(os.environ.get("REEDCHESS_PICO_HIGH_WATER_KB", "200")) * 1024  # the goal; env: to measure
NODES = 150  # every search's node cap in the game (the chip does ~340 nodes/s in the emulator's host time)
MAX_PLIES = 160  # the helpmate hand loses long before
# Game 2: White promotes a7-a8 to a rook (one *level* press from the queen), mate on the back rank.
PROMOTION_FEN = "6k1/P4ppp/8/8/8/8/5PPP/6K1 w - - 0 1"
PROMOTION_MOVE = "a7a8r"

BALLAST_MAIN = """import gc
gc.collect()
_free = gc.mem_free()
_ballast = bytearray(_free - %d - 16)  # the heap above %d bytes is taken: more would be a MemoryError
gc.collect()
print("BALLAST %%d FREE %%d" %% (len(_ballast), gc.mem_free()))
import boards.pico as board
from firmware import app

app.main(board)
""" % (HIGH_WATER, HIGH_WATER)


def strongest_level():
    """1-based index of the longest fixed time per move (firmware/engine/levels.py)."""
    from firmware.engine.levels import LEVELS, MOVETIME

    best = max((lv.value, i) for i, lv in enumerate(LEVELS) if lv.kind == MOVETIME)[1]
    return best + 1, LEVELS[best].name


def book_replies(uci_moves):
    """UCI texts of the book's moves after `uci_moves` from the start (the device's book file)."""
    from firmware.engine.book import default_book_path, open_book
    from firmware.engine.notation import uci
    from firmware.engine.uci_parse import parse_uci
    from firmware.engine.position import Position

    pos = Position()
    for text in uci_moves:
        pos.make(parse_uci(pos, text))
    book = open_book(default_book_path())
    try:
        return {uci(m) for m, _ in book.moves(pos)}
    finally:
        book.close()


@pytest.fixture(scope="module")
def pico():
    """The stock Pico with this build's `make flash` (PicoBoard.saved_flash: flashed once per
    build, shared with the pin tests), nothing at its pins, main.py stopped at the REPL."""
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard, PinPico, flash_output, stop_main

    maker = PicoBoard(display=False)
    t0 = time.monotonic()
    try:
        image, _ = maker.saved_flash()
        flash_error = None
    except DeviceError as exc:
        image, flash_error = None, str(exc)
    finally:
        maker.stop()
    flash_seconds = time.monotonic() - t0
    p = PinPico({}, flash_image=image and os.path.abspath(image))  # nothing at the pins: a Pico just flashed
    try:
        if image:
            p.start()
            stop_main(p)
            info = p.exec("import gc, micropython\ngc.collect()\nmicropython.mem_info()\n")
            p.heap_total = int(re.search(r"GC: total: (\d+)", info).group(1))
        p.flash_output, p.flash_error, p.flash_seconds = image and flash_output(image), flash_error, flash_seconds
        yield p
    finally:
        p.stop()


def _flashed(pico):
    if pico.flash_error:
        pytest.fail("the flash failed, so nothing to boot: %s" % pico.flash_error[-1500:])


def test_a_make_flash_completes(pico):
    assert pico.flash_error is None, pico.flash_error
    out = pico.flash_output
    assert "verifying on the device" in out and "done:" in out, out[-2000:]
    assert "main.py" in out  # the composition root is written
    print("stock Pico: heap total %d; flash (or its saved copy) took %.0f s" % (pico.heap_total, pico.flash_seconds))
    print("\n".join(line for line in out.splitlines() if line.startswith("done:") or "total:" in line))


def test_b_boots_into_the_main_loop_with_room_to_spare(pico):
    _flashed(pico)
    from boards.pico import CONFIG

    from firmware.engine.tt import BYTES_PER_ENTRY

    assert CONFIG["tt_entries"] >= MIN_TT_ENTRIES
    pico.transcript = []
    t0 = time.monotonic()
    pico.soft_reset(until=lambda line: True)
    player = ConsolePlayer(pico)
    player.wait_console()
    boot_s = time.monotonic() - t0
    m = player.mem()
    print("after boot (stock main.py): %s; boot to console %.1f s host time" % (m, boot_s))
    print("boot printed: %s" % [line for line in pico.transcript if line.strip()])
    assert not any("Traceback" in line or "Error" in line for line in pico.transcript), pico.transcript
    # the transposition table (tt_entries x BYTES_PER_ENTRY) is in what the boot holds
    assert m["used"] >= CONFIG["tt_entries"] * BYTES_PER_ENTRY
    assert m["free"] >= FREE_AFTER_BOOT, m
    assert m["max_block"] >= MAX_BLOCK_AFTER_BOOT, m
    # still alive after a second look
    assert player.status()[0] in ("player", "setup", "verify")


def _wait_hint(player, timeout=120):
    """The hint move from the lit squares (two squares that make a legal move)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        squares = list(player.lit())
        if len(squares) == 2:
            a, b = (chess.parse_square(s) for s in squares)
            for fr, to in ((a, b), (b, a)):
                for m in player.board.legal_moves:
                    if m.from_square == fr and m.to_square == to:
                        return m
        player.pause(REPLY_POLL_MS, 0.3)  # a search for the hint runs meanwhile
    raise AssertionError("no hint lit within %d s: %s" % (timeout, player.lit()))


def play_whole_game(player, level, nodes=NODES):
    """Game 1 from the start position at `level` (pondering, book and journal on: the defaults):
    a book reply, a hint played, a take back, then the helpmate hand until the end; game 2 from a
    set-up position: a promotion to a rook that mates. Returns (plies, result of game 1, last mem)."""
    # ---- game 1: from the start, strongest level, pondering + book + journal on (the defaults)
    assert player.ok("feed") == "ok"
    player.wait_phase("player")  # the unit checks the fed board first (300 ms stable), as for a hand
    assert player.ask("level %d" % level, lambda line: line.startswith("level")).startswith("level %d" % level)
    player.ok("nodes %d" % nodes)
    player.make("e2e4")
    reply = player.computer_reply()
    assert reply.uci() in book_replies(["e2e4"]), "1.e4 %s is not a book move" % reply
    player.make(reply)

    player.press("hint")  # the hint: played as shown
    player.make(_wait_hint(player))
    player.make(player.computer_reply())

    # take back the computer's move: put it back by hand, then *move* lets it play again
    ply = len(player.board.move_stack)
    undone = player.board.pop()
    player.press("takeback")
    for action, sq in undo_touches(player.board, undone):
        player.ok("%s %s" % (action, sq))
    player.wait_ply(ply - 1)
    player.wait_phase("player")  # the board matches the game again
    player.press("move")
    player.make(player.computer_reply())

    while not player.board.is_game_over() and len(player.board.move_stack) < MAX_PLIES:
        player.make(helpmate_choice(player.board))
        if player.board.is_game_over():
            break
        player.make(player.computer_reply())
        if len(player.board.move_stack) % 8 == 0:
            player.mem()
    assert player.board.is_game_over(), "no end after %d plies" % len(player.board.move_stack)
    phase, _, result = player.status()
    assert (phase, result) == ("over", player.board.result()), (phase, result, player.board.result())
    record = player.moves()
    replay = chess.Board()
    for text in record:
        replay.push_uci(text)  # raises on an illegal move
    assert record == [m.uci() for m in player.board.move_stack]
    assert replay.is_game_over() and replay.result() == result
    game1_plies, game1_result = len(record), result
    player.mem()

    # ---- game 2: from a set-up position, the player promotes to a rook: mate
    player.ok("new " + PROMOTION_FEN)
    player.set_up(PROMOTION_FEN)
    player.wait_ply(0)
    player.wait_phase("player")  # the board shows the position
    player.make(PROMOTION_MOVE)
    phase, _, result = player.status()
    assert (phase, result) == ("over", "1-0")
    assert player.moves() == [PROMOTION_MOVE]
    end = player.mem()
    return game1_plies, game1_result, end


def test_c_whole_game_at_the_strongest_level_within_200_kb(pico):
    _flashed(pico)
    level, level_name = strongest_level()
    assert level_name == "3 min/move"
    pico.write_file("main.py", BALLAST_MAIN)
    pico.transcript = []
    t0 = time.monotonic()
    pico.soft_reset(until=lambda line: line.startswith("BALLAST") or "Traceback" in line)
    ballast_line = pico.transcript[-1]
    assert ballast_line.startswith("BALLAST"), pico.transcript
    free_for_main = int(ballast_line.split()[3])
    assert free_for_main <= HIGH_WATER, ballast_line  # the proof is only as strict as the ballast
    player = ConsolePlayer(pico)
    player.wait_console()
    boot_lines = [line for line in pico.transcript if line.strip()]
    after_boot = player.mem()

    game1_plies, game1_result, end = play_whole_game(player, level)
    game_s = time.monotonic() - t0

    # nothing crashed, and what the boot said (the missing devices) it said once
    text = "\n".join(pico.transcript)
    assert "Traceback" not in text and "MemoryError" not in text
    for line in set(boot_lines):
        if not line.startswith(("BALLAST", "player ", "setup ", "verify ")):
            assert pico.transcript.count(line) == boot_lines.count(line), "repeated: %r" % line

    # the journal: after a restart the ended game is back (Ctrl-C stops main, Ctrl-D boots it again)
    pico.write(b"\x03")
    pico.read_until(b">>> ", timeout=60)
    pico.soft_reset(until=lambda line: line.startswith("BALLAST") or "Traceback" in line)
    player.wait_console()
    assert player.moves() == [PROMOTION_MOVE]
    assert player.status()[2] == "1-0"

    high_water = HIGH_WATER - player.min_free
    print("ballast main: %s; boot lines %s" % (ballast_line, boot_lines))
    print("after boot %s; end %s" % (after_boot, end))
    print("game 1: %d plies %s; least free seen %d => sampled high-water %d of %d; %.0f s host time"
          % (game1_plies, game1_result, player.min_free, high_water, HIGH_WATER, game_s))
    assert high_water <= HIGH_WATER


# (d) The e-board mode (Millennium, the larger protocol) on: main.py as flashed, with a timer
# that reports the heap as `mem` does (compat.heap_figures) every emulated second, since
# the mode silences the console. The options are set through the console's `press`, then the
# power goes and comes back: the board boots straight into the mode, which answers V, with the
# floors of (b). The mode's code (~8 KB) is paid for by the search's transposition table,
# which shrinks to 512 slots while the mode is on (features/eboard.py).
PROBE_MAIN = """import gc, sys, machine
from firmware.compat import heap_figures
def _probe(t):
    f, m, u = heap_figures()
    n = 0
    for k in sys.modules:
        if k.startswith('firmware.features.eboard'):
            n += 1
    print('PROBE FREE %d MAXBLOCK %d USED %d EBOARD %d' % (f, m, u, n))
_t = machine.Timer(period=1000, callback=_probe)
import boards.pico as board
from firmware import app

app.main(board)
"""
PROBE_RE = re.compile(rb"PROBE FREE (\d+) MAXBLOCK (\d+) USED (\d+) EBOARD (\d+)")


def _probes(pico, count, timeout=240):
    """The next `count` heap reports of PROBE_MAIN ({"free", "max_block", "used", "eboard"})."""
    found = []
    deadline = time.monotonic() + timeout
    while len(found) < count:
        m = PROBE_RE.search(pico.buf)
        if m:
            found.append(dict(zip(("free", "max_block", "used", "eboard"), (int(g) for g in m.groups()))))
            pico.buf = pico.buf[m.end():]
            continue
        assert b"Traceback" not in pico.buf, pico.buf[-1500:]
        if not pico._fill(deadline):
            raise AssertionError("no heap report in %d s: %r" % (timeout, pico.buf[-500:]))
    return found


def test_d_boots_in_the_eboard_mode_with_the_same_room():
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard
    from tests.eboard_hosts import ChessLinkHost

    b = PicoBoard(display=False)  # as (b): no display answers; the switches hold the start position
    try:
        b.flash_or_reuse()
        b.pico.write_file("main.py", PROBE_MAIN)
        b.boot()
        mem_off = parse_mem(b.console("mem", lambda line: line.startswith("mem ")))
        b.pico.buf = b""
        off = _probes(b.pico, 2)[-1]
        assert off["eboard"] == 0, off
        for line in ("press level long", "press takeback", "press hint", "press hint", "press ok"):
            assert b.console(line, lambda answer: answer == "ok") == "ok"  # the last one starts the mode
        switched = _probes(b.pico, 2)[-1]
        assert switched["eboard"] == 3, switched  # eboard, eboard_millennium, eboard_usb

        b._runner_from(b.power_cut())  # the power goes and comes back: main.py runs by itself
        p, host = b.pico, ChessLinkHost()
        deadline = time.monotonic() + 300
        while "v0100" not in host.messages:  # the mode holds the USB serial from the boot on
            assert time.monotonic() < deadline, "no answer to V: %r" % p.buf[-500:]
            p.write(host.encode("V"))
            end = time.monotonic() + 5
            while p._fill(end) and b"v0100" not in p.buf:
                pass
            host.feed(p.buf)  # boot lines and heap reports too: the host skips what is no reply
            assert b"Traceback" not in p.buf, p.buf
            p.buf = b""
        on = _probes(p, 2)[-1]
        print("stock Pico, main loop idle: `mem` %s; heap reports: mode off %s; Millennium switched on %s; "
              "booted in the Millennium mode %s; free with the mode minus without: %+d bytes" % (
                  mem_off, off, switched, on, on["free"] - off["free"]))
        assert on["eboard"] == 3, on
        assert on["free"] >= FREE_AFTER_BOOT, on
        assert on["max_block"] >= MAX_BLOCK_AFTER_BOOT, on
    finally:
        b.stop()


def test_mem_line_format():
    assert parse_mem("mem free=1 max_block=2 used=3") == {"free": 1, "max_block": 2, "used": 3}
    with pytest.raises(AssertionError):
        parse_mem("mem 1 2 3")
