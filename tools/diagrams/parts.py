"""The parts a board's pins are wired to, each drawn in its own frame: terminals on the top
edge (where the wires from the controller come in), everything else below.

A part has `width`, `height`, `terminals` [(role, x)] with the role strings of
boards.config.pin_roles, and `draw(sheet, ox, oy)`. Squares come from the config's cell maps
through firmware.io.cellmap, never worked out here.
"""
from firmware.io.buttons import ordered_names
from firmware.io.cellmap import make_cell_map

FILES = "abcdefgh"


def square(cell):
    """Cell 0..63 (rank * 8 + file) -> "a1".."h8"."""
    return FILES[cell % 8] + str(cell // 8 + 1)


def chain_end(config):
    """The square of the last of the 64 chained pixels, or None without a neopixel chain."""
    leds = config["leds"]
    if leds["kind"] != "neopixel":
        return None
    return square(make_cell_map(leds.get("cell_map"))[63])


class Part:
    title = ""

    def __init__(self, config):
        self.config = config
        self.terminals = []


class ReedMatrix(Part):
    """8 row lines, 8 column lines, a reed switch + 1N4148 at every crossing, cathode to the row."""
    LEAD, CW, CH, TOP = 12, 58, 50, 56

    def __init__(self, config):
        super().__init__(config)
        self.title = "Reed matrix: 64 reed switches, each in series with a 1N4148 (bar = cathode towards the row)"
        self.x0 = 8 * self.LEAD + 20
        self.width = self.x0 + 8 * self.CW + 20
        self.height = self.TOP + 8 * self.CH + 24
        self.terminals = [("sensor row %d" % r, self._lead(r)) for r in range(8)]
        self.terminals += [("sensor col %d" % c, self._col(c)) for c in range(8)]

    def _lead(self, r):
        return (8 - r) * self.LEAD

    def _col(self, c):
        return self.x0 + (c + 1) * self.CW - 6

    def _row(self, r):
        return self.TOP + r * self.CH

    def draw(self, sh, ox, oy):
        cells = make_cell_map(self.config["sensor"].get("cell_map"))
        bottom = oy + self._row(7) + 34
        for c in range(8):
            x = ox + self._col(c)
            sh.line([(x, oy), (x, bottom)])
            sh.text("col %d" % c, x + 3, oy + self.TOP - 22, 9)
        for r in range(8):
            y = oy + self._row(r)
            lx = ox + self._lead(r)
            sh.line([(lx, oy), (lx, y), (ox + self._col(7) + 12, y)])
            sh.text("row %d" % r, lx + 3, y - 4, 9)
            for c in range(8):
                x = ox + self._col(c)
                sh.reed((x, y + 26), (x - 34, y + 26))
                sh.diode((x - 34, y + 26), (x - 34, y))
                sh.dot(x, y + 26)
                sh.dot(x - 34, y)
                sh.text(square(cells[r * 8 + c]), x - 17, y + 42, 10, "middle", bold=True)


class Shift165Chain(Part):
    """Eight 74HC165s in two rows (chip 0 next to the controller), a 10k pull-up and a reed
    switch to GND on every input; QH of chip k+1 feeds SER of chip k."""
    PITCH, GAP, LM, ROW = 28, 56, 80, 214
    INPUT_PINS = (11, 12, 13, 14, 3, 4, 5, 6)  # A..H

    def __init__(self, config):
        super().__init__(config)
        self.title = "74HC165 chain: 8 chips, 8 inputs each; every input: 10k pull-up (network) + reed switch to GND"
        self.chip_w = 8 * self.PITCH
        self.width = self.LM + 4 * self.chip_w + 3 * self.GAP + 40
        self.height = 2 * self.ROW + 24
        self.terminals = [("sensor load", 20), ("sensor clock", 40), ("sensor data", 60)]

    def _chip_x(self, k):
        slot = k if k < 4 else 7 - k  # the second row runs back: chip 4 under chip 3
        return self.LM + slot * (self.chip_w + self.GAP)

    def draw(self, sh, ox, oy):
        cells = make_cell_map(self.config["sensor"].get("cell_map"))
        spi = self.config["sensor"].get("spi") is not None
        rows_y = (oy + 20, oy + 20 + self.ROW)
        last_pin_x = ox + self._chip_x(3) + 70
        for i, label in enumerate(("SH/LD", "SCK = CLK" if spi else "CLK")):
            lx = ox + 20 + 20 * i
            sh.line([(lx, oy), (lx, rows_y[1] + 10 + 12 * i)])
            for ry in rows_y:
                by = ry + 10 + 12 * i
                sh.line([(lx, by), (last_pin_x, by)])
                sh.dot(lx, by)
                sh.text(label + " bus", lx + 4, by - 2, 8)
        for k in range(8):
            ry = rows_y[k // 4]
            x = ox + self._chip_x(k)
            sh.box(x, ry + 40, self.chip_w, 60, width=1.8)
            sh.text("74HC165 · chip %d" % k, x + self.chip_w / 2, ry + 54, 10, "middle", bold=True)
            for i, (px, name) in enumerate(((20, "1 SH/LD"), (70, "2 CLK"))):
                sh.line([(x + px, ry + 40), (x + px, ry + 10 + 12 * i)])
                sh.dot(x + px, ry + 10 + 12 * i)
                sh.text(name, x + px + 3, ry + 37, 7)
            qh_right = k >= 4  # the second row is mirrored
            qx, sx = (x + self.chip_w, x) if qh_right else (x, x + self.chip_w)
            sh.text("QH 9", qx + (-3 if qh_right else 3), ry + 66, 8, "end" if qh_right else "start")
            sh.text("SER 10", sx + (3 if qh_right else -3), ry + 66, 8, "start" if qh_right else "end")
            for i in range(8):
                ix = x + 12 + i * self.PITCH
                jy = ry + 116
                sh.text(square(cells[k * 8 + i]), ix, ry + 80, 9, "middle", bold=True)
                sh.text("%s%d" % ("ABCDEFGH"[i], self.INPUT_PINS[i]), ix, ry + 96, 7, "middle")
                sh.line([(ix, ry + 100), (ix, jy), (ix + 14, jy)])
                sh.dot(ix, jy)
                sh.reed((ix, jy), (ix, jy + 34))
                sh.ground(ix, jy + 34)
                sh.resistor((ix + 14, jy), (ix + 14, jy + 56))
            rail = ry + 172
            sh.line([(x + 22, rail), (x + self.chip_w + 4, rail)])
            sh.text("3V3 (common pin of a 10k x8 network)", x + 22, rail + 12, 8)
        sy = rows_y[0] + 70
        links = [(ox + self._chip_x(k) + self.chip_w, ox + self._chip_x(k + 1)) for k in range(3)]
        for a, b in links:  # chip k+1 QH -> chip k SER, first row
            sh.line([(a, sy), (b, sy)])
        for k in (4, 5, 6):  # second row, mirrored: chip k+1 QH (right) -> chip k SER (left)
            a = ox + self._chip_x(k + 1) + self.chip_w
            sh.line([(a, sy + self.ROW), (ox + self._chip_x(k), sy + self.ROW)])
        rx = ox + self._chip_x(3) + self.chip_w
        sh.line([(rx, sy), (rx + 20, sy), (rx + 20, sy + self.ROW), (rx, sy + self.ROW)])
        sh.text("chip 4 QH -> chip 3 SER", rx + 24, sy + self.ROW / 2, 8)
        ex = ox + self._chip_x(7)
        sh.line([(ex, sy + self.ROW), (ex - 14, sy + self.ROW)])
        sh.ground(ex - 14, sy + self.ROW)
        sh.text("chip 7 SER: GND", ex - 18, sy + self.ROW - 6, 8, "end")
        dx = ox + 60
        sh.line([(dx, oy), (dx, sy), (ox + self._chip_x(0), sy)])
        note = ("Every chip: 16 VCC to 3V3, 8 GND and 15 CLK INH to GND, 100 nF from 16 to 8. "
                "Chip 0's QH 9 is the data pin")
        sh.text(note + (" (hardware SPI: CLK = SCK, QH = MISO)." if spi else "."), ox, oy + self.height - 4, 9)


class Mcp23017Bus(Part):
    """MCP23017 expanders on one I2C bus (two chips a row), 4.7k pull-ups on SDA and SCL, a
    sensor from every input to GND (or driving it, for active-high Hall sensors)."""
    PITCH, GAP, LM, ROW = 24, 48, 90, 236
    # PDIP/SOIC-28 pin numbers: GPA0..7 = 21..28, GPB0..7 = 1..8
    PIN_NO = tuple(range(21, 29)) + tuple(range(1, 9))

    def __init__(self, config):
        super().__init__(config)
        s = config["sensor"]
        self.addrs = list(s["addrs"])
        self.inputs = 64 // len(self.addrs)
        self.active = s.get("active", 0)
        sensor = "reed switch or Hall sensor to GND" if not self.active else "active-high Hall sensor driving it"
        self.title = "MCP23017 expanders on I2C%d: %d chips, %d inputs each; every input: %s" % (
            s.get("i2c", 0), len(self.addrs), self.inputs, sensor)
        self.per_row = 2 if self.inputs == 16 else 4
        self.chip_w = self.inputs * self.PITCH
        self.width = self.LM + self.per_row * self.chip_w + (self.per_row - 1) * self.GAP + 30
        rows = (len(self.addrs) + self.per_row - 1) // self.per_row
        self.height = rows * self.ROW + 40
        self.terminals = [("sensor sda", 20), ("sensor scl", 44)]

    def _chip_xy(self, k):
        return self.LM + (k % self.per_row) * (self.chip_w + self.GAP), (k // self.per_row) * self.ROW

    def draw(self, sh, ox, oy):
        cells = make_cell_map(self.config["sensor"].get("cell_map"))
        rows = (len(self.addrs) + self.per_row - 1) // self.per_row
        for i, (label, _pin) in enumerate((("SDA", 13), ("SCL", 12))):
            lx = ox + 20 + 24 * i
            sh.line([(lx, oy), (lx, oy + (rows - 1) * self.ROW + 22 + 12 * i)])
            for r in range(rows):
                by = oy + r * self.ROW + 22 + 12 * i
                sh.line([(lx, by), (ox + self.width - 24, by)])
                sh.dot(lx, by)
                sh.text(label + " bus", lx + 4, by - 2, 8)
        for i, x in enumerate((20, 44)):  # the bus's pull-ups, at the controller's end
            sh.dot(ox + x, oy + 6 + 4 * i)
        sh.resistor((ox + 66, oy + 60), (ox + 66, oy + 110))
        sh.text("4.7k x2: SDA, SCL to 3V3", ox + 4, oy + 126, 8)
        for k, addr in enumerate(self.addrs):
            cx, cy = self._chip_xy(k)
            x, y = ox + cx, oy + cy
            sh.box(x, y + 48, self.chip_w, 58, width=1.8)
            a = addr - 0x20
            sh.text("MCP23017 · 0x%02X · A2 A1 A0 = %d %d %d" % (addr, a >> 2 & 1, a >> 1 & 1, a & 1),
                    x + self.chip_w / 2, y + 62, 10, "middle", bold=True)
            for i, (px, name) in enumerate(((20, "13 SDA"), (56, "12 SCL"))):
                sh.line([(x + px, y + 48), (x + px, y + 22 + 12 * i)])
                sh.dot(x + px, y + 22 + 12 * i)
                sh.text(name, x + px + 3, y + 45, 7)
            for i in range(self.inputs):
                ix = x + 12 + i * self.PITCH
                jy = y + 124
                sh.text(square(cells[k * self.inputs + i]), ix, y + 78, 9, "middle", bold=True)
                sh.text("%s%d" % ("AB"[i // 8], i % 8), ix, y + 90, 7, "middle")
                sh.text(str(self.PIN_NO[i]), ix, y + 100, 7, "middle")
                sh.line([(ix, y + 106), (ix, jy)])
                if self.active:
                    sh.box(ix - 7, jy, 14, 20, width=1)
                    sh.text("H", ix, jy + 14, 8, "middle")
                    sh.ground(ix, jy + 20)
                else:
                    sh.reed((ix, jy), (ix, jy + 34))
                    sh.ground(ix, jy + 34)
        note = ("Every chip: 9 VDD and 18 RESET to 3V3, 10 VSS to GND, 100 nF from 9 to 10; A0 15, A1 16, A2 17 "
                "to GND (0) or 3V3 (1). Inputs use the chip's own pull-ups. A Hall sensor takes a reed switch's place "
                "(docs/io.md).")
        sh.text(note, ox, oy + self.height - 4, 9)


class LedMatrix(Part):
    """8x8 LEDs, anodes joined per row (high-side driver), cathodes per column (220 ohm)."""
    LEAD, CW, CH, TOP, DRV = 12, 58, 50, 96, 64

    def __init__(self, config):
        super().__init__(config)
        led = config["leds"]
        sink = "ULN2803 sink, active high" if led.get("col_active", 0) else "220 ohm each, active low"
        self.title = "LED matrix: 64 LEDs, anodes per row (NPN + PNP high-side driver), cathodes per column (%s)" % sink
        self.x0 = 8 * self.LEAD + self.DRV
        self.width = self.x0 + 8 * self.CW + 20
        self.height = self.TOP + 8 * self.CH + 24
        self.terminals = [("led row %d" % r, (8 - r) * self.LEAD) for r in range(8)]
        self.terminals += [("led col %d" % c, self._col(c)) for c in range(8)]

    def _col(self, c):
        return self.x0 + (c + 1) * self.CW - 6

    def draw(self, sh, ox, oy):
        led = self.config["leds"]
        cells = make_cell_map(led.get("cell_map"))
        bottom = oy + self.TOP + 7 * self.CH + 34
        for c in range(8):
            x = ox + self._col(c)
            sh.resistor((x, oy + 8), (x, oy + 52))
            sh.line([(x, oy + 52), (x, bottom)])
            sh.text("col %d" % c, x + 3, oy + 64, 9)
        sh.text("220 ohm", ox + self._col(0) - 8, oy + 30, 8, "end")
        for r in range(8):
            y = oy + self.TOP + r * self.CH
            lx = ox + (8 - r) * self.LEAD
            dx = ox + 8 * self.LEAD + 8
            sh.line([(lx, oy), (lx, y), (dx, y)])
            sh.box(dx, y - 7, self.DRV - 22, 14, width=1)
            sh.text("driver", dx + (self.DRV - 22) / 2, y + 3.5, 8, "middle")
            sh.line([(dx + self.DRV - 22, y), (ox + self._col(7) + 12, y)])
            sh.text("row %d" % r, dx + self.DRV - 20, y - 4, 9)
            for c in range(8):
                x = ox + self._col(c)
                sh.led((x - 34, y), (x - 34, y + 26))
                sh.line([(x - 34, y + 26), (x, y + 26)])
                sh.dot(x, y + 26)
                sh.dot(x - 34, y)
                sh.text(square(cells[r * 8 + c]), x - 17, y + 42, 10, "middle", bold=True)
        sh.text("driver = NPN (base 1 kOhm from the pin) pulling a PNP's base (1 kOhm): the PNP feeds the row from 3V3",
                ox, oy + self.height - 4, 8)


class EdgeLeds(Part):
    """One LED beside each rank and below each file, from its pin through 330 ohm."""
    PITCH = 40

    def __init__(self, config):
        super().__init__(config)
        self.title = "Edge LEDs: 16 LEDs, each pin -> 330 ohm -> LED -> GND"
        self.roles = ["rank led %d" % (i + 1) for i in range(8)] + ["file led %s" % f for f in FILES]
        self.width = 16 * self.PITCH + 10
        self.height = 130
        self.terminals = [(role, 14 + i * self.PITCH) for i, role in enumerate(self.roles)]

    def draw(self, sh, ox, oy):
        active = self.config["leds"].get("active", 1)
        for role, x in self.terminals:
            x += ox
            sh.resistor((x, oy), (x, oy + 46))
            if active:
                sh.led((x, oy + 46), (x, oy + 80))
                sh.ground(x, oy + 80)
            else:
                sh.led((x, oy + 80), (x, oy + 46))
                sh.supply(x, oy + 80, "3V3", up=False)
            sh.text(role.replace(" led", ""), x, oy + 116, 9, "middle", bold=True)


class NeoPixelChain(Part):
    """The WS2812 chain: data through 330 ohm into pixel 0, DOUT to DIN onwards, 5 V and GND on
    every pixel, 1000 uF across the supply at pixel 0, and the status pixel at the end."""
    SLOT, BOX = 76, 54

    def __init__(self, config):
        super().__init__(config)
        st = config.get("status")
        self.status = st is not None and st.get("kind") == "pixel"
        self.title = "WS2812B chain: %d pixels (64 squares%s), zig-zag as the board view shows" % (
            65 if self.status else 64, " + the status pixel" if self.status else "")
        self.slots = 6 if self.status else 5
        self.x0 = 96
        self.width = self.x0 + self.slots * self.SLOT + 20
        self.height = 170
        self.terminals = [("neopixel data", 70)]

    def draw(self, sh, ox, oy):
        cells = make_cell_map(self.config["leds"].get("cell_map"))
        sh.resistor((ox + 70, oy), (ox + 70, oy + 50))
        sh.text("330 ohm", ox + 76, oy + 30, 8)
        sh.line([(ox + 70, oy + 50), (ox + 70, oy + 90), (ox + self.x0, oy + 90)])
        sh.supply(ox + 24, oy + 56, "5V")
        sh.capacitor((ox + 24, oy + 56), (ox + 24, oy + 118), polarized=True)
        sh.ground(ox + 24, oy + 118)
        sh.text("1000 uF", ox + 24, oy + 146, 8, "middle")
        sh.text("5 V 2 A supply: + to 5V, - to GND (join with the controller's GND)", ox, oy + 164, 8)
        shown = [0, 1, None, 62, 63] + ([64] if self.status else [])
        for slot, index in enumerate(shown):
            x = ox + self.x0 + slot * self.SLOT
            if index is None:
                sh.line([(x - (self.SLOT - self.BOX), oy + 90), (x + self.BOX + 4, oy + 90)], dash="4 3")
                sh.text("pixels 2-61", x + self.BOX / 2, oy + 84, 8, "middle")
                continue
            g = sh.group(class_="pixel", data_index=str(index))
            sh.box(x, oy + 70, self.BOX, 44, g, width=1.8)
            sh.text("#%d" % index, x + self.BOX / 2, oy + 86, 10, "middle", g, bold=True)
            name = square(cells[index]) if index < 64 else "status"
            sh.text(name, x + self.BOX / 2, oy + 100, 9, "middle", g)
            sh.text("DIN", x + 2, oy + 110, 6, group=g)
            sh.text("DOUT", x + self.BOX - 2, oy + 110, 6, "end", g)
            sh.supply(x + self.BOX / 2, oy + 70, "5V")
            sh.ground(x + self.BOX / 2, oy + 114)
            if slot + 1 < len(shown) and shown[slot + 1] is not None:
                sh.line([(x + self.BOX, oy + 90), (x + self.SLOT, oy + 90)])
        if self.status:
            sh.text("status pixel: after %s, the chain's end" % chain_end(self.config),
                    ox + self.x0 + 5 * self.SLOT + self.BOX, oy + 140, 9, "end", bold=True)


class Buttons(Part):
    """Each button from its pin to GND; an input without internal pull-up gets 10k to 3V3."""
    PITCH = 56

    def __init__(self, config):
        super().__init__(config)
        self.names = ordered_names(config["buttons"])
        self.title = "Buttons: %d push buttons, each from its pin to GND" % len(self.names)
        self.width = len(self.names) * self.PITCH + 10
        self.height = 110
        self.terminals = [("button " + n, 14 + i * self.PITCH) for i, n in enumerate(self.names)]

    def draw(self, sh, ox, oy):
        pullups = self.config.get("external_pullups") or ()
        for name, (_role, x) in zip(self.names, self.terminals):
            x += ox
            sh.button((x, oy), (x, oy + 56))
            sh.ground(x, oy + 56)
            sh.text(name, x, oy + 92, 10, "middle", bold=True)
            if self.config["buttons"][name] in pullups:
                sh.dot(x, oy + 12)
                sh.line([(x, oy + 12), (x + 22, oy + 12)])
                sh.resistor((x + 22, oy + 12), (x + 22, oy + 60))
                sh.supply(x + 22, oy + 60, "3V3", up=False)
                sh.text("10k", x + 26, oy + 40, 8)


class Buzzer(Part):
    """A passive piezo switched by an NPN transistor, 1k in the base."""

    def __init__(self, config):
        super().__init__(config)
        self.title = "Buzzer: passive piezo, NPN (2N3904 / BC547), 1 kOhm base resistor"
        self.width, self.height = 150, 130
        self.terminals = [("buzzer", 12)]

    def draw(self, sh, ox, oy):
        sh.resistor((ox + 12, oy), (ox + 12, oy + 60))
        sh.text("1k", ox + 18, oy + 36, 8)
        sh.line([(ox + 12, oy + 60), (ox + 12, oy + 80)])
        collector, emitter = sh.npn(ox + 12, oy + 80)
        sh.ground(*emitter)
        sh.piezo((collector[0], oy + 24), collector)
        sh.supply(collector[0], oy + 24, "5V")
        sh.text("piezo", collector[0] + 10, oy + 44, 9)
        sh.text("NPN", collector[0] + 14, oy + 84, 9)


class Display(Part):
    """The SSD1306 I2C OLED module."""

    def __init__(self, config):
        super().__init__(config)
        d = config["display"]
        self.title = "Display: SSD1306 128x64 OLED, I2C%d at 0x%02X" % (d["i2c"], d["addr"])
        self.width, self.height = 150, 130
        self.terminals = [("display sda", 20), ("display scl", 50)]

    def draw(self, sh, ox, oy):
        sh.line([(ox + 20, oy), (ox + 20, oy + 50)])
        sh.line([(ox + 50, oy), (ox + 50, oy + 50)])
        sh.supply(ox + 80, oy + 30, "3V3")
        sh.line([(ox + 80, oy + 30), (ox + 80, oy + 50)])
        sh.line([(ox + 110, oy + 50), (ox + 110, oy + 26), (ox + 124, oy + 26)])
        sh.ground(ox + 124, oy + 26)
        for x, name in ((20, "SDA"), (50, "SCL"), (80, "VCC"), (110, "GND")):
            sh.text(name, ox + x, oy + 64, 9, "middle")
        sh.box(ox + 6, oy + 50, 130, 62, width=1.8)
        sh.text("SSD1306 128x64", ox + 71, oy + 84, 10, "middle", bold=True)
        sh.text("I2C 0x%02X" % self.config["display"]["addr"], ox + 71, oy + 100, 9, "middle")


class StatusPin(Part):
    """One status LED on its own pin."""

    def __init__(self, config):
        super().__init__(config)
        self.active = config["status"].get("active", 1)
        self.title = "Status LED: pin -> 330 ohm -> LED -> %s" % ("GND" if self.active else "3V3")
        self.width, self.height = 110, 120
        self.terminals = [("status light", 12)]

    def draw(self, sh, ox, oy):
        sh.resistor((ox + 12, oy), (ox + 12, oy + 46))
        sh.text("330 ohm", ox + 18, oy + 30, 8)
        if self.active:
            sh.led((ox + 12, oy + 46), (ox + 12, oy + 80))
            sh.ground(ox + 12, oy + 80)
        else:
            sh.led((ox + 12, oy + 80), (ox + 12, oy + 46))
            sh.supply(ox + 12, oy + 80, "3V3", up=False)
        sh.text("status LED", ox + 12, oy + 112, 10, "middle", bold=True)


def parts_for(config):
    """The parts of a (checked) config, in drawing order."""
    sensor = {"matrix": ReedMatrix, "shift165": Shift165Chain, "mcp23017": Mcp23017Bus}[config["sensor"]["kind"]]
    leds = {"matrix": LedMatrix, "edge": EdgeLeds, "neopixel": NeoPixelChain}[config["leds"]["kind"]]
    out = [sensor(config), leds(config), Buttons(config)]
    if config.get("buzzer") is not None:
        out.append(Buzzer(config))
    if config.get("display") is not None:
        out.append(Display(config))
    st = config.get("status")
    if st is not None and st.get("kind") == "pin":
        out.append(StatusPin(config))
    return out
