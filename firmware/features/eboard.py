"""The e-board mode (a feature on demand, held while it is on): the board speaks DGT's board
protocol (features/eboard_dgt.py) or the Millennium ChessLink protocol
(features/eboard_millennium.py) on its serial link, as an input device for chess software.

    eb = EBoard(c, kind)        # kind 1: DGT, 2: Millennium (settings.eboard); the Controller holds it
    eb.event(c, cell, kind)     # every debounced LIFT (0) / PLACE (1)
    eb.serve(app, now_ms)       # every main-loop pass, instead of the console: the host's bytes
    eb.leds(out)                # the squares the host lit, into compose_leds' picture
    eb.lines(c, phase, head, detail, level)   # the display's lines in the mode
    eb.leave()                  # the console gets the serial link back

The link is `app.link` (the simulator's pseudo-terminal, a test's pipe), else the board's own
USB serial (features/eboard_usb.py). While the mode holds the USB serial nothing else is
printed on it and Ctrl-C does not stop the program (`claim`); `leave` gives it back.

What is reported. The reed switches tell only where pieces stand, so the mode names them by
following the game from its start (docs/eboard.md):

- After every change of the game (a move, a take back, a new game, a promotion's piece) and
  whenever the occupancy is the game's again, the report is the game's position, with the
  squares the switches see empty reported empty. The pieces of those squares are "in hand".
- A lift empties its square and puts its piece in hand.
- A piece put down is the last piece in hand of the side to move (else the last in hand);
  with nothing in hand it is the game's piece on that square, if any; else nobody can tell,
  and the square is reported empty. An occupied square the game has no piece on keeps the
  piece it was last reported with.

So a host sees a lifted piece's square empty until the piece is put down, and a move's
pieces where they stand as soon as they stand there. The board's own engine does not move
(flow.engine_work) and every move is made by hand; a host lights the moves it wants made.
"""
from firmware.compat import const
from firmware.controller.board_sync import occupancy_of, same
from firmware.engine.constants import from_sq64
from firmware.loader import borrow, release

DGT = const(1)
MILLENNIUM = const(2)
NAMES = ("off", "DGT", "Millennium")
_LIFT = const(0)
_HAND = const(32)
_VERIFY = const(5)  # copy of firmware.controller.ui.VERIFY
_PLAYER = const(0)  # copy of firmware.controller.ui.PLAYER
_PROTOCOLS = ("", "firmware.features.eboard_dgt", "firmware.features.eboard_millennium")  # by kind
_USB = "firmware.features.eboard_usb"
_TT = "firmware.engine.tt"
_READS = const(8)  # reads of rx (32 bytes) in one pass at most
_ROOM_TT = const(512)  # the transposition table's slots while the mode is on (see _room)


def _quiet(*args):
    pass


