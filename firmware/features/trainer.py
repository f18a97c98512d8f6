"""The mate trainer (a feature on demand: loaded while an exercise runs): mate a lone king
with a set of pieces against the computer's best defence.

    fen = random_start(set_index, seed, strong=WHITE)     # a random legal exercise (pure)
    t = Trainer()
    fen = t.begin(set_index, seed, strong)                 # SETUP: the LEDs guide the pieces
    done = t.setup_update(occupancy, now_ms)               # every pass in SETUP: next piece?
    t.tick(now_ms, players_turn)                           # counts the player's thinking time
    outcome = t.after_move(game, by_computer)              # may end the game (lost piece, 50 moves)
    t.finish(game)                                         # (success, moves, time_ms) at the end
    limits = t.limits()                                    # the defender's search

Sets (SETS): K+Q, K+R, K+B+B, K+B+N, K+R+N, K+R+B against a lone king. A start position has
the player (the side with the pieces) to move, the kings at least MIN_KING_DISTANCE apart,
the lone king not in check, with a legal move of its own and no piece next to it, no mate in
one, and for K+B+B bishops on both square colours (two bishops on one colour cannot mate).

Set-up guidance, piece by piece (the board senses only occupancy): first every occupied
square blinks fast until the board is empty, then the target square of one piece at a time
lights (the player's king, the set's pieces in the order of its name, the lone king last,
which blinks slowly); a piece counts once the board has been still for SETUP_STABLE_MS with
it on its square and nothing else unconfirmed on the board. A confirmed piece taken off again is asked for again.

The computer defends with a normal search (TRAINER_NODES nodes, at most TRAINER_MS): its
score is the longest resistance - the latest mate it can reach, or in positions it sees no
mate from, the evaluation's mating-net terms (lone king near the centre, far from the other
king). Success: checkmate, counted in the player's moves. Failure: stalemate, a piece lost
(the lone king captured one), the 50-move rule (100 plies without mate), or any other draw.

The controller's side (flow.Controller holds `trainer`, a Trainer or None): `start(c, now_ms,
swap)` a new exercise as a new game, `poll(c, now_ms)` every pass, `after(c, by_computer)`
after each move, `count(c)` at the game end (statistics), `leds(out)` and `lines(c, phase)`
for the LEDs and the display.
"""
from firmware.compat import const, ticks_diff
from firmware.controller.game import ADJUDICATED, RESULT_DRAW
from firmware.engine import rules
from firmware.engine.constants import BISHOP, KING, KNIGHT, QUEEN, ROOK, SQUARES, from_sq64, to_sq64
from firmware.engine.fen import fen
from firmware.engine.position import Position
from firmware.engine.timeman import Limits
from firmware.controller.settings import SETS
from firmware.io.leds import BLINK_FAST, BLINK_SLOW, ERROR, HINT, MOVE, ON

SET_PIECES = ((QUEEN,), (ROOK,), (BISHOP, BISHOP), (BISHOP, KNIGHT), (ROOK, KNIGHT), (ROOK, BISHOP))
PIECE_NAMES = ("", "Pawn", "Knight", "Bishop", "Rook", "Queen", "King")

MIN_KING_DISTANCE = const(3)
SETUP_STABLE_MS = const(300)
TRAINER_NODES = const(2500)
TRAINER_MS = const(4000)
_ATTEMPTS = const(500)

OFF = const(0)
SETUP = const(1)
RUN = const(2)
DONE = const(3)

# Outcomes
NONE = const(0)
MATE = const(1)
STALEMATE = const(2)
LOST_PIECE = const(3)
FIFTY = const(4)
DRAW = const(5)
OUTCOME_NAMES = ("", "mate", "stalemate", "piece lost", "50-move rule", "draw")


class TrainerError(ValueError):
    """An unknown trainer set or side."""


def _check_set(set_index):
    if not isinstance(set_index, int) or not 0 <= set_index < len(SETS):
        raise TrainerError("trainer set must be 0..%d (%s), got %r" % (len(SETS) - 1, ", ".join(SETS), set_index))


