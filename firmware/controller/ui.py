"""What the LEDs, the buzzer and the display show, computed from the controller's state.

    ui = Ui(leds, buzzer, display)      # buzzer and display may be None
    ui.refresh(controller, now_ms)      # every pass: recompose when the controller is dirty
    ui.update(now_ms)                   # every pass: blinking, multiplexing, beeps (no alloc)
    ui.beep("error")                    # a named pattern of firmware.io.buzzer.PATTERNS

`compose_leds(c)` and `compose_text(c)` are pure functions of a Controller (see flow.py),
so they are unit-testable without hardware. Layers, later ones win on the same cell:
phase (computer move, guidance, game end) -> lifted-piece targets -> hint -> errors;
an open menu (level or options) replaces everything.

LED vocabulary (documented for owners in docs/playing.md):
- computer's move: from and to ON (castling: also the rook's squares; en passant: the
  captured pawn's square BLINK_SLOW);
- hint: from and to BLINK_SLOW (HINT role);
- lifted piece: its legal targets ON (INFO role);
- errors: cells to empty BLINK_FAST, cells to fill BLINK_SLOW (ERROR role);
- board guidance (take back, new game, verify): cells to empty BLINK_FAST, cells to fill
  ON, captured pieces that must come back BLINK_SLOW (INFO role);
- game end: the mated (or resigning) king BLINK_FAST, the winner's king ON; draw: both
  kings BLINK_SLOW; offer to resign: the computer's king BLINK_FAST;
- promotion choice: promotion square BLINK_FAST and the chosen piece's home square on the
  back rank ON (d = queen, a = rook, c = bishop, b = knight);
- level menu: level n lights cell n-1 (a1 = level 1, b1 = level 2, ... a2 = level 9);
  options menu: item i lights options.item_cell(i) (a1..h1, then a8, b8), its value
  options.value_cell (rank 2: the option's own square when on, square n for value n);
- trainer set-up (SETUP): squares to clear BLINK_FAST (ERROR), the next piece's square ON
  (MOVE role), BLINK_SLOW (HINT role) for the lone king;
- touch-move: a touched piece put back BLINK_SLOW (ERROR) while it must still move;
- e-board mode: the squares the host lights ON (MOVE role), BLINK_SLOW when its pattern
  blinks;
- chess clock paused on a board without a display: the minutes left (rounded up, at most 32)
  as lit squares, White's ON from a1 on (a1, b1, ... h1, a2 ...), Black's BLINK_SLOW from
  h8 back (h8, g8, ... a8, h7 ...).

The status light (status_of) says whose turn it is (White: white, Black: blue, steady),
that the computer thinks (yellow pulse), waits for its move to be made (green, slow blink),
or that something is wrong or the board must be set up (red / yellow, fast blink).
"""
from firmware.compat import const
from firmware.controller.board_sync import move_cells as flipped_cells
from firmware.engine.constants import from_sq64, square_name, to_sq64
from firmware.engine.notation import uci
from firmware.io.buzzer import PATTERNS
from firmware.io.leds import BLINK_FAST, BLINK_SLOW, ERROR, HINT, INFO, MOVE, OFF, ON

# The status light's colours and its pulse mode (firmware/io/status.py; tests/test_status_light.py
# checks they agree): folded into the bytecode, so that module is not loaded for six numbers.
_WHITE = const(0)
_BLUE = const(1)
_YELLOW = const(2)
_GREEN = const(3)
_RED = const(4)
_PULSE = const(4)

# Phases of the controller (flow.py imports these; kept here so ui needs no import of flow).
PLAYER = const(0)
THINKING = const(1)
SHOWING = const(2)
PROMOTE = const(3)
OVER = const(4)
VERIFY = const(5)
OFFER = const(6)
SETUP = const(7)  # the mate trainer guides its pieces onto the board
PHASE_NAMES = ("player", "thinking", "showing", "promote", "over", "verify", "offer", "setup")

MENU_NONE = const(0)
MENU_LEVEL = const(1)
MENU_OPTIONS = const(2)

_PROMO_HOME_FILE = b"\x00\x00\x01\x02\x00\x03"  # by kind: knight b, bishop c, rook a, queen d
_PROMO_NAMES = ("", "", "Knight", "Bishop", "Rook", "Queen")
_CELLS = bytearray(5)  # move_cells' scratch


