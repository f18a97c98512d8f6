"""The board seen from above (White at the bottom): every square with its name, its cell, its
LED and its switch, the LED chain from its start through its turns to the status pixel.

Everything comes from the config through firmware.io.cellmap: `cell = cell_map[physical]`,
so `invert(cell_map)[cell]` is the LED index (or switch position) under a square.
"""
import drawsvg as dw

from firmware.io.cellmap import invert, make_cell_map
from tools.diagrams.configs import check
from tools.diagrams.parts import FILES, chain_end, square
from tools.diagrams.symbols import INK, PALE, Sheet

S = 84  # one square
BX, BY = 150, 96  # the board's top-left corner


def _origin(cell):
    """Top-left corner of a cell's square (rank 8 at the top)."""
    return BX + (cell % 8) * S, BY + (7 - cell // 8) * S


def _chain_point(cell):
    x, y = _origin(cell)
    return x + S - 16, y + S - 14


def _sensor_text(config, physical):
    s = config["sensor"]
    if s["kind"] == "matrix":
        return "switch r%d c%d" % (physical // 8, physical % 8)
    if s["kind"] == "mcp23017":
        pins = 64 // len(s["addrs"])
        return "0x%02X GP%s%d" % (s["addrs"][physical // pins], "AB"[physical % pins // 8], physical % 8)
    return "chip %d in %s" % (physical // 8, "ABCDEFGH"[physical % 8])


def _led_text(config, physical):
    led = config["leds"]
    if led["kind"] == "neopixel":
        return "LED #%d" % physical
    if led["kind"] == "matrix":
        return "LED r%d c%d" % (physical // 8, physical % 8)
    return None


def _legend(config):
    parts = []
    led = config["leds"]["kind"]
    if led == "neopixel":
        parts.append("LED #n: the n-th WS2812 along the chain (from 0)")
    elif led == "matrix":
        parts.append("LED rR cC: LED matrix row R, column C")
    if config["sensor"]["kind"] == "matrix":
        parts.append("switch rR cC: reed matrix row R, column C")
    elif config["sensor"]["kind"] == "mcp23017":
        parts.append("0xNN GPXn: the MCP23017 at address 0xNN, input GPXn")
    else:
        parts.append("chip K in X: 74HC165 chip K (0 next to the controller), input X")
    return "; ".join(parts) + "."


def board_svg(config):
    """The SVG text of the board view (deterministic)."""
    pinout = check(config)
    gpio = pinout["gpio"]
    led = config["leds"]
    sensor_at = invert(make_cell_map(config["sensor"].get("cell_map")))
    led_map = make_cell_map(led.get("cell_map")) if led["kind"] != "edge" else None
    led_at = invert(led_map) if led_map is not None else None
    width, height = BX + 8 * S + 170, BY + 8 * S + 110
    sh = Sheet(width, height, "Reedchess board view: %s" % config["name"])
    sh.text("Reedchess · %s · the board from above" % config["name"], 24, 38, 18, bold=True)
    sh.text("White sits at the bottom. Each square: its name, its cell (rank x 8 + file), its LED, its reed switch.",
            24, 58, 11)
    sh.text(_legend(config), 24, 76, 10)
    for cell in range(64):
        x, y = _origin(cell)
        dark = (cell % 8 + cell // 8) % 2 == 0
        g = sh.group(class_="square", data_square=square(cell), data_cell=str(cell))
        sh.box(x, y, S, S, g, fill=PALE if dark else "white", width=1)
        sh.text(square(cell), x + 6, y + 18, 15, group=g, bold=True)
        sh.text("cell %d" % cell, x + 6, y + 33, 10, group=g)
        if led_at is not None:
            sh.text(_led_text(config, led_at[cell]), x + 6, y + 46, 10 if led["kind"] == "neopixel" else 9, group=g,
                    bold=led["kind"] == "neopixel")
        sh.text(_sensor_text(config, sensor_at[cell]), x + 6, y + 58, 8, group=g)
    sh.box(BX, BY, 8 * S, 8 * S, fill="none", width=2.4)
    for i in range(8):
        sh.text(FILES[i], BX + i * S + S / 2, BY + 8 * S + 22, 16, "middle", bold=True)
        sh.text(str(i + 1), BX - 22, BY + (7 - i) * S + S / 2 + 6, 16, "middle", bold=True)
    if led["kind"] == "neopixel":
        _draw_chain(sh, config, led_map, gpio(led["pin"]))
    elif led["kind"] == "edge":
        _draw_edge_leds(sh, config, gpio)
    st = config.get("status")
    if st is not None and st.get("kind") == "pin":
        x, y = BX + 8 * S + 30, BY + 8 * S + 40
        sh.add(dw.Circle(x, y, 9, style="fill:white;stroke:%s;stroke-width:2" % INK))
        sh.text("status LED on %s" % gpio(st["pin"]), x - 16, y + 30, 11, "start", bold=True)
    return sh.svg()


def _outside(cell, distance, ranks_first=False):
    """A point `distance` outside the board, beside the edge square `cell`, and the text anchor
    (beside the a or h file first, or with ranks_first below rank 1 / above rank 8 first)."""
    x, y = _origin(cell)
    if ranks_first and cell // 8 in (0, 7):
        return (x + S / 2, BY + 8 * S + distance if cell // 8 == 0 else BY - distance), "middle"
    if cell % 8 == 0:
        return (BX - distance, y + S / 2), "end"
    if cell % 8 == 7:
        return (BX + 8 * S + distance, y + S / 2), "start"
    if cell // 8 == 0:
        return (x + S / 2, BY + 8 * S + distance), "middle"
    return (x + S / 2, BY - distance), "middle"


def _draw_chain(sh, config, led_map, data_pin):
    arrow = dw.Marker(-4, -4, 4, 4, orient="auto", scale=0.9)
    arrow.append(dw.Lines(-3, -3, 3, 0, -3, 3, close=True, style="fill:%s;stroke:none" % INK))
    points = [_chain_point(led_map[i]) for i in range(64)]
    start, end = led_map[0], led_map[63]
    flat = []
    for x, y in points:
        flat += [x, y]
    sh.add(dw.Lines(*flat, close=False, style="stroke-width:1.6", marker_mid=arrow,
                    class_="chain"))
    sx, sy = points[0]
    sh.add(dw.Circle(sx, sy, 5))
    (tx, ty), anchor = _outside(start, 44, ranks_first=True)
    if anchor == "middle":  # down to the board's edge below rank 1 (or up above rank 8)
        sh.line([(sx, sy), (sx, BY + 8 * S + 6 if ty > BY else BY - 6)], dash="4 3")
    else:
        sh.line([(sx, sy), (tx, sy)], dash="4 3")
    if anchor == "middle":
        tx = max(tx, 200)
    sh.text("chain start: %s -> 330 ohm -> DIN of LED #0 (%s)" % (data_pin, square(start)), tx, ty, 11, anchor,
            bold=True)
    st = config.get("status")
    if st is not None and st.get("kind") == "pixel":
        (px, py), anchor = _outside(end, 70)
        ex, ey = points[-1]
        g = sh.group(class_="status-pixel", data_after=chain_end(config))
        sh.line([(ex, ey), (px, ey if anchor != "middle" else py)], g, width=1.6)
        bx = px - 20 if anchor != "middle" else px - 20
        by = (ey if anchor != "middle" else py) - 20
        sh.box(bx, by, 40, 40, g, width=2.2)
        sh.text("#64", bx + 20, by + 25, 11, "middle", g, bold=True)
        sh.text("status pixel", bx + 20, by + 56, 11, "middle", g, bold=True)
        sh.text("after %s" % chain_end(config), bx + 20, by + 70, 10, "middle", g)
    else:
        (tx, ty), anchor = _outside(end, 24)
        sh.text("chain end: LED #63 (%s)" % square(end), tx, ty, 11, anchor, bold=True)
    sh.text("The WS2812 chain runs as the arrows show; it turns at the board's edges (cell_map %r)."
            % (config["leds"].get("cell_map"),), 24, BY + 8 * S + 84, 11)


def _draw_edge_leds(sh, config, gpio):
    led = config["leds"]
    for i in range(8):
        y = BY + (7 - i) * S + S / 2
        sh.add(dw.Circle(BX - 56, y, 8, style="fill:white;stroke:%s;stroke-width:2" % INK))
        sh.text(gpio(led["ranks"][i]), BX - 70, y + 4, 9, "end")
        x = BX + i * S + S / 2
        sh.add(dw.Circle(x, BY + 8 * S + 48, 8, style="fill:white;stroke:%s;stroke-width:2" % INK))
        sh.text(gpio(led["files"][i]), x, BY + 8 * S + 72, 9, "middle")
    sh.text("Edge LEDs: one beside each rank (left), one below each file; a square is shown by its rank and file LED.",
            24, BY + 8 * S + 100, 11)
