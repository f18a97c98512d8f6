"""Raspberry Pi Pico 2 W (RP2350 + CYW43439 Wi-Fi): the Pico 2's memory, the Pico's wiring,
and the board's own Lichess client over Wi-Fi (firmware/features/online_net.py, docs/online.md).

Pin compatible with the Pico (GP23-25 and GP29 belong to the Wi-Fi chip); the network stack
takes ~40 KB of the RP2350's ~460 KB heap, the online client ~55 KB while it plays (its buffers
and two TLS sessions): the transposition table leaves both their room. Wiring: docs/wiring.md.
"""
from boards.pico2 import CONFIG as _PICO2

CONFIG = dict(_PICO2)
CONFIG.update({
    "name": "pico2_w",
    "heap_bytes": 420 * 1024,  # the Pico 2's ~460 KB less the network stack (estimated: rp2040js runs no RP2350)
    # stock MicroPython with .mpy files (`make flash`): the code takes ~200 KB of the heap
    "tt_entries": 8192,
    # the image (`make image BOARD=pico2_w`): the code in flash, 16384 entries (160 KB)
    "image_tt_entries": 16384,
})


def make_hardware():
    from boards.machine_factory import make_hardware as build

    return build(CONFIG)
