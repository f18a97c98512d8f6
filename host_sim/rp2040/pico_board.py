"""The Reedchess board at the pins of an emulated Pico, with the Simulator's API.

    from host_sim.rp2040.pico_board import PicoBoard
    with PicoBoard() as b:               # starts host_sim/rp2040/board.mjs (rp2040js + stock MicroPython)
        b.flash()                        # make flash BOARD=pico through mpremote (tools.flash)
        b.boot()                         # soft reset: main.py runs, until its console answers
        b.lift("e2"); b.run(250); b.place("e4"); b.run(600)   # reed switches, emulated ms
        b.lit()                          # {"e7": "on", ...} decoded from the WS2812 data pin
        b.computer_move()                # "e7e5": the green squares read against b.board
        b.press("hint"); b.press("new", long=True)           # buttons pulled to ground
        b.game()                         # ["e2e4", ...]: the console's `moves`
        b.display_text()                 # the SSD1306's RAM read back with the firmware's font
        b.buzzer_tones()                 # [(ms, hz, duty_u16)] every change of the buzzer's PWM
        image = b.power_cut()            # the power goes now: the flash kept in a file, runner gone
        b.power_on(image)                # a new runner from that flash, the pieces where they were:
                                         # main.py runs by itself, until its console answers
        b.replay(SensorLog.load(path))   # a sensor log's events at the pins (replay_pins.py)

The chip runs freely (as a real one); `run(ms)` returns once that much emulated time has
passed. Touches and presses take effect at once at the pins; the firmware sees them only by
scanning its rows and reading its columns. The USB serial is the one EmulatedPico speaks
(tools/emulated_pico.py): flash(), exec(), soft_reset(), ask() work as there. What is
modelled and what not: docs/pin-model.md.
"""
import json
import os
import socket
import subprocess
import time

import chess

from firmware.io.cellmap import make_cell_map
from host_sim.pins import FakeSsd1306
from tools.emulated_pico import (CACHE, HOLD_BOOT_PY, RP_DIR, RUNNER, STOCK_FIRMWARE, DeviceError, EmulatedPico,
                                 free_port, unavailable)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PATTERN_NAMES = ("off", "on", "blink", "blink-fast")
WINDOW_MS = 1100  # lit(): frames looked at (a slow blink's period is 1024 ms)
HAND_MS = 250
# A short press is held 200 ms (the Simulator's 80 ms can fall between two scans of the buttons:
# on the chip, the main loop stops scanning for ~150-250 ms after a touch, see docs/pin-model.md)
PRESS_MS = 200


def board_model(config):
    """The runner's --config for a board CONFIG with a reed matrix or MCP23017 expanders and
    NeoPixel LEDs."""
    s, led = config["sensor"], config["leds"]
    if s["kind"] not in ("matrix", "mcp23017") or led["kind"] != "neopixel":
        raise ValueError("the pin model knows the reed matrix, MCP23017 expanders and NeoPixel LEDs (board %s)"
                         % config["name"])
    st = config.get("status")
    d = config.get("display")
    mcp = None
    if s["kind"] == "mcp23017":
        mcp = {"i2c": s.get("i2c", 0), "addrs": list(s["addrs"]), "pins": 64 // len(s["addrs"]),
               "active": s.get("active", 0)}
    return {
        "rows": list(s.get("rows", ())), "cols": list(s.get("cols", ())), "mcp": mcp,
        "buttons": sorted(config["buttons"].values()),
        "neopixel": led["pin"], "pixels": 65 if st and st.get("kind") == "pixel" else 64,
        "buzzer": (config.get("buzzer") or {}).get("pin"),
        "i2c": d.get("i2c", 0) if d else None, "i2c_addr": d.get("addr", 0x3C) if d else None,
    }


def colour_role(rgb):
    """The firmware's LED role from a pixel's colour (firmware/io/leds.py: MOVE green, HINT
    blue, ERROR red, INFO amber), or None when dark."""
    r, g, b = rgb
    if not (r or g or b):
        return None
    if b > r and b >= g:
        return "hint"
    if r and not g:
        return "error"
    if r and g:
        return "info"
    return "move"


class CutFired(Exception):
    """An armed power cut happened (PicoBoard.stop_at_cut): args[0] is its {"ns", "calls", "path"}."""


