"""HTTP/1.1 over a non-blocking socket for the board's own Board API client (features/online_net.py;
loaded with it, dropped with it). Nothing here waits: `Conn.poll()` moves an exchange on as
far as the socket allows and returns at once, so the main loop's sensor scan goes on.

    conn = Conn(client, kind, line_bytes)    # client.on_line(conn) / client.on_end(conn, why)
    conn.request(addr, host, tls, data)      # data: the request's bytes (headers and body)
    conn.poll()                              # each main-loop pass (or every few ms)
    conn.status                              # the answer's status code once its head came
    conn.line[:conn.n]                       # the body line handed to on_line (ndjson: an object)
    conn.close()

The body is cut into lines as it arrives (ndjson streams: one object a line; a JSON answer
without a newline is handed over at its end), decoding chunked transfer encoding
incrementally. A line longer than `line_bytes` is dropped whole (`conn.lost` counts them).
Buffers are allocated once per Conn; a pass with nothing to read allocates nothing on
MicroPython (a non-blocking readinto answers None). One exchange at a time; the connection
is kept for the next request when the server allows it (keep-alive), so a move does not pay
a new TCP (and TLS) set-up.

`tls`: None for http, else an ssl context (features/online_net.py makes it); the handshake
goes on in the same non-blocking reads and writes.
"""

from firmware.compat import const

_IDLE = const(0)
_SEND = const(1)  # connecting (a non-blocking connect) and writing the request
_HEAD = const(2)  # the status line and headers
_SIZE = const(3)  # a chunk's size line
_DATA = const(4)  # a chunk's bytes (or a Content-Length body)
_CRLF = const(5)  # the line end after a chunk
_TRAIL = const(6)  # trailers after the last chunk
_TILL_CLOSE = const(7)  # a body that ends with the connection
_EAGAIN = const(11)
_EINPROGRESS = const(115)
_WOULD_BLOCK = (_EAGAIN, _EINPROGRESS, 35, 36, 119)  # Linux, BSD/macOS, lwIP (EINPROGRESS 119)
_READ_BYTES = const(512)
_HEAD_BYTES = const(160)  # a longer header line is skipped (only short ones matter here)


class HttpError(OSError):
    """A server answer this client cannot read."""


def _blocked(exc):
    """A non-blocking call that would have to wait (plain or TLS socket, either interpreter)."""
    return (exc.args and exc.args[0] in _WOULD_BLOCK) or type(exc).__name__ in ("SSLWantReadError",
                                                                                 "SSLWantWriteError")


