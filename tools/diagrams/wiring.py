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
    """One wire: a controller pin, its role (boards.config.pin_roles) and where it runs."""

    def __init__(self, pin, role, where):
        self.pin = pin
        self.role = role
        self.header, self.side, self.number, self.label = where
        self.row = None  # which parts row
        self.terminal_x = None  # in the parts area
        self.pin_y = None
        self.lane_x = None
        self.track_y = None


def function_text(config, role):
    """What a pin does, as the diagram and the tables say it."""
    if role == "neopixel data":
        st = config.get("status")
        if st is not None and st.get("kind") == "pixel":
            return "neopixel data (64 squares + status pixel)"
    return role


def wrap(text, width, char_px=6):
    """Lines of text, split at spaces, no wider than about `width` pixels."""
    per_line = max(12, int(width // char_px))
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > per_line:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word) if line else word
    return lines + [line]


def _rows(parts):
    """The parts in rows of at most ROW_MAX (a wider part gets a row of its own)."""
    rows, width = [[]], 0
    for part in parts:
        if rows[-1] and width + PART_GAP + part.width > ROW_MAX:
            rows.append([])
            width = 0
        width += (PART_GAP if rows[-1] else 0) + part.width
        rows[-1].append(part)
    return rows


class Layout:
    """Where the controller, every pin, lane, track and part go."""

    def __init__(self, config, pinout):
        self.nets = [Net(pin, role, header_pin(pinout, pin)) for pin, role, _d in pin_roles(config)]
        self.rows = _rows(parts_for(config))
        self.placed = []  # (part, row index, x in the parts area)
        self._place_parts(config)
        self.headers = {side: [h for h in pinout["headers"] if h[1] == side] for side in ("left", "right")}
        sides = {side: [n for n in self.nets if n.side == side] for side in ("left", "right")}
        self.px0 = MARGIN + len(sides["left"]) * LANE + 16  # the parts area's left edge
        parts_w = max(sum(p.width for p in row) + PART_GAP * (len(row) - 1) for row in self.rows)
        self.parts_w = max(parts_w, MCU_W + 2 * LABEL_ZONE + 40)
        self.width = self.px0 + self.parts_w + len(sides["right"]) * LANE + 16 + MARGIN
        self.mcu_x = self.px0 + (self.parts_w - MCU_W) / 2
        self.mcu_y = MARGIN + 70
        pins_per_side = max(sum(len(h[2]) for h in self.headers[s]) for s in self.headers)
        self.mcu_h = (pins_per_side + 1) * PITCH + 24
        self.pin_y = {}  # (header, number) -> y
        for side in ("left", "right"):
            pins = [(h[0], number) for h in self.headers[side] for number, _label in h[2]]
            for i, key in enumerate(pins):
                self.pin_y[key] = self.mcu_y + 30 + i * PITCH
        for n in self.nets:
            n.pin_y = self.pin_y[n.header, n.number]
        self._lanes(sides)
        self._channels()

    def _place_parts(self, config):
        by_role = {n.role: n for n in self.nets}
        for r, row in enumerate(self.rows):
            x = 0
            for part in row:
                self.placed.append((part, r, x))
                for role, tx in part.terminals:
                    by_role[role].row = r
                    by_role[role].terminal_x = x + tx
                x += part.width + PART_GAP
        missing = [n.role for n in self.nets if n.row is None]
        if missing:
            raise DiagramError("board %s: no part draws %s" % (config["name"], ", ".join(missing)))

    def _lanes(self, sides):
        """Nets of the first parts row innermost, then lower pins innermost: fewer crossings."""
        for side, sign, edge in (("left", -1, self.px0 - 12), ("right", 1, self.px0 + self.parts_w + 12)):
            for j, n in enumerate(sorted(sides[side], key=lambda n: (n.row, -n.pin_y))):
                n.lane_x = edge + sign * j * LANE

    def _channels(self):
        """One track per net in the channel above its parts row; row_y: each row's top."""
        y = self.mcu_y + self.mcu_h + 40
        self.row_y = []
        for r, row in enumerate(self.rows):
            in_row = sorted((n for n in self.nets if n.row == r), key=lambda n: (n.side, abs(n.lane_x - self.px0)))
            for k, n in enumerate(in_row):
                n.track_y = y + k * LANE
            y += len(in_row) * LANE + DROP_BAND
            self.row_y.append(y)
            y += max(p.height for p in row) + 50
        self.height = y + 40


def wiring_svg(config):
    """The SVG text of the board's wiring diagram (deterministic)."""
    pinout = check(config)
    lay = Layout(config, pinout)
    sh = Sheet(lay.width, lay.height, "Reedchess wiring: %s (%s)" % (config["name"], pinout["board"]))
    sh.text("Reedchess · %s · wiring" % config["name"], MARGIN, MARGIN + 14, 18, bold=True)
    sh.text("%s. All logic 3.3 V; join every GND. Generated from boards/%s.py by make diagrams."
            % (pinout["board"], config["name"]), MARGIN, MARGIN + 34, 11)
    _draw_mcu(sh, config, lay)
    for n in lay.nets:
        _draw_net(sh, config, n, lay)
    for part, r, x in lay.placed:
        for i, line in enumerate(wrap(part.title, part.width)):
            sh.text(line, lay.px0 + x, lay.row_y[r] + part.height + 16 + 13 * i, 10, bold=(i == 0))
        part.draw(sh, lay.px0 + x, lay.row_y[r])
    return sh.svg()


def _draw_mcu(sh, config, lay):
    used = {(n.header, n.number) for n in lay.nets}
    x, y, h = lay.mcu_x, lay.mcu_y, lay.mcu_h
    sh.box(x, y, MCU_W, h, width=2.2, rx=6)
    sh.text(config["mcu"], x + MCU_W / 2, y + 18, 11 if len(config["mcu"]) < 20 else 9, "middle", bold=True)
    for side, sign, edge in (("left", -1, x), ("right", 1, x + MCU_W)):
        anchor = "end" if side == "right" else "start"
        for name, _s, pins in lay.headers[side]:
            for number, label in pins:
                py = lay.pin_y[name, number]
                inner = edge - sign * 6
                sh.text(str(number), inner, py + 3.5, 8, anchor)
                sh.text(label, inner - sign * 22, py + 3.5, 9, anchor, bold=(name, number) in used)
                sh.line([(edge, py), (edge + sign * 10, py)], width=2 if (name, number) in used else 1)
        sh.text(" / ".join(hd[0] for hd in lay.headers[side]), edge - sign * 4, y + h - 8, 8, anchor)


def _draw_net(sh, config, n, lay):
    edge = lay.mcu_x if n.side == "left" else lay.mcu_x + MCU_W
    sign = -1 if n.side == "left" else 1
    x_term = lay.px0 + n.terminal_x
    part_top = lay.row_y[n.row]
    g = sh.group(class_="pin", data_pin=n.label, data_function=n.role)
    sh.line([(edge + sign * 10, n.pin_y), (n.lane_x, n.pin_y), (n.lane_x, n.track_y), (x_term, n.track_y),
             (x_term, part_top)], g)
    sh.text(function_text(config, n.role), edge + sign * 14, n.pin_y - 3, 9, "end" if n.side == "left" else "start",
            g)
    sh.text(n.label, x_term - 2, part_top - 3, 8, "start", g, rotate=-90)
