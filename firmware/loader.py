"""Loading on demand: the one way a rarely used part of the firmware comes into the heap and
leaves it again (docs/architecture.md, "What is resident and what loads on demand").

    options = borrow("firmware.features.options")   # imported on first use; one user more
    options.button(controller, name, kind)
    release("firmware.features.options")            # one user fewer; at none it is dropped
    call("firmware.features.new_game", "new_game", c, now_ms)   # borrow, call, release
    drop_unused("firmware.engine.tunables")         # a module only start-up needed, unless borrowed

A module is dropped when its last user releases it: it leaves sys.modules and its package,
and the garbage collector frees its code once nothing holds its objects. A module someone has
borrowed is never dropped: a second borrower only counts one more, and a nested call (an
action calling another) keeps it until the outermost returns. A module that was loaded when
it was first borrowed (an import statement brought it in) belongs to its importers and stays.
So whoever keeps an object of a module borrowed the module first and releases it when it lets
go of the object (the controller does that for the features it holds: flow.py, Controller.hold
and tidy).

Rare parts import the core, never the reverse: the core names them here by a string, so no
import circle forms (tests/test_layering.py). CPython runs the same code; there the dropped
modules are imported again the next time, as on a board.
"""
import sys

_users = {}  # module name -> how many borrowed it and did not release it yet
_ours = set()  # modules that borrow() imported: dropped when their last user releases them


def borrow(name):
    """The module `name` (dotted), imported if it is not loaded; counts one user more."""
    module = sys.modules.get(name)
    if module is None:
        __import__(name)
        module = sys.modules[name]
        _ours.add(name)
    _users[name] = _users.get(name, 0) + 1
    return module


def release(name):
    """One user of `name` fewer; when none is left, the module is dropped (if borrow loaded
    it). Releasing a module nobody borrowed is a LoaderError (borrow and release come in pairs)."""
    left = _users.get(name, 0) - 1
    if left < 0:
        raise LoaderError("release(%r) without a borrow" % (name,))
    if left:
        _users[name] = left
        return
    del _users[name]
    if name in _ours:
        _ours.discard(name)
        _forget(name)


def call(name, function, *args):
    """borrow(name), call its `function` with `args`, release(name); returns the result."""
    module = borrow(name)
    try:
        return getattr(module, function)(*args)
    finally:
        release(name)


def drop_unused(name):
    """Drop a module that was imported by import statements for start-up only (tables that
    the importers copied, code that ran once), unless someone has borrowed it."""
    if not _users.get(name):
        _ours.discard(name)
        _forget(name)


def users(name):
    """How many hold `name` now (0: it is not borrowed; it may still be loaded)."""
    return _users.get(name, 0)


def _forget(name):
    sys.modules.pop(name, None)
    dot = name.rfind(".")
    package = sys.modules.get(name[:dot])
    attr = name[dot + 1:]
    if package is not None and attr in package.__dict__:
        delattr(package, attr)


class LoaderError(ValueError):
    """A release without its borrow."""
