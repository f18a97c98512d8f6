"""Features on demand: what a player uses rarely is imported when entered and released when
left, so it costs no RAM the rest of the time (docs/architecture.md, "What is resident and what
loads on demand"). They come and go through firmware/loader.py: the controller holds the ones
whose objects it keeps (Controller.hold and tidy in controller/flow.py) and runs its rare
actions through the table in flow.py (Controller.act); the rest are borrowed for a call.
"""
