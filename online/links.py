"""The board side of the bridge: something that takes console lines and gives back the lines
the firmware printed.

    link = SerialLink("/dev/ttyACM0")   # a real board on its USB serial console (pyserial)
    link = SimLink(Simulator(...))      # the simulator's firmware, in this process
    link.send("online status")
    for line in link.poll(): ...        # what the board printed since (never blocks for long)
    link.close()
"""
import threading


class LinkError(OSError):
    """The board's serial line cannot be opened or went away."""


class SimLink:
    """host_sim's Simulator: every poll() runs the firmware for `step_ms` simulated
    milliseconds (the device's own pace) and returns the new console lines."""

    def __init__(self, sim, step_ms=40):
        self.sim = sim
        self.step_ms = step_ms
        self._seen = len(sim.console_lines)
        self.sent = []  # every line sent (tests read it)
        self.lock = threading.RLock()  # the simulator is driven from one thread at a time

    def send(self, line):
        with self.lock:
            self.sent.append(line)
            self.sim._console_in.append(line)  # Simulator.readline() hands it to the firmware

    def poll(self):
        with self.lock:
            self.sim.run(self.step_ms)
            lines = self.sim.console_lines[self._seen:]
            self._seen += len(lines)
            return lines

    def close(self):
        pass


class SerialLink:
    """A board's USB serial console through pyserial (installed with mpremote)."""

    def __init__(self, port, baudrate=115200):
        try:
            import serial
        except ImportError:
            raise LinkError("pyserial is not installed (pip install pyserial)") from None
        self._serial_class = serial.Serial
        self.port = port
        self.baudrate = baudrate
        self.serial = None
        self.reopen()

    def reopen(self):
        """Open the port (again, after the board was unplugged or restarted)."""
        self.close()
        try:
            self.serial = self._serial_class(self.port, self.baudrate, timeout=0)
        except (OSError, ValueError) as exc:
            raise LinkError("cannot open %s: %s" % (self.port, exc)) from None
        self._buf = b""

    def send(self, line):
        try:
            self.serial.write(line.encode() + b"\r\n")
        except OSError as exc:
            raise LinkError("%s: %s" % (self.port, exc)) from None

    def poll(self):
        try:
            data = self.serial.read(4096)
        except OSError as exc:
            raise LinkError("%s: %s" % (self.port, exc)) from None
        if data:
            self._buf += data
        out = []
        while b"\n" in self._buf:
            raw, self._buf = self._buf.split(b"\n", 1)
            text = raw.decode("utf-8", "replace").strip("\r")
            if text:
                out.append(text)
        return out

    def close(self):
        if self.serial is not None:
            try:
                self.serial.close()
            except OSError:
                pass
