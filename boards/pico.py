"""Raspberry Pi Pico (RP2040): reed matrix on GP0-15, 64 NeoPixels, SSD1306, buzzer.

Wiring table and bill of materials: docs/wiring.md.
"""

CONFIG = {
    "name": "pico",
    "mcu": "RP2040",
    "sensor": {"kind": "matrix", "rows": [0, 1, 2, 3, 4, 5, 6, 7], "cols": [8, 9, 10, 11, 12, 13, 14, 15],
               "cell_map": "identity"},
    "leds": {"kind": "neopixel", "pin": 22, "cell_map": "serpentine", "brightness": 48},
    "buttons": {"new": 16, "level": 17, "takeback": 18, "hint": 19, "move": 20, "ok": 28},
    "buzzer": {"pin": 21},
    "display": {"kind": "ssd1306", "i2c": 1, "sda": 26, "scl": 27, "addr": 0x3C, "freq_hz": 400000},
    "status": {"kind": "pixel"},  # a 65th WS2812 on the same chain, after a8 (where the serpentine chain ends)
    "heap_bytes": 229680,  # gc.mem_free() after boot on a stock 1.29 preview (1.28.0 leaves ~12 KB more)
    "tt_entries": 2048,
    "game_plies": 300,  # 150 moves each, as the ESP32 (16 bytes a ply: 4.8 KB less than the default 600)
    "move_stack": 768,  # the least allowed: searches like 2048 at the top level (tests/test_memory_config.py)
    # the C stack the search shares with the controller (PICO_STACK_SIZE=0x2000 in MicroPython's rp2 port)
    "stack_bytes": 8192,
    # a collection every 8 KB allocated while it boots, not every 2 KB: the same free heap and
    # largest block after boot, a quarter of the boot's collections (docs/memory.md)
    "boot_gc_threshold": 8192,
    "poll_nodes": 64,
    "settle_us": 10,
    "debounce_ms": 10,  # reed contacts bounce for < 1 ms: 10 ms is ample and keeps a lift quick to light (docs/io.md)
    "stable_ms": 300,
    "button_debounce_ms": 20,
    "long_press_ms": 800,
    "valid_pins": list(range(23)) + [26, 27, 28],
}


def make_hardware():
    from boards.machine_factory import make_hardware as build

    return build(CONFIG)
