"""Drive an emulated stock Raspberry Pi Pico: MicroPython's RPI_PICO image on rp2040js.

    make emulators                       # installs it into .cache/rp2040/ (and the wasm port)
    python -m tools.emulated_pico        # boot, flash (make flash BOARD=pico), run main.py,
                                         # then a console: type lines, see what the board prints
    python -m tools.emulated_pico --no-flash --repl    # just a Pico at the friendly REPL

    from tools.emulated_pico import EmulatedPico, unavailable
    why = unavailable()                  # None, or why there is no emulator (node, npm, files)
    with EmulatedPico() as pico:         # starts the runner on a free loopback port, waits for >>>
        pico.flash()                     # python -m tools.flash --board pico --port socket://...
        out = pico.exec("import gc; print(gc.mem_free())")   # raw REPL; raises DeviceError on a traceback
        pico.write_file("main.py", text)
        boot = pico.soft_reset()         # Ctrl-D at the friendly REPL: main.py runs
        line = pico.ask("mem", lambda l: l.startswith("mem "))   # console while main runs
        pico.send_line("fen"); pico.read_line(timeout=10)

The emulator (docs/emulated-pico.md) is the repository's own: the runner host_sim/rp2040/board.mjs
(started bare here, with a board at its pins by host_sim/rp2040/pico_board.py), the RP2040 boot
ROM beside it (host_sim/rp2040/bootrom/), npm `rp2040js` (pinned) and MicroPython 1.28.0's stock
RPI_PICO firmware, both in .cache/rp2040/. The firmware is built from the pinned source by
tools/image.py (MICROPY_SRC, else ../shared/micropython/ when it is there, else a shallow clone;
needs gcc-arm-none-eabi, newlib and cmake), or taken from REEDCHESS_PICO_FIRMWARE: the release
file a person downloaded from micropython.org (.uf2 or .bin), checked to be 1.28.0 for the
RP2040. The runner serves the board's USB serial on a TCP port, so
mpremote, and with it the real flash path, talks to it as `socket://127.0.0.1:PORT`. Only one
client at a time: a new connection drops the old one, so this driver lets go of its socket
while mpremote flashes. The emulated flash lives in the runner's memory: gone at stop().

The heap is held to the figure the stock fit tests were set against (HELD_FREE_BYTES): 1.28.0
leaves more free after boot than the 1.29 preview those floors were measured on, so a boot.py
written at start takes the difference before main.py runs (hold_heap(); hold_heap=False for
the firmware's own figure).

While main.py runs, nothing here sends Ctrl-C (it would stop the chess computer): console
lines only. exec() is for the REPL (before soft_reset, or when no main.py runs).
"""
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache")
RP_DIR = os.path.join(CACHE, "rp2040")
RP2040JS_VERSION = "1.4.1"
RUNNER = os.path.join(ROOT, "host_sim", "rp2040", "board.mjs")
BOOTROM = os.path.join(ROOT, "host_sim", "rp2040", "bootrom", "rp2040-bootrom-b1.bin")
BOOTROM_SHA256 = "90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae"
STOCK_BOARD = "pico"  # tools/image.py's name for MicroPython's RPI_PICO
STOCK_FIRMWARE = "micropython-RPI_PICO-v1.28.0.bin"  # in RP_DIR: flash image from 0x10000000
STOCK_INFO = STOCK_FIRMWARE[:-4] + ".json"  # where it came from (built, or a downloaded file)
USER_FIRMWARE = "REEDCHESS_PICO_FIRMWARE"  # env: an official RPI_PICO v1.28.0 .uf2/.bin to use
FAILED = "INSTALL-FAILED"  # holds why the last install failed (tests skip with it)
STAMP = ".installed"
RAW_PROMPT = b"raw REPL; CTRL-B to exit\r\n>"
# The free heap after boot that the stock fit tests' floors were set against: MicroPython
# 1.29.0-preview.585's RPI_PICO, measured 2026-12-01. 1.28.0 leaves 241,472 bytes; the hold
# takes the difference before main.py runs, so the tests stay as strict as they were.
HELD_FREE_BYTES = 229376
HOLD_NAME = "_reedchess_heap_hold"
HOLD_BOOT_PY = """# Written by tools/emulated_pico.py: holds the free heap at %d bytes, the figure the stock fit
# tests were set against (see HELD_FREE_BYTES there). Not part of Reedchess.
import gc
gc.collect()
%s = bytearray(max(0, gc.mem_free() - %d - %d))
gc.collect()
""" % (HELD_FREE_BYTES, HOLD_NAME, HELD_FREE_BYTES, 32)


