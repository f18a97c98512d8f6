"""Features on demand: what a player uses rarely is imported when entered and released when
left, so it costs no RAM the rest of the time (docs/architecture.md, "What is resident and what loads on demand").

    mod = load("clock")           # firmware.features.clock, imported on first use
    drop("clock")                 # gone from sys.modules (and from this package); the garbage
                                  # collector frees it once nothing holds its objects

The controller (controller/flow.py) holds a feature's object while it is in use (`clock`,
`touch`, `trainer`, `online` or None) and calls a few hook methods on it; `Controller.tidy()` drops the
modules nothing holds. Never drop a module whose objects are still in use: the next load
would import a second copy.
"""
import sys

from firmware.compat import forget


def load(name):
    full = "firmware.features." + name
    mod = sys.modules.get(full)
    if mod is None:
        __import__(full)
        mod = sys.modules[full]
    return mod


def drop(name):
    forget("firmware.features." + name)