class Rng:
    """A 30-bit linear congruential generator: the same numbers on every interpreter."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 1) & 0x3FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x3FFFFFFF
        return (self.x >> 12) % n


def _distance(a, b):
    df = (a & 7) - (b & 7)
    dr = (a >> 4) - (b >> 4)
    df = -df if df < 0 else df
    dr = -dr if dr < 0 else dr
    return df if df > dr else dr


def _light(sq):
    return ((sq >> 4) + (sq & 7)) & 1


def _acceptable(pos, strong, weak_king, squares):
    """The checks of the module docstring, on a set-up `pos` with `strong` to move."""
    for sq in squares:
        if _distance(sq, weak_king) < 2:
            return False
    if pos.attacked(weak_king, strong):
        return False
    # The lone king must have a move of its own (otherwise most replies stalemate at once).
    pos.stm = strong ^ 8
    pos.rehash()
    free = rules.has_legal_move(pos)
    pos.stm = strong
    pos.rehash()
    if not free:
        return False
    for m in rules.legal_moves(pos):
        pos.make(m)
        mate = pos.in_check() and not rules.has_legal_move(pos)
        pos.unmake()
        if mate:
            return False
    return True


def random_start(set_index, seed, strong=0, pos=None):
    """FEN of a random exercise for SETS[set_index] (see the module docstring); `strong`: the
    player's colour (0 White, 8 Black). Deterministic in `seed`. `pos`: a scratch Position."""
    _check_set(set_index)
    if strong not in (0, 8):
        raise TrainerError("strong side must be 0 (White) or 8 (Black), got %r" % (strong,))
    rng = Rng(seed)
    if pos is None:
        pos = Position(None, 4)
    kinds = SET_PIECES[set_index]
    weak = strong ^ 8
    for _ in range(_ATTEMPTS):
        pos.clear()
        own_king = SQUARES[rng.below(64)]
        weak_king = SQUARES[rng.below(64)]
        if _distance(own_king, weak_king) < MIN_KING_DISTANCE:
            continue
        pos.put(own_king, strong | KING)
        pos.put(weak_king, weak | KING)
        placed = []
        ok = True
        for kind in kinds:
            sq = SQUARES[rng.below(64)]
            if pos.board[sq]:
                ok = False
                break
            pos.put(sq, strong | kind)
            placed.append(sq)
        if not ok:
            continue
        if kinds == (BISHOP, BISHOP) and _light(placed[0]) == _light(placed[1]):
            continue
        pos.stm = strong
        pos.rehash()
        if _acceptable(pos, strong, weak_king, placed):
            return fen(pos)
    raise TrainerError("no start position found for %s (seed %r)" % (SETS[set_index], seed))


def setup_order(position, strong):
    """[(cell, piece)] in the order the pieces are set up: the player's king, the other
    pieces (queen, rooks, bishops, knights), the lone king last."""
    out = []
    for kind in (KING, QUEEN, ROOK, BISHOP, KNIGHT):
        for sq in SQUARES:
            if position.board[sq] == strong | kind:
                out.append((to_sq64(sq), strong | kind))
    out.append((to_sq64(position.kings[strong ^ 8]), (strong ^ 8) | KING))
    return out


def piece_label(piece):
    return ("White " if piece & 8 == 0 else "Black ") + PIECE_NAMES[piece & 7]


