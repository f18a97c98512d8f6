"""Online play on Lichess from a Reedchess board (host side; docs/online.md).

    online/lichess_server.py   a local stand-in for the subset of the Lichess Board API used
                               (tests, and `make online ARGS=--local` to try it without an account)
    online/bridge.py           `python -m online.bridge`: a board's USB serial console <-> Lichess
    online/links.py            the board side of the bridge: a serial port, or the simulator
"""