class PinPico(EmulatedPico):
    """EmulatedPico on host_sim/rp2040/board.mjs: the same USB serial, plus the control port."""

    def __init__(self, model, boot_timeout=60, log_path=None, flash_image=None, closed=()):
        """flash_image: a saved flash (flash_save, cut) instead of the stock image: main.py
        then runs at power-on and start() does not wait for the REPL's prompt. closed: the
        matrix positions of the reed switches closed from the first instruction on."""
        EmulatedPico.__init__(self, boot_timeout=boot_timeout, log_path=log_path)
        self.model = model
        self.flash_image = flash_image
        self.closed = list(closed)
        self.control_port = None
        self.ctl_sock = None
        self.ctl_buf = b""

    def start(self):
        why = unavailable()
        if why:
            raise DeviceError(why)
        self.port = free_port()
        self.control_port = free_port()
        self.log_path = self.log_path or os.path.join(CACHE, "pins-%d.log" % self.port)
        self._log = open(self.log_path, "w")
        cmd = ["node", RUNNER, "--rp-dir", RP_DIR, "--tcp", str(self.port), "--control", str(self.control_port),
               "--config", json.dumps(self.model), "--quiet"]
        if self.flash_image:
            cmd += ["--flash-image", self.flash_image]
        if self.closed:
            cmd += ["--closed", ",".join(str(p) for p in self.closed)]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        end = time.monotonic() + self.boot_timeout
        while True:
            if self.proc.poll() is not None:
                raise DeviceError("the runner exited (%s): %s" % (self.proc.returncode, self._runner_log()))
            try:
                self.connect()
                self.ctl_sock = socket.create_connection(("127.0.0.1", self.control_port), timeout=5)
                break
            except OSError:
                self.disconnect()
                if time.monotonic() > end:
                    raise DeviceError("the runner did not listen: %s" % self._runner_log()) from None
                time.sleep(0.1)
        self.ctl_sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.flash_image:
            return self  # a saved flash: main.py runs (PicoBoard.power_on waits for its console)
        self.write(b"\r\n")
        self.read_until(b">>> ", timeout=self.boot_timeout)
        if self.hold:
            self.hold_heap()
        return self

    def stop(self):
        if self.ctl_sock is not None:
            try:
                self.ctl_sock.close()
            except OSError:
                pass
            self.ctl_sock = None
        EmulatedPico.stop(self)

    def ctl(self, op, timeout=600, **args):
        """One control request; returns the answer (a dict with "ns")."""
        args["op"] = op
        self.ctl_sock.sendall(json.dumps(args).encode() + b"\n")
        deadline = time.monotonic() + timeout
        while b"\n" not in self.ctl_buf:
            if self.proc.poll() is not None:
                raise DeviceError("the runner died: %s" % self._runner_log())
            left = deadline - time.monotonic()
            if left <= 0:
                raise DeviceError("no answer to %s within %s s" % (op, timeout)) from None
            self.ctl_sock.settimeout(min(left, 1.0))
            try:
                chunk = self.ctl_sock.recv(1 << 20)
            except socket.timeout:
                continue
            if not chunk:
                raise DeviceError("the runner closed the control port: %s" % self._runner_log())
            self.ctl_buf += chunk
        i = self.ctl_buf.index(b"\n")
        line, self.ctl_buf = self.ctl_buf[:i], self.ctl_buf[i + 1:]
        reply = json.loads(line)
        if "error" in reply:
            raise DeviceError("control %s: %s" % (op, reply["error"]))
        return reply