class Trainer:
    def __init__(self):
        self.state = OFF
        self.set_index = 0
        self.strong = 0
        self.targets = bytearray(5)  # cells in set-up order
        self.pieces = bytearray(5)  # piece codes in the same order
        self.n = 0
        self.step = 0  # pieces confirmed
        self.wrong = bytearray(8)  # occupied cells that must be cleared (bitmap)
        self.wrong_count = 0
        self.player_ms = 0
        self.moves = 0
        self.outcome = NONE
        self._since = 0
        self._last_ms = None
        self._last_occ = bytearray(8)
        self._pos = Position(None, 4)
        self.record = None  # this set's statistics (tries, successes, best moves, best ms)

    @property
    def active(self):
        return self.state != OFF

    def name(self):
        return SETS[self.set_index]

    # ---- starting and stopping ---------------------------------------------------------------
    def begin(self, set_index, seed, strong=0, now_ms=0):
        """A new exercise: returns its FEN; the set-up guidance starts."""
        start = random_start(set_index, seed, strong, self._pos)
        self.set_index = set_index
        self.strong = strong
        order = setup_order(self._pos, strong)
        self.n = len(order)
        for i in range(self.n):
            self.targets[i] = order[i][0]
            self.pieces[i] = order[i][1]
        self.step = 0
        self.state = SETUP
        self._since = now_ms
        self._reset_counts()
        return start

    def resume(self, set_index, strong, over=False):
        """Go on with an exercise the journal restored (its time so far is lost); `over`:
        it had already ended (and was counted)."""
        _check_set(set_index)
        self.set_index = set_index
        self.strong = strong
        self.n = 0
        self._reset_counts()
        self.state = DONE if over else RUN

    def _reset_counts(self):
        self.player_ms = 0
        self.moves = 0
        self.outcome = NONE
        self._last_ms = None
        for i in range(8):
            self.wrong[i] = 0
        self.wrong_count = 0

    def stop(self):
        self.state = OFF

    # ---- set-up ---------------------------------------------------------------------------------
    def current(self):
        """(cell, piece) of the piece to place now, or (-1, 0)."""
        if self.state != SETUP or self.step >= self.n or self.wrong_count:
            return -1, 0
        return self.targets[self.step], self.pieces[self.step]

    def setup_update(self, occ, now_ms):
        """Judge the board (`occ`: bytearray(8) occupancy); True once every piece stands."""
        if self.state != SETUP:
            return False
        last = self._last_occ
        for r in range(8):
            if occ[r] != last[r]:
                last[r] = occ[r]
                self._since = now_ms  # the board changed: wait until it is still again
        targets = self.targets
        step = self.step
        for i in range(step):
            c = targets[i]
            if not occ[c >> 3] & (1 << (c & 7)):
                step = i  # a confirmed piece went away: ask for it again
                break
        self.step = step
        wrong = self.wrong
        for r in range(8):
            wrong[r] = occ[r]
        for i in range(step):
            c = targets[i]
            wrong[c >> 3] &= ~(1 << (c & 7)) & 0xFF
        count = 0
        for r in range(8):
            v = wrong[r]
            while v:
                count += 1
                v &= v - 1
        # Only the piece asked for may stand on an unconfirmed square: anything else (and
        # that square too, while others are still to clear) must go first.
        on_target = 0
        c = targets[step] if step < self.n else 0
        if step < self.n and wrong[c >> 3] & (1 << (c & 7)):
            on_target = 1
        if count == on_target:
            if on_target:
                wrong[c >> 3] &= ~(1 << (c & 7)) & 0xFF
            count = 0
        self.wrong_count = count
        if count or ticks_diff(now_ms, self._since) < SETUP_STABLE_MS:
            return False
        if on_target:
            self.step = step + 1
            return False
        if step < self.n:
            return False
        self.state = RUN
        self._last_ms = None
        return True

    # ---- the exercise -------------------------------------------------------------------------
    def tick(self, now_ms, players_turn):
        """Count the player's time (while it is their move)."""
        if self.state != RUN:
            self._last_ms = None
            return
        if players_turn and self._last_ms is not None:
            self.player_ms += ticks_diff(now_ms, self._last_ms)
        self._last_ms = now_ms if players_turn else None

    def after_move(self, game, by_computer):
        """After each move: end the game for a lost piece or the 50-move rule (the caller then
        sees game.over). Returns the outcome so far (NONE while it goes on)."""
        if self.state != RUN:
            return NONE
        pos = game.position
        self.moves = (game.ply + 1) // 2
        if game.over or not rules.has_legal_move(pos):
            return NONE  # mate or stalemate: game.check_end decides
        if by_computer and pos.ply and pos.captured_at(pos.ply - 1):
            self.outcome = LOST_PIECE
            game.finish(RESULT_DRAW, ADJUDICATED)
        elif pos.halfmove >= 100:
            self.outcome = FIFTY
            game.finish(RESULT_DRAW, rules.FIFTY_MOVES)
        return self.outcome

    def finish(self, game):
        """The game ended: (success, moves, time_ms) to record; the trainer shows DONE."""
        if self.state != RUN:
            return None
        self.moves = (game.ply + 1) // 2
        if self.outcome == NONE:
            if game.reason == rules.CHECKMATE and game.result == ("1-0" if self.strong == 0 else "0-1"):
                self.outcome = MATE
            elif game.reason == rules.STALEMATE:
                self.outcome = STALEMATE
            else:
                self.outcome = DRAW
        self.state = DONE
        return self.outcome == MATE, self.moves, self.player_ms

    def limits(self):
        return Limits(nodes=TRAINER_NODES, movetime_ms=TRAINER_MS)


    # ---- the controller's hooks -------------------------------------------------------------
    def start(self, c, now_ms, swap=False):
        """A new exercise of the set in c's settings: new game, pieces guided on."""
        s = c.settings
        strong = 8 if s.computer_side == 0 else 0
        if swap:
            strong ^= 8
        c.trainer_seed += 1
        seed = (now_ms * 31 + c.trainer_seed) & 0x3FFFFFF
        start = self.begin(s.trainer - 1, seed, strong, now_ms)
        s.computer_side = strong ^ 8
        c.new_game(now_ms, start)
        c.phase = 7  # SETUP
        c.dirty = True

    def poll(self, c, now_ms):
        """Every pass: judge the set-up, count the player's time."""
        if self.state == SETUP and c.phase == 7:  # SETUP
            step = self.step
            wrong = self.wrong_count
            if self.setup_update(c.occupancy, now_ms):
                c.ui.beep("confirm")
                c.enter_play(now_ms)
            elif self.step != step or self.wrong_count != wrong:
                if self.step > step:
                    c.ui.beep("click")
                c.dirty = True
        elif self.state == RUN:
            self.tick(now_ms, c.phase == 0 and not c.game.over)  # PLAYER

    def after(self, c, by_computer):
        if self.state == RUN:
            self.after_move(c.game, by_computer)

    def count(self, c):
        """The game ended: record the exercise in the statistics."""
        result = self.finish(c.game)
        c.stats_call("record_trainer", self.set_index, result[0], result[1], result[2])
        self.record = None
        c.dirty = True

    def leds(self, out):
        """The set-up guidance into `out` ({cell: pattern})."""
        for cell in cells_of(self.wrong):
            out[cell] = BLINK_FAST | ERROR
        cell, piece = self.current()
        if cell >= 0:
            out[cell] = (ON | MOVE) if piece & 8 == self.strong else (BLINK_SLOW | HINT)

    def lines(self, c, phase):
        """(head, detail, status line) for the display."""
        head = detail = ""
        if phase == 7:  # SETUP
            cell, piece = self.current()
            head = "Trainer %s set-up" % self.name()
            if self.wrong_count:
                detail = "Clear lit squares"
            elif cell >= 0:
                detail = "%s %s" % (piece_label(piece), square_of_cell(cell))
            return head, detail, "%d/%d placed" % (self.step, self.n)
        if self.state == DONE:
            if self.outcome == MATE:
                head = "Mate! %d moves" % self.moves
            else:
                head = "Failed: " + OUTCOME_NAMES[self.outcome]
            if self.record is None:
                self.record = c.stats_call("trainer", self.set_index) or (0, 0, 0, 0)
            tries, ok, best_moves, best_ms = self.record
            detail = "time " + _mmss(self.player_ms)
            return head, detail, "%s %d/%d best %d" % (self.name(), ok, tries, best_moves)
        return "", "", "%s move %d %s" % (self.name(), self.moves + 1, _mmss(self.player_ms))


def _mmss(ms):
    s = ms // 1000 if ms > 0 else 0
    if s >= 3600:
        return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)
    return "%d:%02d" % (s // 60, s % 60)


def cells_of(bitmap):
    """Cells set in a bytearray(8) bitmap (allocates; for the LEDs)."""
    return [c for c in range(64) if bitmap[c >> 3] & (1 << (c & 7))]


def square_of_cell(cell):
    from firmware.engine.constants import square_name

    return square_name(from_sq64(cell))
