"""Keeps the borders of docs/architecture.md ("Rules the layering test keeps") honest by scanning imports.

- firmware/engine/ imports nothing from firmware/ but engine/, compat and the loader.
- firmware/io/ imports nothing of chess (engine, controller, uci) and never `machine`.
- only boards/ may import machine, neopixel, rp2, board, digitalio, busio (hardware modules).
- nothing in firmware/ imports typing, dataclasses, enum or functools at runtime.
"""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARDWARE = {"machine", "neopixel", "rp2", "esp32", "board", "digitalio", "busio", "pwmio", "adafruit_blinka"}
CPYTHON_ONLY = {"typing", "dataclasses", "enum", "functools", "abc"}


def _type_only_nodes(tree):
    """The nodes inside `if _TYPE_CHECKING:` blocks: imports for the type checker's field
    declarations, which never run (the module sets `_TYPE_CHECKING = const(0)`, so MicroPython
    does not even compile them; test_type_checking_blocks_never_run)."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "_TYPE_CHECKING":
            for child in node.body:
                inside.update(id(n) for n in ast.walk(child))
    return inside


def _imports(path, runtime=True):
    """The modules `path` imports (with runtime, not those of its `if _TYPE_CHECKING:` blocks)."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    skip = _type_only_nodes(tree) if runtime else set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: resolve against the file's package
                pkg = os.path.relpath(os.path.dirname(path), ROOT).replace(os.sep, ".").split(".")
                base = pkg[: len(pkg) - (node.level - 1)]
                yield ".".join(base + ([node.module] if node.module else []))
            else:
                yield node.module


def _files(folder):
    for dirpath, _, names in os.walk(os.path.join(ROOT, folder)):
        for name in names:
            if name.endswith(".py"):
                yield os.path.join(dirpath, name)


def test_engine_imports_only_engine_compat_and_the_loader():
    bad = []
    for path in _files("firmware/engine"):
        for mod in _imports(path):
            if mod.startswith("firmware") and not (mod.startswith("firmware.engine")
                                                   or mod in ("firmware.compat", "firmware.loader")):
                bad.append((path, mod))
            if mod.split(".")[0] in HARDWARE:
                bad.append((path, mod))
    assert not bad, bad


def test_io_knows_no_chess_and_no_machine():
    bad = []
    for path in _files("firmware/io"):
        for mod in _imports(path):
            if mod.startswith(("firmware.engine", "firmware.controller", "firmware.uci", "firmware.app")):
                bad.append((path, mod))
            if mod.split(".")[0] in HARDWARE:
                bad.append((path, mod))
    assert not bad, bad


def test_only_boards_import_hardware_modules():
    bad = []
    for folder in ("firmware", "host_sim"):
        for path in _files(folder):
            for mod in _imports(path):
                if mod.split(".")[0] in HARDWARE:
                    bad.append((path, mod))
    assert not bad, bad


def test_firmware_avoids_cpython_only_modules():
    bad = []
    for path in _files("firmware"):
        for mod in _imports(path):
            if mod.split(".")[0] in CPYTHON_ONLY:
                bad.append((path, mod))
    assert not bad, bad


def test_firmware_never_imports_host_code():
    bad = []
    for path in _files("firmware"):
        for mod in _imports(path):
            if mod.split(".")[0] in ("host_sim", "tests", "bench", "tools", "chess"):
                bad.append((path, mod))
    assert not bad, bad


def test_type_checking_blocks_never_run():
    """A module with `if _TYPE_CHECKING:` sets it to const(0) at its top level, so the block's
    imports exist for the type checker only."""
    bad = []
    for folder in ("firmware", "boards"):
        for path in _files(folder):
            with open(path) as f:
                text = f.read()
            if "_TYPE_CHECKING" not in text:
                continue
            tree = ast.parse(text, path)
            consts = [n for n in tree.body if isinstance(n, ast.Assign) and [t.id for t in n.targets
                      if isinstance(t, ast.Name)] == ["_TYPE_CHECKING"]]
            ok = len(consts) == 1 and ast.unparse(consts[0].value) == "const(0)"
            if not ok or not _type_only_nodes(tree):
                bad.append(os.path.relpath(path, ROOT))
    assert not bad, bad



def _module_graph():
    """{firmware module: the firmware modules it imports at run time (inside functions too)}."""
    def name_of(path):
        rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
        return rel[: -len(".__init__")] if rel.endswith(".__init__") else rel

    paths = {name_of(p): p for p in _files("firmware")}
    graph = {}
    for mod, path in paths.items():
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        skip = _type_only_nodes(tree)
        deps = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                deps.add(node.module)
                deps.update(node.module + "." + a.name for a in node.names)  # from package import module
        graph[mod] = {d for d in deps if d in paths and d != mod}
    return graph


def test_no_import_circles():
    """No firmware module imports itself through others: rare parts and setup modules import
    the core, and the core names them to firmware/loader.py by a string."""
    graph = _module_graph()
    circles = []
    for start in graph:
        stack = [(start, [start])]
        seen = set()
        while stack:
            mod, path = stack.pop()
            for dep in graph[mod]:
                if dep == start:
                    circles.append(path + [start])
                elif dep not in seen:
                    seen.add(dep)
                    stack.append((dep, path + [dep]))
    assert circles == []


def test_the_circle_check_reads_real_imports():
    graph = _module_graph()
    assert "firmware.engine.search_setup" not in graph["firmware.engine.search"]
    assert "firmware.engine.position" in graph["firmware.engine.search"]  # it sees real imports
