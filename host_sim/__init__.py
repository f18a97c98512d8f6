"""Desktop simulator: fake pins, simulated clock, text and web UIs, log replay.

    from host_sim import Simulator      # see host_sim/simulator.py

`Simulator` is imported on first use (PEP 562), so the electronics model and fake pins
(host_sim.electronics, host_sim.pins) import without threads or the whole firmware - they
also run under MicroPython.
"""


def __getattr__(name):
    if name == "Simulator":
        from host_sim.simulator import Simulator

        return Simulator
    raise AttributeError("module 'host_sim' has no attribute %r" % (name,))
