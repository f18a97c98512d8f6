"""The game record: start position, moves made, result. Pure logic, no hardware, no clock.

    game = Game()                      # the initial position
    game.push(move)                    # a legal engine move (IllegalGameMoveError otherwise)
    game.pop()                         # take back the last move -> the move, or 0
    game.check_end()                   # automatic game end after the last move? -> reason
    game.finish(RESULT_WHITE, CHECKMATE)

The moves live in the Position's own history (`position.hist_move[0..ply)`), so the record
costs no extra RAM per move and take back is `unmake()`. `position` is the game position the
physical board should show; other parts (board sync, search) must never leave it changed.

End reasons are rules.py's status codes (CHECKMATE .. THREEFOLD_REPETITION) plus RESIGNATION
ADJUDICATED and TIMEOUT; `result` is the PGN result text "1-0", "0-1", "1/2-1/2" or "*" (ongoing).
"""
from firmware.compat import const
from firmware.engine import rules
from firmware.engine.constants import START_FEN
from firmware.engine.notation import uci
from firmware.engine.position import Position

RESIGNATION = const(8)
ADJUDICATED = const(9)  # e.g. a game stopped by the player without a result
TIMEOUT = const(10)
REASON_NAMES = rules.STATUS_NAMES + ("resignation", "adjudication", "time")

RESULT_ONGOING = "*"
RESULT_WHITE = "1-0"
RESULT_BLACK = "0-1"
RESULT_DRAW = "1/2-1/2"
RESULTS = (RESULT_ONGOING, RESULT_WHITE, RESULT_BLACK, RESULT_DRAW)

DEFAULT_GAME_PLIES = const(600)


class IllegalGameMoveError(ValueError):
    """A move that is not legal in the game position, or a move after the game ended."""


class Game:
    """One game. `capacity` bounds its length in plies (plus a margin the board sync and the
    PV display use for trying moves): 16 bytes of RAM a ply (the Position's history), so a
    board with little memory keeps it smaller (board config "game_plies"). A game that
    reaches it ends as a draw by adjudication (check_end), like one stopped by the player."""

    def __init__(self, capacity=DEFAULT_GAME_PLIES):
        self.position = Position(None, capacity + 8)
        self.max_plies = capacity
        self.start_fen = START_FEN
        self.result = RESULT_ONGOING
        self.reason = rules.ONGOING

    # ---- setting up -------------------------------------------------------------------
    def new(self, start_fen=None):
        """Start a new game from `start_fen` (default: the initial position). Raises FenError
        for a bad FEN and leaves the game unchanged in that case."""
        if start_fen is None:
            self.position.set_start()
            self.start_fen = START_FEN
        else:
            self.start_fen = self.position.load_fen(start_fen)
        self.result = RESULT_ONGOING
        self.reason = rules.ONGOING

    # ---- moves ------------------------------------------------------------------------
    @property
    def ply(self):
        """Number of moves made in this game."""
        return self.position.ply

    def move_at(self, index):
        return self.position.hist_move[index]

    def moves(self):
        """A new list of the game's moves (engine ints), first move first."""
        h = self.position.hist_move
        return [h[i] for i in range(self.position.ply)]

    def uci_moves(self):
        return [uci(m) for m in self.moves()]

    def last_move(self):
        p = self.position
        return p.hist_move[p.ply - 1] if p.ply else 0

    def is_legal(self, move):
        if not move:
            return False
        for m in rules.legal_moves(self.position, move & 127):
            if m == move:
                return True
        return False

    def push(self, move):
        """Play a legal move. Raises IllegalGameMoveError for anything else (nothing changes)."""
        if self.result != RESULT_ONGOING:
            raise IllegalGameMoveError("the game is over (%s)" % self.result)
        if self.position.ply >= self.max_plies:
            raise IllegalGameMoveError("the game record is full (%d plies)" % self.max_plies)
        if not self.is_legal(move):
            raise IllegalGameMoveError("move %s is not legal here" % uci(move))
        self.position.make(move)

    def pop(self):
        """Take back the last move (and any result). Returns the move, or 0 at the start."""
        if not self.position.ply:
            return 0
        self.result = RESULT_ONGOING
        self.reason = rules.ONGOING
        move = self.last_move()
        self.position.unmake()
        return move

    # ---- game end ---------------------------------------------------------------------
    @property
    def over(self):
        return self.result != RESULT_ONGOING

    def check_end(self):
        """Look for an automatic game end (mate, stalemate, insufficient material, 75 moves,
        fivefold repetition, and a full game record: ADJUDICATED draw); if there is one,
        record it and return its reason, else ONGOING."""
        if self.over:
            return self.reason
        reason = rules.status(self.position)
        if reason == rules.CHECKMATE:
            self.finish(RESULT_BLACK if self.position.stm == 0 else RESULT_WHITE, reason)
        elif reason != rules.ONGOING:
            self.finish(RESULT_DRAW, reason)
        elif self.position.ply >= self.max_plies:
            reason = ADJUDICATED
            self.finish(RESULT_DRAW, reason)
        return reason

    def claimable_draw(self):
        """FIFTY_MOVES or THREEFOLD_REPETITION when the side to move may claim a draw, else ONGOING."""
        if self.over:
            return rules.ONGOING
        return rules.claimable_draw(self.position)

    def resign(self, colour):
        """`colour` (0 White, 8 Black) resigns."""
        self.finish(RESULT_BLACK if colour == 0 else RESULT_WHITE, RESIGNATION)

    def finish(self, result, reason):
        if result not in RESULTS:
            raise ValueError("unknown result %r" % (result,))
        self.result = result
        self.reason = reason

    def reason_name(self):
        return REASON_NAMES[self.reason] if 0 <= self.reason < len(REASON_NAMES) else "?"
