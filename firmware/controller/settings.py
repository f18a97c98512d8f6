"""Player settings: level, who the computer plays, and the on/off options.

    s = Settings()                 # defaults
    s.level = 3                    # index into firmware.engine.levels.LEVELS
    data = s.to_bytes()            # 8 bytes for the journal
    s2 = Settings.from_bytes(data) # SettingsError for anything malformed

computer_side: WHITE (0) or BLACK (8) = the colour the computer plays, NOBODY (16) = two-player
mode (the computer only referees). Options (booleans, see OPTION_NAMES for the order the
option menu cycles through): show_targets (light a lifted piece's legal targets), ponder
(think on the player's time), book (use the opening book), sound (buzzer), resign (the
computer offers resignation when hopeless), touch_move ("touched, moved": only the first
lifted piece with a legal move may move; off by default), show_eval (score, depth, nodes and
line of the computer on the display).
Values: clock (index into features.clock.PRESETS, 0 = off: the level's own clock if any),
trainer (mate trainer set 1..len(SETS), 0 = normal play). The options menu that changes them
(labels, squares, texts) is a feature on demand: features/options.py.

Format: version 2 (8 bytes). Version 1 records (5 options, no clock/trainer) still load,
the newer options taking their defaults.
"""
from firmware.compat import const

WHITE = const(0)
BLACK = const(8)
NOBODY = const(16)

_VERSION = const(2)
OPTION_NAMES = ("show_targets", "ponder", "book", "sound", "resign", "touch_move", "show_eval")
_DEFAULTS = b"\x01\x01\x01\x01\x01\x00\x01"
_V1_OPTIONS = const(5)
_MAX_CLOCK = const(63)
_MAX_TRAINER = const(15)
SETS = ("KQ", "KR", "KBB", "KBN", "KRN", "KRB")  # the mate trainer's sets (features/trainer.py)


class SettingsError(ValueError):
    """Malformed settings data or an out-of-range value."""


class Settings:
    def __init__(self, level=2, computer_side=BLACK):
        self.level = level
        self.computer_side = computer_side
        self.clock = 0
        self.trainer = 0
        # The options, named here for readers and type checkers; OPTION_NAMES gives their order
        # (bit positions in the stored byte) and _DEFAULTS their defaults.
        self.show_targets = self.ponder = self.book = self.sound = False
        self.resign = self.touch_move = self.show_eval = False
        for i in range(len(OPTION_NAMES)):
            setattr(self, OPTION_NAMES[i], bool(_DEFAULTS[i]))

    def check(self, level_count):
        """Raise SettingsError unless every value is in range (levels 0..level_count-1)."""
        if not isinstance(self.level, int) or not 0 <= self.level < level_count:
            raise SettingsError("level must be 0..%d, got %r" % (level_count - 1, self.level))
        if self.computer_side not in (WHITE, BLACK, NOBODY):
            raise SettingsError("computer_side must be 0 (White), 8 (Black) or 16 (nobody), got %r"
                                % (self.computer_side,))
        if not 0 <= self.clock <= _MAX_CLOCK or not 0 <= self.trainer <= _MAX_TRAINER:
            raise SettingsError("clock 0..%d and trainer 0..%d, got %r and %r"
                                % (_MAX_CLOCK, _MAX_TRAINER, self.clock, self.trainer))

    def option(self, index):
        return getattr(self, OPTION_NAMES[index])

    def flags(self):
        bits = 0
        for i in range(len(OPTION_NAMES)):
            if getattr(self, OPTION_NAMES[i]):
                bits |= 1 << i
        return bits

    def to_bytes(self):
        f = self.flags()
        return bytes((_VERSION, self.level & 0xFF, self.computer_side, f & 0xFF, f >> 8, self.clock & 0xFF,
                      self.trainer & 0xFF, 0))

    @classmethod
    def from_bytes(cls, data):
        if len(data) != 8:
            raise SettingsError("settings record must be 8 bytes, got %d" % len(data))
        if data[0] != _VERSION and data[0] != 1:
            raise SettingsError("unknown settings version %d" % data[0])
        s = cls(data[1], data[2])
        if s.computer_side not in (WHITE, BLACK, NOBODY):
            raise SettingsError("bad computer side %d in settings" % data[2])
        f = data[3] | data[4] << 8
        known = len(OPTION_NAMES) if data[0] == _VERSION else _V1_OPTIONS
        for i in range(known):
            setattr(s, OPTION_NAMES[i], bool(f & (1 << i)))
        if data[0] == _VERSION:
            if data[5] > _MAX_CLOCK or data[6] > _MAX_TRAINER:
                raise SettingsError("bad clock %d or trainer %d in settings" % (data[5], data[6]))
            s.clock = data[5]
            s.trainer = data[6]
        return s

    def assign(self, other):
        """Take every value of `other` (keeps this object, which others hold on to)."""
        self.level = other.level
        self.computer_side = other.computer_side
        self.clock = other.clock
        self.trainer = other.trainer
        for name in OPTION_NAMES:
            setattr(self, name, getattr(other, name))

    def copy(self):
        return Settings.from_bytes(self.to_bytes())

    def __eq__(self, other):
        return isinstance(other, Settings) and self.to_bytes() == other.to_bytes()
