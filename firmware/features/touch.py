"""Touch-move ("touched, moved", FIDE article 4.3; a feature on demand, loaded while the
touch_move setting is on): the first piece of the side to move that
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

The controller's side (flow.Controller holds `touch`, a TouchMove or None): `said(c, now_ms)`
tells the player which piece must move; `refuses(c, move, now_ms)` refuses a move of another
piece and lights the squares to undo.
"""
from firmware.engine import rules
from firmware.engine.constants import from_sq64, square_name


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

    # ---- the controller's hooks -------------------------------------------------------------
    def said(self, c, now_ms):
        c.say("Touch move: " + square_name(from_sq64(self.cell)), now_ms)
        c.ui.beep("error")

    def refuses(self, c, move, now_ms):
        """True (and the move refused: the squares to undo blink) when touch-move forbids it."""
        if c.phase != 0 or self.allows(move):  # PLAYER
            return False
        from firmware.controller.ui import move_cells

        pos = c.game.position
        c.sync.set_position(pos)
        fill = []
        clear = []
        for cell, _ in move_cells(move):
            if pos.board[from_sq64(cell)]:
                fill.append(cell)  # emptied by the refused move: the piece goes back
            else:
                clear.append(cell)
        c.show_errors(clear, fill)
        self.said(c, now_ms)
        return True
