"""Settings' rarely used side (controller/settings.py calls it through _rare, loaded for the
call and released after): checking values, reading the stored bytes, assigning.
"""
from firmware.compat import const
from firmware.controller.settings import BLACK, NOBODY, OPTION_NAMES, WHITE, SettingsError

_VERSION = const(2)  # copy of firmware.controller.settings._VERSION
_V1_OPTIONS = const(5)
_MAX_CLOCK = const(63)
_MAX_TRAINER = const(15)
_MAX_EBOARD = const(2)  # features/eboard.py: off, DGT, Millennium


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
    if not 0 <= self.eboard <= _MAX_EBOARD:
        raise SettingsError("eboard must be 0 (off), 1 (DGT) or 2 (Millennium), got %r" % (self.eboard,))


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
        if data[7] > _MAX_EBOARD:
            raise SettingsError("bad e-board mode %d in settings" % data[7])
        s.clock = data[5]
        s.trainer = data[6]
        s.eboard = data[7]
    return s


def assign(self, other):
    """Take every value of `other` (keeps this object, which others hold on to)."""
    self.level = other.level
    self.computer_side = other.computer_side
    self.clock = other.clock
    self.trainer = other.trainer
    self.eboard = other.eboard
    for name in OPTION_NAMES:
        setattr(self, name, getattr(other, name))
