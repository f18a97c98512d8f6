"""An emulated MicroPython board on a pseudo-terminal, for testing deploy tools without hardware.

The MicroPython unix port speaks the same raw REPL as a board (Ctrl-A, raw-paste mode, Ctrl-D
to execute), so `mpremote` can drive it. Two things differ from a board and are emulated here:

- A soft reset (Ctrl-D at an empty raw-REPL prompt, or at the friendly prompt) *ends* the unix
  process. The emulator then prints ``MPY: soft reboot``, starts a fresh interpreter and, if the
  host was in the raw REPL, puts the new one back into it, exactly as a board answers.
- A board's ``/`` is its flash file system. Here the interpreter runs with its working
  directory set to a "flash" folder on the PC, and ``sys.path`` is ``['', '.frozen', './lib']``
  (relative to that folder), so ``import firmware`` finds the flashed files and ``mip`` installs
  into ``flash/lib``.

- ROMFS (optional, ``rom_bytes``): the unix port has ``vfs.VfsRom`` but no ``vfs.rom_ioctl``,
  so there is no ROM partition for ``mpremote romfs`` to write. With ``rom_bytes`` the emulator
  boots each interpreter with a partition of that size (kept in ``<flash>.rom``, so it survives
  soft resets like flash does): ``vfs.rom_ioctl`` answers mpremote's query/deploy calls
  (1 = partitions, 2 = the partition as a memoryview, 3 = erase, 4 = write, 5 = done), and a
  valid image is mounted at ``/rom`` with ``/rom`` and ``/rom/lib`` after ``''`` on
  ``sys.path``, as a board built with ROMFS does. Unlike a board's memory-mapped flash the
  partition is a bytearray in the interpreter's heap: the heap is made that much bigger (and
  2 KB for the emulation's own code), so ``gc.mem_free()`` stays close to what it is without
  ROMFS (checked by tests/test_flash_device.py).

Ctrl-C interrupts running code: while the interpreter runs code the emulator turns the byte
into SIGINT (a board's serial interrupt raises KeyboardInterrupt the same way); at a prompt
the byte is passed on. Linux only (it reads /proc to tell the two apart). ``heapsize`` emulates the board's RAM.

Use from a test:

    with DeviceEmulator(flash_dir, heapsize="210K") as dev:
        subprocess.run(["mpremote", "connect", dev.port, "exec", "print(1)"])

or by hand, then point ``make flash PORT=...`` at the printed port:

    python -m tools.device_emulator --flash build/emulated-flash
"""

import argparse
import errno
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
import tty

RAW_REPL_BANNER = b"raw REPL; CTRL-B to exit\r\n>"
FRIENDLY_PROMPT = b">>> "
SOFT_REBOOT = b"MPY: soft reboot\r\n"

_CTRL_A = 0x01  # enter raw REPL
_CTRL_B = 0x02  # leave raw REPL
_CTRL_C = 0x03  # interrupt running code
_MAX_BUFFER_BYTES = 1 << 20  # output nobody reads is dropped beyond this, like a UART would
_BOOT_TIMEOUT_S = 10.0
_UNIX_DEFAULT_HEAP = 2 * 1024 * 1024  # the unix port's heap without -X heapsize
_ROM_BOOT_HEAP = 2048  # what the ROMFS emulation's code and objects hold (measured), given back


# Run by each interpreter before its prompt when ROMFS is emulated (rom_bytes): replaces the
# module `vfs` in sys.modules by one with rom_ioctl, and mounts a valid image at /rom.
_ROM_BOOT = """
def _rom_boot(path, size):
    import sys
    import vfs as real
    rom = bytearray(size)
    with open(path, 'rb') as f:
        f.readinto(rom)

    class Vfs:
        pass

    mod = Vfs()
    for name in dir(real):
        if name[0] != '_':
            setattr(mod, name, getattr(real, name))

    def rom_ioctl(op, *args):
        if op == 1:
            return 1
        if not args or args[0] != 0:
            return -19
        if op == 2:
            return memoryview(rom)
        if op == 3:
            n = min(size, (args[1] + 4095) // 4096 * 4096)
            ones = b'\\xff' * 256
            for i in range(0, n, 256):
                rom[i:min(i + 256, n)] = ones[:min(256, n - i)]
            with open(path, 'r+b') as f:
                f.write(memoryview(rom)[0:n])
            return 4
        if op == 4:
            offset, buf = args[1], args[2]
            if offset < 0 or offset + len(buf) > size:
                return -22
            rom[offset:offset + len(buf)] = buf
            with open(path, 'r+b') as f:
                f.seek(offset)
                f.write(buf)
            return 0
        if op == 5:
            return 0
        return -22

    mod.rom_ioctl = rom_ioctl
    sys.modules['vfs'] = mod
    try:
        real.mount(real.VfsRom(memoryview(rom)), '/rom')
    except OSError:
        return
    sys.path.insert(1, '/rom')
    sys.path.insert(2, '/rom/lib')


_rom_boot(%r, %d)
del _rom_boot
"""


