"""The controller's small pure parts: game record, settings, chess clocks, PGN export, the
LED cells of a move. Fast CPython unit tests; one MicroPython run of the same calls."""
import chess
import chess.pgn
import io

import pytest

from firmware.controller import ui
from firmware.controller.game import (
    RESIGNATION,
    RESULT_BLACK,
    RESULT_DRAW,
    RESULT_WHITE,
    TIMEOUT,
    Game,
    IllegalGameMoveError,
)
from firmware.features import clock
from firmware.features.clock import GameClock
from firmware.features import console
from firmware.features.options import change
from firmware.features.pgn import game_pgn
from firmware.controller.settings import BLACK, NOBODY, OPTION_NAMES, Settings, SettingsError
from firmware.engine import rules
from firmware.engine.constants import to_sq64
from firmware.engine.fen import FenError, fen
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from firmware.io.leds import BLINK_SLOW, ON
from tests.mpy import run_mpy


def play(game, *texts):
    for t in texts:
        game.push(parse_uci(game.position, t))


def test_game_push_pop_and_end_detection():
    g = Game()
    play(g, "f2f3", "e7e5", "g2g4")
    assert g.ply == 3 and g.uci_moves() == ["f2f3", "e7e5", "g2g4"]
    with pytest.raises(IllegalGameMoveError):
        g.push(parse_uci(Position(), "e2e4"))  # legal at the start, not here
    assert g.check_end() == rules.ONGOING
    play(g, "d8h4")
    assert g.check_end() == rules.CHECKMATE and g.result == RESULT_BLACK and g.over
    with pytest.raises(IllegalGameMoveError):
        g.push(g.moves()[0])
    assert g.pop() and not g.over and g.result == "*"
    assert g.pop() and g.pop() and g.pop() and g.pop() == 0


def test_game_from_fen_resign_timeout_and_claims():
    g = Game()
    g.new("7k/8/8/8/8/8/R7/K7 w - - 99 80")
    assert g.start_fen == "7k/8/8/8/8/8/R7/K7 w - - 99 80"
    play(g, "a2b2")
    assert g.claimable_draw() == rules.FIFTY_MOVES
    g.resign(8)
    assert g.result == RESULT_WHITE and g.reason == RESIGNATION and g.reason_name() == "resignation"
    g.new("7k/8/8/8/8/8/R7/K7 b - - 0 1")
    clock.time_out(g, 8)  # Black's flag: White can mate, so White wins
    assert g.result == RESULT_WHITE and g.reason == TIMEOUT
    g.new("7k/8/8/8/8/8/R7/K7 w - - 0 1")
    clock.time_out(g, 0)  # White's flag, but a lone king cannot mate: a draw
    assert g.result == RESULT_DRAW
    with pytest.raises(FenError):
        g.new("not a fen")
    assert fen(g.position) == "7k/8/8/8/8/8/R7/K7 w - - 0 1"  # unchanged by the bad FEN


def test_settings_round_trip_and_validation():
    s = Settings(level=7, computer_side=NOBODY)
    change(s, OPTION_NAMES.index("ponder"), 9, 6)  # the options menu's "change" toggles an option
    back = Settings.from_bytes(s.to_bytes())
    assert back == s and back.ponder is False and back.level == 7 and back.computer_side == NOBODY
    other = Settings()
    other.assign(back)
    assert other == s
    with pytest.raises(SettingsError):
        Settings.from_bytes(b"\x01\x02")
    with pytest.raises(SettingsError):
        Settings.from_bytes(b"\x09" + bytes(7))
    with pytest.raises(SettingsError):
        Settings.from_bytes(bytes((1, 0, 5, 0, 0, 0, 0, 0)))
    with pytest.raises(SettingsError):
        Settings(level=40).check(26)
    Settings(level=25, computer_side=BLACK).check(26)
    out = []

    class App:  # what the console's "settings" reads
        controller = type("C", (), {"settings": s})
        write = out.append

    console.handle(App, "settings")
    assert "two players" in out[0] and "ponder off" in out[0]


def test_game_clock_counts_down_adds_increments_and_flags():
    c = GameClock()
    c.reset(60000, inc_ms=2000, moves=2)
    c.run(0, 1000)
    assert c.left_ms(0, 11000) == 50000 and c.left_ms(8, 11000) == 60000
    c.run(8, 11000)
    c.moved(0)  # White's move: increment
    assert c.left_ms(0, 11000) == 52000
    c.moved(0)  # second move: a new control adds the base time
    assert c.left_ms(0, 11000) == 52000 + 2000 + 60000
    st = c.state(21000)
    assert st["btime_ms"] == 50000 and st["winc_ms"] == 2000
    assert c.flag(71000) == 8 and c.flag(70999) == -1
    assert c.text(21000) == "1:54 0:50"
    c.disable()
    assert c.state(0) is None and c.flag(10 ** 6) == -1


def test_pgn_export_reads_back_with_python_chess():
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "e1g1", "g8f6"]
    pos = Position()
    engine_moves = []
    for t in moves:
        m = parse_uci(pos, t)
        pos.make(m)
        engine_moves.append(m)
    text = game_pgn(None, engine_moves, "*", {"White": "Ann", "Event": "Test"})
    game = chess.pgn.read_game(io.StringIO(text))
    assert [m.uci() for m in game.mainline_moves()] == moves
    assert game.headers["White"] == "Ann" and game.headers["Event"] == "Test"
    assert '[White "A \\"B\\""]' in game_pgn(None, [], "*", {"White": 'A "B"'})
    start = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
    m = parse_uci(Position(start), "e7e8q")
    text = game_pgn(start, [m], "1-0")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game.headers["FEN"] == start and game.headers["Result"] == "1-0"
    assert [x.uci() for x in game.mainline_moves()] == ["e7e8q"]
    assert max(len(line) for line in game_pgn(None, engine_moves * 1, "*").splitlines()) <= 79


def test_move_cells_show_castling_rook_and_en_passant_victim():
    pos = Position("r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
    cells = dict(ui.move_cells(parse_uci(pos, "e1g1")))
    names = {chess.square_name(c): p for c, p in cells.items()}
    assert names == {"e1": ON, "g1": ON, "h1": ON, "f1": ON}
    cells = dict(ui.move_cells(parse_uci(pos, "e1c1")))
    assert {chess.square_name(c) for c in cells} == {"e1", "c1", "a1", "d1"}
    cells = dict(ui.move_cells(parse_uci(pos, "e5d6")))
    assert cells[to_sq64(0x43)] == BLINK_SLOW  # d5: the captured pawn


def test_same_calls_under_micropython():
    out = run_mpy(
        "from firmware.controller.game import Game\n"
        "from firmware.controller.settings import Settings\n"
        "from firmware.features.clock import GameClock\n"
        "from firmware.features.pgn import game_pgn\n"
        "from firmware.engine.uci_parse import parse_uci\n"
        "g = Game()\n"
        "for t in ('f2f3', 'e7e5', 'g2g4', 'd8h4'):\n"
        "    g.push(parse_uci(g.position, t))\n"
        "print(g.check_end(), g.result)\n"
        "s = Settings(level=3)\n"
        "print(Settings.from_bytes(s.to_bytes()) == s)\n"
        "c = GameClock(); c.reset(1000); c.run(0, 0); print(c.flag(1000))\n"
        "print(game_pgn(None, g.moves(), g.result).split(chr(10))[-3])\n"
    )
    assert out.split("\n")[:4] == ["1 0-1", "True", "0", "1. f3 e5 2. g4 Qh4# 0-1"]
