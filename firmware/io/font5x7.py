"""The SSD1306's 5x7 pixel font for ASCII 32..126 (the classic public-domain GLCD font): it
lives in firmware.io.ssd1306 (one module less on a board); these names stay for the
simulator. FONT5X7[(ord(ch) - 32) * 5 + i] is column i of the glyph, bit 0 the top pixel.
"""
from firmware.io.ssd1306 import FONT5X7  # noqa: F401

FIRST = 32
LAST = 126
WIDTH = 5


def glyph_offset(code):
    """Offset of a character code's 5 columns in FONT5X7 ('?' for codes without a glyph)."""
    if code < FIRST or code > LAST:
        code = 63
    return (code - FIRST) * WIDTH