class DeviceError(RuntimeError):
    """The emulated board did something unexpected (a traceback, no answer in time)."""


# ------------------------------------------------------------------------------ installing
def _npm_install(folder, package, version, log):
    """Write folder/package.json pinning `package`@`version` and npm install it there.
    Returns None, or why it failed (also kept in folder/INSTALL-FAILED)."""
    os.makedirs(folder, exist_ok=True)
    failed = os.path.join(folder, FAILED)
    stamp = os.path.join(folder, STAMP)
    want = "%s@%s" % (package, version)
    installed = os.path.join(folder, "node_modules", *package.split("/"), "package.json")

    def fail(why):
        with open(failed, "w") as f:
            f.write(why + "\n")
        if os.path.exists(stamp):
            os.remove(stamp)
        return why

    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        return fail("%s not found on PATH (install Node.js >= 18 with npm)" % ("node" if not node else "npm"))
    if _installed_version(installed) == version and os.path.exists(stamp):
        return None
    with open(os.path.join(folder, "package.json"), "w") as f:
        json.dump({"name": "reedchess-" + os.path.basename(folder), "private": True,
                   "dependencies": {package: version}}, f, indent=1)
        f.write("\n")
    if log:
        log("npm install %s into %s" % (want, os.path.relpath(folder, ROOT)))
    try:
        proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder,
                              capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return fail("npm install %s failed: %s" % (want, exc))
    if proc.returncode != 0 or _installed_version(installed) != version:
        return fail("npm install %s failed (exit %d): %s" % (want, proc.returncode,
                                                              (proc.stderr or proc.stdout).strip()[-600:]))
    with open(stamp, "w") as f:
        f.write(want + "\n")
    if os.path.exists(failed):
        os.remove(failed)
    return None


def _installed_version(package_json):
    try:
        with open(package_json) as f:
            return json.load(f).get("version")
    except (OSError, ValueError):
        return None


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _fail(why):
    os.makedirs(RP_DIR, exist_ok=True)
    with open(os.path.join(RP_DIR, FAILED), "w") as f:
        f.write(why + "\n")
    stamp = os.path.join(RP_DIR, STAMP)
    if os.path.exists(stamp):
        os.remove(stamp)
    return why


def uf2_to_bin(data, base=0x10000000):
    """The flash image (from `base`) that a UF2 file's blocks write."""
    import struct

    out = bytearray()
    for off in range(0, len(data) - 511, 512):
        magic0, magic1, _flags, addr, size = struct.unpack_from("<5I", data, off)
        if (magic0, magic1) != (0x0A324655, 0x9E5D5157) or addr < base:
            continue
        at = addr - base
        if len(out) < at + size:
            out.extend(b"\xff" * (at + size - len(out)))
        out[at:at + size] = data[off + 32:off + 32 + size]
    return bytes(out)


