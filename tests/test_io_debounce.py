"""Debouncing on the modelled electronics: bounce -> one event, chatter and stuck reports."""
import pytest

from boards.pico import CONFIG as PICO
from firmware.io.debounce import EMPTY, LIFT, PLACE, DebounceConfigError, OccupancyDebouncer, event_cell, event_kind
from firmware.io.diagnostics import (STUCK_CLOSED, STUCK_OPEN, ChatterDebouncer, chatter_report, clear_faults,
                                     stuck_report)
from host_sim.electronics import build_simulated


def _run(elec, hw, deb, until_ms, step_ms=2):
    """Scan and debounce every step_ms up to until_ms; return [(cell, kind, time_ms)]."""
    raw = bytearray(8)
    events = []
    while elec.now_ms <= until_ms:
        hw.sensors.scan_into(raw)
        deb.update(raw, elec.now_ms)
        ev = deb.pop()
        while ev != EMPTY:
            events.append((event_cell(ev), event_kind(ev), deb.event_ms))
            ev = deb.pop()
        elec.advance(step_ms)
    return events


def test_bouncing_contact_gives_one_event_after_debouncing():
    elec, hw = build_simulated(PICO)
    deb = OccupancyDebouncer(debounce_ms=30)
    elec.set_time(100)
    elec.set_cell(28, True, bounces=4, bounce_ms=12)  # 8 flips within 12 ms, then closed
    events = _run(elec, hw, deb, 200)
    assert events == [(28, PLACE, 112)]  # stamped when the contact settled
    elec.set_cell(28, False, bounces=3, bounce_ms=10)
    settle = elec.now_ms + 10
    events = _run(elec, hw, deb, elec.now_ms + 100)
    assert events == [(28, LIFT, settle)]
    assert deb.stable == bytearray(8)


def test_short_glitch_shorter_than_debounce_is_ignored():
    elec, hw = build_simulated(PICO)
    deb = OccupancyDebouncer(debounce_ms=30)
    elec.set_cell(5, True)
    elec.schedule(5, 10, False)  # a 4 ms glitch open
    elec.schedule(5, 14, True)
    deb.reset(elec.occupancy(), 0)
    assert _run(elec, hw, deb, 200) == []
    assert deb.stable[0] == 1 << 5


def test_events_arrive_in_hand_order_for_a_capture():
    elec, hw = build_simulated(PICO)
    deb = OccupancyDebouncer(debounce_ms=30)
    elec.set_cell(12, True)
    elec.set_cell(28, True)
    deb.reset(elec.occupancy(), 0)
    elec.schedule(28, 50, False)  # victim lifted first
    elec.schedule(12, 80, False)  # mover lifted
    elec.schedule(28, 96, True)  # mover placed on the victim's square
    assert _run(elec, hw, deb, 300) == [(28, LIFT, 50), (12, LIFT, 80), (28, PLACE, 96)]


def test_unprimed_debouncer_reports_pieces_already_there():
    elec, hw = build_simulated(PICO)
    for c in (0, 63):
        elec.set_cell(c, True)
    deb = OccupancyDebouncer(debounce_ms=20)
    events = _run(elec, hw, deb, 60)
    assert sorted(e[:2] for e in events) == [(0, PLACE), (63, PLACE)]


def test_chattering_switch_is_flagged_once():
    elec, hw = build_simulated(PICO)
    deb = ChatterDebouncer(debounce_ms=30, chatter_flips=6, chatter_window_ms=1000)
    for k in range(10):  # a flickering switch: flips every 10 ms
        elec.schedule(44, 10 + 10 * k, k % 2 == 0)
    _run(elec, hw, deb, 400)
    assert chatter_report(deb) == [44]
    assert deb.faults_seen == 1
    clear_faults(deb)
    assert chatter_report(deb) == []


def test_slow_human_moves_are_not_chatter():
    elec, hw = build_simulated(PICO)
    deb = ChatterDebouncer(debounce_ms=30, chatter_flips=6, chatter_window_ms=1000)
    for k in range(8):  # lifted and put back every 600 ms, with a little bounce
        elec.set_time(k * 600)
        elec.set_cell(20, k % 2 == 0, bounces=1, bounce_ms=4)
        _run(elec, hw, deb, k * 600 + 590, step_ms=5)
    assert chatter_report(deb) == []


def test_stuck_switch_is_reported_at_start_up():
    elec, hw = build_simulated(PICO)
    elec.stick(9, True)  # welded reed: closed with no piece
    elec.stick(50, False)  # dead reed: open under a piece
    elec.set_cell(50, True)
    elec.set_cell(51, True)
    deb = OccupancyDebouncer(debounce_ms=20)
    _run(elec, hw, deb, 50)
    expected = bytearray(8)
    expected[6] = (1 << 2) | (1 << 3)  # pieces should stand on 50 and 51
    assert stuck_report(deb, expected) == [(9, STUCK_CLOSED), (50, STUCK_OPEN)]


def test_ring_buffer_keeps_newest_and_counts_overruns():
    deb = OccupancyDebouncer(debounce_ms=0, capacity=4)
    raw = bytearray(8)
    for c in range(6):
        raw[0] |= 1 << c
        deb.update(raw, c)
    assert deb.count == 4 and deb.overruns == 2
    got = []
    ev = deb.pop()
    while ev >= 0:
        got.append((event_cell(ev), deb.event_ms))
        ev = deb.pop()
    assert got == [(2, 2), (3, 3), (4, 4), (5, 5)]
    assert deb.pop() == EMPTY


def test_tick_wraparound():
    deb = OccupancyDebouncer(debounce_ms=30)
    raw = bytearray(8)
    t0 = (1 << 30) - 10
    deb.update(raw, t0)
    raw[7] = 0x80
    deb.update(raw, t0)
    assert deb.update(raw, (t0 + 29) & ((1 << 30) - 1)) == 0
    assert deb.update(raw, (t0 + 30) & ((1 << 30) - 1)) == 1
    assert deb.pop() == 63 | PLACE << 6


@pytest.mark.parametrize("cls,kwargs,msg", [
    (OccupancyDebouncer, dict(debounce_ms=-1), "debounce_ms"),
    (OccupancyDebouncer, dict(debounce_ms=10, capacity=0), "capacity"),
    (ChatterDebouncer, dict(debounce_ms=10, chatter_flips=1), "chatter_flips"),
    (ChatterDebouncer, dict(debounce_ms=10, chatter_window_ms=0), "chatter_window_ms"),
    (ChatterDebouncer, dict(debounce_ms=-1, chatter_flips=6), "debounce_ms"),
])
def test_bad_options(cls, kwargs, msg):
    with pytest.raises(DebounceConfigError, match=msg):
        cls(**kwargs)
