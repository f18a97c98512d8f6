"""Raspberry Pi Pico W (RP2040 + CYW43439 Wi-Fi): the Pico's wiring, and the board's own
Lichess client over Wi-Fi (firmware/features/online_net.py, docs/online.md).

The Pico W is pin compatible with the Pico (GP23-25 and GP29 belong to the Wi-Fi chip, as its
LED does; the Pico's wiring leaves them free), so the same PCB works. Its MicroPython carries
the network stack, which takes ~40 KB of the heap: the transposition table is sized so that the
online client (~15 KB with its buffers) and three TLS sessions (~22 KB each with mbedtls's buffers,
when a game starts while the event stream is still open) keep their room and 30 KB more.
Wiring: docs/wiring.md.
"""
from boards.pico import CONFIG as _PICO

CONFIG = dict(_PICO)
CONFIG.update({
    "name": "pico_w",
    "heap_bytes": 165248,  # gc.mem_free() at the REPL of the Reedchess image for RPI_PICO_W (emulated)
    # stock MicroPython with .mpy files (`make flash`): the Pico's 2048 entries (20 KB)
    "tt_entries": 2048,
    # the image (`make image BOARD=pico_w`, the firmware frozen into flash): also 2048 entries; 4096
    # would leave 12 KB beside the client and three TLS sessions (docs/flashing.md, tests/test_image_pico_w.py)
    "image_tt_entries": 2048,
})


def make_hardware():
    from boards.machine_factory import make_hardware as build

    return build(CONFIG)