def check_official(path):
    """The flash image of a downloaded MicroPython release file for the Pico (RPI_PICO v1.28.0,
    .uf2 or .bin); ValueError saying what is wrong with it."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"UF2\n":
        data = uf2_to_bin(data)
    from tools.image import MICROPYTHON_VERSION

    if b"v%s" % MICROPYTHON_VERSION.encode() not in data:
        raise ValueError("%s is not MicroPython %s (get RPI_PICO's v%s release from micropython.org/download/RPI_PICO)"
                         % (path, MICROPYTHON_VERSION, MICROPYTHON_VERSION))
    if b"RP2040" not in data or b"Raspberry Pi Pico" not in data:
        raise ValueError("%s is not a firmware for the Raspberry Pi Pico (RP2040)" % path)
    return data


def install_firmware(log=print, src=None):
    """Put MicroPython 1.28.0's stock RPI_PICO firmware into .cache/rp2040/ (once): the file named
    by REEDCHESS_PICO_FIRMWARE, else built from the pinned source (tools/image.py). Returns None,
    or why it could not."""
    dest = os.path.join(RP_DIR, STOCK_FIRMWARE)
    info_path = os.path.join(RP_DIR, STOCK_INFO)
    user = os.environ.get(USER_FIRMWARE) or None
    if os.path.exists(dest) and os.path.exists(info_path):
        with open(info_path) as f:
            info = json.load(f)
        if (info.get("from") or None) == (user and os.path.abspath(user)) and info.get("bin_sha256") == _digest(dest):
            return None
    if user:
        try:
            data = check_official(user)
        except (OSError, ValueError) as exc:
            return str(exc)
        with open(dest + ".tmp", "wb") as f:
            f.write(data)
        os.replace(dest + ".tmp", dest)
        info = {"from": os.path.abspath(user), "bin_bytes": len(data), "bin_sha256": _digest(dest)}
    else:
        from tools import image

        try:
            info = image.build_stock(STOCK_BOARD, dest, src=src, log=log)
        except image.ImageError as exc:
            return "no stock MicroPython for the emulated Pico: %s" % exc
        info["from"] = None
    with open(info_path, "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    return None


def install(log=print, src=None):
    """Make the emulated Pico ready in .cache/rp2040/: npm rp2040js (pinned) and the stock
    firmware (install_firmware). The runner and the boot ROM are in the repository. Returns
    None, or why it could not (also kept in .cache/rp2040/INSTALL-FAILED)."""
    os.makedirs(RP_DIR, exist_ok=True)
    if _digest(BOOTROM) != BOOTROM_SHA256:
        return _fail("%s is not the RP2040 B1 boot ROM (SHA-256 differs)" % os.path.relpath(BOOTROM, ROOT))
    why = _npm_install(RP_DIR, "rp2040js", RP2040JS_VERSION, log)
    if why:
        return why
    why = install_firmware(log, src)
    if why:
        return _fail(why)
    if os.path.exists(os.path.join(RP_DIR, FAILED)):
        os.remove(os.path.join(RP_DIR, FAILED))
    return None


def unavailable():
    """None when the emulated Pico can run, else the reason (for pytest.skip)."""
    if not shutil.which("node"):
        return "node not found on PATH: the emulated Pico needs Node.js (then `make emulators`)"
    failed = os.path.join(RP_DIR, FAILED)
    if os.path.exists(failed):
        with open(failed) as f:
            return "emulated Pico not installed: " + f.read().strip()
    if not os.path.exists(os.path.join(RP_DIR, STAMP)) or not os.path.exists(os.path.join(RP_DIR, STOCK_FIRMWARE)):
        return "emulated Pico not installed in %s: run `make emulators`" % os.path.relpath(RP_DIR, ROOT)
    return None


def free_port():
    """A TCP port on the loopback interface that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lock(path):
    """An exclusive lock file (tools.flash builds into one folder per board: two flashes at once
    from this checkout would delete each other's files). Returns the open file; close to unlock."""
    import fcntl

    os.makedirs(os.path.dirname(path), exist_ok=True)
    f = open(path, "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


# ------------------------------------------------------------------------------- the board
class EmulatedPico:
    """One emulated Pico: a runner process (node host_sim/rp2040/board.mjs --tcp PORT, bare) and a
    socket to it."""

    def __init__(self, port=None, log_path=None, boot_timeout=60, hold_heap=True):
        self.hold = hold_heap  # hold the free heap at HELD_FREE_BYTES (the class's docstring)
        self.port = port
        self.log_path = log_path
        self.boot_timeout = boot_timeout
        self.proc = None
        self.sock = None
        self.buf = b""
        self.transcript = []  # every line read while main runs (console answers and the rest)

    # ---- process ------------------------------------------------------------------------
    def start(self):
        why = unavailable()
        if why:
            raise DeviceError(why)
        self.port = self.port or free_port()
        self.log_path = self.log_path or os.path.join(CACHE, "rp2040-%d.log" % self.port)
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(["node", RUNNER, "--rp-dir", RP_DIR, "--tcp", str(self.port), "--quiet"],
                                     cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        end = time.monotonic() + self.boot_timeout
        while True:
            if self.proc.poll() is not None:
                raise DeviceError("the runner exited (%s): %s" % (self.proc.returncode, self._runner_log()))
            try:
                self.connect()
                break
            except OSError:
                if time.monotonic() > end:
                    raise DeviceError("the runner did not listen on port %d: %s" % (
                        self.port, self._runner_log())) from None
                time.sleep(0.1)
        self.write(b"\r\n")
        self.read_until(b">>> ", timeout=self.boot_timeout)
        if self.hold:
            self.hold_heap()
        return self

    def hold_heap(self):
        """Write the boot.py that holds the free heap at HELD_FREE_BYTES and boot again, so it
        holds from now on (soft resets and main.py included; `make flash` leaves boot.py be)."""
        self.write_file("boot.py", HOLD_BOOT_PY)
        self.write(b"\r\x02")
        self.read_until(b">>> ", timeout=30)
        self.write(b"\x04")
        self.read_until(b"soft reboot", timeout=30)
        self.read_until(b">>> ", timeout=self.boot_timeout)
        self.buf = b""

    def _runner_log(self):
        try:
            with open(self.log_path) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        self.disconnect()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None
        if getattr(self, "_log", None):
            self._log.close()
            self._log = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def url(self):
        return "socket://127.0.0.1:%d" % self.port

    # ---- bytes --------------------------------------------------------------------------
    def connect(self):
        if self.sock is None:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.sock = s
            self.buf = b""

    def disconnect(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.connect()
        self.sock.sendall(data)

    def _fill(self, deadline):
        """Read what arrives before `deadline` into self.buf; False on timeout."""
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        self.sock.settimeout(min(left, 1.0))
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return time.monotonic() < deadline
        if not chunk:
            raise DeviceError("the runner closed the connection: %s" % self._runner_log())
        self.buf += chunk
        return True

    def read_until(self, marker, timeout=30):
        """Bytes up to and including `marker` (DeviceError after `timeout` seconds)."""
        self.connect()
        deadline = time.monotonic() + timeout
        while marker not in self.buf:
            if self.proc is not None and self.proc.poll() is not None:
                raise DeviceError("the runner died: %s" % self._runner_log())
            if not self._fill(deadline):
                raise DeviceError("no %r from the board within %s s; it printed: %r" % (marker, timeout,
                                                                                       self.buf[-1500:]))
        i = self.buf.index(marker) + len(marker)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    # ---- the REPL -----------------------------------------------------------------------
    def exec(self, code, timeout=120, check=True):
        """Run `code` in the raw REPL; returns what it printed. A traceback raises DeviceError
        (check=False: returns (stdout, stderr) instead)."""
        self.write(b"\r\x03\x03\x01")
        self.read_until(RAW_PROMPT, timeout=30)
        self.buf = b""
        self.write(code.encode() + b"\x04")
        self.read_until(b"OK", timeout=timeout)
        out = self.read_until(b"\x04", timeout=timeout)[:-1]
        err = self.read_until(b"\x04", timeout=timeout)[:-1]
        self.read_until(b">", timeout=timeout)
        self.write(b"\x02")  # back to the friendly REPL
        self.read_until(b">>> ", timeout=30)
        out, err = out.decode(errors="replace"), err.decode(errors="replace")
        if not check:
            return out, err
        if err:
            raise DeviceError("the board raised:\n%s\n(stdout: %s)" % (err, out[-1500:]))
        return out

    def write_file(self, path, text):
        """Write a text file on the board's file system (through the raw REPL)."""
        self.exec("with open(%r, 'w') as f:\n    f.write(%r)\n" % (path, text))

    def start_program(self, code):
        """Start `code` in the raw REPL and return at once (it keeps running: talk to it with
        send_line / read_line, e.g. the UCI loop). No Ctrl-C is sent after this."""
        self.write(b"\r\x03\x03\x01")
        self.read_until(RAW_PROMPT, timeout=30)
        self.buf = b""
        self.write(code.encode() + b"\x04")
        self.read_until(b"OK", timeout=30)

    def flash(self, board="pico", args=(), timeout=900, log=None):
        """`make flash BOARD=board PORT=socket://...`: the real flash path (tools.flash through
        mpremote). Returns its output; DeviceError if it fails. The board is left at the REPL."""
        self.disconnect()
        cmd = [sys.executable, "-m", "tools.flash", "--board", board, "--port", self.url] + list(args)
        lock = _lock(os.path.join(CACHE, "flash-%s.lock" % board))
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        finally:
            lock.close()
        out = proc.stdout + proc.stderr
        if log:
            log(out)
        if proc.returncode != 0:
            raise DeviceError("flash failed (exit %d):\n%s" % (proc.returncode, out[-3000:]))
        self.connect()
        self.write(b"\x02\r\n")
        self.read_until(b">>> ", timeout=30)
        return out

    def soft_reset(self, until=None, timeout=120):
        """Ctrl-D at the friendly REPL: MicroPython reboots softly and runs main.py. Returns the
        lines printed up to the one `until(line)` accepts (or what arrives in 2 s without it)."""
        self.write(b"\r\x02")
        self.read_until(b">>> ", timeout=30)
        self.buf = b""
        self.write(b"\x04")
        self.read_until(b"soft reboot", timeout=30)
        lines = []
        if until is None:
            deadline = time.monotonic() + 2
            while True:
                line = self.read_line(timeout=max(0.05, deadline - time.monotonic()), missing=None)
                if line is None:
                    return lines
                lines.append(line)
        while True:
            line = self.read_line(timeout=timeout)
            lines.append(line)
            if until(line):
                return lines

    # ---- lines (a program's console) ----------------------------------------------------
    def send_line(self, text):
        self.write(text.encode() + b"\r\n")

    def read_line(self, timeout=30, missing="raise"):
        """The next line the board prints (without its line end). After `timeout` seconds:
        DeviceError, or None with missing=None."""
        self.connect()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if self.proc is not None and self.proc.poll() is not None:
                raise DeviceError("the runner died: %s" % self._runner_log())
            if not self._fill(deadline):
                if missing is None:
                    return None
                raise DeviceError("no line from the board within %s s (last lines: %s; pending %r)"
                                  % (timeout, self.transcript[-8:], self.buf[-300:]))
        i = self.buf.index(b"\n")
        line, self.buf = self.buf[:i].rstrip(b"\r").decode(errors="replace"), self.buf[i + 1:]
        self.transcript.append(line)
        return line

    def ask(self, command, accept=None, timeout=60):
        """Send a console line and return the first answer line `accept(line)` takes (default:
        the next line). Other lines (the firmware's own messages) stay in self.transcript.
        An "error: ..." line is an answer too."""
        self.send_line(command)
        while True:
            line = self.read_line(timeout=timeout)
            if accept is None or accept(line) or line.startswith("error:") or "Traceback" in line:
                return line


def _console(pico):
    """Forward stdin lines to the board and its lines to stdout until EOF (Ctrl-D) or Ctrl-C."""
    import select
    import threading

    stop = threading.Event()

    def reader():
        while not stop.is_set():
            try:
                line = pico.read_line(timeout=0.5, missing=None)
            except DeviceError as exc:
                print(exc)
                return
            if line is not None:
                print(line, flush=True)

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    try:
        while True:
            r, _, _ = select.select([sys.stdin], [], [], 0.5)
            if r:
                line = sys.stdin.readline()
                if not line:
                    break
                pico.send_line(line.rstrip("\n"))
    except KeyboardInterrupt:
        pass
    stop.set()
    t.join(2)


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="python -m tools.emulated_pico",
                                description="Boot an emulated stock Pico, flash Reedchess, talk to its console.")
    p.add_argument("command", nargs="?", default="run", choices=("run", "install"),
                   help="run (default) or install (what `make emulators` does for the Pico)")
    p.add_argument("--port", type=int, default=0, help="TCP port for the runner (default: a free one)")
    p.add_argument("--no-flash", action="store_true", help="do not flash (the emulated flash starts empty)")
    p.add_argument("--repl", action="store_true", help="stay at the REPL: the runner serves it on the port")
    p.add_argument("--flash-args", default="", help="extra arguments for tools.flash, e.g. '--bytecode'")
    args = p.parse_args(argv)
    if args.command == "install":
        why = install()
        if why:
            print("emulated Pico not installed: %s" % why, file=sys.stderr)
            return 1
        print("emulated Pico ready in %s (rp2040js %s, %s)" % (os.path.relpath(RP_DIR, ROOT), RP2040JS_VERSION,
                                                              STOCK_FIRMWARE))
        return 0
    why = unavailable()
    if why:
        print(why, file=sys.stderr)
        return 2
    pico = EmulatedPico(port=args.port or None)
    pico.start()
    try:
        print("emulated Pico on %s (runner log %s)" % (pico.url, pico.log_path))
        if not args.no_flash:
            pico.flash(args=args.flash_args.split(), log=print)
        if args.repl:
            pico.disconnect()
            print("REPL on %s: mpremote connect %s repl   (Ctrl-C here stops the Pico)" % (pico.url, pico.url))
            pico.proc.wait()
            return 0
        for line in pico.soft_reset():
            print(line)
        print("-- console: type lines for the board (help), Ctrl-D or Ctrl-C to stop --")
        _console(pico)
    finally:
        pico.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
