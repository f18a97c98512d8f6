"""Drawings and parts lists of every board, from its CONFIG in boards/ (make diagrams).

Per board: docs/img/wiring-<board>.svg (the controller's pin-out wired to every part),
docs/img/board-<board>.svg (the board from above: squares, cells, LEDs, switches, the LED
chain), docs/img/bom-<board>.csv (the bill of materials); and the pin tables and bills of
materials in docs/wiring.md and docs/build-guide.md. tests/test_diagrams.py checks that the
committed files are what this package makes of the configs now.
"""
