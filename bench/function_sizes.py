"""What each function costs in a module's .mpy: where to look for heap on a board (run by hand).

    .venv/bin/python bench/function_sizes.py firmware/engine/search.py [more files] [--arch armv6m] [--top 20]

A module loaded from a .mpy keeps its code in the board's heap, so a function's share of
the .mpy is roughly its share of that heap. Each function and method (with its decorators)
is taken out of the source in turn and the module compiled again with mpy-cross (the
options `make flash` uses, default architecture armv6m: the RP2040); the bytes the .mpy
loses are that function's. The figure includes its name and the constants only it uses;
whatever it shares with the rest of the module stays. Viper and native functions are
machine code for the chosen architecture, so their sizes differ between boards.
"""

import argparse
import ast
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools import flash  # noqa: E402

DEFAULT_ARCH = "armv6m"


def functions(tree):
    """(qualified name, first line, last line) of every function and method, decorators included."""
    found = []

    def visit(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                found.append((prefix + node.name, first, node.end_lineno))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")

    visit(tree.body, "")
    return found


def without(lines, first, last):
    """The source with lines first..last (1-based) taken out; a `pass` keeps a block that
    would otherwise be empty valid (its indentation is that of the removed line)."""
    removed = lines[first - 1]
    indent = removed[: len(removed) - len(removed.lstrip())]
    return "".join(lines[: first - 1] + [indent + "pass\n"] + lines[last:])


def mpy_size(source, arch, name, folder):
    path = os.path.join(folder, "module.py")
    out = os.path.join(folder, "module.mpy")
    with open(path, "w") as f:
        f.write(source)
    flash.compile_mpy(path, out, arch, name)
    return os.path.getsize(out)


def sizes(path, arch=DEFAULT_ARCH):
    """(whole .mpy bytes, [(bytes, qualified name), ...] largest first) for one source file."""
    with open(path) as f:
        text = f.read()
    lines = text.splitlines(keepends=True)
    name = os.path.basename(path)
    with tempfile.TemporaryDirectory() as folder:
        whole = mpy_size(text, arch, name, folder)
        rows = []
        for qualified, first, last in functions(ast.parse(text)):
            rows.append((whole - mpy_size(without(lines, first, last), arch, name, folder), qualified))
    rows.sort(key=lambda row: -row[0])
    return whole, rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", help="Python source files")
    parser.add_argument("--arch", default=DEFAULT_ARCH, help="mpy-cross architecture (default %s)" % DEFAULT_ARCH)
    parser.add_argument("--top", type=int, default=0, help="show only the largest N functions of each file")
    args = parser.parse_args(argv)
    for path in args.files:
        try:
            whole, rows = sizes(path, args.arch)
        except (OSError, SyntaxError, flash.FlashError) as err:
            print("%s: %s" % (path, err), file=sys.stderr)
            return 1
        print("%s: %d bytes as .mpy (%s)" % (path, whole, args.arch))
        for size, qualified in rows[: args.top or None]:
            print("  %6d  %s" % (size, qualified))
    return 0


if __name__ == "__main__":
    sys.exit(main())
