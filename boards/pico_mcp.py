"""Raspberry Pi Pico (RP2040) with its squares on four MCP23017 I2C expanders (reed switches or
digital Hall-effect sensors), 64 NeoPixels, SSD1306, buzzer.

The expanders sit on I2C0 (GP4 SDA, GP5 SCL) at 0x20-0x23, 16 squares each (chip k: ranks
2k+1 and 2k+2, GPA0..GPA7 = files a..h of the lower rank, GPB0..GPB7 of the upper one). The
display has I2C1 (GP26, GP27) to itself, as on the `pico` board: a fault on the long bus
under the board (a loose wire, a chip holding the bus low) then leaves the display working to
say which chip and which squares, and the display's 1 KB redraws never share a bus with the
scans. Wiring table and bill of materials: docs/wiring.md; the sensors: docs/io.md.
"""

CONFIG = {
    "name": "pico_mcp",
    "mcu": "RP2040",
    # active 0: a sensor pulls its input low under a piece (reed switch to GND, open-drain Hall
    # sensor such as the DRV5032FB or AH3572); set 1 for push-pull sensors that drive high
    "sensor": {"kind": "mcp23017", "i2c": 0, "sda": 4, "scl": 5, "freq_hz": 400000,
               "addrs": [0x20, 0x21, 0x22, 0x23], "active": 0, "cell_map": "identity"},
    "leds": {"kind": "neopixel", "pin": 22, "cell_map": "serpentine", "brightness": 48},
    "buttons": {"new": 16, "level": 17, "takeback": 18, "hint": 19, "move": 20, "ok": 28},
    "buzzer": {"pin": 21},
    "display": {"kind": "ssd1306", "i2c": 1, "sda": 26, "scl": 27, "addr": 0x3C, "freq_hz": 400000},
    "status": {"kind": "pixel"},  # a 65th WS2812 on the same chain, after a8 (where the serpentine chain ends)
    "heap_bytes": 229680,  # the pico board's figure: the same stock MicroPython on the same chip
    "tt_entries": 2048,
    "game_plies": 300,
    "move_stack": 768,
    "stack_bytes": 8192,
    "poll_nodes": 64,
    "settle_us": 0,  # nothing to settle: the expanders latch their inputs on every read
    "debounce_ms": 10,
    "stable_ms": 300,
    "button_debounce_ms": 20,
    "long_press_ms": 800,
    "valid_pins": list(range(23)) + [26, 27, 28],
}


def make_hardware():
    from boards.machine_factory import make_hardware as build

    return build(CONFIG)
