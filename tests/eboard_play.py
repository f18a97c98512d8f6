"""A host plays a whole game through the board's e-board protocol (runs under CPython and
MicroPython: tests/test_eboard_games.py runs it on both). The host lights each move for the
player (Millennium: L with the move's squares' corners; DGT: the Revelation II's 0x60), the
player makes it on the board, and the host follows the board's reports until they show the
position after the move; then it checks its own board against a full dump.

    result = play(2, MOVES)     # {"ok": True, "firmware": [...moves], "answers": n} or a failure
"""
from tests.eboard_hosts import Board, ChessLinkHost, DgtHost, corner_leds
from tests.eboard_rig import Rig

# en passant, a capture taken mover-first, promotion (to a queen), castling both ways
MOVES = ("e2e4", "d7d5", "e4d5", "c7c5", "d5c6", "g8f6", "c6b7", "e7e6", "b7a8q", "f8e7", "g1f3", "e8g8",
         "f1c4", "b8c6", "e1g1")
ORDERS = {"e4d5": "mover-first", "e8g8": "rook-first"}
WAIT_MS = 3000


def _field(name):
    return (8 - int(name[1])) * 8 + "abcdefgh".index(name[0])


def play(kind, moves=MOVES):
    rig = Rig(kind)
    board = Board()
    link = rig.host
    answers = 0
    if kind == 2:
        host = ChessLinkHost()
        link.host_write(host.encode("W0203"))  # a report on every change, as Chess for Android asks
        rig.run(50)
        host.feed(link.host_read())
        if host.take("w") != ["w0203"]:
            return {"ok": False, "why": "no w0203"}
    else:
        host = DgtHost()
        link.host_write(bytes((0x40, 0x42, 0x44)))  # reset, dump, update mode
        rig.run(50)
        host.feed(link.host_read())
        if host.placement() != board.placement():
            return {"ok": False, "why": "start dump %s" % host.placement()}
    for i in range(len(moves)):
        m = moves[i]
        if kind == 2:
            link.host_write(host.encode("L32" + corner_leds((m[0:2], m[2:4]))))
        else:
            link.host_write(bytes((0x60, 4, 1, _field(m[0:2]), _field(m[2:4]), 0)))
        rig.run(30)
        lit = rig.app.controller.eboard.lit_on
        for sq in (m[0:2], m[2:4]):
            cell = (int(sq[1]) - 1) * 8 + "abcdefgh".index(sq[0])
            if not lit[cell >> 3] & (1 << (cell & 7)):
                return {"ok": False, "why": "%s not lit for %s" % (sq, m)}
        rig.play(m, ORDERS.get(m, "natural"))
        board.push(m)
        want = board.placement()
        waited = 0
        seen = None
        while waited < WAIT_MS:
            host.feed(link.host_read())
            if kind == 2:
                reports = host.take("s")
                answers += len(reports)
                if reports:
                    seen = host.placement(reports[-1])
            else:
                seen = host.placement()
            if seen == want and rig.app.controller.game.ply == i + 1:
                break
            rig.run(50)
            waited += 50
        if seen != want:
            return {"ok": False, "why": "after %s the host saw %s, not %s" % (m, seen, want)}
        if kind == 1:  # a dump agrees with what the field updates built
            host.take(0x86)
            link.host_write(b"\x42")
            rig.run(20)
            host.feed(link.host_read())
            dumps = host.take(0x86)
            answers += len(dumps)
            if len(dumps) != 1 or host.placement() != want:
                return {"ok": False, "why": "dump after %s: %s" % (m, host.placement())}
        if kind == 2:
            link.host_write(host.encode("X"))
    return {"ok": True, "firmware": rig.app.controller.game.uci_moves(), "answers": answers,
            "phase": rig.app.controller.phase}


def main(kind):
    r = play(kind)
    print("RESULT", r["ok"], " ".join(r.get("firmware", ())) if r["ok"] else r["why"])
