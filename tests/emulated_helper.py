"""Play chess with the firmware's console protocol on an emulated Pico (tools/emulated_pico.py).

    player = ConsolePlayer(pico)              # pico: a started EmulatedPico running main.py
    player.wait_console()                     # until the console answers (main loop running)
    player.ok("feed")                         # the console feeds the board: start occupancy
    player.human("e2e4")                      # lifts and placements as a hand makes them
    reply = player.computer_reply()           # polls `computer` until a move is lit
    player.play_computer(reply)               # makes it on the board, waits until it counts

The console protocol (firmware/features/console.py, docs/emulated-pico.md): feed, lift <sq>,
place <sq>, press <button> [long], computer, lit, nodes <N>, mem, fen, moves, status, level N,
new [FEN], pgn. The human's move is lift + place; a capture lifts the victim first; castling
moves the king, then the rook; en passant lifts the passed pawn first. python-chess keeps the
host's picture of the game (which squares hold a piece, what a move captures).
"""
import re
import time

import chess

from boards.pico import CONFIG as PICO_CONFIG
from tools.emulated_pico import DeviceError

MEM_RE = re.compile(r"^mem free=(\d+) max_block=(\d+) used=(\d+)")
UCI_RE = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")
STATUS_RE = re.compile(r"^(\w+) ply (\d+) (\S+)")
PROMOTION_STEPS = {chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3}  # docs/playing.md: d, a, c, b


# Between two polls, on the chip's clock where the runner can wait for it (pause): every console
# line costs the chip a pass, a feature load and a collection (~65 ms), so a poll that comes too
# soon only slows what it waits for.
POLL_MS = 100  # status (wait_ply, wait_phase)
REPLY_POLL_MS = 150  # computer (a search runs meanwhile)


def parse_mem(line):
    m = MEM_RE.match(line)
    if not m:
        raise AssertionError("not a mem line: %r" % (line,))
    return {"free": int(m.group(1)), "max_block": int(m.group(2)), "used": int(m.group(3))}


