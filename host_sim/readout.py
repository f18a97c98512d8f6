"""What the firmware shows, read from its controller and drivers: the LEDs lit, the computer's
move, the game, the position, the thinking line and a summary of its state.

    class Simulator(FirmwareReadout): ...     # needs self.controller, self.hw, self.app, now_ms()

Shared by host_sim.Simulator (CPython, `make sim`) and web_demo.DemoBoard (MicroPython's
WebAssembly port in a browser, `make web-demo`), so this module runs on both interpreters:
no threading, no CPython-only modules.
"""
from firmware.controller import ui as _ui
from firmware.engine.fen import fen
from firmware.engine.notation import uci
from firmware.io.leds import MODE_MASK
from host_sim.physical import cell_name

PATTERN_NAMES = ("off", "on", "blink", "blink-fast")


class FirmwareReadout:
    """Read-only views of the running firmware (a mixin; see the module docstring)."""

    def lit(self):
        """{square: "on" | "blink" | "blink-fast"} of the LEDs lit now, from the LED driver."""
        out = {}
        leds = self.hw.leds
        for cell in range(64):
            p = leds.pattern(cell) & MODE_MASK
            if p:
                out[cell_name(cell)] = PATTERN_NAMES[p]
        return out

    def computer_move(self):
        """The move the LEDs show and the firmware waits to see made (UCI), else None."""
        c = self.controller
        if c.phase == _ui.SHOWING and c.shown_move:
            return uci(c.shown_move)
        return None

    def game(self):
        return self.controller.game.uci_moves()

    def fen(self):
        return fen(self.controller.game.position)

    def thinking_line(self):
        c = self.controller
        if c.searching == 0:
            return ""
        parts = ["depth %d" % c.depth]
        if c.mate_in:
            parts.append("mate %d" % c.mate_in)
        elif c.score_cp is not None:
            parts.append("%+.2f" % (c.score_cp / 100.0))
        return " ".join(parts)

    def state(self):
        c = self.controller
        game = c.game
        return {
            "phase": _ui.PHASE_NAMES[c.phase],
            "thinking": c.searching == 1 or (c.phase == _ui.THINKING and not c.paused),
            "busy": c.phase == _ui.THINKING and not c.paused or c.hint_wanted,
            "pondering": c.searching == 2,
            "result": game.result,
            "reason": game.reason_name() if game.over else "",
            "start_fen": game.start_fen,
            "level": c.settings.level,
            "level_name": c.level_name(c.settings.level),
            "computer": ("white", "black", "nobody")[c.settings.computer_side >> 3],
            "paused": c.paused,
            "menu": ("", "level", "options")[c.menu],
            "hint": uci(c.hint_move) if c.hint_move else None,
            "ponder_move": uci(c.ponder_move) if c.ponder_move else None,
            "score_cp": c.score_cp,
            "mate_in": c.mate_in,
            "depth": c.depth,
            "message": c.message,
            "errors": c.errors_shown,
            "text": list(c.ui.text() or ()),
            "searches": self.app.searches,
            "nodes": self.app.work_nodes,
            "now_ms": self.now_ms(),
        }
