# MicroPython freeze manifest for Reedchess: build MicroPython with the firmware frozen in.
# ruff: noqa: F821  (include() and package() are provided by MicroPython's makemanifest.py)
#
# Frozen modules run from flash: they need no file system space, load instantly and leave
# more RAM for the engine than .mpy files. For the RP2 boards `make image BOARD=pico` (tools/image.py)
# builds the whole image with this manifest; by hand (details in docs/flashing.md):
#
#   cd micropython/ports/rp2 && make BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/reedchess/manifest.py
#   cd micropython/ports/esp32 && make BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/reedchess/manifest.py
#
# then flash the .uf2 / .bin, and copy the data files and main.py with
#   make flash BOARD=pico PORT=/dev/ttyACM0 ARGS=--data-only
#
# Paths are relative to this file. package() freezes every .py of a package (all boards are
# frozen: each is small and main.py picks one). Data files such as firmware/data/*.bin cannot be
# frozen as modules and stay on the file system.

import json
import os

freeze_list = os.environ.get("REEDCHESS_FREEZE_LIST")
if freeze_list:
    # `make image` (tools/image.py): the MicroPython board's own manifest (asyncio, neopixel, the
    # network bundle on a Pico W), then exactly the board's files, the book and the frozen main.py
    with open(freeze_list) as f:
        plan = json.load(f)
    include(plan["include"])
    for base, path in plan["modules"]:
        module(path, base_path=base)
else:
    # Keep what the board or port freezes by default (asyncio, neopixel, network on a Pico W, ...).
    # (os.path.exists does not expand $(BOARD_DIR): for a board with its own manifest.py, pass
    # its path to include() here, as tools/image.py does.)
    if os.path.exists("$(BOARD_DIR)/manifest.py"):
        include("$(BOARD_DIR)/manifest.py")
    else:
        include("$(PORT_DIR)/boards/manifest.py")
    package("firmware")
    package("boards")
