"""Reedchess firmware: runs unchanged on CPython 3.11 and MicroPython."""
