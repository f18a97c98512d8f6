"""Chess only: position, rules, notation, search, book. Imports nothing outside engine/ but
firmware.compat."""
