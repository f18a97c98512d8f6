# MicroPython freeze manifest for Reedchess: build MicroPython with the firmware frozen in.
#
# Frozen modules run from flash: they need no file system space, load instantly and leave
# more RAM for the engine than .mpy files. Steps (details in docs/flashing.md):
#
#   cd micropython/ports/rp2 && make BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/reedchess/manifest.py
#   cd micropython/ports/esp32 && idf.py -D MICROPY_BOARD=ESP32_GENERIC \
#       -D MICROPY_FROZEN_MANIFEST=/path/to/reedchess/manifest.py build
#
# then flash the .uf2 / .bin, and copy the data files and main.py with
#   make flash BOARD=pico PORT=/dev/ttyACM0 ARGS=--data-only
#
# Paths are relative to this file. package() freezes every .py of a package (all boards are
# frozen: each is small and main.py picks one). Data files such as firmware/data/*.bin cannot be
# frozen as modules and stay on the file system.

# Keep what the port freezes by default (asyncio, neopixel, ...).
include("$(PORT_DIR)/boards/manifest.py")

package("firmware")
package("boards")
