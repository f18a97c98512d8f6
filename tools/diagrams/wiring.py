"""The wiring diagram of one board: its controller with the real pin-out at the top, the parts
below in rows, and one wire from every used pin to its part's terminal.

Routing: a wire leaves its pin sideways, runs down its own lane outside the parts (left-side
pins on the left, right-side pins on the right), along its own track in the channel above
its part's row, and drops onto the terminal. Every lane and every track belongs to one wire,
so wires cross but never run on top of each other.
"""
from boards.config import pin_roles
from tools.diagrams.configs import DiagramError, check
from tools.diagrams.parts import parts_for
from tools.diagrams.pinouts import header_pin
from tools.diagrams.symbols import Sheet

PITCH = 16  # controller pins
LANE = 8  # lanes and tracks
MARGIN = 24
LABEL_ZONE = 118  # function labels beside the controller
MCU_W = 170
ROW_MAX = 1400  # parts per row up to this width
PART_GAP = 36
DROP_BAND = 34  # between a channel's last track and its parts: the pin names on the drops


class Net:
    def __init__(self, pin, role, where):
        self.pin = pin
        self.role = role
        self.header, self.side, self.number, self.label = where
        self.row = None  # which parts row
        self.terminal_x = None
        self.pin_y = None
        self.lane_x = None
        self.track_y = None


def _rows(parts):
    rows, width = [[]], 0
    for part in parts:
        if rows[-1] and width + PART_GAP + part.width > ROW_MAX:
            rows.append([])
            width = 0
        width += (PART_GAP if rows[-1] else 0) + part.width
        rows[-1].append(part)
    return rows


