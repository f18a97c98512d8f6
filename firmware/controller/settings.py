"""Player settings: level, who the computer plays, and the on/off options.

    s = Settings()                 # defaults
    s.level = 3                    # index into firmware.engine.levels.LEVELS
    data = s.to_bytes()            # 8 bytes for the journal
    s2 = Settings.from_bytes(data) # SettingsError for anything malformed

computer_side: WHITE (0) or BLACK (8) = the colour the computer plays, NOBODY (16) = two-player
mode (the computer only referees). Options (booleans, see OPTION_NAMES for the order the
option menu cycles through): show_targets (light a lifted piece's legal targets), ponder
(think on the player's time), book (use the opening book), sound (buzzer), resign (the
computer offers resignation when hopeless).
"""
from firmware.compat import const

WHITE = const(0)
BLACK = const(8)
NOBODY = const(16)
SIDES = (WHITE, BLACK, NOBODY)

_VERSION = const(1)
OPTION_NAMES = ("show_targets", "ponder", "book", "sound", "resign")
OPTION_LABELS = ("Targets", "Ponder", "Book", "Sound", "Resign")
_DEFAULTS = (1, 1, 1, 1, 1)


class SettingsError(ValueError):
    """Malformed settings data or an out-of-range value."""


class Settings:
    def __init__(self, level=2, computer_side=BLACK):
        self.level = level
        self.computer_side = computer_side
        for i in range(len(OPTION_NAMES)):
            setattr(self, OPTION_NAMES[i], bool(_DEFAULTS[i]))

    def check(self, level_count):
        """Raise SettingsError unless every value is in range (levels 0..level_count-1)."""
        if not isinstance(self.level, int) or not 0 <= self.level < level_count:
            raise SettingsError("level must be 0..%d, got %r" % (level_count - 1, self.level))
        if self.computer_side not in SIDES:
            raise SettingsError("computer_side must be 0 (White), 8 (Black) or 16 (nobody), got %r"
                                % (self.computer_side,))

    def option(self, index):
        return getattr(self, OPTION_NAMES[index])

    def toggle(self, index):
        name = OPTION_NAMES[index]
        setattr(self, name, not getattr(self, name))

    def flags(self):
        bits = 0
        for i in range(len(OPTION_NAMES)):
            if getattr(self, OPTION_NAMES[i]):
                bits |= 1 << i
        return bits

    def to_bytes(self):
        f = self.flags()
        return bytes((_VERSION, self.level & 0xFF, self.computer_side, f & 0xFF, f >> 8, 0, 0, 0))

    @classmethod
    def from_bytes(cls, data):
        if len(data) != 8:
            raise SettingsError("settings record must be 8 bytes, got %d" % len(data))
        if data[0] != _VERSION:
            raise SettingsError("unknown settings version %d" % data[0])
        s = cls(data[1], data[2])
        if s.computer_side not in SIDES:
            raise SettingsError("bad computer side %d in settings" % data[2])
        f = data[3] | data[4] << 8
        for i in range(len(OPTION_NAMES)):
            setattr(s, OPTION_NAMES[i], bool(f & (1 << i)))
        return s

    def assign(self, other):
        """Take every value of `other` (keeps this object, which others hold on to)."""
        self.level = other.level
        self.computer_side = other.computer_side
        for name in OPTION_NAMES:
            setattr(self, name, getattr(other, name))

    def copy(self):
        return Settings.from_bytes(self.to_bytes())

    def __eq__(self, other):
        return isinstance(other, Settings) and self.to_bytes() == other.to_bytes()

    def describe(self):
        side = ("computer White", "computer Black", "two players")[self.computer_side >> 3]
        opts = ", ".join("%s %s" % (OPTION_NAMES[i], "on" if self.option(i) else "off")
                         for i in range(len(OPTION_NAMES)))
        return "level %d, %s, %s" % (self.level + 1, side, opts)
