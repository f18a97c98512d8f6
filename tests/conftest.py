import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def pytest_collection_modifyitems(session, config, items):
    """The emulated Pico's tests, the suite's longest, run first. `make test` runs pytest with
    `--dist worksteal`: a worker that runs out of tests takes the rest of the other's queue,
    so the run ends on short tests on both cores, not on one long test on one of them. The
    sort is stable: each module's tests stay together, in order, for their module fixtures."""
    items.sort(key=lambda item: 0 if item.get_closest_marker("pico") else 1)