def wrap(text, width, char_px=6):
    """Lines of text (split at ': ', ', ' and spaces) no wider than about `width` pixels."""
    per_line = max(12, int(width // char_px))
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > per_line:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word) if line else word
    return lines + [line]


def function_text(config, role):
    """What a pin does, as the diagram and the tables say it."""
    if role == "neopixel data":
        st = config.get("status")
        if st is not None and st.get("kind") == "pixel":
            return "neopixel data (64 squares + status pixel)"
    return role


def wiring_svg(config):
    """The SVG text of the board's wiring diagram (deterministic)."""
    pinout = check(config)
    nets = [Net(pin, role, header_pin(pinout, pin)) for pin, role, _d in pin_roles(config)]
    by_role = {n.role: n for n in nets}
    parts = parts_for(config)
    rows = _rows(parts)
    placed = []  # (part, row index, x offset in the parts area)
    for r, row in enumerate(rows):
        x = 0
        for part in row:
            placed.append((part, r, x))
            for role, tx in part.terminals:
                by_role[role].row = r
                by_role[role].terminal_x = x + tx
            x += part.width + PART_GAP
    missing = [n.role for n in nets if n.row is None]
    if missing:
        raise DiagramError("board %s: no part draws %s" % (config["name"], ", ".join(missing)))
    parts_w = max(sum(p.width for p in row) + PART_GAP * (len(row) - 1) for row in rows)
    sides = {"left": [n for n in nets if n.side == "left"], "right": [n for n in nets if n.side == "right"]}
    headers = {side: [h for h in pinout["headers"] if h[1] == side] for side in ("left", "right")}
    pins_per_side = max(sum(len(h[2]) for h in headers[s]) for s in headers)
    lanes_l = len(sides["left"]) * LANE + 16
    lanes_r = len(sides["right"]) * LANE + 16
    px0 = MARGIN + lanes_l  # the parts area
    need = MCU_W + 2 * LABEL_ZONE + 40
    parts_w = max(parts_w, need)
    width = px0 + parts_w + lanes_r + MARGIN
    mcu_x = px0 + (parts_w - MCU_W) / 2
    mcu_y = MARGIN + 70
    mcu_h = (pins_per_side + 1) * PITCH + 24
    # pin positions
    pin_pos = {}
    for side in ("left", "right"):
        i = 0
        for name, _s, pins in headers[side]:
            for number, _label in pins:
                pin_pos[name, number] = mcu_y + 30 + i * PITCH
                i += 1
    for n in nets:
        n.pin_y = pin_pos[n.header, n.number]
    # lanes: nets of the first parts row innermost, then lower pins innermost
    for side, sign, edge in (("left", -1, px0 - 12), ("right", 1, px0 + parts_w + 12)):
        ordered = sorted(sides[side], key=lambda n: (n.row, -n.pin_y))
        for j, n in enumerate(ordered):
            n.lane_x = edge + sign * j * LANE
    # channels and rows, top to bottom
    y = mcu_y + mcu_h + 40
    row_y = []
    for r in range(len(rows)):
        in_row = [n for n in nets if n.row == r]
        ordered = sorted(in_row, key=lambda n: (n.side, abs(n.lane_x - px0)))
        for k, n in enumerate(ordered):
            n.track_y = y + k * LANE
        y += len(in_row) * LANE + DROP_BAND
        row_y.append(y)
        y += max(p.height for p in rows[r]) + 50
    height = y + 40
    sh = Sheet(width, height, "Reedchess wiring: %s (%s)" % (config["name"], pinout["board"]))
    sh.text("Reedchess · %s · wiring" % config["name"], MARGIN, MARGIN + 14, 18, bold=True)
    sh.text("%s. All logic 3.3 V; join every GND. Generated from boards/%s.py by make diagrams."
            % (pinout["board"], config["name"]), MARGIN, MARGIN + 34, 11)
    _draw_mcu(sh, config, pinout, headers, mcu_x, mcu_y, mcu_h, pin_pos)
    for n in nets:
        _draw_net(sh, config, n, mcu_x, px0, row_y[n.row])
    for part, r, x in placed:
        for i, line in enumerate(wrap(part.title, part.width)):
            sh.text(line, px0 + x, row_y[r] + part.height + 16 + 13 * i, 10, bold=(i == 0))
        part.draw(sh, px0 + x, row_y[r])
    return sh.svg()


def _draw_mcu(sh, config, pinout, headers, x, y, h, pin_pos):
    used = {}
    for pin, role, _d in pin_roles(config):
        where = header_pin(pinout, pin)
        used[where[0], where[2]] = function_text(config, role)
    sh.box(x, y, MCU_W, h, width=2.2, rx=6)
    sh.text(config["mcu"], x + MCU_W / 2, y + 18, 11 if len(config["mcu"]) < 20 else 9, "middle", bold=True)
    for side, sign, edge in (("left", -1, x), ("right", 1, x + MCU_W)):
        for name, _s, pins in headers[side]:
            for number, label in pins:
                py = pin_pos[name, number]
                inner = edge - sign * 6
                sh.text(str(number), inner, py + 3.5, 8, "end" if side == "right" else "start")
                sh.text(label, inner - sign * 22, py + 3.5, 9, "end" if side == "right" else "start",
                        bold=(name, number) in used)
                sh.line([(edge, py), (edge + sign * 10, py)], width=2 if (name, number) in used else 1)
        sh.text(" / ".join(h[0] for h in headers[side]), edge - sign * 4, y + h - 8, 8,
                "end" if side == "right" else "start")


def _draw_net(sh, config, n, mcu_x, px0, part_top):
    edge = mcu_x if n.side == "left" else mcu_x + MCU_W
    sign = -1 if n.side == "left" else 1
    x_term = px0 + n.terminal_x
    g = sh.group(class_="pin", data_pin=n.label, data_function=n.role)
    sh.line([(edge + sign * 10, n.pin_y), (n.lane_x, n.pin_y), (n.lane_x, n.track_y), (x_term, n.track_y),
             (x_term, part_top)], g)
    sh.text(function_text(config, n.role), edge + sign * 14, n.pin_y - 3, 9, "end" if n.side == "left" else "start",
            g)
    sh.text(n.label, x_term - 2, part_top - 3, 8, "start", g, rotate=-90)