class Conn:
    def __init__(self, client, kind, line_bytes):
        self.client = client
        self.kind = kind  # the client's name for what this connection carries
        self.line = bytearray(line_bytes)
        self.n = 0
        self.head = bytearray(_HEAD_BYTES)  # a line of the head or of the chunk framing
        self.hn = 0
        self.lost = 0  # lines longer than the buffer (dropped)
        self._over = False
        self.rbuf = bytearray(_READ_BYTES)
        self.rview = memoryview(self.rbuf)
        self.sock = None
        self.stream = None
        self.state = _IDLE
        self.status = 0
        self.left = 0
        self.chunked = False
        self.keep = False
        self.out = b""
        self.sent = 0
        self.host = None
        self.refused = 0  # the client's mark of an answer it refuses (its status code)
        self.gen = 0  # counts exchanges: parsing stops when the client starts the next one

    def busy(self):
        return self.state != _IDLE

    def request(self, addr, host, tls, data):
        """Start an exchange: a new connection unless the last one may be reused."""
        if self.stream is None or not self.keep or self.host != host:
            self.close()
            import socket  # here, not at import: a port without sockets (wasm) can still load it

            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(addr)
            except OSError as exc:
                if not _blocked(exc):
                    s.close()
                    raise
            if tls is not None:
                s = tls.wrap_socket(s, server_hostname=host, do_handshake_on_connect=False)
            self.sock = s
            # CPython: a raw file (readinto answers None when nothing came); MicroPython's
            # sockets are streams themselves (its TLS socket has no makefile)
            self.stream = s.makefile("rwb", 0) if hasattr(s, "makefile") else s
            self.host = host
        self.gen += 1
        self.refused = 0
        self.out = data
        self.sent = 0
        self.status = 0
        self.keep = True
        self.chunked = False
        self.left = -1
        self.n = 0
        self.hn = 0
        self._over = False
        self.state = _SEND

    def close(self):
        for f in (self.stream, self.sock):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
        self.stream = None
        self.sock = None
        self.state = _IDLE

    def poll(self):
        """Move the exchange on without waiting; the client's on_line / on_end are called from here."""
        state = self.state
        if state == _IDLE:
            return
        try:
            if state == _SEND:
                self._send()
                if self.state == _SEND:
                    return
            n = self.stream.readinto(self.rbuf)
        except OSError as exc:
            if _blocked(exc):
                return
            self._end(exc.args[0] if exc.args else "error")
            return
        except ValueError as exc:  # MicroPython's TLS: the certificate is refused
            self._end("certificate: " + " ".join(str(exc).split())[:60])
            return
        if n is None:
            return  # nothing yet
        if n == 0:
            if self.state == _TILL_CLOSE:
                self._flush()
            self._end("closed" if self.state != _TILL_CLOSE else None)
            return
        self._parse(n)

    def _send(self):
        data = self.out
        while self.sent < len(data):
            k = self.stream.write(data[self.sent:] if self.sent else data)
            if k is None:
                return
            self.sent += k
        self.out = b""
        self.state = _HEAD

    def _end(self, why):
        """The exchange is over (why None: complete); the connection stays if it may."""
        was = self.state
        self.state = _IDLE
        if why is not None or not self.keep:
            self.close()
        if was != _IDLE:
            self.client.on_end(self, why)

    def _parse(self, n):
        view = self.rview
        gen = self.gen
        i = 0
        while i < n and self.state != _IDLE and self.gen == gen:
            state = self.state
            if state == _DATA or state == _TILL_CLOSE:
                k = n - i if state == _TILL_CLOSE or self.left > n - i else self.left
                self._body(view, i, i + k)
                if self.state == _IDLE or self.gen != gen:
                    return  # the client closed it (or began the next exchange)
                i += k
                if state == _DATA:
                    self.left -= k
                    if not self.left:
                        if self.chunked:
                            self.state = _CRLF
                        else:
                            self._flush()
                            self._end(None)
                continue
            # a line of the head or of the chunk framing: collected in self.head
            j = self.rbuf.find(b"\n", i, n)
            stop = n if j < 0 else j
            k = stop - i
            if self.hn + k <= _HEAD_BYTES:
                self.head[self.hn:self.hn + k] = view[i:stop]
            self.hn += k
            i = stop + 1 if j >= 0 else n
            if j >= 0:
                self._framing_line()
                self.hn = 0

    def _collect(self, view, i, j):
        k = j - i
        if self.n + k > len(self.line):
            self._over = True
            return
        self.line[self.n:self.n + k] = view[i:j]
        self.n += k

    def _framing_line(self):
        line = bytes(self.head[:self.hn]).strip() if self.hn <= _HEAD_BYTES else b"x-long: x"
        state = self.state
        if state == _HEAD:
            if not self.status:
                parts = line.split()
                if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
                    self._end("bad answer")
                    return
                self.status = int(parts[1])
                self.keep = parts[0] != b"HTTP/1.0"
                return
            if line:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                value = value.strip().lower()
                if name == b"transfer-encoding" and b"chunked" in value:
                    self.chunked = True
                elif name == b"content-length" and value.isdigit():
                    self.left = int(value)
                elif name == b"connection" and value == b"close":
                    self.keep = False
                return
            self.client.on_status(self)  # the head is complete
            if self.state == _IDLE:
                return  # the client closed it
            if self.chunked:
                self.state = _SIZE
            elif self.left > 0:
                self.state = _DATA
            elif self.left == 0:
                self._end(None)
            else:
                self.keep = False
                self.state = _TILL_CLOSE
        elif state == _SIZE:
            size = line.split(b";")[0]
            try:
                self.left = int(size, 16)
            except ValueError:
                self._end("bad chunk")
                return
            self.state = _DATA if self.left else _TRAIL
        elif state == _CRLF:
            self.state = _SIZE
        elif state == _TRAIL and not line:
            self._flush()
            self._end(None)

    def _body(self, view, i, j):
        """Body bytes [i, j) of rbuf: cut into lines, each handed to the client."""
        buf = self.rbuf
        while i < j:
            k = buf.find(b"\n", i, j)
            stop = j if k < 0 else k
            self._collect(view, i, stop)
            if k < 0:
                return
            i = k + 1
            if self._over:
                self.lost += 1
            else:
                self.client.on_line(self)
            self.n = 0
            self._over = False
            if self.state == _IDLE:
                return  # the client closed it

    def _flush(self):
        """The body ended: a last line without its newline (a JSON answer) goes to the client."""
        if self.n and not self._over:
            self.client.on_line(self)
        self.n = 0
        self._over = False
