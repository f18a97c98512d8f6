"""ESP32-S3 DevKitC-1 (N8R8: 8 MB octal PSRAM): 74HC165 chain, 8x8 multiplexed LED matrix,
buzzer, no display.

GPIO 35-37 belong to the octal PSRAM and 19/20 to native USB, so they are not used.
GPIO 48 drives the buzzer; on DevKitC-1 v1.0 the on-board RGB LED shares it (it flickers
while beeping, harmlessly). Wiring and BOM: docs/wiring.md.
"""

CONFIG = {
    "name": "esp32s3",
    "mcu": "ESP32-S3",
    "sensor": {"kind": "shift165", "load": 39, "clock": 40, "data": 41, "cell_map": "identity"},
    "leds": {"kind": "matrix", "rows": [1, 2, 4, 5, 6, 7, 15, 16], "cols": [17, 18, 8, 9, 10, 11, 12, 13],
             "row_active": 1, "col_active": 0, "cell_map": "identity"},
    "buttons": {"new": 14, "level": 21, "takeback": 38, "hint": 42, "move": 47},
    "buzzer": {"pin": 48},
    "display": None,
    "status": {"kind": "pin", "pin": 3, "active": 1},  # one LED (+ resistor) to GND
    "heap_bytes": 2 * 1024 * 1024,
    "tt_entries": 65536,
    # the C stack the search shares with the controller (MICROPY_TASK_STACK_SIZE of the esp32 port)
    "stack_bytes": 16384,
    "poll_nodes": 128,
    "settle_us": 0,
    "debounce_ms": 10,  # reed contacts bounce for < 1 ms: 10 ms is ample and keeps a lift quick to light (docs/io.md)
    "stable_ms": 300,
    "button_debounce_ms": 20,
    "long_press_ms": 800,
    "valid_pins": list(range(1, 19)) + [21, 38, 39, 40, 41, 42, 47, 48],
}


def make_hardware():
    from boards.machine_factory import make_hardware as build

    return build(CONFIG)
