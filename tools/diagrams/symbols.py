"""Schematic symbols on a drawsvg drawing, black on white so they print in black and white.

Two-terminal symbols (resistor, diode, LED, reed switch, push button, capacitor, piezo) go
from a point `a` to a point `b` on one axis: the symbol sits in the middle and leads fill
the rest. A diode or LED conducts from a (anode) to b (cathode): the bar is at b.
"""
import drawsvg as dw

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
INK = "black"
PALE = "#d9d9d9"  # the dark squares of the board view: light enough for the text on them
STROKE = 1.4
# the defaults of every element, so each one carries only what differs (smaller files); what
# differs goes into a style attribute, which wins over these rules (a fill= attribute would not)
CSS = ("path{fill:none;stroke:%s;stroke-width:%s}text{fill:%s}circle{fill:%s}"
       "rect{fill:white;stroke:%s;stroke-width:%s}" % (INK, STROKE, INK, INK, INK, STROKE))


def _num(v):
    """A coordinate as short as it can be written: 70.0 -> 70, 3.14159 -> 3.14."""
    v = round(v, 2)
    return int(v) if v == int(v) else v


class Sheet:
    """A drawing plus the primitives the diagrams are made of. `title` goes into <title>."""

    def __init__(self, width, height, title):
        self.d = dw.Drawing(width, height, font_family=FONT)
        self.d.append_css(CSS)
        self._defs = set()
        self.d.append(dw.Title(title))
        self.d.append(dw.Rectangle(0, 0, width, height, style="stroke:none"))

    def svg(self):
        return self.d.as_svg() + "\n"

    def add(self, element, group=None):
        (self.d if group is None else group).append(element)
        return element

    def group(self, **attrs):
        return self.add(dw.Group(**attrs))

    def line(self, points, group=None, width=STROKE, dash=None):
        flat = []
        for x, y in points:
            flat += [_num(x), _num(y)]
        extra = {} if dash is None else {"stroke_dasharray": dash}
        if width != STROKE:
            extra["style"] = "stroke-width:%s" % width
        return self.add(dw.Lines(*flat, close=False, **extra), group)

    def text(self, s, x, y, size=10, anchor="start", group=None, bold=False, rotate=None):
        x, y = _num(x), _num(y)
        extra = {"font_weight": "bold"} if bold else {}
        if anchor != "start":
            extra["text_anchor"] = anchor
        if rotate is not None:
            extra["transform"] = "rotate(%d,%s,%s)" % (rotate, x, y)
        return self.add(dw.Text(str(s), size, x, y, **extra), group)

    def box(self, x, y, w, h, group=None, fill="white", width=STROKE, rx=0):
        style = [] if fill == "white" else ["fill:%s" % fill]
        if width != STROKE:
            style.append("stroke-width:%s" % width)
        extra = {"style": ";".join(style)} if style else {}
        if rx:
            extra["rx"] = rx
        return self.add(dw.Rectangle(_num(x), _num(y), _num(w), _num(h), **extra), group)

    def dot(self, x, y, group=None):
        return self.add(dw.Circle(_num(x), _num(y), 2.6), group)

    def ground(self, x, y, group=None):
        """A ground symbol hanging from (x, y)."""
        self.line([(x, y), (x, y + 6)], group)
        for i, half in enumerate((7, 4.5, 2)):
            self.line([(x - half, y + 6 + 3 * i), (x + half, y + 6 + 3 * i)], group)

    def supply(self, x, y, label, group=None, up=True):
        """A supply flag: a bar with the rail's name, above (up) or below (x, y)."""
        s = -1 if up else 1
        self.line([(x, y), (x, y + s * 8)], group)
        self.line([(x - 7, y + s * 8), (x + 7, y + s * 8)], group)
        self.text(label, x, y + s * 11 if up else y + 19, 9, "middle", group)

    # two-terminal symbols ------------------------------------------------------------------

    def _place(self, a, b, name, length, body):
        """A two-terminal symbol from a to b: its body (drawn once into <defs> by body(group, n)
        along x from 0 to n) centred, and leads to both ends."""
        (ax, ay), (bx, by) = a, b
        if ax != bx and ay != by:
            raise ValueError("symbols run along one axis: %r -> %r" % (a, b))
        total = abs(bx - ax) + abs(by - ay)
        n = _num(min(length, total))
        key = "sym-%s-%s" % (name, n)
        if key not in self._defs:
            g = dw.Group(id=key)
            body(g, n)
            self.d.append_def(g)
            self._defs.add(key)
        lead = _num((total - n) / 2)
        angle = 0 if bx > ax else 180 if bx < ax else 90 if by > ay else -90
        g = self.add(dw.Group(transform="translate(%s,%s) rotate(%d)" % (_num(ax), _num(ay), angle)))
        if lead > 0:
            self.add(dw.Path(d="M0,0 H%s M%s,0 H%s" % (lead, _num(lead + n), _num(total))), g)
        self.add(dw.Use("#" + key, lead, 0), g)

    def resistor(self, a, b):
        self._place(a, b, "resistor", 24, lambda g, n: self.box(0, -4.5, n, 9, g))

    def diode(self, a, b, light=False):
        def body(g, n):
            m = n / 2
            self.add(dw.Lines(_num(m - 5), -6, _num(m - 5), 6, _num(m + 5), 0, close=True,
                              style="fill:%s;stroke-width:1" % INK), g)
            self.line([(m + 5, -6.5), (m + 5, 6.5)], g, width=2)
            self.line([(0, 0), (m - 5, 0)], g)
            self.line([(m + 5, 0), (n, 0)], g)
            if light:  # two arrows pointing away: an LED
                for dx in (-2, 3):
                    self.line([(m + dx, -8), (m + dx + 5, -14)], g, width=1)
                    self.line([(m + dx + 5, -14), (m + dx + 1.5, -13), (m + dx + 4.5, -10.5), (m + dx + 5, -14)], g,
                              width=1)

        self._place(a, b, "led" if light else "diode", 16, body)

    def led(self, a, b):
        self.diode(a, b, light=True)

    def reed(self, a, b):
        """A reed switch: a normally open contact in a glass capsule."""
        def body(g, n):
            self.add(dw.Rectangle(1, -6, _num(n - 2), 12, rx=6, style="fill:none;stroke-width:1"), g)
            self.line([(0, 0), (n * 0.35, 0), (n * 0.68, -4)], g)
            self.line([(n * 0.62, 0), (n, 0)], g)

        self._place(a, b, "reed", 26, body)

    def button(self, a, b):
        """A momentary push button, normally open."""
        def body(g, n):
            self.dot(3, 0, g)
            self.dot(n - 3, 0, g)
            self.line([(0, 0), (3, 0)], g)
            self.line([(n - 3, 0), (n, 0)], g)
            self.line([(1, -6), (n - 1, -6)], g)
            self.line([(n / 2, -6), (n / 2, -12)], g)
            self.line([(n / 2 - 4, -12), (n / 2 + 4, -12)], g)

        self._place(a, b, "button", 24, body)

    def capacitor(self, a, b, polarized=False):
        def body(g, n):
            self.line([(0, 0), (n / 2 - 2.5, 0)], g)
            self.line([(n / 2 + 2.5, 0), (n, 0)], g)
            self.line([(n / 2 - 2.5, -8), (n / 2 - 2.5, 8)], g, width=2)
            self.line([(n / 2 + 2.5, -8), (n / 2 + 2.5, 8)], g, width=2)
            if polarized:
                self.line([(n / 2 - 8, -9), (n / 2 - 8, -5)], g, width=1)
                self.line([(n / 2 - 10, -7), (n / 2 - 6, -7)], g, width=1)

        self._place(a, b, "capacitor-polarized" if polarized else "capacitor", 12, body)

    def piezo(self, a, b):
        def body(g, n):
            self.line([(0, 0), (3, 0)], g)
            self.line([(n - 3, 0), (n, 0)], g)
            self.line([(3, -8), (3, 8)], g, width=2)
            self.line([(n - 3, -8), (n - 3, 8)], g, width=2)
            self.box(5, -6, n - 10, 12, g)

        self._place(a, b, "piezo", 16, body)

    def npn(self, x, y):
        """An NPN transistor with its base lead at (x, y); returns (collector, emitter) end points."""
        self.add(dw.Circle(_num(x + 20), _num(y), 13, style="fill:none;stroke:%s;stroke-width:1" % INK))
        self.line([(x, y), (x + 14, y)])
        self.line([(x + 14, y - 8), (x + 14, y + 8)], width=2.2)
        self.line([(x + 14, y - 4), (x + 24, y - 12), (x + 24, y - 22)])
        self.line([(x + 14, y + 4), (x + 24, y + 12), (x + 24, y + 22)])
        self.add(dw.Lines(_num(x + 24), _num(y + 12), _num(x + 17.5), _num(y + 10.5), _num(x + 20.5), _num(y + 7),
                          close=True, style="fill:%s;stroke-width:0.8" % INK))
        return (x + 24, y - 22), (x + 24, y + 22)
