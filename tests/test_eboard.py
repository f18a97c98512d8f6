"""The e-board mode (firmware/features/eboard*.py, docs/eboard.md): every command of both
protocols as a host sends it, what is reported while pieces are in the hand or the board
makes no sense, bad input, the settings and the options menu, and leaving the mode.

The hosts (tests/eboard_hosts.py) are written from the public protocol descriptions and
share no code with the firmware's codecs; the rig (tests/eboard_rig.py) is the real App on
the simulated pico board.
"""
import random
import sys

import chess
import pytest

from firmware.controller import ui as _ui
from firmware.controller.settings import Settings, SettingsError
from firmware.controller.ui import compose_leds, compose_text
from firmware.features import options
from tests.eboard_hosts import ChessLinkHost, DgtHost, corner_leds
from tests.eboard_rig import Rig

START = chess.STARTING_BOARD_FEN


def ask(rig, data, ms=30):
    rig.host.host_write(data)
    rig.run(ms)
    return rig.host.host_read()


def lit_cells(rig):
    lit = rig.app.controller.eboard.lit_on
    return sorted(chess.square_name(c) for c in range(64) if lit[c >> 3] & (1 << (c & 7)))


# ---- DGT --------------------------------------------------------------------------------------
@pytest.fixture
def dgt():
    return Rig(1), DgtHost()


def test_dgt_board_dump_before_and_after_e4(dgt):
    rig, host = dgt
    host.feed(ask(rig, b"\x42"))
    assert host.take(0x86) and host.placement() == START
    rig.play("e2e4")
    host.feed(ask(rig, b"\x42"))
    [dump] = host.take(0x86)
    assert len(dump) == 64 and host.placement() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"


def test_dgt_update_mode_sends_each_lift_and_place_at_once(dgt):
    rig, host = dgt
    ask(rig, b"\x44")
    rig.lift("e2")
    host.feed(rig.host.host_read())
    assert host.take(0x8E) == [bytes((52, 0))]  # e2 (field 52) empty, before any move is known
    assert rig.app.controller.game.ply == 0
    rig.place("e4")
    host.feed(rig.host.host_read())
    assert host.take(0x8E) == [bytes((36, 1))]  # a white pawn on e4 (field 36)
    rig.run(600)
    assert rig.app.controller.game.uci_moves() == ["e2e4"]
    host.feed(ask(rig, b"\x40"))  # reset: idle, no more updates
    rig.play("e7e5")
    host.feed(rig.host.host_read())
    assert host.take(0x8E) == []


@pytest.mark.parametrize("mode", [0x43, 0x4B])
def test_dgt_other_update_modes_send_field_updates_too(dgt, mode):
    rig, host = dgt
    ask(rig, bytes((mode,)))
    rig.play("g1f3")
    host.feed(rig.host.host_read())
    assert host.take(0x8E) == [bytes((62, 0)), bytes((45, 3))]  # g1 empty, a white knight on f3


def test_dgt_identity_and_harmless_answers(dgt):
    rig, host = dgt
    host.feed(ask(rig, bytes((0x4D, 0x45, 0x55, 0x47, 0x46, 0x41, 0x4C, 0x49, 0x50, 0x52))))
    got = dict(host.messages)
    assert len(got[0x93]) == 2  # version: major, minor
    assert len(got[0x91]) == 5 and got[0x91].isdigit()
    assert len(got[0xA2]) == 10 and got[0xA2].isdigit()
    assert got[0x92].decode("ascii")
    assert len(got[0x90]) == 2
    assert len(got[0x8D]) == 7 and got[0x8D][6] & 0x20  # no clock connected
    assert got[0xA0][0] == 100
    assert got[0x8F][-1] == 0x6B  # EE_EOF: nothing stored
    assert got[0x94] == bytes(50) and got[0x95] == bytes(50)
    for payload in got.values():
        assert all(b < 0x80 for b in payload)


def test_dgt_clock_messages_are_read_whole_and_ignored(dgt):
    rig, host = dgt
    # a clock display message whose content bytes look like commands (0x42 is "board dump")
    host.feed(ask(rig, bytes((0x2B, 0x0B, 0x03, 0x01, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x00, 0x01, 0x00))))
    assert host.messages == []
    host.feed(ask(rig, b"\x42"))
    assert [i for i, _ in host.messages] == [0x86]


