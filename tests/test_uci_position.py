"""`position` commands in a UCI session: a command that continues the current game is made on
the same Position (a board's heap is spared a new one each move), anything else builds a new
one; either way the result is the position python-chess reaches, and an error changes nothing.
Also: the search tables are made at the first search, not at `uci`/`isready`/`go perft`."""
import random

import chess

from firmware.engine.fen import START_FEN, fen
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from firmware.uci import UciSession


def _session():
    out = []
    return UciSession(out.append), out


def _fen4(text):
    return text.split()[:4]


def test_a_game_sent_move_by_move_reuses_the_position_and_matches_python_chess():
    rng = random.Random(5)
    session, out = _session()
    board = chess.Board()
    session.handle("position startpos")
    reused = 0
    for _ in range(160):
        if board.is_game_over():
            break
        board.push(rng.choice(list(board.legal_moves)))
        before = session.position
        session.handle("position startpos moves " + " ".join(m.uci() for m in board.move_stack))
        assert not out, out
        reused += session.position is before
        assert _fen4(fen(session.position)) == _fen4(board.fen())
        assert session.position.ply == board.ply()
    # a new Position only when the old one had no room left (every 32 plies or so)
    assert reused >= board.ply() - board.ply() // 16 - 2, (reused, board.ply())


def test_takeback_other_line_fen_start_and_illegal_moves():
    session, out = _session()
    session.handle("position startpos moves e2e4 e7e5 g1f3")
    first = session.position
    # fewer moves (a takeback): a new position, correct
    session.handle("position startpos moves e2e4 e7e5")
    after = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    assert _fen4(fen(session.position)) == _fen4(after.fen())
    assert session.position is not first
    # a different earlier move: a new position
    session.handle("position startpos moves d2d4 e7e5")
    board = chess.Board()
    for m in ("d2d4", "e7e5"):
        board.push_uci(m)
    assert _fen4(fen(session.position)) == _fen4(board.fen())
    # an illegal move while extending: error, the position and its ply unchanged
    kept = session.position
    text = fen(kept)
    session.handle("position startpos moves d2d4 e7e5 d4e5 e8e7 a1a5")
    assert out and out[-1].startswith("info string error: move 5 (a1a5)"), out
    assert session.position is kept and fen(kept) == text and kept.ply == 2
    # a FEN start, then its continuation is made on the same Position
    start = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    session.handle("position fen " + start + " moves e1g1")
    pos = session.position
    session.handle("position fen " + start + " moves e1g1 h3g2")
    board = chess.Board(start)
    board.push_uci("e1g1")
    board.push_uci("h3g2")
    assert session.position is pos and _fen4(fen(pos)) == _fen4(board.fen())
    # the same moves after another start: not taken as a continuation
    session.handle("position startpos moves e2e4")
    after = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert _fen4(fen(session.position)) == _fen4(after.fen())
    # tabs and repeated spaces separate words too
    session.handle("position\tstartpos  moves\te2e4   e7e5")
    assert session.position.ply == 2


def test_search_tables_come_with_the_first_search():
    session, out = _session()
    session.handle("uci")
    session.handle("isready")
    session.handle("position startpos")
    session.handle("go perft 2")
    assert out[-1] == "Nodes searched: 400"
    assert session.searcher is None
    session.handle("go depth 2")
    assert session.searcher is not None and out[-1].startswith("bestmove")
    assert session.searcher.tt.size == 65536  # the 1 MB default where the heap has room
    # the position after the search is the one the GUI set (the search unmade its moves)
    assert session.position.ply == 0


def _position(moves, capacity):
    position = Position(START_FEN, capacity)
    for text in moves:
        position.make(parse_uci(position, text))
    return position


def test_a_longer_game_than_the_position_holds_is_rebuilt_and_an_error_restores_it():
    session, out = _session()
    game = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
    session.position = old = _position(game[:3], 3 + 79)  # no room for a move and the search
    session.handle("position startpos moves " + " ".join(game[:4]))
    assert not out and session.position is not old and session.position.ply == 4
    session.position = _position(game[:5], 5 + 79)
    kept = fen(session.position)
    session.handle("position startpos moves " + " ".join(game) + " e1e8")
    assert out and out[-1].startswith("info string error: move 7 (e1e8)"), out
    assert fen(session.position) == kept and session.position.ply == 5
    session.handle("position startpos moves " + " ".join(game))
    assert session.position.ply == 6 and len(out) == 1


def test_when_the_longer_position_does_not_fit_beside_the_old_the_old_is_let_go_everywhere(monkeypatch):
    """On a board's heap the longer Position may fit only in the room of the old one. Then
    nothing may keep the old one alive: the searcher's reference from the last search was
    what broke a 128 KB UCI game at ply 146 (test_uci_small_heap)."""
    import firmware.uci as uci_module

    session, out = _session()
    game = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
    session.handle("position startpos moves " + " ".join(game[:3]))
    session.handle("go depth 1")
    session.position = old = _position(game[:3], 3 + 79)
    session.searcher.pos = old  # as the last search left it
    real = uci_module.parse_position
    seen = []

    def parse_position(args, max_moves=-1):
        # the first try (the old Position still held) runs out of memory; the second sees
        # what the session and its searcher still hold
        seen.append((session.position, session.searcher.pos))
        if len(seen) == 1:
            raise MemoryError
        return real(args, max_moves)

    monkeypatch.setattr(uci_module, "parse_position", parse_position)
    session.handle("position startpos moves " + " ".join(game[:4]))
    assert seen[0] == (old, old)
    assert seen[1] == (None, None)
    assert session.position.ply == 4 and not out[-1].startswith("info string error")


def test_a_position_that_finds_no_room_beside_the_table_is_set_in_its_room(monkeypatch):
    """A small heap a game has cut into holes may have no room for a new Position or the FEN
    module beside the search's table: `position` then frees the table and runs again (the
    next search makes it anew). `go` never runs twice: it may have answered already."""
    import firmware.uci as uci_module

    session, out = _session()
    session.handle("go depth 1")
    real = uci_module.parse_position
    tries = []

    def parse_position(args, max_moves=-1):
        tries.append(session.searcher)
        if session.searcher is not None:
            raise MemoryError
        return real(args, max_moves)

    monkeypatch.setattr(uci_module, "parse_position", parse_position)
    fen_text = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    session.handle("position fen " + fen_text)
    assert len(tries) == 2 and tries[0] is not None and tries[1] is None
    assert fen(session.position) == fen_text and session.searcher is None
    assert not any(line.startswith("info string error") for line in out), out
    session.handle("go depth 1")
    assert session.searcher is not None and out[-1].startswith("bestmove e")

    searches = []

    def go_search(args):
        searches.append(args)
        raise MemoryError

    searcher = session.searcher
    monkeypatch.setattr(session, "go_search", go_search)
    session.handle("go depth 1")
    assert searches == [["depth", "1"]] and session.searcher is searcher
    assert out[-1] == "info string error: out of memory"
