"""make diagrams: python -m tools.diagrams [--check] [--out DIR] [--docs DIR] [--board-file FILE]

Writes every board's wiring and board SVGs and BOM CSV into --out (docs/img) and the
generated blocks of docs/wiring.md and docs/build-guide.md. --check writes nothing and fails
when a file differs from what the configs give. --board-file draws one config from a Python
file (its CONFIG dict), e.g. a board of your own, into --out, leaving the docs alone.
A config the drawer does not understand stops it with the board and the entry named.
"""
import argparse
import os
import runpy
import sys

from boards.config import BoardConfigError
from tools.diagrams.board_view import board_svg
from tools.diagrams.bom import bom_csv
from tools.diagrams.configs import board_names, check, load
from tools.diagrams.tables import BLOCKS, BlockError, updated_doc
from tools.diagrams.wiring import wiring_svg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def board_files(config):
    """{file name: text} of one board's drawings and BOM."""
    check(config)
    name = config["name"]
    return {"wiring-%s.svg" % name: wiring_svg(config), "board-%s.svg" % name: board_svg(config),
            "bom-%s.csv" % name: bom_csv(config)}


def expected_files(out_dir, docs_dir):
    """{path: text} of everything make diagrams writes for the boards in boards/."""
    files = {}
    for name in board_names():
        for file_name, text in board_files(load(name)).items():
            files[os.path.join(out_dir, file_name)] = text
    for file_name in BLOCKS:
        path = os.path.join(docs_dir, file_name)
        files[path] = updated_doc(path, file_name)
    return files


def _current(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.diagrams", description=__doc__.split("\n\n")[1])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"), help="where the SVG and CSV files go")
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"), help="the folder of wiring.md and build-guide.md")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    ap.add_argument("--board-file", help="draw only the CONFIG of this Python file")
    args = ap.parse_args(argv)
    try:
        if args.board_file:
            config = runpy.run_path(args.board_file).get("CONFIG")
            if not isinstance(config, dict):
                raise BoardConfigError("%s has no CONFIG dict" % args.board_file)
            files = {os.path.join(args.out, n): t for n, t in board_files(config).items()}
        else:
            files = expected_files(args.out, args.docs)
    except (BoardConfigError, BlockError) as e:
        print("make diagrams: %s" % e, file=sys.stderr)
        return 2
    stale = sorted(p for p, text in files.items() if _current(p) != text)
    if args.check:
        for p in stale:
            print("out of date: %s (run make diagrams)" % os.path.relpath(p, ROOT), file=sys.stderr)
        return 1 if stale else 0
    os.makedirs(args.out, exist_ok=True)
    for p in stale:
        with open(p, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(files[p])
        print("wrote %s" % os.path.relpath(p, ROOT))
    if not stale:
        print("diagrams: all %d files up to date" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