def test_dgt_revelation_leds_light_the_fields_named(dgt):
    rig, host = dgt
    ask(rig, bytes((0x60, 4, 1, 52, 36, 0)))  # e2, e4 as a move's from and to
    assert lit_cells(rig) == ["e2", "e4"]
    assert set(compose_leds(rig.app.controller)) == {chess.E2, chess.E4}
    ask(rig, bytes((0x60, 4, 0, 0, 63, 0)))  # off
    assert lit_cells(rig) == []
    # one square at a time, start = end, without the closing 0x00 some hosts leave out
    host.feed(ask(rig, bytes((0x60, 4, 1, 62, 62, 0x60, 4, 1, 45, 45, 0x4D))))
    assert lit_cells(rig) == ["f3", "g1"]
    assert [i for i, _ in host.messages] == [0x93]  # the version request after them was answered
    ask(rig, bytes((0x60, 2, 0, 0, 0)))
    assert lit_cells(rig) == []


def test_dgt_half_command_times_out(dgt):
    rig, host = dgt
    host.feed(ask(rig, bytes((0x60, 4, 1)), ms=700))  # the host went away mid-command
    host.feed(ask(rig, b"\x4d"))
    assert [i for i, _ in host.messages] == [0x93]


# ---- Millennium ChessLink -------------------------------------------------------------------
@pytest.fixture
def mil():
    return Rig(2), ChessLinkHost()


def test_millennium_version_status_and_status_after_e4(mil):
    rig, host = mil
    host.feed(ask(rig, host.encode("V") + host.encode("S")))
    v, s = host.messages
    assert v[0] == "v" and len(v) == 5
    assert host.placement(s) == START
    rig.play("e2e4")
    host.take("s")  # reports on change (the default)
    host.feed(ask(rig, host.encode("S")))
    assert host.placement(host.take("s")[-1]) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
    assert host.bad == 0


def test_millennium_leds_show_a_moves_two_squares(mil):
    rig, host = mil
    host.feed(ask(rig, host.encode("L32" + corner_leds(("e2", "e4")))))
    assert host.take("l") == ["l"]
    assert lit_cells(rig) == ["e2", "e4"]  # e3's corners are all lit too, but belong to them
    host.feed(ask(rig, host.encode("L32" + corner_leds(("g1", "f3"), "F0"))))
    assert lit_cells(rig) == ["f3", "g1"]
    blink = rig.app.controller.eboard.lit_blink
    assert blink[chess.F3 >> 3] & (1 << (chess.F3 & 7))  # F0 is a blinking pattern
    host.feed(ask(rig, host.encode("X")))
    assert host.take("x") == ["x"] and lit_cells(rig) == []
    host.feed(ask(rig, host.encode("L32" + corner_leds(("d4", "e4")))))
    assert lit_cells(rig) == ["d4", "e4"]  # neighbours: each has corners of its own
    host.feed(ask(rig, host.encode("L32" + corner_leds(("d4", "e4", "f4")))))
    assert lit_cells(rig) == ["d4", "f4"]  # e4's corners are all theirs: the two-square reading wins
    host.messages = []
    host.feed(ask(rig, host.encode("T")))
    assert host.messages == [] and lit_cells(rig) == []  # reset: no answer, LEDs off


def test_millennium_option_bytes_written_and_read(mil):
    rig, host = mil
    host.feed(ask(rig, host.encode("W4A7E") + host.encode("R4A") + host.encode("R01")))
    assert host.messages == ["w4A7E", "r4A7E", "r0114"]  # 0x14: the default scan time, 20
    host.messages = []
    host.feed(ask(rig, host.encode("I00")))
    assert host.take("i") == ["i00"]


def test_millennium_automatic_reports_follow_the_option(mil):
    rig, host = mil
    host.feed(ask(rig, host.encode("W0201")))  # off
    rig.play("e2e4")
    host.feed(rig.host.host_read())
    host.take("w")
    assert host.take("s") == []
    host.feed(ask(rig, host.encode("W0203")))  # on every change
    rig.lift("e7")
    host.feed(rig.host.host_read())
    [report] = host.take("s")
    assert report[1 + 12] == "."  # e7 (a8 first: index 12) empty while the pawn is in the hand
    rig.place("e5")
    host.feed(rig.host.host_read())
    assert host.placement(host.take("s")[-1]) == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"