class ConsolePlayer:
    def __init__(self, pico, board=None, timeout=120):
        self.pico = pico
        self.board = board or chess.Board()
        self.timeout = timeout
        self.hand_s = 0.3  # host seconds between touches (~0.1 s on the emulated chip's clock)
        self.hand_ms = 60  # the same on the chip's clock, where the runner can wait for it (pause)
        self.stable_ms = PICO_CONFIG["stable_ms"]  # a move counts once the board has been still this long
        self.min_free = None  # the least free heap any `mem` answer showed
        self.mem_samples = []

    def pause(self, emulated_ms, host_s):
        """Let the chip run on: `emulated_ms` of its own clock where the runner can wait for
        that (a PinPico's control port: the pace then holds on a loaded machine too, and costs
        no more host time than the chip needs), else `host_s` seconds of host time."""
        if getattr(self.pico, "ctl_sock", None) is not None:
            self.pico.ctl("run", ms=emulated_ms)
        else:
            time.sleep(host_s)

    # ---- answers ------------------------------------------------------------------------
    def ask(self, command, accept=None, timeout=None):
        line = self.pico.ask(command, accept, timeout=timeout or self.timeout)
        if line.startswith("error:") or "Traceback" in line:
            raise AssertionError("%r answered %r (recent lines: %s)" % (command, line, self.pico.transcript[-12:]))
        return line

    def ok(self, command):
        return self.ask(command, lambda line: line == "ok")

    def press(self, button, long=False):
        return self.ok("press %s%s" % (button, " long" if long else ""))

    def mem(self):
        m = parse_mem(self.ask("mem", lambda line: line.startswith("mem ")))
        self.mem_samples.append(m)
        if self.min_free is None or m["free"] < self.min_free:
            self.min_free = m["free"]
        return m

    def status(self):
        m = STATUS_RE.match(self.ask("status", STATUS_RE.match))
        return m.group(1), int(m.group(2)), m.group(3)

    def moves(self):
        line = self.ask("moves", lambda line: all(UCI_RE.match(w) for w in line.split()))
        return line.split()

    def lit(self):
        """{square: pattern} of the LEDs lit now."""
        line = self.ask("lit", lambda line: line.startswith("lit"))
        out = {}
        for word in line.split()[1:]:
            if word == "-":
                continue
            sq, _, pattern = word.partition(":")
            out[sq] = pattern
        return out

    def wait_console(self, timeout=240):
        """Until main's loop answers `status` (boot output stays in the transcript). A prompt
        or a traceback meanwhile means main.py died: DeviceError with what it printed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pico.send_line("status")
            end = time.monotonic() + 5
            while time.monotonic() < end:
                line = self.pico.read_line(timeout=1, missing=None)
                if line is None:
                    continue
                if "Traceback" in line or line.startswith(">>>"):
                    more = []
                    while True:
                        extra = self.pico.read_line(timeout=2, missing=None)
                        if extra is None:
                            break
                        more.append(extra)
                    # what main.py printed before the prompt, not the REPL's answers to `status`
                    said = [x for x in self.pico.transcript if x.strip() and not x.startswith(">>> status")
                            and "NameError: name 'status'" not in x
                            and x.strip() != "File \"<stdin>\", line 1, in <module>"
                            and x.strip() != "Traceback (most recent call last):"]
                    raise DeviceError("main.py stopped:\n%s" % "\n".join(said[:60]))
                if STATUS_RE.match(line):
                    return line
        raise DeviceError("the console did not answer within %d s: %s" % (timeout, self.pico.transcript[-20:]))

    def wait_ply(self, ply, timeout=None):
        """Until the firmware's game has `ply` plies (the board's last change counted)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            phase, n, result = self.status()
            if n == ply and phase not in ("promote",):
                return phase, n, result
            if time.monotonic() > deadline:
                raise AssertionError("the game stayed at ply %d (%s %s), expected %d; lit %s"
                                     % (n, phase, result, ply, self.lit()))
            self.pause(POLL_MS, 0.2)

    # ---- the hand -----------------------------------------------------------------------
    def touches(self, move):
        """The lifts and placements that make `move` (chess.Move) on the current board."""
        b = self.board
        fr, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
        if b.is_castling(move):
            rank = "1" if b.turn == chess.WHITE else "8"
            kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
            rook_from, rook_to = ("h" if kingside else "a") + rank, ("f" if kingside else "d") + rank
            return [("lift", fr), ("place", to), ("lift", rook_from), ("place", rook_to)]
        out = []
        if b.is_en_passant(move):
            out.append(("lift", chess.square_name(move.to_square + (-8 if b.turn == chess.WHITE else 8))))
        elif b.piece_at(move.to_square) is not None:
            out.append(("lift", to))
        return out + [("lift", fr), ("place", to)]

    def touches_text(self, move):
        self.board.pop()
        try:
            return " ".join("%s %s" % t for t in self.touches(move))
        finally:
            self.board.push(move)

    def make(self, move):
        """Make `move` (UCI text or chess.Move) on the board through the console; a promotion
        is chosen with *level* presses and confirmed with *ok* (docs/playing.md). Waits until
        the firmware counted it."""
        if isinstance(move, str):
            move = chess.Move.from_uci(move)
        if move not in self.board.legal_moves:
            raise AssertionError("%s is not legal in %s" % (move, self.board.fen()))
        ply = len(self.board.move_stack)
        for action, sq in self.touches(move):
            self.ok("%s %s" % (action, sq))
            self.pause(self.hand_ms, self.hand_s)  # a hand's pace: each touch gets past the debouncer on its own
        if move.promotion:
            self.wait_phase("promote")
            for _ in range(PROMOTION_STEPS[move.promotion]):
                self.press("level")
            self.press("ok")
        self.board.push(move)
        self.pause(self.stable_ms, 0)  # not polled before the unit can have counted it
        try:
            self.wait_ply(ply + 1)
        except AssertionError as exc:
            # the firmware counts plies from the game's start position, as python-chess does
            raise AssertionError("%s (%s by %s)" % (exc, move, self.touches_text(move))) from None
        return move

    def wait_phase(self, phase, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            got = self.status()
            if got[0] == phase:
                return got
            if time.monotonic() > deadline:
                raise AssertionError("phase %s, wanted %s" % (got, phase))
            self.pause(POLL_MS, 0.2)

    def computer_reply(self, timeout=None):
        """The move the computer shows (polls `computer`), as a chess.Move of this board."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            line = self.ask("computer", lambda line: line == "-" or bool(UCI_RE.match(line)))
            if line != "-":
                move = chess.Move.from_uci(line)
                if move not in self.board.legal_moves:
                    raise AssertionError("the computer showed %s, illegal in %s" % (line, self.board.fen()))
                return move
            if time.monotonic() > deadline:
                raise AssertionError("no computer move within %s s (status %s)" % (timeout or self.timeout,
                                                                                   self.status()))
            self.pause(REPLY_POLL_MS, 0.3)

    def set_up(self, fen):
        """Lift and place until the board shows `fen`'s pieces (after `new <fen>`)."""
        target = chess.Board(fen)
        have = {sq for sq in chess.SQUARES if self.board.piece_at(sq)}
        want = {sq for sq in chess.SQUARES if target.piece_at(sq)}
        for sq in sorted(have - want):
            self.ok("lift %s" % chess.square_name(sq))
            self.pause(self.hand_ms, self.hand_s)
        for sq in sorted(want - have):
            self.ok("place %s" % chess.square_name(sq))
            self.pause(self.hand_ms, self.hand_s)
        self.board = target


def helpmate_choice(board):
    """A White move that lets Black mate at once if there is one, else the one allowing Black
    the most checks (a hand that loses quickly, so a whole game fits in a test), ties to the
    first in python-chess's order."""
    best, best_score = None, -1
    for m in board.legal_moves:
        board.push(m)
        if board.is_game_over():
            score = -1 if not board.is_checkmate() else 1000  # avoid draws; a mate of ours ends it too
        else:
            score = 0
            for r in board.legal_moves:
                board.push(r)
                if board.is_checkmate():
                    score += 100
                elif board.is_check():
                    score += 1
                board.pop()
        board.pop()
        if score > best_score:
            best, best_score = m, score
    return best


def undo_touches(board, move):
    """Touches that put `move` (the last move of `board`, already popped) back: the mover goes
    home, a captured piece returns."""
    fr, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
    if board.is_castling(move):
        rank = to[1]
        kingside = to[0] == "g"
        rook_home, rook_now = ("h" if kingside else "a") + rank, ("f" if kingside else "d") + rank
        return [("lift", to), ("place", fr), ("lift", rook_now), ("place", rook_home)]
    out = [("lift", to), ("place", fr)]
    if board.is_en_passant(move):
        out.append(("place", chess.square_name(move.to_square + (-8 if board.turn == chess.WHITE else 8))))
    elif board.piece_at(move.to_square) is not None:
        out.append(("place", to))
    return out
