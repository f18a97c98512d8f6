"""Desktop simulator: fake pins, simulated clock, text and web UIs, log replay."""
