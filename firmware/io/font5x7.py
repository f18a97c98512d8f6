"""The SSD1306's 5x7 pixel font for ASCII 32..126 (the classic public-domain GLCD font): it
lives in firmware.io.ssd1306 (one module less on a board); these names stay for the
simulator. FONT5X7[(ord(ch) - 32) * 5 + i] is column i of the glyph, bit 0 the top pixel.
"""
from firmware.io.ssd1306 import FONT5X7  # noqa: F401

FIRST = 32
LAST = 126
WIDTH = 5