class EBoard:
    def __init__(self, c, kind):
        self.kind = kind
        self.report = bytearray(64)  # the reported piece (our codes) by cell
        self.hand = bytearray(_HAND)
        self.held = 0
        self.lit_on = bytearray(8)  # the host's LEDs: a bit per cell
        self.lit_blink = bytearray(8)
        self.rx = bytearray(32)
        self.link = None
        self._usb = False  # the link is the board's USB serial (eboard_usb, borrowed)
        self._tt_slots = 0  # the board's own table size while the mode has shrunk it (_room)
        self._app = None
        self._write = None
        self._log = None
        self._c = c
        self._ply = -1
        self._lo = -1
        self._hi = -1
        self._occ = bytearray(8)
        module = borrow(_PROTOCOLS[kind])  # released by leave()
        self.proto = (module.Dgt if kind == DGT else module.Millennium)(self)
        self.resync(c, False)

    # ---- what the codecs ask -------------------------------------------------------------------
    def piece(self, cell):
        return self.report[cell]

    def send(self, data):
        if self.link is not None:
            self.link.write(data)

    def light(self, cells, blinking):
        """The host's LEDs: `cells` lit (replacing what it lit before), `blinking` among them blink."""
        for i in range(8):
            self.lit_on[i] = 0
            self.lit_blink[i] = 0
        for cell in cells:
            self.lit_on[cell >> 3] |= 1 << (cell & 7)
        for cell in blinking:
            self.lit_blink[cell >> 3] |= 1 << (cell & 7)
        self._c.dirty = True

    def light_more(self, cell):
        """The host lights one more square."""
        self.lit_on[cell >> 3] |= 1 << (cell & 7)
        self._c.dirty = True

    # ---- the board's side ----------------------------------------------------------------------
    def resync(self, c, tell=True):
        """The report from the game's position and the occupancy (see the module docstring)."""
        pos = c.game.position
        self._ply = pos.ply
        self._lo = pos.hash_lo
        self._hi = pos.hash_hi
        occ = c.occupancy
        board = pos.board
        report = self.report
        self.held = 0
        for cell in range(64):
            p = board[from_sq64(cell)]
            if occ[cell >> 3] & (1 << (cell & 7)):
                new = p if p else report[cell]
            else:
                new = 0
                if p and self.held < _HAND:
                    self.hand[self.held] = p
                    self.held += 1
            if new != report[cell]:
                report[cell] = new
                if tell:
                    self.proto.changed(cell)

    def event(self, c, cell, kind):
        report = self.report
        if kind == _LIFT:
            p = report[cell]
            if p:
                if self.held == _HAND:
                    self._take(0)
                self.hand[self.held] = p
                self.held += 1
            report[cell] = 0
        else:
            p = 0
            if self.held:
                stm = c.game.position.stm
                i = self.held - 1
                while i >= 0 and self.hand[i] & 8 != stm:
                    i -= 1
                p = self._take(i if i >= 0 else self.held - 1)
            else:
                p = c.game.position.board[from_sq64(cell)]
            report[cell] = p
        self.proto.changed(cell)
        if same(c.occupancy, occupancy_of(c.game.position, self._occ)):
            self.resync(c)

    def _take(self, i):
        p = self.hand[i]
        self.held -= 1
        for j in range(i, self.held):
            self.hand[j] = self.hand[j + 1]
        return p

    # ---- every pass ----------------------------------------------------------------------------
    def serve(self, app, now_ms):
        """Read the host's bytes and answer them; follow the game. Allocates nothing while no
        byte comes and the game stands still."""
        link = self.link
        if link is None:
            link = self._claim(app)
        proto = self.proto
        n = link.read_into(self.rx)
        reads = 1
        while n:
            rx = self.rx
            for i in range(n):
                proto.feed(rx[i], now_ms)
            if reads == _READS:
                break  # a host that never pauses must not stop the scans: the rest next pass
            n = link.read_into(rx)
            reads += 1
        if self._tt_slots == 0 and not app.controller.searching:
            self._room(app)
        pos = app.game.position
        if pos.ply != self._ply or pos.hash_lo != self._lo or pos.hash_hi != self._hi:
            self.resync(app.controller)
        proto.poll(now_ms)

    def _claim(self, app):
        link = getattr(app, "link", None)
        if link is None:
            link = borrow(_USB).UsbLink()  # released by leave()
            self._usb = True
        self.link = link
        self._app = app
        if link.console:  # the serial line is the console's too: silence it while the mode runs
            self._write = app.write
            self._log = app.controller.log
            app.write = _quiet
            app.controller.log = None
        link.claim()
        return link

    def _room(self, app):
        """Room for the mode on a small board: here the engine gives hints only, so the search's
        transposition table shrinks to _ROOM_TT slots while the mode is on, which pays for the
        mode's code (docs/benchmarks.md); leave() gives the board its own table back. Never
        while a search runs."""
        s = app.searcher
        self._tt_slots = s.tt.size
        if self._tt_slots > _ROOM_TT:
            self._table(app, _ROOM_TT)

    def _table(self, app, slots):
        """A new table of `slots` for the search, the old one freed first."""
        s = app.searcher
        table = borrow(_TT).TranspositionTable
        s.tt = table(2)
        if app.collect is not None:
            app.collect()
        s.tt = table(slots)
        table = None
        release(_TT)

    def leave(self):
        """Give the serial link back, the search its table, and release the protocol's modules
        (the controller drops this object after)."""
        release(_PROTOCOLS[self.kind])
        if self._tt_slots > _ROOM_TT and self._app is not None:
            try:
                self._table(self._app, self._tt_slots)
            except MemoryError:  # no room for the whole table now: the small one serves on
                self._table(self._app, _ROOM_TT)
        self._tt_slots = 0
        link = self.link
        if link is None:
            return
        self.link = None
        link.release()
        if self._usb:
            self._usb = False
            release(_USB)
        if self._write is not None:
            self._app.write = self._write
            self._app.controller.log = self._log
        self._app = None

    # ---- what the board shows ----------------------------------------------------------------
    def leds(self, out):
        from firmware.io.leds import BLINK_SLOW, MOVE, ON

        on = self.lit_on
        for cell in range(64):
            bit = 1 << (cell & 7)
            if on[cell >> 3] & bit:
                out[cell] = (BLINK_SLOW if self.lit_blink[cell >> 3] & bit else ON) | MOVE

    def lines(self, c, phase, head, detail, level):
        if c.errors_shown or phase == _VERIFY:
            head = "Set up the board"
        elif phase == _PLAYER:
            head = ("White" if c.game.position.stm == 0 else "Black") + " to move"
        return head, detail, "E-board: " + NAMES[self.kind]
