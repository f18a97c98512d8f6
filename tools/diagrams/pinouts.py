"""The real pin-outs of the controller boards the configs name: every header pin, top to bottom.

A pin-out is a dict: `board` (what to buy), `headers` (a list of (header name, side, pins),
each pin a (physical number, label) pair in the order the header runs), `gpio(pin)` (the
config's pin id -> the header label, e.g. 0 -> "GP0", "D17" -> "GPIO17") and `note`.
The first config whose `mcu` matches a pattern in PINOUTS gets that pin-out.
"""


def _rp2_pin(pin):
    return "GP%d" % pin if isinstance(pin, int) and not isinstance(pin, bool) else None


def _esp_pin(pin):
    return "GPIO%d" % pin if isinstance(pin, int) and not isinstance(pin, bool) else None


def _blinka_pin(pin):
    if isinstance(pin, str) and pin[:1] == "D" and pin[1:].isdigit():
        return "GPIO%d" % int(pin[1:])
    return None


# Raspberry Pi Pico, Pico W, Pico 2, Pico 2 W (the same 40 pins, USB at the top)
PICO = {
    "board": "Raspberry Pi Pico / Pico 2 (40 pins, USB at the top)",
    "headers": [
        ("pins 1-20", "left", [
            (1, "GP0"), (2, "GP1"), (3, "GND"), (4, "GP2"), (5, "GP3"), (6, "GP4"), (7, "GP5"),
            (8, "GND"), (9, "GP6"), (10, "GP7"), (11, "GP8"), (12, "GP9"), (13, "GND"), (14, "GP10"),
            (15, "GP11"), (16, "GP12"), (17, "GP13"), (18, "GND"), (19, "GP14"), (20, "GP15")]),
        ("pins 40-21", "right", [
            (40, "VBUS"), (39, "VSYS"), (38, "GND"), (37, "3V3_EN"), (36, "3V3(OUT)"), (35, "ADC_VREF"),
            (34, "GP28"), (33, "AGND"), (32, "GP27"), (31, "GP26"), (30, "RUN"), (29, "GP22"), (28, "GND"),
            (27, "GP21"), (26, "GP20"), (25, "GP19"), (24, "GP18"), (23, "GND"), (22, "GP17"), (21, "GP16")]),
    ],
    "gpio": _rp2_pin,
    "power": {"3V3": "3V3(OUT)", "5V": "VBUS", "GND": "GND"},
}

# ESP32-DevKitC V4 (ESP32-WROOM-32), antenna at the top
ESP32_DEVKITC = {
    "board": "ESP32-DevKitC V4 (headers J2 and J3, antenna at the top)",
    "headers": [
        ("J2", "left", [
            (1, "3V3"), (2, "EN"), (3, "GPIO36"), (4, "GPIO39"), (5, "GPIO34"), (6, "GPIO35"), (7, "GPIO32"),
            (8, "GPIO33"), (9, "GPIO25"), (10, "GPIO26"), (11, "GPIO27"), (12, "GPIO14"), (13, "GPIO12"),
            (14, "GND"), (15, "GPIO13"), (16, "GPIO9"), (17, "GPIO10"), (18, "GPIO11"), (19, "5V")]),
        ("J3", "right", [
            (1, "GND"), (2, "GPIO23"), (3, "GPIO22"), (4, "GPIO1"), (5, "GPIO3"), (6, "GPIO21"), (7, "GND"),
            (8, "GPIO19"), (9, "GPIO18"), (10, "GPIO5"), (11, "GPIO17"), (12, "GPIO16"), (13, "GPIO4"),
            (14, "GPIO0"), (15, "GPIO2"), (16, "GPIO15"), (17, "GPIO8"), (18, "GPIO7"), (19, "GPIO6")]),
    ],
    "gpio": _esp_pin,
    "power": {"3V3": "3V3", "5V": "5V", "GND": "GND"},
}

