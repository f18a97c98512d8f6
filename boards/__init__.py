"""Board configurations: pin maps, device kinds, memory and engine limits per board.
The only place that imports `machine`, `neopixel`, `rp2` or Blinka (inside functions)."""
