"""The USB bridge (online/bridge.py) between a simulated board (the firmware in host_sim, its
console as the USB serial line) and the local Lichess stand-in, through berserk: seeks and
challenges, moves both ways, clocks, offers, take back, a refused move, 429, dropped streams,
a game that ends while the bridge is offline, a bad token, the token kept out of every output;
and two boards playing a whole game against each other."""
import time

import pytest

from host_sim import Simulator
from online.bridge import Bridge, BridgeError, Redactor, make_client, read_token
from online.lichess_server import LichessServer
from online.links import SimLink

TOKEN_A = "lip_secretAlice0123456789"
TOKEN_B = "lip_secretBob9876543210"
# Morphy - Duke Karl / Count Isouard, Paris 1858: captures, long castling, checks, mate
OPERA = ("e2e4 e7e5 g1f3 d7d6 d2d4 c8g4 d4e5 g4f3 d1f3 d6e5 f1c4 g8f6 f3b3 d8e7 b1c3 c7c6 c1g5 b7b5 "
         "c3b5 c6b5 c4b5 b8d7 e1c1 a8d8 d1d7 d8d7 h1d1 e7e6 b5d7 f6d7 b3b8 d7b8 d1d8").split()


@pytest.fixture
def server():
    s = LichessServer(keepalive_s=0.3)
    s.add_user("alice", TOKEN_A)
    s.add_user("bob", TOKEN_B)
    s.start()
    yield s
    s.stop()


class Player:
    """A simulated board with its bridge."""

    def __init__(self, server, token, human="both", seed=1, **kw):
        self.log = []
        self.sim = Simulator(seed=seed, book=False, ponder=False, human=human)
        self.link = SimLink(self.sim)
        kw.setdefault("retry_s", 0.05)
        kw.setdefault("rate_wait_s", 0.3)
        self.bridge = Bridge(make_client(token, server.url), self.link, log=Redactor(token, self.log.append), **kw)

    def start(self):
        self.bridge.start()
        return self

    def stop(self):
        self.bridge.stop()
        self.sim.close()