def test_millennium_parity_in_bit_7(mil):
    rig, host = mil
    data = ask(rig, host.encode("V", parity=True))
    assert data and all(bin(b).count("1") % 2 == 1 for b in data)  # answered with odd parity
    host.feed(data)
    assert host.take("v")
    bad = bytearray(host.encode("V", parity=True))
    bad[1] ^= 0x80  # one character with a wrong parity bit
    assert ask(rig, bytes(bad)) == b""


def test_millennium_wrong_checksum_or_junk_is_ignored(mil):
    rig, host = mil
    assert ask(rig, b"V00") == b""  # the check of "V" is 56
    assert ask(rig, b"S" + b"5A") == b""
    host.feed(ask(rig, b"L12" + host.encode("V")))  # a message cut short, then a good one
    assert host.messages == ["v0100"]
    host.feed(ask(rig, b"R0", ms=700) + ask(rig, host.encode("V")))  # half a message, a pause
    assert host.messages == ["v0100", "v0100"]


def test_millennium_check_digits_can_be_turned_off(mil):
    rig, host = mil
    ask(rig, host.encode("W0001"))
    assert ask(rig, b"V") == b"v0100"
    assert ask(rig, b"V56") == b"v0100"  # the check digits are not part of it: junk after it
    host.feed(ask(rig, b"W0000"))  # the answer has its check again
    host.feed(ask(rig, host.encode("V")))
    assert host.messages == ["w0000", "v0100"] and host.bad == 0


@pytest.mark.parametrize("kind", [1, 2])
def test_random_bytes_never_cost_the_game(kind):
    rig = Rig(kind)
    rig.play("e2e4")
    rig.play("e7e5")
    rnd = random.Random(kind)
    for _ in range(8):
        ask(rig, bytes(rnd.randrange(256) for _ in range(600)), ms=10)
    rig.run(700)  # a half message times out
    rig.host.host_read()
    assert rig.app.controller.game.uci_moves() == ["e2e4", "e7e5"]
    after = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
    if kind == 1:
        ask(rig, b"\x40")  # leave any update mode the junk set
        host = DgtHost()
        host.feed(ask(rig, b"\x42"))
        assert host.take(0x86) and host.placement() == after
    else:
        host = ChessLinkHost()
        ask(rig, host.encode("W0000") + host.encode("W0201"))  # whatever the junk wrote
        host.feed(ask(rig, host.encode("S")))
        assert host.placement(host.take("s")[-1]) == after
    rig.play("g1f3")
    assert rig.app.controller.game.uci_moves() == ["e2e4", "e7e5", "g1f3"]


# ---- what is reported ------------------------------------------------------------------------
def dump(rig):
    host = DgtHost()
    host.feed(ask(rig, b"\x42", ms=4))
    return host.placement()


def test_a_capture_in_either_order_reports_the_mover_on_the_square():
    rig = Rig(1)
    rig.play("e2e4")
    rig.play("d7d5")
    rig.lift("e4")  # the mover first
    rig.lift("d5")
    rig.place("d5")  # one of the two pieces in the hand: the side to move's
    assert dump(rig) == "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR"


def test_a_piece_that_makes_no_sense_is_reported_where_it_stands_and_the_display_says_so():
    rig = Rig(1)
    rig.play("e2e4")
    rig.play("e7e5")
    rig.lift("d1")
    rig.place("d6")  # a queen where no legal move puts her
    rig.run(4000)
    assert dump(rig) == "rnbqkbnr/pppp1ppp/3Q4/4p3/4P3/8/PPPP1PPP/RNB1KBNR"
    c = rig.app.controller
    assert compose_text(c)[0] == "Set up the board"
    rig.lift("d6")
    rig.place("d1")
    rig.run(1000)
    assert dump(rig) == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
    assert compose_text(c)[0] == "White to move"
    rig.play("g1f3")
    assert c.game.uci_moves() == ["e2e4", "e7e5", "g1f3"]


def test_an_unknown_piece_is_reported_empty_and_the_start_position_starts_a_new_game():
    rig = Rig(1)
    rig.play("e2e4")
    rig.play("d7d5")
    rig.play("e4d5")  # the black pawn goes to the box
    rig.place("h5", "p")  # a piece no one lifted: nobody can name it
    rig.run(100)
    assert dump(rig) == "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR"
    rig.lift("h5")
    rig.lift("d5")
    rig.place("e2")
    rig.place("d7", "p")
    rig.run(1500)
    assert dump(rig) == START
    assert rig.app.controller.game.ply == 0  # the start position set up again: a new game


