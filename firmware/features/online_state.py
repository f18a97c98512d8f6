"""One online game as the Board API shows it, and what the board must be told (shared by the
two clients: the USB bridge on a computer, online/bridge.py, and the board's own client,
features/online_net.py; loaded only by them, so a board that never plays online never loads it).

Both clients read the same streams and must drive the board the same way. OnlineGame keeps
the server's moves, what the board holds, the player's moves posted and not yet confirmed,
the offers and the end, and turns

- each line of the game's stream (`gameFull`, `gameState`, `chatLine`, `opponentGone`) into
  the words of the board's console lines (features/online.py: `start`, `add`, `moves`,
  `clock`, `offer`, `say`, `end`): the difference between the server's moves and the board's
  as `moves <from> ...` (several `add` lines first for a long one), the clocks, a changed
  offer, the end once;
- each of the board's own lines (`online played e2e4 1`, `draw`, `takeback 4`, `decline`,
  `resign`, `left`) into a Board API call;
- a move the server refused into "Move refused" on the display and the board guided back.

A client subclasses it and supplies three methods:

    to_board(words)      an `online ...` line for the board, as its words after `online`
    to_api(name, arg)    a Board API call: move <uci>, takeback <True|False>, draw <True|False>,
                         resign, abort (arg None)
    note(text)           a log line

It runs unchanged on CPython (the bridge) and MicroPython (the board). Nothing here runs per
main-loop pass: only per line of a stream or of the board.
"""
from firmware.compat import const

CHUNK_MOVES = const(25)  # moves per `add`/`moves` line (the board reads lines of <= 200 characters)
_DRAW = const(1)  # self.offers: the opponent offers a draw
_BACK = const(2)  # the opponent asks for a take back


def ms(value):
    """A clock field as ms (berserk turns gameState's clocks into timedeltas; the raw ndjson
    has ints)."""
    if hasattr(value, "total_seconds"):
        return int(value.total_seconds() * 1000)
    return int(value or 0)


