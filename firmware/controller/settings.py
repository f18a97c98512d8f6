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
trainer (mate trainer set 1..len(SETS), 0 = normal play), eboard (0 off, 1 DGT, 2 Millennium:
the board speaks that e-board protocol on its serial link, features/eboard.py). The options menu that changes them
(labels, squares, texts) is a feature on demand: features/options.py.

Format: version 2 (8 bytes; the last one the e-board mode, 0 in older records). Version 1
records (5 options, no clock/trainer) still load, the newer options taking their defaults.
"""
from firmware.compat import const

WHITE = const(0)
BLACK = const(8)
NOBODY = const(16)

_VERSION = const(2)
OPTION_NAMES = ("show_targets", "ponder", "book", "sound", "resign", "touch_move", "show_eval")
_DEFAULTS = b"\x01\x01\x01\x01\x01\x00\x01"
SETS = ("KQ", "KR", "KBB", "KBN", "KRN", "KRB")  # the mate trainer's sets (features/trainer.py)


def _rare(name, *args):
    """check, from_bytes and assign (start-up, options menu) live in
    features/settings_rare.py: loaded for the call, released after."""
    from firmware.loader import call

    return call("firmware.features.settings_rare", name, *args)


class SettingsError(ValueError):
    """Malformed settings data or an out-of-range value."""


class Settings:
    def __init__(self, level=2, computer_side=BLACK):
        self.level = level
        self.computer_side = computer_side
        self.clock = 0
        self.trainer = 0
        self.eboard = 0
        # The options, named here for readers and type checkers; OPTION_NAMES gives their order
        # (bit positions in the stored byte) and _DEFAULTS their defaults.
        self.show_targets = self.ponder = self.book = self.sound = False
        self.resign = self.touch_move = self.show_eval = False
        for i in range(len(OPTION_NAMES)):
            setattr(self, OPTION_NAMES[i], bool(_DEFAULTS[i]))

    def check(self, level_count):
        """Raise SettingsError unless every value is in range (levels 0..level_count-1)."""
        _rare("check", self, level_count)

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
                      self.trainer & 0xFF, self.eboard & 0xFF))

    @classmethod
    def from_bytes(cls, data):
        """Settings from 8 stored bytes (versions 1 and 2); SettingsError if malformed."""
        return _rare("from_bytes", cls, data)

    def assign(self, other):
        """Take every value of `other` (keeps this object, which others hold on to)."""
        _rare("assign", self, other)

    def copy(self):
        return Settings.from_bytes(self.to_bytes())

    def __eq__(self, other):
        return isinstance(other, Settings) and self.to_bytes() == other.to_bytes()