class PicoBoard:
    """The Simulator's API on the emulated chip (see the module doc)."""

    def __init__(self, board="pico", fen=None, log_path=None, display=True):
        """display=False: nothing answers on the display's I2C address (the firmware then
        reports the display missing and stops drawing)."""
        import importlib

        self.config = importlib.import_module("boards." + board).CONFIG
        self.board_name = board
        model = board_model(self.config)
        if not display:
            model["i2c"] = None
        self.pico = PinPico(model, log_path=log_path)
        self._sensor_phys = {}  # cell -> matrix position
        for phys, cell in enumerate(make_cell_map(self.config["sensor"].get("cell_map"))):
            self._sensor_phys[cell] = phys
        self._pixel_cell = make_cell_map(self.config["leds"].get("cell_map"))  # pixel -> cell
        self.board = chess.Board(fen) if fen else chess.Board()  # the host's picture of the game
        self.occupied = set()  # cells with a piece on them (what the switches say)
        self.last_ns = 0
        self.display_on = display
        self.cut = None  # {"ns", "calls", "path"} once an armed cut fired (arm_cut)
        self.halted = False
        self.stop_at_cut = False  # True: the first answer after an armed cut fired raises CutFired
        self.touch_log = []  # [(ns, frozenset(occupied))] after every change of the switches
        self.images = []  # flash images this board wrote (power_cut), removed by forget_images()

    # ---- process -----------------------------------------------------------------------------
    def start(self):
        self.pico.start()
        return self

    def stop(self):
        self.pico.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def ctl(self, op, **args):
        reply = self.pico.ctl(op, **args)
        self.last_ns = reply["ns"]
        if "cut" in reply:
            self.cut = reply["cut"]
            if self.stop_at_cut:
                self.stop_at_cut = False
                raise CutFired(self.cut)
        self.halted = bool(reply.get("halted"))
        return reply

    def flash(self, **kw):
        """`make flash BOARD=pico PORT=socket://...`: tools.flash through mpremote."""
        return self.pico.flash(board=self.board_name, **kw)

    def saved_flash(self):
        """The path of this build's saved flash in .cache/rp2040-flashed/, named by a digest of
        everything the flash writes (the board's files, the flash tool, the stock image). The
        first caller for a build flashes (`make flash` through flash(), ~45 s of host time; the
        runner is started first if it is not running, and the board is left at the REPL) and keeps
        the flash, and the flash's output beside it (flash_output); a lock makes other callers
        (test modules on other pytest workers) wait for it. A board other than `pico` is flashed
        over the pico's saved flash, as a user re-flashes a board for another wiring: make flash
        then copies only the files that differ. Nothing runs when the flash was saved before.
        Returns (path, the flash's output or "")."""
        from tools.emulated_pico import _lock

        folder = os.path.join(CACHE, "rp2040-flashed")
        os.makedirs(folder, exist_ok=True)
        image = os.path.join(folder, "%s-%s.img" % (self.board_name, _build_digest(self.board_name)))
        log = image[:-len(".img")] + ".log"
        lock = _lock(os.path.join(folder, "%s.lock" % self.board_name))
        try:
            if not (os.path.exists(image) and os.path.exists(log)):  # a flash kept without its output: again
                if self.board_name != "pico":
                    maker = PicoBoard("pico", display=False)
                    try:
                        base = maker.saved_flash()[0]
                    finally:
                        maker.stop()
                    self._runner_from(base)
                    stop_main(self.pico)
                elif self.pico.proc is None:
                    self.start()  # the stock image, at its REPL
                out = self.flash()
                for name in os.listdir(folder):  # older builds' flashes
                    if name.startswith(self.board_name + "-") and name.endswith((".img", ".log")):
                        os.remove(os.path.join(folder, name))
                self.save_flash(image + ".part")
                with open(log, "w") as f:
                    f.write(out)
                os.replace(image + ".part", image)
                return image, out
        finally:
            lock.close()
        return image, ""

    def flash_or_reuse(self):
        """The same as flash() (the board left at the REPL with the firmware on its flash), from
        this build's saved flash (saved_flash) when it was flashed before: main.py is stopped
        with Ctrl-C early in its boot. Returns the flash's output, or "" when it powered on from
        a saved flash. A caller that wants main.py running anyway powers on with
        power_on(saved_flash()[0]) instead: one boot, not a stopped one and a soft reset."""
        image, out = self.saved_flash()
        if out:
            return out
        self._runner_from(image)
        stop_main(self.pico)
        return ""

    def boot(self, timeout=240):
        """Soft reset (main.py runs, as after power-on) with the pieces of `self.board` on the
        switches; returns the lines main printed until its console answered `status`."""
        self.arrange(self.board)
        self.pico.transcript = []
        self.pico.soft_reset(until=lambda line: True)
        return self.wait_console(timeout)

    def wait_console(self, timeout=240):
        """Until main.py's console answers `status`; returns the lines read meanwhile."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pico.send_line("status")
            end = time.monotonic() + 5
            while time.monotonic() < end:
                line = self.pico.read_line(timeout=1, missing=None)
                if line is None:
                    continue
                if "Traceback" in line or line.startswith(">>>"):
                    raise DeviceError("main.py stopped:\n%s" % "\n".join(self.pico.transcript[-40:]))
                if " ply " in line:
                    return list(self.pico.transcript)
        raise DeviceError("the console did not answer: %s" % self.pico.transcript[-20:])

    # ---- the flash, power cuts ---------------------------------------------------------------
    def save_flash(self, path):
        """The whole flash as it is now (MicroPython's image and the littlefs with the firmware's
        files, journal included) into `path`; power_on(path) boots from it."""
        self.ctl("flash_save", path=os.path.abspath(path))
        return path

    def _image_path(self):
        path = os.path.join(CACHE, "flash-%d-%d.img" % (self.pico.port, len(self.images)))
        self.images.append(path)
        return path

    def arm_cut(self, at_ns=None, flash_call=None, path=None, halt=False):
        """A power cut at emulated time `at_ns`, or just before the `flash_call`-th boot-ROM
        erase/program call from now: the runner saves the flash into `path` at that moment
        (between two instructions). halt=False: the chip runs on, so the caller can still ask
        what it did after (the cut's moment is in self.cut["ns"] once it fired, the pieces
        then in occupied_at()); then power_on(path) as if the power had gone at that moment."""
        path = os.path.abspath(path or self._image_path())
        args = {"path": path, "halt": halt}
        if at_ns is not None:
            args["at_ns"] = int(at_ns)
        if flash_call is not None:
            args["flash_call"] = int(flash_call)
        self.cut = None
        self.ctl("cut", **args)
        return path

    def flash_ops(self, since_ns=0):
        """[(ns, "RE" | "RP", flash offset, bytes)]: the boot ROM's erase/program calls after since_ns."""
        return [tuple(o) for o in self.ctl("flash_ops", since_ns=since_ns)["ops"]]

    def power_cut(self, path=None):
        """The power goes now: the flash as it is at this instruction is kept in `path` (default:
        a file in .cache/), the runner stops. Returns the path (for power_on)."""
        path = self.arm_cut(at_ns=0, path=path, halt=True)
        while self.cut is None:
            self.ctl("time")
        self.stop()
        return path

    def occupied_at(self, ns):
        """The cells the pieces stood on at emulated time `ns` (from touch_log)."""
        occ = None
        for t, cells in self.touch_log:
            if t > ns:
                break
            occ = cells
        return set(occ) if occ is not None else set(self.occupied)

    def power_on(self, image, occupied=None, timeout=240):
        """Power on from a saved flash (`image`: save_flash, power_cut or arm_cut): a new runner
        (the old one is stopped if still running), the switches closed under `occupied` (cells;
        default: where the pieces stand now) from the first instruction on. main.py runs by
        itself, as after a real power-on; returns the lines printed until its console answered.
        Emulated time starts again at 0, like the chip's clock."""
        if occupied is not None:
            self.occupied = set(occupied)
        self._runner_from(image)
        self.pico.transcript = []
        return self.wait_console(timeout)

    def _runner_from(self, image):
        """A new runner (the old one stopped) from a saved flash, the switches closed under
        self.occupied from the first instruction on; emulated time starts again at 0."""
        if self.pico.proc is not None:
            self.pico.stop()
        self.touch_log = [(0, frozenset(self.occupied))]
        closed = sorted(self._sensor_phys[c] for c in self.occupied)
        self.pico = PinPico(self.pico.model, flash_image=os.path.abspath(image), closed=closed)
        self.cut, self.halted, self.last_ns = None, False, 0
        self.pico.start()

    def forget_images(self):
        for path in self.images:
            if os.path.exists(path):
                os.remove(path)
        self.images = []

    def replay(self, log, **kw):
        """Perform a sensor log's events at the pins at their logged times (replay_pins.replay)."""
        from host_sim.rp2040.replay_pins import replay

        return replay(self, log, **kw)

    # ---- time ---------------------------------------------------------------------------------
    def now_ms(self):
        return self.ctl("time")["ns"] / 1e6

    def run(self, ms):
        """Return once `ms` more emulated milliseconds have run."""
        self.ctl("run", ms=ms)

    # ---- the pieces -------------------------------------------------------------------------
    def _cell(self, sq):
        return chess.parse_square(sq) if isinstance(sq, str) else sq

    def _switch(self, cell, closed):
        if closed:
            self.occupied.add(cell)
        else:
            self.occupied.discard(cell)
        ns = self.ctl("switch", phys=self._sensor_phys[cell], closed=closed)["ns"]
        self.touch_log.append((ns, frozenset(self.occupied)))
        return ns

    def lift(self, sq):
        """Take the piece off `sq`: its reed switch opens. Returns the emulated ns it happened at."""
        return self._switch(self._cell(sq), False)

    def place(self, sq):
        return self._switch(self._cell(sq), True)

    def arrange(self, board):
        """Every switch at once to the pieces of `board` (a chess.Board or a FEN)."""
        if isinstance(board, str):
            board = chess.Board(board)
        self.occupied = {sq for sq in chess.SQUARES if board.piece_at(sq)}
        ns = self.ctl("switches", closed=[self._sensor_phys[c] for c in sorted(self.occupied)])["ns"]
        self.touch_log.append((ns, frozenset(self.occupied)))

    # ---- the expanders' bus (boards with MCP23017 sensors) ---------------------------------------
    def unplug(self, addr):
        """The MCP23017 at `addr` leaves its bus (a loose wire): nothing answers there."""
        self.ctl("mcp", addr=addr, present=False)

    def plug(self, addr):
        """The MCP23017 at `addr` is back on its bus, with its power-on registers."""
        self.ctl("mcp", addr=addr, present=True)

    def hold_bus(self, bus, low=True):
        """I2C bus `bus` held low (low=False: freed): every transfer on it fails."""
        self.ctl("i2c_hold", bus=bus, low=low)

    def expander_registers(self):
        """{addr: [22 register bytes]} of the modelled MCP23017s."""
        return {int(a): regs for a, regs in self.ctl("mcp_regs")["regs"].items()}

    # ---- buttons --------------------------------------------------------------------------------
    def hold(self, name):
        self.ctl("button", pin=self.config["buttons"][name], down=True)

    def release(self, name):
        self.ctl("button", pin=self.config["buttons"][name], down=False)

    def press(self, name, long=False, hold_ms=PRESS_MS):
        """Press and release (long: held past the board's long_press_ms), in emulated time."""
        self.hold(name)
        self.run(self.config["long_press_ms"] + 100 if long else hold_ms)
        self.release(name)
        self.run(60)

    # ---- what the board shows --------------------------------------------------------------------
    def frames(self, since_ns=0):
        """[(t_ns, [(r, g, b)] per pixel)]: the LED frames latched after since_ns, and the one
        showing at since_ns."""
        out = []
        for f in self.ctl("frames", since_ns=since_ns)["frames"]:
            px = bytes.fromhex(f["px"])
            out.append((f["t"], [tuple(px[3 * i:3 * i + 3]) for i in range(len(px) // 3)]))
        return out

    def leds(self):
        """{square: (r, g, b)} of the lit board pixels in the latest frame."""
        frames = self.frames(self.last_ns + 10 ** 12)  # only the latest
        if not frames:
            return {}
        return {chess.square_name(self._pixel_cell[i]): rgb for i, rgb in enumerate(frames[-1][1][:64]) if any(rgb)}

    def lit(self, roles=False):
        """{square: "on" | "blink" | "blink-fast"} over the last WINDOW_MS of emulated time (a
        pixel that went on and off twice or more in one colour, the last time recently, blinks;
        fast when its changes are < 300 ms apart). roles=True: {square: (pattern, role)}."""
        now = self.ctl("time")["ns"]
        frames = self.frames(now - WINDOW_MS * 10 ** 6)
        out = {}
        if not frames:
            return out
        for i in range(64):
            changes, last, colour = [], None, None
            for t, px in frames:
                on = any(px[i])
                if on:
                    if colour is not None and px[i] != colour:
                        changes = []  # lit again in another colour: something new, not a blink
                    colour = px[i]
                if last is not None and on != last:
                    changes.append(t)
                last = on
            if len(changes) >= 2 and now - changes[-1] < 700 * 10 ** 6:
                gaps = [b - a for a, b in zip(changes, changes[1:])]
                pattern = "blink-fast" if min(gaps) < 300 * 10 ** 6 else "blink"
            elif last:
                pattern = "on"
            else:
                continue
            sq = chess.square_name(self._pixel_cell[i])
            out[sq] = (pattern, colour_role(colour)) if roles else pattern
        return out

    def computer_move(self, board=None):
        """The move the green (MOVE) squares show, as UCI, read against `board` (default:
        self.board, the host's picture of the game); None when none is shown."""
        board = board or self.board
        lit = self.lit(roles=True)
        green = {chess.parse_square(sq) for sq, (pat, role) in lit.items() if role == "move" and pat == "on"}
        if len(green) < 2:
            return None
        found = []
        for m in board.legal_moves:
            if m.from_square in green and m.to_square in green:
                if board.is_castling(m) and len(green) != 4:
                    continue
                if not board.is_castling(m) and len(green) != 2:
                    continue
                found.append(m)
        if not found:
            return None
        # a promotion: the LEDs show only the squares; the record says which piece (game())
        return found[0].uci()[:4] + ("q" if found[0].promotion else "")

    def game(self):
        """The firmware's game record (UCI), asked over the USB serial (`moves`)."""
        line = self.console("moves", lambda l: all(len(w) in (4, 5) and w[1] in "12345678" for w in l.split()))
        return line.split()

    def console(self, line, accept=None, timeout=120):
        """Send a console line over the USB serial; returns the answer accept() takes."""
        answer = self.pico.ask(line, accept, timeout=timeout)
        if answer.startswith("error:") or "Traceback" in answer:
            raise DeviceError("%r answered %r" % (line, answer))
        return answer

    def display(self):
        """A FakeSsd1306 holding the emulated display's RAM (its read_text(), ascii_art())."""
        d = self.ctl("display")
        disp = FakeSsd1306()
        disp.ram[:] = bytes.fromhex(d["ram"])
        disp.on = d["on"]
        return disp

    def display_text(self):
        return self.display().read_text()

    def buzzer_tones(self, since_ns=0):
        """[(ms, hz, duty_u16)]: every change of the buzzer pin's PWM after since_ns."""
        return [(t / 1e6, hz, duty) for t, hz, duty in self.ctl("buzzer", since_ns=since_ns)["tones"]]


# ---- a hand at the board (for tests and benchmarks) -------------------------------------------------
PROMOTION_STEPS = {chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3}  # level presses: d, a, c, b


def flash_output(image):
    """What `make flash` printed when it made the saved flash `image` (PicoBoard.saved_flash)."""
    with open(image[:-len(".img")] + ".log") as f:
        return f.read()


def stop_main(pico, timeout=120):
    """Ctrl-C until the REPL of `pico` (an EmulatedPico powered on from a saved flash) answers:
    main.py stops early in its boot."""
    deadline = time.monotonic() + timeout
    while True:
        pico.write(b"\x03")
        try:
            pico.read_until(b">>> ", timeout=1)
            break
        except DeviceError:
            if time.monotonic() > deadline:
                raise
    pico.buf = b""


def _build_digest(board):
    """A digest of what `make flash BOARD=board` puts on the stock image: the files it copies
    (tools/fileset.py), the tools that compile and copy them, and the stock image itself."""
    import hashlib

    from tools import fileset

    paths = fileset.firmware_sources() + fileset.data_files() + fileset.board_files(board)
    if board != "pico":  # flashed over the pico's saved flash (PicoBoard.saved_flash)
        paths += fileset.board_files("pico")
    paths += ["tools/flash.py", "tools/fileset.py", "tools/ram_needs.json", "host_sim/rp2040/board.mjs"]
    digest = hashlib.sha256()
    for rel in sorted(set(paths)):
        digest.update(rel.encode() + b"\0")
        with open(os.path.join(ROOT, rel), "rb") as f:
            digest.update(f.read())
    with open(os.path.join(RP_DIR, STOCK_FIRMWARE), "rb") as f:  # the stock firmware, and the heap hold
        digest.update(f.read())
    digest.update(HOLD_BOOT_PY.encode())
    from tools.flash import mpy_cross_version

    digest.update(str(mpy_cross_version()).encode())
    return digest.hexdigest()[:16]


def touches(board, move, order="natural"):
    """[(action, square)] that make `move` on `board` by hand, as host_sim/physical.py plans
    them. order: "natural" (a capture lifts the victim first, castling moves the king first,
    en passant takes the pawn off after the move), "mover-first" (the capturing piece is
    lifted, then the victim), "rook-first" (castling), "victim-first" (en passant)."""
    fr, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
    if board.is_castling(move):
        rank = fr[1]
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        rook = [("lift", ("h" if kingside else "a") + rank), ("place", ("f" if kingside else "d") + rank)]
        king = [("lift", fr), ("place", to)]
        return rook + king if order == "rook-first" else king + rook
    mover = [("lift", fr), ("place", to)]
    if board.is_en_passant(move):
        take = [("lift", chess.square_name(move.to_square + (-8 if board.turn == chess.WHITE else 8)))]
        return take + mover if order == "victim-first" else mover + take
    if board.piece_at(move.to_square) is None:
        return mover
    if order == "mover-first":  # the mover is held over the square while the victim comes off
        return [("lift", fr), ("lift", to), ("place", to)]
    return [("lift", to)] + mover


def _status(b):
    line = b.console("status", lambda l: " ply " in l)
    phase, _, ply, result = line.split()[:4]
    return phase, int(ply), result


def play(b, move, order="natural", hand_ms=HAND_MS, timeout=120, choose=True):
    """Make `move` (UCI or chess.Move) on PicoBoard `b` by hand, a promotion chosen with
    *level* presses and confirmed with *ok* (choose=False: the computer's own promotion, shown
    on its LEDs, needs no choice); returns once the firmware counted it."""
    if isinstance(move, str):
        move = chess.Move.from_uci(move)
    if move not in b.board.legal_moves:
        raise AssertionError("%s is not legal in %s" % (move, b.board.fen()))
    ply = len(b.board.move_stack) + 1
    for i, (action, sq) in enumerate(touches(b.board, move, order)):
        if i:
            b.run(hand_ms)
        getattr(b, action)(sq)
    if move.promotion and choose:
        wait_status(b, lambda s: s[0] == "promote", timeout)
        for _ in range(PROMOTION_STEPS[move.promotion]):
            b.press("level")
        b.press("ok")
    b.board.push(move)
    wait_status(b, lambda s: s[1] == ply and s[0] != "promote", timeout)
    return move


def wait_status(b, pred, timeout=120, step_ms=100):
    deadline = time.monotonic() + timeout
    while True:
        s = _status(b)
        if pred(s):
            return s
        if time.monotonic() > deadline:
            raise AssertionError("status %s; lit %s" % (s, b.lit(roles=True)))
        b.run(step_ms)


def wait_computer(b, timeout=240, step_ms=150):
    """The computer's move as the LEDs show it (chess.Move of b.board)."""
    deadline = time.monotonic() + timeout
    while True:
        m = b.computer_move()
        if m is not None:
            return chess.Move.from_uci(m)
        if time.monotonic() > deadline:
            raise AssertionError("no computer move lit; status %s, lit %s" % (_status(b), b.lit(roles=True)))
        b.run(step_ms)


def wait_lit(b, pred, timeout=120, step_ms=150):
    deadline = time.monotonic() + timeout
    while True:
        lit = b.lit(roles=True)
        if pred(lit):
            return lit
        if time.monotonic() > deadline:
            raise AssertionError("LEDs: %s" % lit)
        b.run(step_ms)


def scan_gaps(b, since_ns=0, gap_ms=50):
    """(scans, [(from_ms, to_ms)]): the firmware's matrix scans after since_ns and the gaps
    between two scans longer than gap_ms (a touch or press shorter than a gap can be missed)."""
    r = b.ctl("scans", since_ns=since_ns, gap_ms=gap_ms)
    return r["count"], [(a / 1e6, c / 1e6) for a, c in r["gaps"]]
