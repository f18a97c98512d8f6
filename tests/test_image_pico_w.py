"""The pico_w image (`make image BOARD=pico_w`) on the emulated RP2040: it boots by itself into
the chess computer, and the board's own Lichess client fits beside it with 30 KB to spare.

rp2040js models no Wi-Fi chip (CYW43439), so nothing goes over the air. Measured on the image's
own heap: the chess computer as its frozen main builds it (the image's transposition table,
drivers, book, journal, the booted game), the board's side of an online game (features/online.py)
and the client (online_net.NetClient: its four connections' buffers), all frozen code, so only
their objects are on the heap. Estimated: the TLS sessions, stood in for by blocks of the sizes
MicroPython's rp2 mbedtls config gives them (an input record of 16 KB + overhead, an output
record of 4 KB + overhead, ~1 KB of context each) - three at once, the most a game start holds
(the event stream not yet closed, the game's stream, the call connection); the handshake's
passing peak (key exchange, certificate check) is not modelled. The lwIP and CYW43 driver
buffers are static in the image (its smaller heap, 205 KB against the Pico's 232 KB, already
lacks them).
"""
import re

import pytest

from tests.test_image import built, erased_flash_with, image_pico
from tests.emulated_helper import ConsolePlayer
from tools import image
from tools.emulated_pico import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.pico]

SPARE = 30 * 1024
TLS_SESSION = (16384 + 333, 4096 + 333, 1024)  # mbedtls: in record + overhead, out record + overhead, context
TLS_SESSIONS = 3

MEASURE = """
import gc, sys
for name in list(sys.modules):  # what the frozen main's run left (its config was changed in place)
    if name.startswith(('firmware', 'boards')):
        del sys.modules[name]
gc.collect()
import boards.pico_w as board
board.CONFIG['tt_entries'] = %(tt)d
board.CONFIG['boot_gc_threshold'] = 32768
from firmware import loader
boot = loader.borrow('firmware.features.boot')
app = boot.build(board, '/', %(book)r, None)
boot.boot_app(app, app.ticks_ms())
boot = None
loader.release('firmware.features.boot')
gc.collect()
print('GAME', gc.mem_free())
app.controller.hold('online')
from firmware.features import online_net
client = online_net.NetClient(app, {'token': 'lip_' + 'x' * 20, 'server': 'http://lichess.org'}, 'seek', (10, 0), None)
gc.collect()
print('CLIENT', gc.mem_free())
tls = [tuple(bytearray(n) for n in %(tls)r) for _ in range(%(sessions)d)]
gc.collect()
import micropython
print('TLS', gc.mem_free())
micropython.mem_info()
"""


@pytest.fixture(scope="module")
def pico_w(tmp_path_factory):
    info = built("pico_w")
    why = unavailable()
    if why:
        pytest.skip(why)
    p = image_pico(erased_flash_with(info["paths"]["bin"], str(tmp_path_factory.mktemp("image") / "pico_w.img")),
                   "pico_w")
    p.start()
    try:
        p.info = info
        yield p
    finally:
        p.stop()


def test_boots_into_the_chess_computer(pico_w):
    player = ConsolePlayer(pico_w)
    player.wait_console()
    m = player.mem()
    print("pico_w image after boot: %s" % m)
    assert not any("Traceback" in line for line in pico_w.transcript), pico_w.transcript
    assert "firmware/features/online_net.py" in pico_w.info["frozen"]


def test_online_client_and_three_tls_sessions_leave_30_kb(pico_w):
    player = ConsolePlayer(pico_w)
    player.wait_console()  # the frozen main ran once: its book is on the file system
    pico_w.to_repl()
    out = pico_w.exec(MEASURE % {"tt": pico_w.info["tt_entries"], "book": image.BOOK_PATH, "tls": TLS_SESSION,
                                 "sessions": TLS_SESSIONS}, timeout=300)
    game, client, tls = (int(re.search(r"^%s (\d+)" % k, out, re.M).group(1)) for k in ("GAME", "CLIENT", "TLS"))
    tls_bytes = TLS_SESSIONS * sum(TLS_SESSION)
    print("pico_w image, %d table entries: free in a game %d; with the online client %d (it takes %d); with %d TLS "
          "sessions (%d bytes, estimated) %d free" % (pico_w.info["tt_entries"], game, client, game - client,
                                                      TLS_SESSIONS, tls_bytes, tls))
    assert game - client > 0  # the client's objects are on the heap
    assert tls >= SPARE, out
