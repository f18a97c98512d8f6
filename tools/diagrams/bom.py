"""The bill of materials of a board, counted from its config: one row per part and job."""
import csv
import io

from firmware.io.buttons import ordered_names
from tools.diagrams.configs import check
from tools.diagrams.parts import chain_end
from tools.diagrams.pinouts import controller_for

PIECES = 32  # one magnet in each piece
HEADER = ("item", "value", "quantity", "for")


def bom_rows(config):
    """[(item, value, quantity, for)] for a config (checked first)."""
    check(config)
    rows = [("controller", controller_for(config["mcu"]), 1, "boards/%s.py" % config["name"])]
    rows.append(("reed switch", "normally open, glass ~2x14 mm", 64, "one under each square"))
    s = config["sensor"]
    pullups = config.get("external_pullups") or ()
    if s["kind"] == "matrix":
        rows.append(("diode", "1N4148", 64, "one in series with each reed switch"))
        cols = [p for p in s["cols"] if p in pullups]
        rows.append(("resistor", "10 kOhm", 8 if not cols else len(cols),
                     "column pull-ups (optional: faster settle on long wires)" if not cols else "column pull-ups"))
    elif s["kind"] == "mcp23017":
        n = len(s["addrs"])
        rows.append(("port expander", "MCP23017 (PDIP-28 or SOIC-28)", n, "%d inputs each, I2C%d at %s"
                     % (64 // n, s.get("i2c", 0), " ".join("0x%02X" % a for a in s["addrs"]))))
        rows.append(("resistor", "4.7 kOhm", 2, "I2C pull-ups, SDA and SCL"))
        rows.append(("capacitor", "100 nF", n, "one per MCP23017, VDD to VSS"))
    else:
        rows.append(("shift register", "74HC165", 8, "8 inputs each; chip 0 next to the controller"))
        rows.append(("resistor network", "10 kOhm x 8, 9 pins, common pin", 8, "input pull-ups, one per chip"))
        rows.append(("capacitor", "100 nF", 8, "one per 74HC165, VCC to GND"))
    led = config["leds"]
    st = config.get("status")
    status_pixel = st is not None and st.get("kind") == "pixel"
    if led["kind"] == "neopixel":
        rows.append(("RGB LED", "WS2812B (strip or 8x8 panel)", 65 if status_pixel else 64,
                     "64 squares + the status pixel after %s" % chain_end(config) if status_pixel else "64 squares"))
        rows.append(("resistor", "330 Ohm", 1, "WS2812 data line"))
        rows.append(("capacitor", "1000 uF, 10 V", 1, "across the 5 V supply at the first pixel"))
        rows.append(("power supply", "5 V, 2 A", 1, "the LED chain"))
    elif led["kind"] == "matrix":
        rows.append(("LED", "3 mm or 0805", 64, "one per square"))
        if led.get("col_active", 0):
            rows.append(("driver", "ULN2803", 1, "column sink"))
        else:
            rows.append(("resistor", "220 Ohm", 8, "one per LED column"))
        rows.append(("transistor", "PNP (BC557)", 8, "row high-side switch"))
        rows.append(("transistor", "NPN (BC547)", 8, "row driver stage"))
        rows.append(("resistor", "1 kOhm", 16, "row driver bases, two per row"))
    else:
        rows.append(("LED", "3 mm", 16, "one beside each rank and below each file"))
        rows.append(("resistor", "330 Ohm", 16, "one per edge LED"))
    names = ordered_names(config["buttons"])
    rows.append(("push button", "momentary, normally open", len(names), ", ".join(names)))
    button_pullups = [n for n in names if config["buttons"][n] in pullups]
    if button_pullups:
        rows.append(("resistor", "10 kOhm", len(button_pullups),
                     "pull-ups of buttons %s (pins without internal pull-up)" % ", ".join(button_pullups)))
    if config.get("buzzer") is not None:
        rows.append(("buzzer", "passive piezo", 1, "sound"))
        rows.append(("transistor", "NPN (2N3904 or BC547)", 1, "buzzer driver"))
        rows.append(("resistor", "1 kOhm", 1, "buzzer transistor base"))
    if config.get("display") is not None:
        rows.append(("display", "SSD1306 128x64 I2C OLED module", 1, "I2C address 0x%02X" % config["display"]["addr"]))
    if st is not None and st.get("kind") == "pin":
        rows.append(("LED", "3 mm", 1, "status light"))
        rows.append(("resistor", "330 Ohm", 1, "status LED"))
    rows.append(("magnet", "neodymium disc 6x3 mm, N35 or stronger", PIECES, "one glued under each piece"))
    return rows


def bom_csv(config):
    """The bill of materials as CSV text (\\n line ends)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(HEADER)
    for row in bom_rows(config):
        w.writerow(row)
    return out.getvalue()


def bom_markdown(config):
    """The bill of materials as a Markdown table."""
    lines = ["| %s |" % " | ".join(HEADER), "|---|---|--:|---|"]
    for item, value, qty, why in bom_rows(config):
        lines.append("| %s | %s | %d | %s |" % (item, value, qty, why))
    return "\n".join(lines) + "\n"
