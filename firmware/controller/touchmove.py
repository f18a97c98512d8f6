"""Touch-move ("touched, moved", FIDE article 4.3): the first piece of the side to move that
is lifted and has a legal move must be the one that moves.

    tm = TouchMove()
    tm.lifted(cell, position)     # board sync LIFTED: the first such piece becomes "touched"
    tm.put_back(cell)             # PUT_BACK: True when the touched piece went back (flag it)
    tm.allows(move)               # may this move be played? (only moves of the touched piece)
    tm.clear()                    # after every move, take back, new game

Pure logic on engine positions and moves; the controller decides what to show. Castling
counts as a king move, so touching the rook first and then castling is refused (FIDE 4.4b:
the rook must move). A touched piece without a legal move binds nothing (FIDE 4.3, last
sentence: the player may move any piece). Lifting a piece of the opponent (to capture it)
never binds.
"""
from firmware.engine import rules
from firmware.engine.constants import from_sq64


class TouchMove:
    def __init__(self):
        self.cell = -1  # the touched piece's cell (0..63), -1 none
        self.flagged = False  # it was put back unmoved

    def clear(self):
        self.cell = -1
        self.flagged = False

    def lifted(self, cell, position):
        """A piece of the side to move left `cell`. Returns True when it became the touched
        piece (it has a legal move and no other piece was touched before)."""
        if self.cell >= 0:
            return False
        sq = from_sq64(cell)
        piece = position.board[sq]
        if not piece or piece & 8 != position.stm:
            return False
        for m in rules.legal_moves(position):
            if m & 127 == sq:
                self.cell = cell
                return True
        return False

    def put_back(self, cell):
        """The lifted piece on `cell` went back unmoved: True when it was the touched one."""
        if cell == self.cell:
            self.flagged = True
            return True
        return False

    def allows(self, move):
        """True unless a piece is touched and `move` does not move it."""
        return self.cell < 0 or from_sq64(self.cell) == move & 127
