"""A host that never pauses (it asks for the status again the moment an answer comes, as a
polling host on a fast link does) must not stop the board's own work: the e-board mode reads
at most a few buffers of the host's bytes in one main-loop pass (features/eboard.py), so the
switches are still scanned and a move made meanwhile is followed and reported."""
import pytest

from tests.eboard_hosts import ChessLinkHost, DgtHost
from tests.eboard_rig import Rig

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"


class FloodLink:
    """The host's requests, over and over, as fast as the board reads them."""

    console = False

    def __init__(self, request, clock):
        self.request = request
        self.clock = clock
        self.at = 0
        self.reads = 0
        self.pass_ms = -1
        self.pass_reads = 0
        self.sent = bytearray()

    def read_into(self, buf):
        self.reads += 1
        if self.clock() != self.pass_ms:
            self.pass_ms = self.clock()
            self.pass_reads = 0
        self.pass_reads += 1
        assert self.pass_reads <= 100, "one main-loop pass reads the host's bytes without end"
        for i in range(len(buf)):
            buf[i] = self.request[self.at]
            self.at = (self.at + 1) % len(self.request)
        return len(buf)

    def write(self, data):
        self.sent.extend(data)
        del self.sent[:-1000]  # the host keeps the latest answers

    def claim(self):
        pass

    def release(self):
        pass


@pytest.mark.parametrize("kind", [1, 2])
def test_a_flooding_host_does_not_stop_the_board(kind):
    host = DgtHost() if kind == 1 else ChessLinkHost()
    rig = Rig(kind)  # switched on in the mode; its link is claimed in the first pass
    link = FloodLink(bytes((0x42,)) if kind == 1 else host.encode("S"), rig.now)
    rig.app.link = link
    rig.run(10)
    assert link.reads  # the mode reads the flood
    rig.play("e2e4")
    assert rig.app.game.uci_moves() == ["e2e4"]
    host.feed(bytes(link.sent[-67:]))  # the latest answer: a board dump or a status, 67 bytes
    if kind == 1:
        assert host.placement() == AFTER_E4
    else:
        assert host.placement(host.messages[-1]) == AFTER_E4
