"""Which boards there are (tools.fileset's list: every module in boards/ with a CONFIG and a
make_hardware(), as make flash and make lint see them) and whether the drawer understands a
config: boards.config.validate first, then the drawer's own checks."""
import importlib

from boards.config import BoardConfigError, pin_roles, validate
from tools import fileset
from tools.diagrams.pinouts import header_pin, pinout_for
# the boards in the order the docs list them; any other board follows, by name
FIRST = ("pico", "pico2", "pico_mcp", "esp32", "esp32s3", "rpi_blinka")
# what the drawer can draw, per section
DRAWN = {
    "sensor": ("matrix", "shift165", "mcp23017"),
    "leds": ("matrix", "edge", "neopixel"),
    "display": ("ssd1306",),
    "status": ("pixel", "pin"),
}
DEVICES = ("sensor", "leds", "buttons", "buzzer", "display", "status")


class DiagramError(BoardConfigError):
    """A config the drawer cannot draw; the message names the board and the entry."""


def board_names():
    """Every board of boards/, docs order first."""
    names = fileset.board_names()
    return sorted(names, key=lambda n: (FIRST.index(n) if n in FIRST else len(FIRST), n))


def load(name):
    """boards.<name>.CONFIG."""
    return importlib.import_module("boards." + name).CONFIG


def _is_pin_key(key):
    """Whether a section key names pins ("pin", "pins", "data_pin", ...): a section of its own
    without such keys (a radio's settings, say) needs no wires."""
    return isinstance(key, str) and (key in ("pin", "pins") or key.endswith(("_pin", "_pins")))


def _fail(config, msg):
    raise DiagramError("board %s: %s" % (config.get("name", "?"), msg))


def check(config):
    """Raise BoardConfigError (from validate) or DiagramError for a config the drawer does not
    understand; return the config's pin-out."""
    validate(config)
    for key, value in sorted(config.items()):
        if key not in DEVICES and isinstance(value, dict) and any(_is_pin_key(k) for k in value):
            _fail(config, "'%s' is a device on pins the drawer does not know (it draws: %s)"
                  % (key, ", ".join(DEVICES)))
    for key, kinds in DRAWN.items():
        section = config.get(key)
        if section is not None and section.get("kind") not in kinds:
            _fail(config, "%s kind %r cannot be drawn (the drawer knows: %s)"
                  % (key, section.get("kind"), ", ".join(kinds)))
    pinout = pinout_for(config.get("mcu"))
    if pinout is None:
        _fail(config, "no pin-out for mcu %r (tools/diagrams/pinouts.py knows RP2040, RP2350, ESP32, ESP32-S3, BCM...)"
              % (config.get("mcu"),))
    for pin, role, _direction in pin_roles(config):  # validate refused a pin used twice already
        if header_pin(pinout, pin) is None:
            _fail(config, "%s: pin %r is not a GPIO on the %s" % (role, pin, pinout["board"]))
    return pinout
