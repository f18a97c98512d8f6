# MicroPython freeze manifest for Reedchess: build MicroPython with the firmware frozen in.
# ruff: noqa: F821  (include() and package() are provided by MicroPython's makemanifest.py)
#
# Frozen modules run from flash: they need no file system space, load instantly and leave
# more RAM for the engine than .mpy files. Steps (details in docs/flashing.md):
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

import os

# Keep what the board or port freezes by default (asyncio, neopixel, network on a Pico W, ...).
if os.path.exists("$(BOARD_DIR)/manifest.py"):
    include("$(BOARD_DIR)/manifest.py")
else:
    include("$(PORT_DIR)/boards/manifest.py")

package("firmware")
package("boards")
