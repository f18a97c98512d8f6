"""The UCI engine on the emulated stock Pico (tools/emulated_pico.py): flashed as for a game
(`make flash BOARD=pico`), then firmware.uci's main loop runs in the raw REPL over the USB
serial and answers `uci` / `isready`, perft 2 of Kiwipete (2039 nodes; perft 3 = 97862 is too
slow for the emulated chip) and a few moves of a game with `go movetime`. Skipped, with the
reason, without node or the emulator (`make emulators`). The board is the pin-level one
(host_sim/rp2040/pico_board.py), for its saved flash: UCI does not touch the pins."""
import re
import time

import chess
import pytest

from tools.emulated_pico import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
GAME_PLIES = 4
MOVETIME_MS = 700


@pytest.fixture(scope="module")
def uci_pico():
    why = unavailable()
    if why:
        pytest.skip(why)
    from host_sim.rp2040.pico_board import PicoBoard

    b = PicoBoard()
    try:
        b.flash_or_reuse()  # `make flash BOARD=pico`, or the flash it left, kept from another test module
        p = b.pico
        p.exec("import os\nos.remove('main.py')\n")  # the UCI engine only: the chess computer stays off
        p.soft_reset()  # as after flashing a board (its reset button): what the REPL's commands left
        # in its namespace would otherwise split the heap
        p.start_program("from firmware import uci\nuci.main()\n")
        yield p
    finally:
        b.stop()


def _until(pico, accept, timeout=120):
    lines = []
    deadline = time.monotonic() + timeout
    while True:
        line = pico.read_line(timeout=max(1, deadline - time.monotonic()))
        lines.append(line)
        assert "Traceback" not in line, "\n".join(lines)
        if accept(line):
            return lines


def test_uci_handshake(uci_pico):
    uci_pico.send_line("uci")
    lines = _until(uci_pico, lambda line: line == "uciok")
    assert any(line.startswith("id name Reedchess") for line in lines), lines
    uci_pico.send_line("isready")
    _until(uci_pico, lambda line: line == "readyok")


def test_perft_2_of_kiwipete(uci_pico):
    uci_pico.send_line("position fen " + KIWIPETE)
    t0 = time.monotonic()
    uci_pico.send_line("go perft 2")
    lines = _until(uci_pico, lambda line: line.startswith("Nodes searched:"), timeout=300)
    print("perft 2 on the emulated Pico: %.1f s host time" % (time.monotonic() - t0))
    assert lines[-1] == "Nodes searched: 2039"
    divide = [line for line in lines if re.match(r"^[a-h][1-8][a-h][1-8][qrbn]?: \d+$", line)]
    assert len(divide) == 48  # Kiwipete's 48 root moves
    assert sum(int(line.split(": ")[1]) for line in divide) == 2039


def test_a_short_game_with_movetime(uci_pico):
    board = chess.Board()
    uci_pico.send_line("ucinewgame")
    for _ in range(GAME_PLIES):
        moves = " ".join(m.uci() for m in board.move_stack)
        uci_pico.send_line("position startpos" + (" moves " + moves if moves else ""))
        t0 = time.monotonic()
        uci_pico.send_line("go movetime %d" % MOVETIME_MS)
        lines = _until(uci_pico, lambda line: line.startswith("bestmove"), timeout=120)
        took = time.monotonic() - t0
        best = lines[-1].split()[1]
        assert chess.Move.from_uci(best) in board.legal_moves, (board.fen(), lines)
        board.push_uci(best)
        info = [line for line in lines if line.startswith("info") and " nodes " in line]
        print("ply %d: %s in %.1f s host (%s)" % (len(board.move_stack), best, took, info[-1] if info else "book"))
    uci_pico.send_line("isready")
    _until(uci_pico, lambda line: line == "readyok")
    assert len(board.move_stack) == GAME_PLIES
