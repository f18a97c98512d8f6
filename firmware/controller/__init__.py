"""The glue: turns occupancy changes into moves and game flow; drives LEDs from the game."""