def heap_bytes(heapsize):
    """Bytes of a -X heapsize value ("210K", "2M", "4096")."""
    text = str(heapsize).strip().upper()
    scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
    try:
        return int(text[:-1] if scale > 1 else text) * scale
    except ValueError:
        raise EmulatorError("bad heapsize %r: use a number of bytes, or K or M (e.g. 210K)" % heapsize) from None


class EmulatorError(RuntimeError):
    """The emulated device could not start (no micropython binary, bad flash folder...)."""


def find_micropython():
    """Path of the MicroPython unix port: next to this Python (the venv), else on PATH."""
    candidate = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(candidate):
        return candidate
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        path = os.path.join(folder, "micropython")
        if os.path.exists(path):
            return path
    raise EmulatorError("micropython not found: install the test extra (`make venv`)")


def _catches_sigint(pid):
    """True while the interpreter runs code (it installs its SIGINT handler only then)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except OSError:
        pass
    return False


class DeviceEmulator:
    """A MicroPython "board" behind a pseudo-terminal.

    flash_dir: folder that plays the board's flash file system (created if missing).
    heapsize: the interpreter's heap, e.g. "210K" (Pico) or "110K" (ESP32); None = default.
    micropython: path of the unix-port binary (default: found by `find_micropython`).
    rom_bytes: emulate a ROMFS partition of this size (None: no ROMFS, like the stock images).

    Attributes after `start()`: `port` (the device path to give mpremote), `boots` (how many
    interpreters have been started: 1 + number of soft resets).
    """

    def __init__(self, flash_dir, heapsize=None, micropython=None, rom_bytes=None):
        self.flash_dir = os.path.abspath(flash_dir)
        self.heapsize = heapsize
        self.rom_bytes = rom_bytes
        self.rom_path = self.flash_dir.rstrip(os.sep) + ".rom" if rom_bytes else None
        self.micropython = micropython or find_micropython()
        self.port = None
        self.boots = 0
        self._host_fd = None  # master side of the pty the host (mpremote) opens
        self._keep_fd = None  # our own handle on the host's slave, so the master never sees a hangup
        self._child = None
        self._child_fd = None  # master side of the interpreter's controlling terminal
        self._raw_mode = False  # last mode the host asked for: raw REPL (True) or friendly
        self._to_host = bytearray()
        self._to_child = bytearray()
        self._stop = threading.Event()
        self._thread = None
        self.error = None  # an exception that stopped the relay thread, if any

    # ----------------------------------------------------------------- lifecycle
    def start(self):
        os.makedirs(self.flash_dir, exist_ok=True)
        if self.rom_path:
            have = os.path.getsize(self.rom_path) if os.path.exists(self.rom_path) else -1
            if have != self.rom_bytes:  # a new (erased) partition, or one of another size
                with open(self.rom_path, "wb") as f:
                    f.write(b"\xff" * self.rom_bytes)
        self._host_fd, slave = pty.openpty()
        tty.setraw(slave)  # byte-exact: no echo, no CR/LF translation
        self._keep_fd = slave
        self.port = os.ttyname(slave)
        os.set_blocking(self._host_fd, False)
        self._spawn()
        self._thread = threading.Thread(target=self._relay, name="device-emulator", daemon=True)
        self._thread.start()
        return self

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self._kill_child()
        for fd in (self._host_fd, self._keep_fd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._host_fd = self._keep_fd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # ----------------------------------------------------------------- the interpreter
    def _spawn(self):
        master, slave = pty.openpty()
        tty.setraw(slave)
        env = dict(os.environ)
        env["MICROPYPATH"] = ":.frozen:./lib"  # like a board: the flash root, frozen modules, lib
        cmd = [self.micropython]
        if self.heapsize or self.rom_bytes:
            heap = heap_bytes(self.heapsize or _UNIX_DEFAULT_HEAP)
            if self.rom_bytes:  # the partition, the GC tables for it (~1.25 %) and the emulation
                heap += self.rom_bytes + self.rom_bytes // 80 + _ROM_BOOT_HEAP
            cmd += ["-X", "heapsize=%d" % heap]
        if self.rom_bytes:
            cmd += ["-i", "-c", _ROM_BOOT % (self.rom_path, self.rom_bytes)]

        try:
            self._child = subprocess.Popen(
                cmd,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=self.flash_dir,
                env=env,
                start_new_session=True,
                close_fds=True,
            )
        finally:
            os.close(slave)
        self._child_fd = master
        self.boots += 1
        # Wait for the friendly prompt; the banner is shown only if the host is in friendly mode.
        banner = self._read_child_until(FRIENDLY_PROMPT)
        if self._raw_mode:
            os.write(master, bytes((_CTRL_A,)))
            self._read_child_until(RAW_REPL_BANNER)  # the host gets a clean banner below
            self._to_host += b"\r\n" + RAW_REPL_BANNER
        else:
            self._to_host += banner
        os.set_blocking(master, False)

    def _read_child_until(self, ending):
        data = b""
        deadline = time.monotonic() + _BOOT_TIMEOUT_S
        while not data.endswith(ending):
            left = deadline - time.monotonic()
            if left <= 0:
                raise EmulatorError("micropython did not show %r; it printed %r" % (ending, data[-200:]))
            ready, _, _ = select.select([self._child_fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self._child_fd, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise EmulatorError("micropython exited while booting: %r" % data[-200:])
                data += chunk
        return data

    def _kill_child(self):
        if self._child is not None and self._child.poll() is None:
            self._child.kill()
        if self._child is not None:
            self._child.wait()
        if self._child_fd is not None:
            os.close(self._child_fd)
        self._child = self._child_fd = None

    def _soft_reboot(self):
        """The interpreter ended: reap it and boot a new one, as a board does after Ctrl-D."""
        self._kill_child()
        self._to_host += SOFT_REBOOT
        self._spawn()

    # ----------------------------------------------------------------- byte relay
    def _relay(self):
        try:
            while not self._stop.is_set():
                self._relay_once()
        except Exception as exc:  # keep the reason for the test that sees a dead device
            self.error = exc

    def _relay_once(self):
        host, child = self._host_fd, self._child_fd
        readers = [host, child]
        writers = []
        if self._to_host:
            writers.append(host)
        if self._to_child:
            writers.append(child)
        readable, writable, _ = select.select(readers, writers, [], 0.1)
        if host in readable:
            try:
                data = os.read(host, 4096)
            except BlockingIOError:
                data = b""
            for byte in data:
                if byte == _CTRL_A:  # remember the mode the host asked for, for the next boot
                    self._raw_mode = True
                elif byte == _CTRL_B:
                    self._raw_mode = False
                elif byte == _CTRL_C and _catches_sigint(self._child.pid):
                    # A board's UART interrupt turns Ctrl-C into KeyboardInterrupt in running
                    # code; the unix port learns of it only through SIGINT.
                    self._child.send_signal(signal.SIGINT)
                    continue
                self._to_child.append(byte)
        if child in readable:
            try:
                data = os.read(child, 4096)
            except BlockingIOError:
                data = b""
            except OSError as exc:  # EIO: the interpreter closed its terminal (it exited)
                if exc.errno != errno.EIO:
                    raise
                data = None
            if data:
                self._to_host += data
                if len(self._to_host) > _MAX_BUFFER_BYTES:
                    del self._to_host[: len(self._to_host) - _MAX_BUFFER_BYTES]
            elif self._child.poll() is not None or data is None:
                self._child.wait()
                self._to_child = bytearray()  # bytes sent to a dead interpreter are lost, as on a board
                self._soft_reboot()
                return
        if host in writable and self._to_host:
            self._to_host = self._to_host[self._write(host, self._to_host) :]
        if child in writable and self._to_child:
            self._to_child = self._to_child[self._write(child, self._to_child) :]

    @staticmethod
    def _write(fd, data):
        try:
            return os.write(fd, data)
        except BlockingIOError:
            return 0
        except OSError as exc:
            if exc.errno == errno.EIO:  # the other side went away; drop the bytes
                return len(data)
            raise


def main(argv=None):
    parser = argparse.ArgumentParser(description="Emulated MicroPython board on a pseudo-terminal.")
    parser.add_argument("--flash", default="build/emulated-flash", help="folder playing the board's flash")
    parser.add_argument("--heapsize", default=None, help="interpreter heap, e.g. 210K (Pico) or 110K (ESP32)")
    parser.add_argument("--romfs", default=None, metavar="SIZE",
                        help="emulate a ROMFS partition of SIZE (e.g. 256K), kept in <flash>.rom")
    args = parser.parse_args(argv)
    rom = heap_bytes(args.romfs) if args.romfs else None
    device = DeviceEmulator(args.flash, heapsize=args.heapsize, rom_bytes=rom).start()
    print("emulated MicroPython board on %s (flash: %s); Ctrl-C to stop" % (device.port, device.flash_dir))
    print("try: make flash BOARD=pico PORT=%s ARGS='--arch x64'" % device.port, flush=True)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        device.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
