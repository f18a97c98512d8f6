"""The mate trainer: random start positions (checked with python-chess over 1,000 seeds, the
same on MicroPython), piece-by-piece set-up guidance, the computer's stubborn defence, and
in the Simulator a K+Q vs K exercise mated by a scripted player (the engine plays the mating
side), a failure by stalemate, and the results per set in flash."""
import chess
import pytest

from firmware.features import trainer as T
from firmware.controller.game import Game
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from firmware.engine.search import Limits, Searcher
from firmware.engine.fen import START_FEN
from firmware.uci import parse_position
from host_sim import Simulator
from tests.mpy import PICO_HEAP, run_mpy

PIECES = {"Queen": "q", "Rook": "r", "Bishop": "b", "Knight": "n", "King": "k"}
KIND = {"Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT}


# ---- start positions ---------------------------------------------------------------------------
def check_start(fen, set_name, strong):
    """Every promise of trainer.random_start, checked with python-chess."""
    board = chess.Board(fen)
    assert board.is_valid(), fen
    assert board.turn == strong and not board.is_check() and not board.is_game_over(), fen
    weak = not strong
    assert board.occupied_co[weak] == board.kings & board.occupied_co[weak]  # a lone king
    own = sorted(p.symbol().upper() for p in board.piece_map().values()
                 if p.color == strong and p.piece_type != chess.KING)
    assert own == sorted(set_name[1:]), fen
    wk, sk = board.king(weak), board.king(strong)
    assert chess.square_distance(wk, sk) >= T.MIN_KING_DISTANCE, fen
    for sq in chess.SquareSet(board.occupied_co[strong]):
        assert chess.square_distance(sq, wk) >= 2, fen  # nothing the lone king could take at once
    bishops = list(board.pieces(chess.BISHOP, strong))
    if set_name == "KBB":
        assert len({(chess.square_file(b) + chess.square_rank(b)) % 2 for b in bishops}) == 2, fen
    for move in board.legal_moves:  # no mate in one
        board.push(move)
        assert not board.is_checkmate(), (fen, move)
        board.pop()
    flipped = board.copy()
    flipped.turn = weak
    assert flipped.is_valid() and any(flipped.legal_moves), fen  # the lone king can move


def test_start_positions_are_valid_over_1000_seeds():
    seen = set()
    for seed in range(1000):
        index = seed % len(T.SETS)
        strong = chess.WHITE if seed % 4 < 2 else chess.BLACK
        fen = T.random_start(index, seed, 0 if strong == chess.WHITE else 8)
        check_start(fen, T.SETS[index], strong)
        seen.add(fen)
    assert len(seen) >= 990  # random, not a handful of fixed exercises
    assert T.random_start(3, 77) == T.random_start(3, 77)  # deterministic in the seed


def test_bad_arguments_are_clear_errors():
    with pytest.raises(T.TrainerError, match="trainer set"):
        T.random_start(6, 1)
    with pytest.raises(T.TrainerError, match="strong side"):
        T.random_start(0, 1, strong=3)


def test_start_positions_are_the_same_under_micropython():
    seeds = [(i % 6, i * 7919) for i in range(12)]
    out = run_mpy(
        "from firmware.features.trainer import random_start\n"
        "for s, seed in %r:\n"
        "    print(random_start(s, seed, (seed & 1) * 8))\n" % (seeds,),
        heapsize=PICO_HEAP,
    )
    assert out.split("\n")[:12] == [T.random_start(s, seed, (seed & 1) * 8) for s, seed in seeds]


# ---- set-up guidance ---------------------------------------------------------------------------
def occ_of(cells):
    occ = bytearray(8)
    for c in cells:
        occ[c >> 3] |= 1 << (c & 7)
    return occ


def test_setup_guides_piece_by_piece_and_verifies_occupancy():
    t = T.Trainer()
    fen = t.begin(3, 5, 0, now_ms=0)  # K+B+N
    board = chess.Board(fen)
    order = [(t.targets[i], t.pieces[i]) for i in range(t.n)]
    assert [board.piece_at(c).symbol() for c, _ in order] == ["K", "B", "N", "k"]
    start = occ_of(list(range(16)) + list(range(48, 64)))
    assert not t.setup_update(start, 1000)
    assert t.current() == (-1, 0) and t.wrong_count == 32  # everything must go, the square asked for too
    now = 2000
    placed = []
    for i, (cell, piece) in enumerate(order):
        assert not t.setup_update(occ_of(placed), now)
        assert t.current() == (cell, piece) and t.wrong_count == 0
        wrong_cell = (cell + 9) % 64 if (cell + 9) % 64 not in [c for c, _ in order] else (cell + 10) % 64
        t.setup_update(occ_of(placed + [wrong_cell]), now)  # a piece on a wrong square blinks
        assert t.wrong_count == 1 and t.wrong[wrong_cell >> 3] & (1 << (wrong_cell & 7))
        now += 1000
        t.setup_update(occ_of(placed + [cell]), now)  # on its square, but not still long enough
        assert t.step == i
        now += T.SETUP_STABLE_MS
        assert not t.setup_update(occ_of(placed + [cell]), now)
        placed.append(cell)
        assert t.step == i + 1
        if i == 1:  # a confirmed piece knocked off is asked for again, the later ones after it
            now += 1000
            t.setup_update(occ_of(placed[:1]), now)
            assert t.step == 1 and t.current() == order[1]
            now += 1000
            t.setup_update(occ_of(placed), now)
            now += T.SETUP_STABLE_MS
            t.setup_update(occ_of(placed), now)
            assert t.step == 2
        now += 1000
    assert t.state == T.SETUP and t.current() == (-1, 0)
    assert t.setup_update(occ_of(placed), now) and t.state == T.RUN


def test_lost_piece_and_fifty_moves_end_the_exercise():
    game = Game()
    t = T.Trainer()
    game.new("8/8/8/3k4/8/4R3/8/K7 w - - 0 1")  # K+R; Re4 hangs the rook
    t.resume(1, 0)
    game.push(parse_uci(game.position, "e3e4"))
    assert t.after_move(game, False) == T.NONE
    game.push(parse_uci(game.position, "d5e4"))
    assert t.after_move(game, True) == T.LOST_PIECE and game.over
    assert t.finish(game) == (False, 1, 0) and t.state == T.DONE
    game.new("8/8/8/3k4/8/4R3/8/K7 w - - 98 80")
    t.resume(1, 0)
    game.push(parse_uci(game.position, "e3e2"))
    assert t.after_move(game, False) == T.NONE  # 99 plies
    game.push(parse_uci(game.position, "d5d4"))
    assert t.after_move(game, True) == T.FIFTY and game.over and game.reason_name() == "50-move rule"


# ---- the defence ---------------------------------------------------------------------------------
def fastest_mate(board, max_moves):
    """Moves to mate for the side to move (1..max_moves), or None: brute force."""
    for n in range(1, max_moves + 1):
        if _mates_in(board, n):
            return n
    return None


def _mates_in(board, n):
    for m in list(board.legal_moves):
        board.push(m)
        if board.is_checkmate():
            board.pop()
            return True
        ok = n > 1 and not board.is_game_over() and all(_after(board, r, n - 1) for r in list(board.legal_moves))
        board.pop()
        if ok:
            return True
    return False


def _after(board, reply, n):
    board.push(reply)
    ok = _mates_in(board, n)
    board.pop()
    return ok


def pressed_king_positions(count, seed):
    """Random K+Q / K+R vs K positions, the lone king to move next to the edge (where mates
    are near), in which its moves differ: some allow a mate in one or two, others do not.
    Yields (board, {king move: moves to mate, 99 for none within two})."""
    import random

    rng = random.Random(seed)
    found = 0
    while found < count:
        board = chess.Board(None)
        wk, bk, piece = rng.sample(range(64), 3)
        if min(chess.square_file(bk), 7 - chess.square_file(bk), chess.square_rank(bk), 7 - chess.square_rank(bk)) > 1:
            continue
        board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
        board.set_piece_at(piece, chess.Piece(rng.choice((chess.QUEEN, chess.ROOK)), chess.WHITE))
        board.turn = chess.BLACK
        if not board.is_valid() or board.is_game_over():
            continue
        options = {}
        for reply in list(board.legal_moves):
            board.push(reply)
            options[reply.uci()] = 0 if board.is_insufficient_material() else (fastest_mate(board, 2) or 99)
            board.pop()
        if 0 in options.values() or len(set(options.values())) < 2:
            continue  # the piece hangs (no mating to judge), or every move is as good
        found += 1
        yield board, options


def test_the_lone_king_resists_as_long_as_it_can():
    """Where some king moves allow a mate in one or two and others do not, the defence (a
    search with the trainer's limits, as the App runs it) takes a move with the longest
    resistance - all but at most one time (the search's own pruning can miss a quiet mate in
    two), never a mate in one, and far more often than a random walk would."""
    defender = Searcher(tt_entries=1 << 12)
    limits = T.Trainer().limits()
    checked = best_taken = 0
    random_walk = 0.0  # how often a random king move would have been one of the best
    for board, options in pressed_king_positions(12, 2024):
        longest = max(options.values())
        choice = uci(defender.search(Position(board.fen()), limits).best_move)
        checked += 1
        assert options[choice] > 1, (board.fen(), choice, options)
        best_taken += options[choice] == longest
        random_walk += sum(1 for v in options.values() if v == longest) / len(options)
    assert best_taken >= checked - 1 and best_taken >= random_walk + 3, (checked, best_taken, random_walk)


# ---- in the simulator -------------------------------------------------------------------------------
def start_trainer(sim, set_name):
    """Options menu -> Trainer -> the set -> ok; then clear the board and place each piece
    where the LEDs and the display say."""
    sim.press("level", long=True)
    while sim.display_text()[1] != "Trainer:":
        sim.press("level")
    for _ in range(T.SETS.index(set_name) + 1):
        sim.press("hint")
    assert sim.display_text()[2] == set_name
    sim.press("ok")
    assert sim.state()["phase"] == "setup" and sim.display_text()[1] == "Clear lit squares"
    assert set(sim.lit().values()) == {"blink-fast"}
    for sq in sorted(sim.lit()):
        sim.lift(sq)
    sim.settle()
    while sim.state()["phase"] == "setup":
        lit = sim.lit()
        assert len(lit) == 1, lit
        sq, pattern = next(iter(lit.items()))
        colour, kind, where = sim.display_text()[1].split()
        player = "White" if sim.state()["computer"] == "black" else "Black"
        assert where == sq and pattern == ("on" if colour == player else "blink")  # the lone king blinks
        letter = PIECES[kind]
        sim.place(sq, letter.upper() if colour == "White" else letter)
        sim.settle()
    assert sim.state()["phase"] == "player" and sim.board_fen() == sim.fen().split()[0]
    return chess.Board(sim.fen())


def play_exercise(sim, board, choose):
    """The player's moves come from choose(board) (a python-chess move); the firmware defends."""
    while not sim.controller.game.over:
        m = choose(board)
        sim.play(m.uci())
        board.push(m)
        if sim.controller.game.over:
            break
        reply = sim.wait_computer()
        sim.execute()
        board.push_uci(reply)
    return board


def engine_player(nodes=1500):
    """Our engine as the player, with the game's moves (so it sees repetitions, as a player does)."""
    searcher = Searcher(tt_entries=1 << 13)

    def choose(board):
        moves = " ".join(m.uci() for m in board.move_stack)
        position = parse_position("fen %s moves %s" % (board.root().fen(), moves))
        return chess.Move.from_uci(uci(searcher.search(position, Limits(nodes=nodes)).best_move))

    return choose


def test_kqk_exercise_mated_by_a_scripted_player():
    sim = Simulator(seed=3, book=False, ponder=False)
    board = start_trainer(sim, "KQ")
    check_start(board.fen(), "KQ", chess.WHITE)
    assert sim.display_text()[2].startswith("KQ move 1")
    board = play_exercise(sim, board, engine_player())
    assert board.is_checkmate() and board.outcome().winner == chess.WHITE
    moves = (len(board.move_stack) + 1) // 2
    assert moves <= 50
    text = sim.display_text()
    assert text[0] == "Mate! %d moves" % moves and text[1].startswith("time ")
    assert text[2].startswith("KQ 1/1 best %d" % moves)
    tries, ok, best, best_ms = sim.controller.stats_call("trainer", 0)
    assert (tries, ok, best) == (1, 1, moves) and best_ms == sim.controller.trainer.player_ms > 0
    assert "KQ 1/1 %dmv" % moves in " ".join(sim.console("stats"))
    # flash: the results survive a reboot; `new` starts the next exercise of the same set
    again = Simulator(flash=sim.flash.copy(), pieces=sim.board_fen(), book=False)
    assert again.controller.stats_call("trainer", 0)[:3] == (1, 1, moves)
    again.press("new")
    assert again.state()["phase"] == "setup" and again.controller.trainer.name() == "KQ"
    assert again.fen() != sim.controller.game.start_fen


def test_stalemate_is_a_failure():
    sim = Simulator(seed=5, book=False, ponder=False)
    board = start_trainer(sim, "KQ")
    mate = engine_player(600)

    def careless(board):  # mates like the engine, but stalemates whenever it can
        for m in sorted(board.legal_moves, key=lambda m: m.uci()):
            board.push(m)
            stale = board.is_stalemate()
            board.pop()
            if stale:
                return m
        return mate(board)

    board = play_exercise(sim, board, careless)
    assert board.is_stalemate()
    st = sim.state()
    assert st["result"] == "1/2-1/2" and st["reason"] == "stalemate"
    assert sim.display_text()[0] == "Failed: stalemate"
    assert sim.controller.stats_call("trainer", 0) == (1, 0, 0, 0)
    # leaving the trainer: set up the start position
    sim.arrange(START_FEN.split()[0])
    sim.settle()
    assert sim.controller.trainer is None and sim.controller.settings.trainer == 0
    assert sim.state()["phase"] == "player" and sim.game() == []


def test_a_power_cut_during_an_exercise_resumes_it():
    sim = Simulator(seed=9, book=False, ponder=False)
    board = start_trainer(sim, "KR")
    choose = engine_player(800)
    for _ in range(3):
        m = choose(board)
        sim.play(m.uci())
        board.push(m)
        board.push_uci(sim.wait_computer())
        sim.execute()
    again = Simulator(flash=sim.flash.copy(), pieces=sim.board_fen(), book=False, ponder=False)
    assert again.game() == [m.uci() for m in board.move_stack]
    assert again.controller.trainer.state == T.RUN and again.controller.trainer.name() == "KR"
    assert again.state()["computer"] == "black"
    board = play_exercise(again, board, engine_player())
    assert board.is_checkmate()
    assert again.controller.stats_call("trainer", 1)[:2] == (1, 1)


def test_trainer_menu_value_and_the_square_it_lights():
    sim = Simulator(board="esp32s3", book=False)  # no display: the options show on the squares
    sim.press("level", long=True)
    for _ in range(8):
        sim.press("level")
    assert sim.lit() == {"a8": "on"}  # item 9, the trainer: off
    sim.press("hint")
    sim.press("hint")
    assert sim.lit() == {"a8": "on", "b2": "on"}  # set 2 = K+R
    sim.press("level", long=True)  # back to item 8, the clock: off
    assert sim.lit() == {"h1": "on"}
    sim.press("move")  # close: the K+R exercise begins
    assert sim.state()["phase"] == "setup" and sim.controller.trainer.name() == "KR"
    assert all(v == "blink-fast" for v in sim.lit().values())


def test_setup_and_tick_allocate_nothing_under_micropython():
    out = run_mpy(
        "from firmware.compat import heap_lock, heap_unlock\n"
        "from firmware.features.trainer import Trainer\n"
        "t = Trainer(); t.begin(4, 99, 8, 0)\n"
        "occ = bytearray(8)\n"
        "def run(now):\n"
        "    while now < 5000:\n"
        "        t.setup_update(occ, now)\n"
        "        now += 10\n"
        "    while now < 9000:\n"
        "        t.tick(now, True)\n"
        "        now += 10\n"
        "r = 'ok'\n"
        "heap_lock()\n"
        "try:\n"
        "    run(0)\n"
        "except MemoryError:\n"
        "    r = 'allocated'\n"
        "heap_unlock()\n"
        "print(r, t.step, t.current()[0] >= 0)\n",
        heapsize=PICO_HEAP,
    )
    assert out.strip() == "ok 0 True"


def test_console_new_game_leaves_the_trainer_but_not_for_a_bad_fen():
    sim = Simulator(book=False)
    start_trainer(sim, "KBN")
    out = sim.console("new 8/8/8/8 w - - 0 1")
    assert out[0].startswith("error:") and (sim.controller.trainer is not None)
    assert sim.console("new") == ["ok"]
    assert sim.controller.trainer is None and sim.controller.settings.trainer == 0
    assert sim.state()["phase"] == "verify" and sim.game() == []


def test_trainer_and_clock_glue_in_the_app_under_micropython():
    """The App on MicroPython (pico config, allocation-free fake pins): an exercise is chosen
    with the buttons' handlers, guided onto the board and started; then a clock preset runs."""
    from tests.test_controller_mpy import SETUP

    out = run_mpy(SETUP + r"""
c = app.controller
run(500)
c.on_button("level", 2, T[0])
c.settings.trainer = 4
c.on_button("ok", 1, T[0])
run(100)
print("phase", ui.PHASE_NAMES[c.phase], c.trainer.name())
for i in range(64):
    b.closed[i] = 0
run(1000)
t = c.trainer
for i in range(t.n):
    b.closed[t.targets[i]] = 1
    run(800)
print("phase", ui.PHASE_NAMES[c.phase], t.state, app.game.ply)
c.leave_trainer(T[0])
c.settings.clock = 3
c.new_game(T[0])
run(3000)
print("clock", c.clock.enabled, c.clock_text)
""")
    lines = out.split("\n")
    assert "phase setup KBN" in lines
    assert "phase player 2 0" in lines  # T.RUN, no move yet
    assert any(line.startswith(("clock True 2:5", "clock True 3:00")) for line in lines)
