"""The Markdown the docs carry per board (pin tables, bills of materials) and the generated
blocks of docs/*.md that hold them, between `<!-- generated: NAME -->` and
`<!-- end generated: NAME -->` lines."""
from firmware.io.buttons import ordered_names
from tools.diagrams.bom import bom_markdown
from boards.config import pin_roles
from tools.diagrams.configs import board_names, check, load
from tools.diagrams.parts import chain_end
from tools.diagrams.pinouts import header_pin
from tools.diagrams.wiring import function_text


def wiring_table(config):
    """The pin table of a board, as docs/wiring.md shows it."""
    c = config
    pre = "GP" if c["mcu"].startswith("RP") else ("GPIO" if "ESP" in c["mcu"] else "")

    def f(p):
        return pre + str(p)

    rows = ["#### %s" % c["name"], "", "| function | pin(s) |", "|---|---|"]
    s = c["sensor"]
    if s["kind"] == "matrix":
        rows.append("| reed matrix rows 0-7 (driven, active low) | %s |" % ", ".join(f(p) for p in s["rows"]))
        rows.append("| reed matrix columns 0-7 (inputs, pull-up) | %s |" % ", ".join(f(p) for p in s["cols"]))
    elif s["kind"] == "mcp23017":
        addrs = " ".join("0x%02X" % a for a in s["addrs"])
        shared = " and the display" if c["display"] and c["display"].get("i2c", 0) == s.get("i2c", 0) else ""
        rows.append("| MCP23017 SDA / SCL (I2C%d, %s%s; 4.7k pull-ups) | %s / %s |"
                    % (s.get("i2c", 0), addrs, shared, f(s["sda"]), f(s["scl"])))
    else:
        rows.append("| 74HC165 SH/LD (load) | %s |" % f(s["load"]))
        rows.append("| 74HC165 CLK | %s |" % f(s["clock"]))
        rows.append("| 74HC165 QH of chip 0 (data) | %s |" % f(s["data"]))
    led = c["leds"]
    if led["kind"] == "neopixel":
        rows.append("| WS2812 data in (via 330 ohm) | %s |" % f(led["pin"]))
    elif led["kind"] == "matrix":
        rows.append("| LED rows 0-7 (high-side, active high) | %s |" % ", ".join(f(p) for p in led["rows"]))
        rows.append("| LED columns 0-7 (sink, active low) | %s |" % ", ".join(f(p) for p in led["cols"]))
    else:
        rows.append("| rank LEDs 1-8 | %s |" % ", ".join(f(p) for p in led["ranks"]))
        rows.append("| file LEDs a-h | %s |" % ", ".join(f(p) for p in led["files"]))
    for n in ordered_names(c["buttons"]):
        p = c["buttons"][n]
        ext = " (external 10k pull-up)" if p in (c.get("external_pullups") or ()) else ""
        rows.append("| button %s | %s%s |" % (n, f(p), ext))
    if c["buzzer"]:
        rows.append("| piezo buzzer (via transistor) | %s |" % f(c["buzzer"]["pin"]))
    if c["display"]:
        d = c["display"]
        rows.append("| SSD1306 SDA / SCL (I2C%d, 0x%02X) | %s / %s |" % (d["i2c"], d["addr"], f(d["sda"]), f(d["scl"])))
    st = c.get("status")
    if st is not None and st["kind"] == "pixel":
        rows.append("| status light: WS2812 #64, after %s (the chain's end) | %s (the LED chain) |"
                    % (chain_end(c), f(led["pin"])))
    elif st is not None:
        to = "GND, active high" if st.get("active", 1) else "3V3, active low"
        rows.append("| status LED (via 330 ohm to %s) | %s |" % (to, f(st["pin"])))
    return "\n".join(rows) + "\n"


def board_section(name):
    """One board's part of docs/wiring.md: pin table, drawings, bill of materials."""
    config = load(name)
    return "%s\n![wiring of the %s board](img/wiring-%s.svg)\n\n![the %s board from above](img/board-%s.svg)\n\n" \
        "Bill of materials ([CSV](img/bom-%s.csv)):\n\n%s" % (
            wiring_table(config), name, name, name, name, name, bom_markdown(config))


def board_sections():
    return "\n".join(board_section(name) for name in board_names())


def header_table(config):
    """Every used pin of a board in header order: physical pin, GPIO, what it is wired to."""
    pinout = check(config)
    used = {}
    for pin, role, _d in pin_roles(config):
        header, _side, number, label = header_pin(pinout, pin)
        used[header, number] = (label, function_text(config, role))
    lines = ["| header pin | GPIO | wired to |", "|--:|---|---|"]
    for header, _side, pins in pinout["headers"]:
        for number, _label in pins:
            if (header, number) in used:
                label, what = used[header, number]
                lines.append("| %s | %s | %s |" % (number, label, what))
    st = config.get("status")
    if st is not None and st.get("kind") == "pixel":
        lines.append("\nThe status pixel has no pin of its own: it is WS2812 #64, after %s at the end of the "
                     "LED chain." % chain_end(config))
    return "\n".join(lines) + "\n"


def pico_pins():
    return header_table(load("pico"))


def pico_bom():
    return bom_markdown(load("pico")) + "\nThe same list as CSV: [img/bom-pico.csv](img/bom-pico.csv).\n"


# file (under docs/) -> [(block name, function returning its text)]
BLOCKS = {
    "wiring.md": [("boards", board_sections)],
    "build-guide.md": [("pico bill of materials", pico_bom), ("pico pins", pico_pins)],
}


class BlockError(ValueError):
    """A generated block's markers are missing or out of order."""


def replace_block(text, name, body, where="the document"):
    """`text` with the block `name` holding `body` (markers kept)."""
    begin = "<!-- generated: %s (make diagrams) -->\n" % name
    end = "<!-- end generated: %s -->" % name
    i = text.find(begin)
    j = text.find(end)
    if i < 0 or j < i:
        raise BlockError("%s has no block %r: put the lines %r and %r where it goes"
                         % (where, name, begin.strip(), end))
    return text[:i + len(begin)] + "\n" + body + "\n" + text[j:]


def updated_doc(path, file_name):
    """The text docs/<file_name> must have (read from `path`)."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    for name, make in BLOCKS[file_name]:
        text = replace_block(text, name, make(), file_name)
    return text
