"""The compat shim behaves the same on both interpreters."""
from firmware import compat
from tests.mpy import run_mpy


def test_ticks_wrap_like_micropython():
    period = 1 << 30
    assert compat.ticks_diff(compat.ticks_add(period - 5, 10), period - 5) == 10
    assert compat.ticks_diff(3, period - 2) == 5
    assert compat.ticks_diff(period - 2, 3) == -5
    assert 0 <= compat.ticks_ms() < period


def test_const_is_identity_on_cpython():
    assert compat.const(42) == 42
    assert compat.IS_MICROPYTHON is False


def test_heap_lock_is_real_under_micropython():
    out = run_mpy(
        "from firmware.compat import heap_lock, heap_unlock, IS_MICROPYTHON\n"
        "heap_lock()\n"
        "try:\n"
        "    x = [1, 2, 3]\n"
        "    r = 'allocated'\n"
        "except MemoryError:\n"
        "    r = 'refused'\n"
        "heap_unlock()\n"
        "print(IS_MICROPYTHON, r)\n"
    )
    assert out.split() == ["True", "refused"]
