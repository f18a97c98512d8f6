"""Files in the board's flash that survive a power cut at any moment.

    files = FlashFiles(path, open_fn=open, fs=os)   # storage injected: tests cut the power
    files.name("game.jnl")            # the file's full name under `path`
    files.append(name, data)          # append records (each record checks itself)
    files.rewrite(name, data)         # replace the whole file atomically (bytes, or an
                                      # iterable of byte chunks: no one big block needed)
    files.recover_rewrite(name)       # on load: finish or drop an interrupted rewrite

A rewrite writes `<name>.new` completely and closes it, removes the old file, then renames
the new one into place. A power cut leaves either the old file (the `.new` is incomplete and
is dropped), or both (the `.new` is complete but the old one was not removed yet: the `.new`
is dropped, the old file is still valid), or only the complete `.new` (renamed on recovery).
So a reader never sees a torn file. `fs` needs `remove(name)` and `rename(a, b)`.
"""


class FlashFiles:
    def __init__(self, path="", open_fn=None, fs=None):
        if fs is None:
            import os

            fs = os
        self.path = path
        self.open = open_fn if open_fn is not None else open
        self.fs = fs

    def name(self, name):
        if not self.path:
            return name
        return self.path.rstrip("/") + "/" + name

    def exists(self, name):
        """Whether file `name` is there. Asked with `fs.stat` where the storage has it: opening
        a file on a board's littlefs allocates a 1,148-byte file object, and the boot asks at
        its peak of memory (journal, online.run, online.keep)."""
        stat = getattr(self.fs, "stat", None)
        if stat is not None:
            try:
                stat(name)
            except OSError:
                return False
            return True
        try:
            f = self.open(name, "rb")
        except OSError:
            return False
        f.close()
        return True

    def append(self, name, data):
        f = self.open(name, "ab")
        try:
            f.write(data)
        finally:
            f.close()

    def rewrite(self, name, data):
        """Replace file `name` by `data` atomically (write-new-then-rename). `data` is bytes
        or an iterable of byte chunks, written one by one: a long game or a full archive
        then never needs one contiguous block of its size on a fragmented heap."""
        tmp = name + ".new"
        f = self.open(tmp, "wb")
        try:
            if isinstance(data, (bytes, bytearray)):
                f.write(data)
            else:
                for chunk in data:
                    f.write(chunk)
        finally:
            f.close()
        if self.exists(name):
            self.fs.remove(name)
        self.fs.rename(tmp, name)

    def recover_rewrite(self, name):
        """Finish or drop a rewrite a power cut interrupted. Returns True if it did anything."""
        tmp = name + ".new"
        if not self.exists(tmp):
            return False
        if self.exists(name):
            self.fs.remove(tmp)
        else:
            self.fs.rename(tmp, name)
        return True
