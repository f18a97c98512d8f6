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

# module name -> its users << 1 | 1 if borrow() imported it (then its last release drops it);
# a name with neither leaves the table. The table keeps its room once it has grown: its deleted
# entries' slots are used again, so it grows only with the most names borrowed at once.
_state = {}


def borrow(name):
    """The module `name` (dotted), imported if it is not loaded; counts one user more."""
    state = _state.get(name, 0)
    module = sys.modules.get(name)
    if module is None:
        __import__(name)
        module = sys.modules[name]
        state |= 1
    _state[name] = state + 2
    return module


def release(name):
    """One user of `name` fewer; when none is left, the module is dropped (if borrow imported
    it): it leaves sys.modules and its package. A release without its borrow is a RuntimeError
    (a programming error: borrow and release come in pairs)."""
    state = _state.get(name, 0) - 2
    if state < 0:
        raise RuntimeError("release(%r) without a borrow" % (name,))
    if state > 1:
        _state[name] = state
        return
    del _state[name]
    if state:  # no user left, and borrow imported it
        sys.modules.pop(name, None)
        dot = name.rfind(".")
        package = sys.modules.get(name[:dot])
        if package is not None and name[dot + 1:] in package.__dict__:
            delattr(package, name[dot + 1:])


def call(name, function, *args):
    """borrow(name), call its `function` with `args`, release(name); returns the result."""
    module = borrow(name)
    try:
        return getattr(module, function)(*args)
    finally:
        module = None
        release(name)


def drop_unused(name):
    """Drop a module that import statements loaded for start-up only (tables its importers
    copied, code that ran once), unless someone has borrowed it."""
    if _state.get(name, 0) < 2:
        _state[name] = 3  # as if borrow() had imported it, for one user: the release drops it
        release(name)