def pump(players, cond, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for p in players:
            p.bridge.step()
        if cond():
            return
    raise AssertionError("timed out; logs: %s; sent: %s" % ([p.log for p in players],
                                                          [p.link.sent[-6:] for p in players]))


@pytest.fixture
def alice(server):
    p = Player(server, TOKEN_A, game_id=None)
    yield p
    p.stop()


def start_game(server, player, white="alice", black="bob"):
    g = server.create_game(white, black, 300, 2)
    player.start()
    pump([player], lambda: player.bridge.color is not None and player.bridge.board_moves is not None)
    return g


def opponent(server, g, move, user="bob"):
    assert server.act(user, g.id, "move", move) == (200, {"ok": True})


def test_moves_both_ways_with_clocks(server, alice):
    g = start_game(server, alice)
    sim = alice.sim
    assert alice.link.sent[0] == "online start w %s" % g.id
    pump([alice], lambda: sim.display_text()[1] == "W 5:00 B 5:00")
    sim.play("e2e4")
    pump([alice], lambda: g.moves == ["e2e4"])
    opponent(server, g, "c7c5")
    pump([alice], lambda: sim.computer_move() == "c7c5")
    assert sim.lit() == {"c7": "on", "c5": "on"}
    sim.execute()
    sim.play("g1f3")
    pump([alice], lambda: g.moves == ["e2e4", "c7c5", "g1f3"])
    pump([alice], lambda: "online clock" in alice.link.sent[-1] and alice.link.sent[-1].endswith(" b"))
    assert sim.game() == g.moves
    assert sim.app.searches == 0  # the engine never played for the opponent


def test_accepts_a_challenge_and_plays_black(server):
    bob = Player(server, TOKEN_B, accept=True).start()
    try:
        status, chal = server.challenge("alice", "bob", **{"clock.limit": 120, "color": "white"})
        assert status == 200
        pump([bob], lambda: bob.bridge.color == "black")
        g = server.game(bob.bridge.game_id)
        assert g.white == "alice" and server.challenges[chal["id"]]["status"] == "accepted"
        opponent(server, g, "d2d4", "alice")
        pump([bob], lambda: bob.sim.computer_move() == "d2d4")
    finally:
        bob.stop()


def test_two_seeks_pair_and_the_player_resigns_with_the_new_button(server):
    a = Player(server, TOKEN_A, seek=(5, 0)).start()
    b = Player(server, TOKEN_B, seek=(5, 0)).start()
    try:
        pump([a, b], lambda: a.bridge.color and b.bridge.color and a.bridge.board_moves is not None
             and b.bridge.board_moves is not None)
        assert {a.bridge.color, b.bridge.color} == {"white", "black"}
        white = a if a.bridge.color == "white" else b
        white.sim.play("e2e4")
        g = server.game(a.bridge.game_id)
        pump([a, b], lambda: g.moves == ["e2e4"])
        white.sim.press("new", long=True)  # resign: before both have moved it is an abort
        pump([a, b], lambda: g.over)
        assert g.status == "aborted"
        pump([a, b], lambda: a.bridge.done and b.bridge.done)
        assert a.sim.console("online status")[-1] == "online off"
    finally:
        a.stop()
        b.stop()


def test_offers_and_take_back(server, alice):
    g = start_game(server, alice)
    sim = alice.sim
    sim.play("e2e4")
    pump([alice], lambda: g.moves == ["e2e4"])
    opponent(server, g, "e7e5")
    pump([alice], lambda: sim.computer_move() == "e7e5")
    sim.execute()
    sim.play("g1f3")
    pump([alice], lambda: len(g.moves) == 3)
    # the opponent asks for a take back; the takeback button accepts: the board is guided back
    server.act("bob", g.id, "takeback", "yes")
    pump([alice], lambda: sim.display_text()[1].endswith("Back?"))
    sim.press("takeback")
    pump([alice], lambda: g.moves == ["e2e4"])
    pump([alice], lambda: sim.game() == ["e2e4"] and sim.state()["phase"] == "verify")
    sim.play("f3g1")
    sim.play("e5e7")
    pump([alice], lambda: sim.state()["phase"] == "thinking")
    # the opponent offers a draw; new declines it; then alice offers one and bob accepts
    server.act("bob", g.id, "draw", "yes")
    pump([alice], lambda: sim.display_text()[1].endswith("Draw?"))
    sim.press("new")
    pump([alice], lambda: not g.bdraw)
    assert g.status == "started"
    sim.press("hint")
    pump([alice], lambda: g.wdraw)
    server.act("bob", g.id, "draw", "yes")
    pump([alice], lambda: sim.state()["phase"] == "over")
    assert g.status == "draw" and sim.state()["result"] == "1/2-1/2"
    sim.press("new")
    pump([alice], lambda: alice.bridge.done)


def test_a_refused_move_and_a_rate_limit(server, alice):
    g = start_game(server, alice)
    sim = alice.sim
    server.fail("/move/", 429)  # retried after the pause
    sim.play("d2d4")
    pump([alice], lambda: g.moves == ["d2d4"])
    assert ("POST", "/api/board/game/%s/move/d2d4" % g.id, 429) in server.requests
    assert any("429" in line for line in alice.log)
    opponent(server, g, "d7d5")
    pump([alice], lambda: sim.computer_move() == "d7d5")
    sim.execute()
    server.fail("/move/", 400)  # refused: said on the display, the board goes back
    sim.play("c2c4")
    pump([alice], lambda: sim.game() == ["d2d4", "d7d5"] and sim.state()["phase"] == "verify")
    assert "online say Move refused" in alice.link.sent
    sim.play("c4c2")
    pump([alice], lambda: sim.state()["phase"] == "player")
    sim.play("c2c4")
    pump([alice], lambda: g.moves == ["d2d4", "d7d5", "c2c4"])


def test_dropped_streams_resume_and_a_game_that_ends_while_offline(server, alice):
    g = start_game(server, alice)
    sim = alice.sim
    sim.play("e2e4")
    pump([alice], lambda: g.moves == ["e2e4"])
    server.drop_streams("alice")
    opponent(server, g, "e7e5")  # while the streams are down
    pump([alice], lambda: sim.computer_move() == "e7e5", timeout=15)
    assert any("dropped" in line for line in alice.log)
    sim.execute()
    # the bridge is offline (its streams cannot reconnect) when the opponent resigns
    server.fail("/api/board/game/stream/", 503, times=3)
    server.drop_streams("alice")
    server.act("bob", g.id, "resign")
    pump([alice], lambda: sim.state()["phase"] == "over", timeout=15)
    assert sim.state()["result"] == "1-0" and sim.state()["reason"] == "resignation"
    assert sim.game() == ["e2e4", "e7e5"] == g.moves


def test_bad_token_and_no_token(server, tmp_path):
    p = Player(server, "lip_wrongToken42")
    try:
        with pytest.raises(BridgeError) as err:
            p.bridge.start()
        assert "401" in str(err.value) and "board:play" in str(err.value)
        assert "lip_wrongToken42" not in str(err.value)
    finally:
        p.stop()
    with pytest.raises(BridgeError):
        read_token(None, environ={})
    f = tmp_path / "token"
    f.write_text(TOKEN_A + "\n")
    assert read_token(str(f)) == TOKEN_A
    assert read_token(None, environ={"REEDCHESS_LICHESS_TOKEN": TOKEN_B}) == TOKEN_B
    out = []
    Redactor(TOKEN_A, out.append)("header Bearer %s" % TOKEN_A)
    assert out == ["header Bearer ***"]


def test_two_boards_play_a_whole_game_through_the_server(server):
    """Board A (White, alice) and board B (Black, bob), each through its own USB bridge: a move
    made on one board lights on the other; both game records equal the server's."""
    a = Player(server, TOKEN_A, seek=(3, 2), seed=1).start()
    b = Player(server, TOKEN_B, seek=(3, 2), seed=2).start()
    try:
        pump([a, b], lambda: a.bridge.color and b.bridge.color and a.bridge.board_moves is not None
             and b.bridge.board_moves is not None)
        by_colour = {a.bridge.color: a, b.bridge.color: b}
        g = server.game(a.bridge.game_id)
        for i, move in enumerate(OPERA):
            mover = by_colour["white" if i % 2 == 0 else "black"]
            other = by_colour["black" if i % 2 == 0 else "white"]
            mover.sim.play(move)
            pump([a, b], lambda o=other, m=move: o.sim.computer_move() == m or o.sim.game()[-1:] == [m])
            if other.sim.computer_move() == move:
                assert set(other.sim.lit()) >= {move[:2], move[2:4]}
                other.sim.execute()
            else:  # the mate: the server ended the game at once, the board guides the last move
                assert i == len(OPERA) - 1 and other.sim.state()["phase"] == "verify"
                other.sim.play(move)
            pump([a, b], lambda o=other, m=move: o.sim.game()[-1:] == [m])
        pump([a, b], lambda: a.sim.state()["phase"] == b.sim.state()["phase"] == "over")
        assert g.status == "mate" and g.winner == "white"
        assert a.sim.game() == b.sim.game() == g.moves == OPERA
        for p in (a, b):
            assert p.sim.state()["result"] == "1-0" and p.sim.state()["reason"] == "checkmate"
            assert p.sim.app.searches == 0
            p.sim.press("new")
        pump([a, b], lambda: a.bridge.done and b.bridge.done)
        # the tokens appear nowhere: logs, lines to and from the boards, journals, PGN, server log
        for p in (a, b):
            pgn = p.sim.pgn()
            assert "1. e4 e5 2. Nf3 d6" in pgn and "Rd8#" in pgn
            texts = p.log + p.link.sent + p.sim.console_lines + [pgn, repr(server.requests)]
            texts += [bytes(data).decode("latin-1") for data in p.sim.flash.files.values()]
            for token in (TOKEN_A, TOKEN_B):
                assert not any(token in t for t in texts)
    finally:
        a.stop()
        b.stop()


def test_a_restarted_bridge_and_a_restarted_board_resume_from_the_server(server, alice):
    g = start_game(server, alice)
    sim = alice.sim
    sim.play("e2e4")
    pump([alice], lambda: g.moves == ["e2e4"])
    alice.bridge.stop()
    opponent(server, g, "e7e5")  # while no bridge runs
    # a new bridge for the running game (python -m online.bridge --game ID): the board goes on
    again = Bridge(make_client(TOKEN_A, server.url), alice.link, log=Redactor(TOKEN_A, alice.log.append),
                   retry_s=0.05, game_id=g.id).start()
    try:
        pump([], lambda: again.step() or sim.computer_move() == "e7e5")
        assert "ok resume 1" in sim.console_lines
        sim.execute()
        # the board restarts (its online state is gone): the next line it gets is refused, and the
        # bridge sets it up again from the server's moves, the LEDs guiding the pieces
        sim.console("online stop")
        sim.arrange("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
        sim.run(600)
        assert server.act("bob", g.id, "chat", "still there?")[0] == 200  # shown on the board: refused
        sim.play("g1f3")  # a two-player move now: the board is not online
        pump([], lambda: again.step() or (sim.game() == ["e2e4", "e7e5"] and sim.state()["phase"] == "verify"))
        assert any("no online game" in line for line in alice.log)
    finally:
        again.stop()


def test_main_without_or_with_a_bad_token(server, monkeypatch, capsys, tmp_path):
    from online import bridge

    monkeypatch.delenv("REEDCHESS_LICHESS_TOKEN", raising=False)
    assert bridge.main(["--sim", "--server", server.url, "--seek", "5+0"]) == 2
    assert "REEDCHESS_LICHESS_TOKEN" in capsys.readouterr().err
    f = tmp_path / "token"
    f.write_text("lip_notAKnownToken77\n")
    assert bridge.main(["--sim", "--server", server.url, "--seek", "5+0", "--token-file", str(f)]) == 2
    out = capsys.readouterr()
    assert "401" in out.out and "lip_notAKnownToken77" not in out.out + out.err


class FlakyLink(SimLink):
    """A SimLink whose USB line can be pulled (OSError) and plugged in again."""

    down = False

    def send(self, line):
        if self.down:
            raise OSError(5, "Input/output error")
        super().send(line)

    def poll(self):
        if self.down:
            raise OSError(5, "Input/output error")
        return super().poll()


def test_an_unplugged_board_is_set_up_again_when_it_is_back(server):
    sim = Simulator(seed=1, book=False, ponder=False, human="both")
    link = FlakyLink(sim)
    log = []
    bridge = Bridge(make_client(TOKEN_A, server.url), link, log=log.append, retry_s=0.05).start()
    try:
        g = server.create_game("alice", "bob", 300, 0)
        pump([], lambda: bridge.step() or sim.console_lines[-1:] == ["ok"] and bridge.board_moves == [])
        link.down = True
        opponent(server, g, "e2e4", "alice")  # alice's move made elsewhere (the web page) meanwhile
        server.act("bob", g.id, "resign")
        pump([], lambda: bridge.step() or bridge.ended)
        assert any("board lost" in line for line in log)
        link.down = False
        pump([], lambda: bridge.step() or sim.state()["phase"] == "over")
        assert sim.game() == ["e2e4"] and sim.state()["result"] == "1-0"
        assert any(line == "board back" for line in log)
    finally:
        bridge.stop()
        sim.close()


def test_the_serial_link_on_a_pseudo_terminal():
    import os
    import tty

    from online.links import LinkError, SerialLink

    master, slave = os.openpty()
    tty.setraw(slave)
    link = SerialLink(os.ttyname(slave))
    try:
        link.send("online status")
        assert os.read(master, 100) == b"online status\r\n"
        os.write(master, b"online played e2e4 1\r\nonline dr")
        deadline = time.monotonic() + 2
        got = []
        while time.monotonic() < deadline and not got:
            got = link.poll()
        assert got == ["online played e2e4 1"]
        os.write(master, b"aw\r\n")
        while time.monotonic() < deadline and got == ["online played e2e4 1"]:
            got = link.poll() or got
        assert got == ["online draw"]
    finally:
        link.close()
        os.close(master)
        os.close(slave)
    with pytest.raises(LinkError):
        SerialLink("/dev/nonexistent-reedchess")