# ESP32-S3-DevKitC-1 (v1.0 / v1.1), USB ports at the bottom
ESP32S3_DEVKITC1 = {
    "board": "ESP32-S3-DevKitC-1 (headers J1 and J3, USB at the bottom)",
    "headers": [
        ("J1", "left", [
            (1, "3V3"), (2, "3V3"), (3, "RST"), (4, "GPIO4"), (5, "GPIO5"), (6, "GPIO6"), (7, "GPIO7"),
            (8, "GPIO15"), (9, "GPIO16"), (10, "GPIO17"), (11, "GPIO18"), (12, "GPIO8"), (13, "GPIO3"),
            (14, "GPIO46"), (15, "GPIO9"), (16, "GPIO10"), (17, "GPIO11"), (18, "GPIO12"), (19, "GPIO13"),
            (20, "GPIO14"), (21, "5V"), (22, "GND")]),
        ("J3", "right", [
            (1, "GND"), (2, "GPIO43"), (3, "GPIO44"), (4, "GPIO1"), (5, "GPIO2"), (6, "GPIO42"), (7, "GPIO41"),
            (8, "GPIO40"), (9, "GPIO39"), (10, "GPIO38"), (11, "GPIO37"), (12, "GPIO36"), (13, "GPIO35"),
            (14, "GPIO0"), (15, "GPIO45"), (16, "GPIO48"), (17, "GPIO47"), (18, "GPIO21"), (19, "GPIO20"),
            (20, "GPIO19"), (21, "GND"), (22, "GND")]),
    ],
    "gpio": _esp_pin,
    "power": {"3V3": "3V3", "5V": "5V", "GND": "GND"},
}

# Raspberry Pi 40-pin header (models 2 to 5): odd pins in one row, even pins in the other
RPI_HEADER = {
    "board": "Raspberry Pi 40-pin header (pin 1 at the top left, odd pins left, even pins right)",
    "headers": [
        ("odd pins", "left", [
            (1, "3V3"), (3, "GPIO2"), (5, "GPIO3"), (7, "GPIO4"), (9, "GND"), (11, "GPIO17"), (13, "GPIO27"),
            (15, "GPIO22"), (17, "3V3"), (19, "GPIO10"), (21, "GPIO9"), (23, "GPIO11"), (25, "GND"),
            (27, "GPIO0"), (29, "GPIO5"), (31, "GPIO6"), (33, "GPIO13"), (35, "GPIO19"), (37, "GPIO26"),
            (39, "GND")]),
        ("even pins", "right", [
            (2, "5V"), (4, "5V"), (6, "GND"), (8, "GPIO14"), (10, "GPIO15"), (12, "GPIO18"), (14, "GND"),
            (16, "GPIO23"), (18, "GPIO24"), (20, "GND"), (22, "GPIO25"), (24, "GPIO8"), (26, "GPIO7"),
            (28, "GPIO1"), (30, "GND"), (32, "GPIO12"), (34, "GND"), (36, "GPIO16"), (38, "GPIO20"),
            (40, "GPIO21")]),
    ],
    "gpio": _blinka_pin,
    "power": {"3V3": "3V3", "5V": "5V", "GND": "GND"},
}

# (how the config's mcu starts, the board to buy, pin-out); the first match wins
PINOUTS = (
    ("RP2040", "Raspberry Pi Pico or Pico W (RP2040)", PICO),
    ("RP2350", "Raspberry Pi Pico 2 or Pico 2 W (RP2350)", PICO),
    ("ESP32-S3", "ESP32-S3-DevKitC-1 N8R8", ESP32S3_DEVKITC1),
    ("ESP32", "ESP32-DevKitC V4 (ESP32-WROOM-32)", ESP32_DEVKITC),
    ("BCM", "Raspberry Pi 3, 4 or 5 (40-pin header)", RPI_HEADER),
)


def pinout_for(mcu):
    """The pin-out for a config's `mcu` string, or None when none is known."""
    found = _match(mcu)
    return None if found is None else found[2]


def controller_for(mcu):
    """The controller board to buy for a config's `mcu` string, or None."""
    found = _match(mcu)
    return None if found is None else found[1]


def _match(mcu):
    if not isinstance(mcu, str):
        return None
    for entry in PINOUTS:
        if mcu.startswith(entry[0]):
            return entry
    return None


def header_pin(pinout, pin):
    """(header name, side, physical number, label) of a config pin id, or None if the board has no such pin."""
    label = pinout["gpio"](pin)
    if label is None:
        return None
    for name, side, pins in pinout["headers"]:
        for number, text in pins:
            if text == label:
                return name, side, number, label
    return None
