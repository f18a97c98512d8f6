"""The physical pieces on a simulated board: what stands where, the hand, the box.

    board = PhysicalBoard(fen)             # pieces as in the FEN's board field
    board.lift(12)                         # -> "P" (now in the hand)
    board.place(28)                        # the piece last lifted
    steps = board.plan("e2e4")             # [("lift", 12), ("place", 28, None)]
    board.occupancy()                      # bytearray(8) of occupied cells

The firmware never sees pieces, only occupancy; this model exists so the simulator and
scripted players can carry out moves the way a person does: a capture lifts the victim first
(or the mover first: `order="mover-first"`), castling moves the king then the rook (or
`order="rook-first"`), en passant removes the captured pawn after the capturing move (or
before: `order="victim-first"`), a promotion replaces the pawn with the chosen piece.
Plain Python that also runs under MicroPython (the full-game memory test uses it there).
"""
FILES = "abcdefgh"


class PhysicalError(ValueError):
    """An action no hand can do (lift from an empty square, place on an occupied one)."""


def cell_of(name):
    if not isinstance(name, str) or len(name) != 2 or name[0] not in FILES or name[1] not in "12345678":
        raise PhysicalError("%r is not a square (a1 .. h8)" % (name,))
    return (ord(name[1]) - 49) * 8 + FILES.index(name[0])


def cell_name(cell):
    return FILES[cell & 7] + "12345678"[cell >> 3]


class PhysicalBoard:
    def __init__(self, fen=None):
        self.pieces = {}
        self.hand = []  # letters, last lifted last
        self.box = []  # letters off the board
        self.arrange(fen)

    def arrange(self, fen=None):
        """Put the pieces exactly as the FEN's board field says (hand and box emptied)."""
        text = fen or "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        self.pieces = {}
        self.hand = []
        self.box = []
        rows = text.split()[0].split("/")
        for i in range(len(rows)):
            f = 0
            for ch in rows[i]:
                if ch in "12345678":
                    f += ord(ch) - 48
                else:
                    self.pieces[(7 - i) * 8 + f] = ch
                    f += 1

    def occupancy(self):
        out = bytearray(8)
        for cell in self.pieces:
            out[cell >> 3] |= 1 << (cell & 7)
        return out

    def lift(self, cell):
        if cell not in self.pieces:
            raise PhysicalError("no piece on %s to lift" % cell_name(cell))
        letter = self.pieces.pop(cell)
        self.hand.append(letter)
        return letter

    def place(self, cell, letter=None):
        """Put `letter` (default: the piece in the hand, else the last one in the box) on `cell`."""
        if cell in self.pieces:
            raise PhysicalError("%s is occupied" % cell_name(cell))
        if letter is None:
            if self.hand:
                letter = self.hand.pop()
            elif self.box:
                letter = self.box.pop()
            else:
                letter = "?"
        elif letter in self.hand:
            self.hand.remove(letter)
        elif letter in self.box:
            self.box.remove(letter)
        self.pieces[cell] = letter
        return letter

    def discard(self):
        """Put the pieces in the hand into the box (a captured piece set aside)."""
        while self.hand:
            self.box.append(self.hand.pop())

    def plan(self, uci_text, order="natural"):
        """The touches a person makes for a move in UCI text: a list of ("lift", cell),
        ("place", cell, letter or None) and ("discard",) steps. `order`: "natural" (victim
        first in captures, king first in castling, e.p. victim after), "mover-first",
        "rook-first" or "victim-first"."""
        fr = cell_of(uci_text[0:2])
        to = cell_of(uci_text[2:4])
        mover = self.pieces.get(fr)
        if mover is None:
            raise PhysicalError("no piece on %s" % uci_text[0:2])
        letter = None
        if len(uci_text) == 5:
            letter = uci_text[4].upper() if mover.isupper() else uci_text[4].lower()
        if mover in "Kk" and abs((to & 7) - (fr & 7)) == 2:
            rook_from = fr + 3 if to > fr else fr - 4
            rook_to = fr + 1 if to > fr else fr - 1
            king = [("lift", fr), ("place", to, None)]
            rook = [("lift", rook_from), ("place", rook_to, None)]
            return rook + king if order == "rook-first" else king + rook
        if mover in "Pp" and (to & 7) != (fr & 7) and to not in self.pieces:
            victim = (fr & ~7) | (to & 7)
            take = [("lift", victim), ("discard",)]
            move = [("lift", fr), ("place", to, None)]
            return take + move if order == "victim-first" else move + take
        if letter is not None:
            move = [("lift", fr), ("discard",), ("place", to, letter)]
        else:
            move = [("lift", fr), ("place", to, None)]
        if to in self.pieces:
            if order == "mover-first":
                # lift the mover, then the victim, set the victim aside, put the mover down
                return [("lift", fr), ("lift", to), ("discard_victim",)] + move[1:]
            return [("lift", to), ("discard",)] + move
        return move

    def do(self, step):
        """Carry out one planned step; returns the cell touched (or None)."""
        kind = step[0]
        if kind == "lift":
            self.lift(step[1])
            return step[1]
        if kind == "place":
            self.place(step[1], step[2])
            return step[1]
        if kind == "discard":
            self.discard()
        elif kind == "discard_victim":
            victim = self.hand.pop()
            self.box.append(victim)
        return None
