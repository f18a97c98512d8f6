"""An in-memory flash filesystem for the journal, with power cuts at any write.

    flash = FakeFlash()
    journal = Journal("", open_fn=flash.open, fs=flash)
    flash.ops                      # every write, rename and remove so far: [(kind, name, data)]
    flash.cut_at = 7               # the 8th operation is interrupted: PowerCut is raised,
    flash.torn_bytes = 3           # a write leaves only its first 3 bytes (None: half)
    state = FakeFlash.replay(ops, k, torn_bytes)
                                   # the flash as a cut at operation k left it

Operations: "truncate" (opening "wb", or "ab" creating the file), "write" (one `write()`
call; the journal writes each record with one call), "rename" and "remove" - atomic
operations (LittleFS, the MicroPython default on the RP2040 and ESP32, guarantees that).
`observer(op_index)` is called after each completed operation (the power-cut test
snapshots the game there).
"""


class PowerCut(BaseException):
    """The power went off in the middle of a flash operation (not an OSError: nothing in the
    firmware may catch it)."""


class _File:
    def __init__(self, flash, name, mode):
        self.flash = flash
        self.name = name
        self.mode = mode
        self.pos = 0
        self.closed = False

    def read(self, n=-1):
        data = self.flash.files[self.name]
        if n is None or n < 0:
            n = len(data) - self.pos
        out = bytes(data[self.pos:self.pos + n])
        self.pos += len(out)
        return out

    def readinto(self, buf):
        data = self.read(len(buf))
        buf[:len(data)] = data
        return len(data)

    def seek(self, offset, whence=0):
        if whence == 0:
            self.pos = offset
        elif whence == 1:
            self.pos += offset
        else:
            self.pos = len(self.flash.files[self.name]) + offset
        return self.pos

    def write(self, data):
        if "r" in self.mode:
            raise OSError(9, "file not open for writing")
        return self.flash._write(self.name, bytes(data))

    def flush(self):
        pass

    def close(self):
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FakeFlash:
    def __init__(self):
        self.files = {}
        self.ops = []
        self.cut_at = None
        self.torn_bytes = None
        self.observer = None

    def copy(self):
        other = FakeFlash()
        other.files = {k: bytearray(v) for k, v in self.files.items()}
        return other

    # ---- the open / os interface the journal uses --------------------------------------------
    def open(self, name, mode="r"):
        if "r" in mode:
            if name not in self.files:
                raise OSError(2, "no such file: %s" % name)
        elif "w" in mode or ("a" in mode and name not in self.files):
            self._begin("truncate", name, b"")  # creating or emptying a file writes flash too
            self.files[name] = bytearray()
            self._end()
        elif "a" in mode:
            pass
        else:
            raise ValueError("mode %r" % mode)
        return _File(self, name, mode)

    def _begin(self, kind, name, data):
        index = len(self.ops)
        if self.cut_at is not None and index == self.cut_at:
            if kind == "write":
                n = len(data) // 2 if self.torn_bytes is None else min(self.torn_bytes, len(data))
                self.files[name] += data[:n]
            raise PowerCut("power cut at flash operation %d (%s %s)" % (index, kind, name))
        self.ops.append((kind, name, data))

    def _end(self):
        if self.observer is not None:
            self.observer(len(self.ops) - 1)

    def _write(self, name, data):
        self._begin("write", name, data)
        self.files[name] += data
        self._end()
        return len(data)

    def rename(self, old, new):
        if old not in self.files:
            raise OSError(2, "no such file: %s" % old)
        self._begin("rename", old, new)
        self.files[new] = self.files.pop(old)
        self._end()

    def remove(self, name):
        if name not in self.files:
            raise OSError(2, "no such file: %s" % name)
        self._begin("remove", name, b"")
        del self.files[name]
        self._end()

    def listdir(self, path=""):
        return sorted(self.files)

    # ---- power cuts after the fact ------------------------------------------------------------
    @staticmethod
    def replay(ops, count, torn_bytes=None):
        """A FakeFlash holding what the first `count` operations of `ops` wrote, plus - with
        `torn_bytes` not None - the first `torn_bytes` bytes of operation `count` if it is a
        write (a cut in the middle of it). Files opened "wb" start empty: the replay
        recreates them as the writes did (a write to a name not yet present starts it)."""
        flash = FakeFlash()
        files = flash.files
        for i in range(count):
            kind, name, data = ops[i]
            if kind == "write":
                files.setdefault(name, bytearray())
                files[name] += data
            elif kind == "rename":
                files[data] = files.pop(name)
            elif kind == "remove":
                files.pop(name, None)
            elif kind == "truncate":
                files[name] = bytearray()
        if torn_bytes is not None and count < len(ops) and ops[count][0] == "write":
            kind, name, data = ops[count]
            files.setdefault(name, bytearray())
            files[name] += data[:torn_bytes]
        return flash