class OnlineGame:
    def __init__(self, game_id=None):
        self.username = None  # the account's name (set by the client when signed in)
        self.game_id = game_id
        self.color = None  # the player's colour, "white" / "black", once gameFull came
        self.initial_fen = "startpos"
        self.server_moves = []
        self.board_moves = None  # what the board holds (incl. a lit move), None: unknown
        self.pending = []  # (index, uci) of the player's moves posted and not yet in a state
        self.status = None  # Lichess's status word ("started", "mate", ...)
        self.offers = 0  # the opponent's offers as the board knows them (_DRAW | _BACK)
        self.ended = False
        self.result_words = None  # ["end", result, status] once the game is over

    # ---- supplied by the client -----------------------------------------------------------
    def to_board(self, words):
        raise NotImplementedError

    def to_api(self, name, arg):
        raise NotImplementedError

    def note(self, text):
        pass

    # ---- the server -> the board --------------------------------------------------------------
    def on_game_state(self, state):
        """One line of the game's stream (a dict)."""
        t = state.get("type")
        if t == "gameFull":
            me = (self.username or "").lower()
            self.color = "white" if (state.get("white") or {}).get("id") == me else "black"
            self.initial_fen = state.get("initialFen") or "startpos"
            self.board_start()
            state = state.get("state") or {}
            t = "gameState"
        if t == "gameState":
            if self.color is None:
                return
            self.server_moves = (state.get("moves") or "").split()
            self.status = state.get("status")
            n = len(self.server_moves)
            self.pending = [p for p in self.pending if p[0] >= n]  # the rest arrived
            self.board_sync()
            self.board_clock(state)
            self.board_offers(state)
            if self.status not in ("created", "started") and not self.ended:
                self.board_end(state)
        elif t == "chatLine":
            if state.get("room") == "player" and state.get("username") != self.username:
                self.to_board(["say", "%s: %s" % (state.get("username"), (state.get("text") or "")[:60])])
        elif t == "opponentGone":
            self.to_board(["say", "Opponent gone" if state.get("gone") else "Opponent back"])

    def board_start(self):
        """`online start <w|b> <id> [FEN]`: the board starts (or goes on with) the game."""
        words = ["start", self.color[0], self.game_id]
        if self.initial_fen not in (None, "startpos"):
            words += self.initial_fen.split()
        self.to_board(words)
        if self.board_moves is None:
            self.board_moves = []

    def board_sync(self):
        """Send the board what differs from the server's moves: from the first move they
        differ in on (the board takes back what it has beyond, then lights one new opponent's
        move like the computer's, or guides the pieces to the server's position)."""
        server = self.server_moves
        board = self.board_moves
        if board is None:
            return
        if self.pending and board == server + [p[1] for p in self.pending]:
            return  # the player's moves are on their way
        if board == server:
            return
        k = 0
        while k < len(board) and k < len(server) and board[k] == server[k]:
            k += 1
        rest = server[k:]
        if not rest:
            self.to_board(["moves", str(k)])
        while rest:
            part = rest[:CHUNK_MOVES]
            rest = rest[CHUNK_MOVES:]
            self.to_board(["add" if rest else "moves", str(k)] + part)
            k += len(part)
        self.board_moves = list(server)
        self.pending = []

    def board_clock(self, state):
        running = "-"  # Lichess starts the clocks after each side's first move
        n = len(self.server_moves)
        if self.status == "started" and n >= 2:
            fen = self.initial_fen
            white_first = fen in (None, "startpos") or " w " in fen
            running = "w" if (n % 2 == 0) == white_first else "b"
        self.to_board(["clock", str(ms(state.get("wtime"))), str(ms(state.get("btime"))), running])

    def board_offers(self, state):
        theirs = "b" if self.color == "white" else "w"
        offers = (_DRAW if state.get(theirs + "draw") else 0) | (_BACK if state.get(theirs + "takeback") else 0)
        if offers != self.offers and not self.ended:
            self.to_board(["offer", "draw" if offers & _DRAW else ("takeback" if offers & _BACK else "none")])
        self.offers = offers

    def board_end(self, state):
        """The game is over: `online end <result> <status>` (once); returns the result."""
        self.ended = True
        winner = state.get("winner")
        status = self.status
        if status in ("aborted", "noStart"):
            result = "*"
        elif winner:
            result = "1-0" if winner == "white" else "0-1"
        else:
            result = "1/2-1/2"
        self.note("game over: %s (%s)" % (result, status))
        self.result_words = ["end", result, status]
        self.to_board(self.result_words)
        return result

    def on_refused_move(self, move):
        """The server refused the player's move: said, and the board guided back."""
        self.pending = [p for p in self.pending if p[1] != move]
        if self.color is not None:
            self.to_board(["say", "Move refused"])
            self.board_sync()

    # ---- the board -> the server ----------------------------------------------------------------
    def on_board_line(self, line):
        """One of the board's own lines (features/online.py's docstring): the Board API call it
        asks for. Returns the line's word ("played", "draw", ..., "left"), or None."""
        words = line.split()
        if len(words) < 2 or words[0] != "online":
            return None
        what = words[1]
        if what == "played" and len(words) >= 3 and self.board_moves is not None:
            move = words[2]
            self.board_moves.append(move)
            self.pending.append((len(self.board_moves) - 1, move))
            self.to_api("move", move)
        elif what == "takeback":
            if len(words) >= 3 and words[2].isdigit() and self.board_moves is not None:
                del self.board_moves[int(words[2]):]  # taken back by hand on the board
            self.to_api("takeback", True)
        elif what == "draw":
            self.to_api("draw", True)
        elif what == "decline":
            if self.offers & _BACK:
                self.to_api("takeback", False)
            if self.offers & _DRAW or not self.offers & _BACK:
                self.to_api("draw", False)
        elif what == "resign":
            self.to_api("abort" if len(self.server_moves) < 2 else "resign", None)
        return what