def move_cells(move):
    """[(cell, role_pattern)] for showing a move's squares: from/to, castling rook squares,
    the en-passant victim (blinking): the cells its move flips on the board (board_sync)."""
    cells = _CELLS
    n = flipped_cells(move, False, cells)
    out = [(cells[i], ON | MOVE) for i in range(n)]
    if move >> 17 == 2:
        out[2] = (cells[2], BLINK_SLOW | MOVE)
    return out


def _bits(bitmap):
    for c in range(64):
        if bitmap[c >> 3] & (1 << (c & 7)):
            yield c


def compose_leds(c):
    """{cell: pattern} for controller `c` (allocates; called only when c.dirty)."""
    out = {}
    if c.menu == MENU_LEVEL:
        out[c.settings.level & 63] = ON | INFO
        return out
    if c.menu == MENU_OPTIONS:
        c.hold("options").leds(c, out)
        return out
    phase = c.phase
    pos = c.game.position
    if c.clock is not None and c.clock.paused and c.ui.display is None and phase in (PLAYER, THINKING):
        for side in (0, 8):
            minutes = (c.clock.left_ms(side, None) + 59999) // 60000
            for i in range(minutes if minutes < 32 else 32):
                out[i if side == 0 else 63 - i] = (ON | INFO) if side == 0 else (BLINK_SLOW | INFO)
        return out
    if phase == SHOWING and c.shown_move:
        for cell, pat in move_cells(c.shown_move):
            out[cell] = pat
    elif phase == PROMOTE and c.promo_move:
        to = (c.promo_move >> 7) & 127
        out[to_sq64(to)] = BLINK_FAST | INFO
        back_rank = 7 if (to >> 4) == 7 else 0
        out[back_rank * 8 + _PROMO_HOME_FILE[c.promo_kind]] = ON | INFO
    elif phase == VERIFY:
        exp = c.sync.expected
        occ = c.occupancy
        for cell in range(64):
            bit = 1 << (cell & 7)
            have = occ[cell >> 3] & bit
            want = exp[cell >> 3] & bit
            if have and not want:
                out[cell] = BLINK_FAST | INFO
            elif want and not have:
                out[cell] = ON | INFO
            elif c.reappear[cell >> 3] & bit:
                out[cell] = BLINK_SLOW | INFO
    elif phase == OVER:
        kings = pos.kings
        result = c.game.result
        if result == "1/2-1/2":
            out[to_sq64(kings[0])] = BLINK_SLOW | INFO
            out[to_sq64(kings[8])] = BLINK_SLOW | INFO
        elif result in ("1-0", "0-1"):
            loser = 8 if result == "1-0" else 0
            out[to_sq64(kings[loser])] = BLINK_FAST | INFO
            out[to_sq64(kings[loser ^ 8])] = ON | INFO
    elif phase == OFFER:
        out[to_sq64(pos.kings[c.settings.computer_side & 8])] = BLINK_FAST | INFO
    elif phase == SETUP and c.trainer is not None:
        c.trainer.leds(out)
    if c.eboard is not None:
        c.eboard.leds(out)  # the squares the host lit (its move to be made)
    t = c.touch
    if t is not None and t.flagged and t.cell >= 0 and phase == PLAYER:
        out[t.cell] = BLINK_SLOW | ERROR
    for cell in c.targets:
        out[cell] = ON | INFO
    if c.hint_move and phase in (PLAYER, THINKING):
        out[to_sq64(c.hint_move & 127)] = BLINK_SLOW | HINT
        out[to_sq64((c.hint_move >> 7) & 127)] = BLINK_SLOW | HINT
    if c.errors_shown:
        for cell in _bits(c.err_fill):
            out[cell] = BLINK_SLOW | ERROR
        for cell in _bits(c.err_clear):
            out[cell] = BLINK_FAST | ERROR
    return out