def test_promotion_is_reported_as_the_piece_chosen():
    rig = Rig(1, tt_entries=256)
    c = rig.app.controller
    for m in ("e2e4", "d7d5", "e4d5", "c7c6", "d5c6", "g8f6", "c6b7", "e7e6"):
        rig.play(m)
    rig.play("b7a8n")  # the hand puts a knight down; the buttons choose it
    assert c.phase == _ui.PROMOTE
    assert dump(rig).startswith("Q")  # a queen until told otherwise
    for _ in range(3):  # queen -> rook -> bishop -> knight
        rig.press("level")
    rig.press("move")
    rig.run(100)
    assert c.game.uci_moves()[-1] == "b7a8n"
    assert dump(rig).startswith("N")


def test_the_engine_does_not_move_and_the_move_button_is_refused():
    rig = Rig(2)  # the settings say the computer plays Black
    rig.play("e2e4")
    rig.run(3000)
    c = rig.app.controller
    assert c.game.uci_moves() == ["e2e4"] and c.phase == _ui.PLAYER and rig.app.searches == 0
    rig.press("move")
    rig.run(2000)
    assert c.phase == _ui.PLAYER and rig.app.searches == 0


# ---- settings, menu, leaving ------------------------------------------------------------------
def test_settings_keep_the_mode():
    s = Settings()
    assert s.eboard == 0 and s.to_bytes()[7] == 0
    s.eboard = 2
    assert Settings.from_bytes(s.to_bytes()).eboard == 2
    with pytest.raises(SettingsError):
        Settings.from_bytes(s.to_bytes()[:7] + b"\x03")
    s.eboard = 5
    with pytest.raises(SettingsError):
        s.check(20)


def test_options_menu_item_cycles_the_mode():
    s = Settings()
    seen = []
    for _ in range(3):
        options.change(s, options.ITEM_EBOARD, 1, 1)
        seen.append(s.eboard)
    assert seen == [1, 2, 0]
    assert options.item_cell(options.ITEM_EBOARD) == chess.C8
    assert options.ITEM_LABELS[options.ITEM_EBOARD] == "E-board"


class ConsoleLink:
    """A link that is the console's serial line (as the board's USB serial is)."""
    console = True

    def __init__(self):
        self.claimed = None

    def read_into(self, buf):
        return 0

    def write(self, data):
        pass

    def claim(self):
        self.claimed = True

    def release(self):
        self.claimed = False


MODE_MODULES = ("firmware.features.eboard", "firmware.features.eboard_dgt", "firmware.features.eboard_millennium",
                "firmware.features.eboard_usb")


def test_the_mode_silences_the_console_and_leaving_it_by_the_menu_gives_it_back():
    from firmware import loader

    held_before = {name: loader._state.get(name, 0) >> 1 for name in MODE_MODULES}  # users
    rig = Rig(0)
    link = ConsoleLink()
    rig.app.link = link
    write = rig.app.write
    c = rig.app.controller
    assert c.eboard is None
    c.menu = _ui.MENU_OPTIONS  # the menu open on the E-board item, changed to DGT, closed
    c.menu_index = options.ITEM_EBOARD
    c.menu_deadline = rig.t + 6000
    rig.press("hint")
    rig.press("ok" if "ok" in rig.app.button_names else "move")
    rig.run(50)
    assert c.eboard is not None and c.eboard.kind == 1 and c.settings.eboard == 1
    assert link.claimed and rig.app.write is not write
    assert "firmware.features.eboard_dgt" in sys.modules
    c.menu = _ui.MENU_OPTIONS
    c.menu_index = options.ITEM_EBOARD
    c.menu_deadline = rig.t + 6000
    rig.press("hint")
    rig.press("hint")  # -> Millennium -> off
    rig.press("ok" if "ok" in rig.app.button_names else "move")
    rig.run(50)
    assert c.eboard is None and c.settings.eboard == 0
    assert link.claimed is False and rig.app.write is write
    # the mode's modules are borrowed no more than before it began (the other tests' boards,
    # still in e-board mode, hold theirs)
    assert {name: loader._state.get(name, 0) >> 1 for name in MODE_MODULES} == held_before


def test_a_board_switched_on_in_the_mode_is_in_it_at_once():
    rig = Rig(2)
    rig.run(2)  # the first pass of the main loop
    assert rig.app.controller.eboard is not None and rig.host.claimed
    host = ChessLinkHost()
    host.feed(ask(rig, host.encode("V"), ms=4))
    assert host.take("v")
