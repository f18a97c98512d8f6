"""A line console over USB serial: export games as PGN, inspect and set up the game.

    console = Console(app, write=print)
    console.handle("pgn")          # every archived game and the current one, as PGN
    reader = StdinReader()         # on a board: non-blocking line reader on sys.stdin
    line = reader.readline()       # None until a whole line has arrived

Commands (also printed by `help`): help, pgn, fen, moves, status, settings,
new [<FEN>] (new game, optionally from a set-up position the board must then show),
level <n> (1-based), stats (wins/draws/losses per level, mate trainer results), clock (the
chess clocks). Unknown or malformed commands answer "error: ..." and change nothing.
"""
from firmware.controller.pgn import game_pgn

HELP = (
    "commands:",
    "  pgn            all saved games and the current one as PGN",
    "  fen | moves    the current position / moves (UCI)",
    "  status         what the computer is doing",
    "  settings       level, sides and options",
    "  new [FEN]      new game (from FEN: set the board up as lit)",
    "  level N        choose level N (1..%d)",
    "  stats          results per level and of the mate trainer",
    "  clock          the chess clocks (White, Black)",
)


class ConsoleError(ValueError):
    """A console command that cannot be carried out."""


class Console:
    def __init__(self, app, write=None):
        self.app = app
        self.write = write if write is not None else print

    def handle(self, line, now_ms=0):
        words = line.split()
        if not words:
            return
        cmd = words[0].lower()
        try:
            fn = getattr(self, "cmd_" + cmd, None)
            if fn is None:
                raise ConsoleError("unknown command %r (try help)" % cmd)
            fn(words[1:], now_ms)
        except ValueError as exc:
            self.write("error: %s" % (exc,))

    def cmd_help(self, args, now_ms):
        for text in HELP:
            if "%d" in text:
                text = text % len(self.app.controller.level_names)
            self.write(text)

    def cmd_fen(self, args, now_ms):
        from firmware.engine.fen import fen

        self.write(fen(self.app.game.position))

    def cmd_moves(self, args, now_ms):
        self.write(" ".join(self.app.game.uci_moves()))

    def cmd_status(self, args, now_ms):
        self.write(self.app.controller.status_line())

    def cmd_settings(self, args, now_ms):
        self.write(self.app.controller.settings.describe())

    def cmd_stats(self, args, now_ms):
        for text in self.app.controller.stats_lines():
            self.write(text)

    def cmd_clock(self, args, now_ms):
        c = self.app.controller
        if not c.clock.enabled:
            self.write("no clock")
        else:
            self.write(c.clock.text(now_ms) + (" paused" if c.clock.paused else ""))

    def cmd_pgn(self, args, now_ms):
        for text in self.app.pgn_texts():
            self.write(text)

    def cmd_new(self, args, now_ms):
        c = self.app.controller
        if args:
            from firmware.engine.position import Position

            Position(" ".join(args), 2)  # a bad FEN raises here, before the trainer is left
        c.leave_trainer(now_ms)
        c.new_game(now_ms, " ".join(args) if args else None)
        self.write("ok")

    def cmd_level(self, args, now_ms):
        c = self.app.controller
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= len(c.level_names):
            raise ConsoleError("usage: level N with N in 1..%d" % len(c.level_names))
        c.set_level(int(args[0]) - 1)
        self.write("level %s: %s" % (args[0], c.level_name(int(args[0]) - 1)))


def pgn_of(start_fen, moves, result, number, tags=None):
    all_tags = {"Event": "Reedchess game", "Round": str(number)}
    if tags:
        for k in tags:
            all_tags[k] = tags[k]
    return game_pgn(start_fen, moves, result, all_tags)


class StdinReader:
    """Non-blocking line reader on sys.stdin (USB serial on a board). readline() returns a
    complete line without its newline, or None."""

    def __init__(self):
        import select
        import sys

        self._stdin = sys.stdin
        self._poller = select.poll()
        self._poller.register(sys.stdin, select.POLLIN)
        self._buf = ""

    def readline(self):
        while self._poller.poll(0):
            ch = self._stdin.read(1)
            if not ch:
                return None
            if ch in "\r\n":
                if self._buf:
                    line, self._buf = self._buf, ""
                    return line
            elif len(self._buf) < 200:
                self._buf += ch
        return None
