"""Raspberry Pi Pico 2 (RP2350): the Pico's footprint and wiring, more RAM for the engine.

The Pico 2 is pin compatible with the Pico, so the same PCB works; only the memory budget
and engine limits differ. Wiring table and bill of materials: docs/wiring.md.
"""
from boards.pico import CONFIG as _PICO

CONFIG = dict(_PICO)
CONFIG.update({
    "name": "pico2",
    "mcu": "RP2350",
    "heap_bytes": 460 * 1024,
    # 8192 entries (80 KB): the .mpy code (~200 KB on 32 bits) and the game then stay within 400 KB
    # of the RP2350's ~460 KB heap (tests/test_fit_wasm.py); 16384 would take 80 KB more.
    "tt_entries": 8192,
    # the C stack the search shares with the controller (rp2 port: 8 KB plus 4 KB extra on the RP2350)
    "stack_bytes": 12288,
    "poll_nodes": 128,
    "game_plies": 600,  # the Pico's 300 and 768 are for its smaller heap
    "move_stack": 2048,
})


def make_hardware():
    from boards.machine_factory import make_hardware as build

    return build(CONFIG)