def _score_text(c):
    if c.mate_in:
        return "Mate in %d" % c.mate_in if c.mate_in > 0 else "Mated in %d" % -c.mate_in
    if c.score_cp is None or not c.settings.show_eval:
        return ""
    s = c.score_cp
    sign = "+" if s >= 0 else "-"
    s = -s if s < 0 else s
    text = "%s%d.%02d d%d" % (sign, s // 100, s % 100, c.depth)
    n = c.nodes
    if n:
        text += " n%d" % n if n < 10000 else (" n%dk" % (n // 1000) if n < 10000000 else " n%dM" % (n // 1000000))
    return text


def compose_text(c):
    """Display lines (each <= 21 characters) for controller `c`."""
    if c.menu == MENU_LEVEL:
        return ("Level %d" % (c.settings.level + 1), c.level_name(c.settings.level), "", "level: next",
                "takeback: back")
    if c.menu == MENU_OPTIONS:
        return tuple(x[:21] for x in c.hold("options").text(c))
    phase = c.phase
    game = c.game
    head = ""
    detail = ""
    if phase == PLAYER:
        if c.settings.computer_side != 16:
            head = "Your move"
        else:
            head = ("White" if game.position.stm == 0 else "Black") + " to move"
        if c.paused:
            head = "Paused: move?"
        if c.hint_move:
            detail = "Hint: " + uci(c.hint_move)
        elif c.touch is not None and c.touch.cell >= 0:
            detail = "Touched: " + square_name(from_sq64(c.touch.cell))
    elif phase == THINKING:
        head = "Thinking..."
    elif phase == SHOWING:
        head = "Play " + uci(c.shown_move)
        detail = c.shown_san
    elif phase == PROMOTE:
        head = "Promote: " + _PROMO_NAMES[c.promo_kind]
        detail = "level: next piece"
    elif phase == VERIFY:
        head = "Check board"
        detail = "fix lit squares"
    elif phase == OVER:
        head = game.result
        detail = game.reason_name()
    elif phase == OFFER:
        head = "I resign?"
        detail = "new: yes  move: no"
    level = "L%d %s" % (c.settings.level + 1, c.level_name(c.settings.level))
    if c.trainer is not None:
        t_head, t_detail, level = c.trainer.lines(c, phase)
        head = t_head or head
        detail = t_detail or detail
    if c.online is not None:
        head, detail, level = c.online.lines(c, phase, head, detail, level)
    if c.eboard is not None:
        head, detail, level = c.eboard.lines(c, phase, head, detail, level)
    if c.errors_shown:
        detail = "Board? fix lit"
    if c.message:
        detail = c.message
    if phase not in (OVER, VERIFY, SETUP) and game.position.in_check():
        head += " +"
    if c.clock is not None:
        level = c.clock_text + (" paused" if c.clock.paused else "")
    pv = c.pv_text if c.settings.show_eval and not c.mate_in else ""
    return (head[:21], detail[:21], level[:21], _score_text(c)[:21], pv[:21])


def status_of(c):
    """(colour, mode) of the status light for controller `c` (see the module docstring)."""
    phase = c.phase
    if c.errors_shown:
        return _RED, BLINK_FAST
    if phase == VERIFY or phase == SETUP:
        return _YELLOW, BLINK_FAST
    if phase == THINKING and not c.paused or c.hint_wanted:
        return _YELLOW, _PULSE
    if phase == SHOWING or phase == OFFER:
        return _GREEN, BLINK_SLOW
    if phase == OVER:
        return _WHITE, OFF
    return (_WHITE if c.game.position.stm == 0 else _BLUE), ON


class Ui:
    def __init__(self, leds, buzzer=None, display=None, status=None):
        self.leds = leds
        self.buzzer = buzzer
        self.display = display
        self.status = status
        self.sound = True
        self._text = None

    def beep(self, name):
        if self.buzzer is not None and self.sound:
            self.buzzer.play(PATTERNS[name])

    def refresh(self, controller, now_ms):
        """Recompose LEDs and display if the controller changed (allocates only then)."""
        if not controller.dirty:
            return
        controller.dirty = False
        self.leds.show(compose_leds(controller))
        # The LEDs go out before the display text is composed (~30 ms on an RP2040): a lifted
        # piece's targets are what the hand waits for.
        self.leds.update(now_ms)
        if self.status is not None:
            colour, mode = status_of(controller)
            self.status.set(colour, mode)
        if self.display is not None:
            text = compose_text(controller)
            if text != self._text:
                self._text = text
                self.display.show_text(text)

    def update(self, now_ms):
        """Every pass: blinking / multiplexing and beeps. Allocates nothing."""
        self.leds.update(now_ms)
        if self.status is not None:
            self.status.update(now_ms)
        if self.buzzer is not None:
            self.buzzer.update(now_ms)

    def text(self):
        """The lines the display shows (None before the first refresh)."""
        return self._text
