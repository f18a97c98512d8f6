"""The start of a Reedchess image (MicroPython with the firmware frozen in, `make image`).

The image's frozen main.py puts its modules first on sys.path and calls start(board, book):
it mentions files an earlier `make flash` left on the file system (once: the frozen modules
are used, those files only take flash), copies the frozen opening book (module
`reedchess_book`) onto the file system when it is not there yet, then runs the chess
computer. Settings, the journal and statistics stay where they were, on the file system.
"""

import os
import sys

STALE_NOTE = ".reedchess-image"  # exists once the stale files were reported
# While the chess computer is built, a collection every 32 KB allocated (stock MicroPython with
# .mpy files needs one every 2 KB to keep its heap in one piece; the image has room to spare)
BOOT_GC_THRESHOLD = 32768
# what `make flash` writes; a boot.py is the owner's own (make flash never writes or removes one)
_STALE_PATHS = ("firmware", "boards", "main.py")


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def stale_files():
    """The paths on the file system a `make flash` wrote that the image does not use."""
    return [p for p in _STALE_PATHS if _exists(p)]


def report_stale(log=print):
    """Say once that old files lie on the file system (they no longer run); True if it did."""
    if _exists(STALE_NOTE):
        return False
    found = stale_files()
    with open(STALE_NOTE, "w") as f:
        f.write(" ".join(found))
    if not found:
        return False
    log("note: this board runs the Reedchess image; the files %s on its file system (from `make flash`) "
        "are not used. Remove them to free flash: mpremote rm -r %s" % (", ".join(found), " ".join(
            ":" + p for p in found)))
    return True


def install_book(path, data):
    """Write `data` (the frozen book) to `path` unless the same book is there; True if written."""
    try:
        if os.stat(path)[6] == len(data):
            with open(path, "rb") as f:
                if f.read(16) == data[:16]:  # the header holds the entries' checksum
                    return False
    except OSError:
        pass
    tmp = path + ".new"
    with open(tmp, "wb") as f:
        f.write(data)
    try:
        os.remove(path)
    except OSError:
        pass
    os.rename(tmp, path)
    return True


def start(board_name, book_path, tt_entries=0):
    """Run the chess computer of board `board_name` (boards/<name>.py) with the book at
    `book_path` and, if given, `tt_entries` in place of the config's transposition table."""
    report_stale()
    try:
        import reedchess_book

        install_book(book_path, reedchess_book.BOOK)
        del sys.modules["reedchess_book"]
    except (ImportError, OSError) as exc:
        print("note: the opening book could not be written (%s): playing without it" % exc)
    board = __import__("boards." + board_name, None, None, ("CONFIG",))
    if tt_entries:
        board.CONFIG["tt_entries"] = tt_entries
    board.CONFIG["boot_gc_threshold"] = BOOT_GC_THRESHOLD
    from firmware import app

    del sys.modules["firmware.frozen_main"]
    app.main(board, book_path=book_path)
