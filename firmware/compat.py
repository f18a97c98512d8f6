"""The one place that hides CPython/MicroPython differences.

Everything else in firmware/ imports `const`, the tick functions and the heap lock from here
and never branches on the interpreter itself.

- `const(x)`: on MicroPython the compiler folds `NAME = const(x)` into the bytecode (a
  `_NAME` costs no RAM at all); on CPython it is the identity.
- `ticks_ms()`, `ticks_diff(a, b)`, `ticks_add(t, delta)`: millisecond ticks that wrap at
  2^30 like MicroPython's, so arithmetic stays in small ints on 32-bit boards.
- `heap_lock()` / `heap_unlock()`: on MicroPython any allocation while locked raises
  MemoryError (that is how tests prove a hot path allocates nothing); no-ops on CPython.
- `micropython`: write `@micropython.native` above an engine hot function. MicroPython's
  compiler recognises that decorator by its spelling and compiles the function to machine
  code for the board's CPU (about twice the speed of bytecode; `make flash` passes the
  board's `-march` to mpy-cross); the name itself is never looked up there. On CPython it is a
  stand-in whose `native` and `viper` return the function unchanged; `ptr8(buf)`, viper's
  raw byte pointer (a compile-time cast inside viper code), is the buffer itself there, and
  so are `ptr16` and `ptr32` (over an `array("H")` or `array("i")`: the element types viper
  reads them as).
- `stack_use()`: bytes of C stack in use (MicroPython; on a board, counted from the top of
  the stack); 0 on CPython.
- `heap_figures()`: (free, largest free block, used) bytes of the heap after a collection;
  (0, 0, 0) on CPython. For the console's `mem`.
- `fill_heap_holes()`: before a search, fills the heap's small holes so that the search's
  heap frames are found at once (see its docstring); None and nothing done on CPython.
- `IS_MICROPYTHON`: for tests and diagnostics only, never for logic.
"""
import sys

IS_MICROPYTHON = sys.implementation.name == "micropython"

if IS_MICROPYTHON:
    from micropython import const  # noqa: F401  (the compiler folds const() by name)
    from micropython import heap_lock, heap_unlock, stack_use  # noqa: F401
    import micropython  # noqa: F401  (for `@micropython.native`; see the docstring)

    def ptr8(buffer):
        """Inside @micropython.viper code the compiler makes ptr8(buf) a raw byte pointer and
        never calls this; a build without machine code (tools.flash --bytecode drops the
        decorators) runs the same function as bytecode, where this is the buffer itself."""
        return buffer

    ptr16 = ptr32 = ptr8  # the same for 16- and 32-bit pointers (over array("H") / array("i"))
else:  # CPython (a `micropython` stub module may be installed there: do not import it)

    def const(value):
        return value

    def heap_lock():
        return None

    def heap_unlock():
        return 0

    def stack_use():
        return 0

    class micropython:  # noqa: N801  (spelled like the module the decorator names)
        @staticmethod
        def native(function):
            return function

        @staticmethod
        def viper(function):
            return function

    def ptr8(buffer):
        """CPython's stand-in for viper's byte pointer: the buffer itself (indexable the same)."""
        return buffer

    ptr16 = ptr32 = ptr8


if IS_MICROPYTHON:
    from time import ticks_ms, ticks_diff, ticks_add  # noqa: F401
else:  # CPython: emulate MicroPython's wrapping 30-bit ticks
    import time as _time

    _TICKS_PERIOD = 1 << 30
    _TICKS_MAX = _TICKS_PERIOD - 1
    _TICKS_HALF = _TICKS_PERIOD // 2

    def ticks_ms():
        return int(_time.monotonic() * 1000) & _TICKS_MAX

    def ticks_add(ticks, delta):
        return (ticks + delta) & _TICKS_MAX

    def ticks_diff(end, start):
        return ((end - start + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF


def heap_figures():
    """(free, largest free block, used) in bytes after a collection, (0, 0, 0) on CPython. The
    largest block is probed by allocating (halving the gap to 16 bytes); the probes are
    collected before free and used are read, so those say what is held."""
    import gc

    if not hasattr(gc, "mem_free"):
        return 0, 0, 0
    gc.collect()
    lo = 0
    hi = gc.mem_free()
    while hi - lo > 16:
        mid = (lo + hi) // 2
        try:
            bytearray(mid)  # room for mid bytes? (garbage at once)
            lo = mid
        except MemoryError:
            hi = mid
    gc.collect()
    return gc.mem_free(), lo, gc.mem_alloc()


# The heap allocator's block: four machine words (16 bytes on a 32-bit board, 32 on the unix port).
_HEAP_BLOCK = 16 if sys.maxsize < (1 << 32) else 32


def fill_heap_holes(most=192, run=128, min_free=20480):
    """Collect, then fill the heap's small free holes below its first long free run; return
    what holds the fillers (keep it while searching, drop it after), None on CPython.

    Why: a bytecode function with more than 11 words of locals and stack takes its frame from
    the heap, and the search calls such functions about once a node. MicroPython's allocator
    looks for room for anything bigger than one block from the lowest free block it knows of,
    which a collection resets to the heap's start, and only a one-block allocation moves that
    mark up. So after a collection every frame's allocation walks the allocation table over
    all the objects and small holes the imports left, and the walk depends on the heap's
    layout (the same search on the emulated Pico ran 411..437 nodes/s with a few hundred
    bytes shifted, 569..573 with the holes filled). Filling every hole below a run of `run` free
    blocks with one-block objects (a chain of 1-tuples: nothing else is allocated) leaves the
    mark at that run, so each frame is found at once. At most `most` fillers are held (the
    ones beyond are garbage at once, but stay in their holes until the next collection). The
    run's own fillers are dropped at once: garbage that the next collection takes back.
    Nothing is filled when less than `min_free` bytes are free after the collection: a tight
    heap keeps every byte for the game (the search is then as fast as the layout lets it be).
    A collection during the search would send the mark back to the heap's start: the App does
    not collect while a search runs."""
    if not IS_MICROPYTHON:
        return None
    import gc

    gc.collect()
    if gc.mem_free() < min_free:
        return None
    chain = None
    kept = None  # the chain up to the last hole's filler: kept_count fillers
    kept_count = 0
    capped = None  # the first `most` fillers, held instead when the holes take more
    made = 0
    last = 0
    in_run = 0
    try:
        while made < most + run:
            chain = (chain,)
            made += 1
            if made == most:
                capped = chain
            here = id(chain)
            if here == last + _HEAP_BLOCK:
                in_run += 1
                if in_run >= run:
                    break
            else:
                kept = chain[0]
                kept_count = made - 1
                in_run = 1
            last = here
    except MemoryError:  # the heap is locked (a test) or full: what was filled till then
        pass
    return kept if kept_count <= most else capped
