"""The static web demo's MicroPython side (demo_board.py); its page and workers are the .js files here."""
