"""Which files of the repository go onto a board. Discovered from the tree, never listed by hand,
so the flash tool, package.json and the freeze manifest keep up as modules are added.

- firmware: every ``.py`` under ``firmware/`` (not ``tests/`` folders, ``test_*.py``, caches),
  plus the data files under ``firmware/data/`` (the opening book ``*.bin`` and the like).
- boards: the shared modules of ``boards/`` (``__init__.py``, ``config.py``, ... every module
  that is not a board), the chosen board's module, and any other board module it imports.
  A board module is ``boards/<name>.py`` that defines ``CONFIG`` and a ``make_hardware()``
  taking no arguments at top level (helpers such as ``make_hardware(config)`` factories are shared).

Paths are repository-relative with forward slashes ("device paths"): they are also where the
files live on the board, relative to its root (``/``).
"""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_SKIP_DIRS = ("__pycache__", "tests", "test")
_DATA_DIR = "firmware/data"
_DATA_SKIP_EXT = (".md", ".txt", ".py", ".pyc")


class FileSetError(ValueError):
    """The repository does not have what was asked for (unknown board, missing folder)."""


def _walk(root, folder):
    """Repository-relative paths of the files under `folder`, sorted, caches and tests skipped."""
    found = []
    for dirpath, dirnames, names in os.walk(os.path.join(root, folder)):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in names:
            if name.startswith("."):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            found.append(rel)
    return sorted(found)


def firmware_sources(root=ROOT):
    """Every firmware module (``.py``) that belongs on a device."""
    if not os.path.isdir(os.path.join(root, "firmware")):
        raise FileSetError("no firmware/ folder under %s" % root)
    return [p for p in _walk(root, "firmware") if p.endswith(".py") and not p.rsplit("/", 1)[-1].startswith("test_")]


def data_files(root=ROOT):
    """Data files the firmware opens at run time (e.g. ``firmware/data/book.bin``)."""
    if not os.path.isdir(os.path.join(root, _DATA_DIR)):
        return []
    return [p for p in _walk(root, _DATA_DIR) if not p.endswith(_DATA_SKIP_EXT)]


def _parse(path):
    with open(path) as f:
        text = f.read()
    try:
        return ast.parse(text, path)
    except SyntaxError as exc:
        raise FileSetError("cannot parse %s: %s (line %s)" % (path, exc.msg, exc.lineno)) from None


def is_board_module(path):
    """True for a board: top-level CONFIG and a make_hardware() without required arguments."""
    tree = _parse(path)
    has_config = has_factory = False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "make_hardware":
            args = node.args
            has_factory = len(args.posonlyargs) + len(args.args) == len(args.defaults)
        elif isinstance(node, ast.Assign):
            has_config |= any(isinstance(t, ast.Name) and t.id == "CONFIG" for t in node.targets)
    return has_config and has_factory


def board_setting(board, name, root=ROOT, inherit=False):
    """The literal value of key `name` in a board module's dicts (its CONFIG), or None. With
    `inherit`, a board built on another's CONFIG (`from boards.pico import CONFIG as _PICO`, as
    pico_w is) has the other's value where it sets none of its own."""
    tree = _parse(os.path.join(root, "boards", board + ".py"))
    bases = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == name and isinstance(value, ast.Constant):
                    return value.value
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("boards.") and any(
                alias.name == "CONFIG" for alias in node.names):
            bases.append(node.module.split(".", 1)[1])
    for base in bases if inherit else ():
        if base != board and os.path.exists(os.path.join(root, "boards", base + ".py")):
            value = board_setting(base, name, root, inherit)
            if value is not None:
                return value
    return None


def board_mcu(board, root=ROOT):
    """The ``"mcu"`` string literal of a board's CONFIG (e.g. "RP2040"), or its base board's
    (pico_w is the Pico's CONFIG with Wi-Fi), or None."""
    return board_setting(board, "mcu", root, inherit=True)


def _imported_modules(path):
    """Absolute module names a file imports (relative imports resolved against its package)."""
    tree = _parse(path)
    package = os.path.dirname(path)
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = os.path.basename(package) if node.level == 1 else ""
                base = ".".join(p for p in (parts, base) if p)
            mods.add(base)
            mods.update(base + "." + alias.name for alias in node.names)
    return mods


def board_names(root=ROOT):
    """Names of the board modules in boards/, sorted."""
    folder = os.path.join(root, "boards")
    names = []
    if os.path.isdir(folder):
        for entry in sorted(os.listdir(folder)):
            if entry.endswith(".py") and entry != "__init__.py":
                if is_board_module(os.path.join(folder, entry)):
                    names.append(entry[:-3])
    return names


def _boards_closure(root, names, all_names):
    """Module names under boards/ that `names` import, transitively (names included)."""
    seen = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen or name not in all_names:
            continue
        seen.add(name)
        for mod in _imported_modules(os.path.join(root, "boards", name + ".py")):
            parts = mod.split(".")
            if len(parts) >= 2 and parts[0] == "boards":
                todo.append(parts[1])
    return seen


def board_files(board, root=ROOT):
    """boards/ files for `board`.

    Included: the board's module and everything under boards/ it imports (transitively, also
    imports inside functions), plus every shared module that no other board claims. Left out:
    the other boards, and helpers only other boards import (e.g. the Blinka pin factory)."""
    boards = board_names(root)
    if board not in boards:
        raise FileSetError("unknown board %r: boards/ has %s" % (board, ", ".join(boards) or "no board modules yet"))
    all_names = {p[len("boards/") : -3] for p in _walk(root, "boards") if p.endswith(".py") and p.count("/") == 1}
    firmware_uses = set()
    for path in firmware_sources(root):
        for mod in _imported_modules(os.path.join(root, path)):
            if mod.startswith("boards."):
                firmware_uses.add(mod.split(".")[1])
    needed = _boards_closure(root, {board, "__init__"} | firmware_uses, all_names)
    others = _boards_closure(root, set(boards) - {board}, all_names) - needed
    keep = sorted(name for name in all_names if name in needed or (name not in boards and name not in others))
    return ["boards/%s.py" % name for name in keep]


def all_board_files(root=ROOT):
    """Every .py under boards/ (for package.json: the user picks the board in main.py)."""
    return [p for p in _walk(root, "boards") if p.endswith(".py")]


# The first lines of main.py when the firmware is not on the file system: its place comes first
# on sys.path, ahead of '' (the file system), whatever the port's order.
_MAIN_PATH = {
    "romfs": """import sys
try:
    import os
    os.stat('/rom/firmware')
except OSError:  # a MicroPython that does not mount its ROMFS by itself
    import vfs
    vfs.mount(vfs.VfsRom(vfs.rom_ioctl(2, 0)), '/rom')
if '/rom' in sys.path:
    sys.path.remove('/rom')
sys.path.insert(0, '/rom')
""",
    "frozen": """import sys
if '.frozen' in sys.path:
    sys.path.remove('.frozen')
    sys.path.insert(0, '.frozen')
""",
}


def main_py(board, where=None):
    """The text of the device's main.py for `board`: the firmware's composition root.
    where: None (modules on the file system), "romfs" (in the ROMFS partition at /rom) or
    "frozen" (in the MicroPython image)."""
    start = "import boards.%s as board\nfrom firmware import app\n\napp.main(board)\n" % board
    return _MAIN_PATH.get(where, "") + start
