"""Raspberry Pi (any 40-pin model) running CPython with adafruit-blinka: 74HC165 chain,
16 edge LEDs, SSD1306, no buzzer.

Pin ids are Blinka `board` names (BCM numbering). GPIO 14/15 carry two buttons: disable the
serial console (raspi-config) first. Wiring and BOM: docs/wiring.md.
"""

CONFIG = {
    "name": "rpi_blinka",
    "mcu": "BCM2711/BCM2712 (Linux)",
    "sensor": {"kind": "shift165", "load": "D8", "clock": "D11", "data": "D9", "cell_map": "identity"},
    "leds": {"kind": "edge", "ranks": ["D4", "D5", "D6", "D12", "D13", "D16", "D17", "D18"],
             "files": ["D19", "D20", "D21", "D22", "D23", "D24", "D25", "D26"], "active": 1, "alternate_ms": 500},
    "buttons": {"new": "D27", "level": "D7", "takeback": "D10", "hint": "D14", "move": "D15"},
    "buzzer": None,
    "display": {"kind": "ssd1306", "i2c": 1, "sda": "D2", "scl": "D3", "addr": 0x3C, "freq_hz": 400000},
    "heap_bytes": 64 * 1024 * 1024,
    "tt_entries": 262144,
    "poll_nodes": 1024,
    "settle_us": 0,
    "debounce_ms": 10,  # reed contacts bounce for < 1 ms: 10 ms is ample and keeps a lift quick to light (docs/io.md)
    "stable_ms": 300,
    "button_debounce_ms": 20,
    "long_press_ms": 800,
    "valid_pins": ["D%d" % n for n in range(2, 28)],
}


def make_hardware():
    from boards.blinka import make_hardware as build

    return build(CONFIG)
