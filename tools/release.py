"""Make a release: every file a stranger downloads, in dist/release/.

    make release                      # dist/release/ for the version in pyproject.toml
    make release MICROPY_SRC=path     # MicroPython 1.28.0's source tree or tarball, offline
    python -m tools.release [--out DIR] [--src TREE_OR_TARBALL] [--jobs 2]

dist/release/ holds:
- reedchess-<version>-<board>.uf2 for pico, pico_w, pico2 and pico2_w: MicroPython with
  Reedchess frozen in (tools/image.py), dragged onto the board's USB drive;
- reedchess-<version>-web.zip: the web demo (tools/web_demo.py), ready for any static host;
- RELEASE-NOTES.md: CHANGELOG.md's section for the version, then the files with their sizes;
- SHA256SUMS: one line a file, checked with `sha256sum -c SHA256SUMS` in that folder.

Everything is checked before anything is built (the CHANGELOG section, the toolchain, the
source), then written into a fresh folder beside the old one that replaces it only when every
file is there: a failed release never leaves a folder that looks complete. An image whose
inputs did not change is not built again (its key in dist/<name>.json), and the archive is
made the same way every time (sorted names, fixed dates), so an unchanged input gives the
same bytes and the same checksum. Errors a person can fix raise ReleaseError; main() prints
it and exits with status 2.
"""

import argparse
import hashlib
import os
import re
import shutil
import sys
import tempfile
import zipfile

try:
    from tools import image
except ImportError:  # run as a script: python tools/release.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tools import image

ROOT = image.ROOT
OUT = os.path.join(ROOT, "dist", "release")
BOARDS = ("pico", "pico_w", "pico2", "pico2_w")  # every board tools/image.py builds
ZIP_DATE = (2020, 1, 1, 0, 0, 0)  # every archive entry's date: the same bytes from the same files
NOTES = "RELEASE-NOTES.md"
SUMS = "SHA256SUMS"


class ReleaseError(ValueError):
    """Something the person releasing can fix; the message says what to do."""


def changelog_section(version, root=ROOT):
    """The text of CHANGELOG.md's section `## [version] - date` (heading excluded), and its date."""
    path = os.path.join(root, "CHANGELOG.md")
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        raise ReleaseError("CHANGELOG.md not found in %s" % root) from None
    m = re.search(r"^## \[%s\](?: - (\d{4}-\d{2}-\d{2}))?[ \t]*\n(.*?)(?=^## |\Z)" % re.escape(version), text,
                  re.M | re.S)
    if not m:
        raise ReleaseError("CHANGELOG.md has no section '## [%s] - YYYY-MM-DD': write the release's notes there "
                           "(rename [Unreleased] and bump the version in pyproject.toml together)" % version)
    body = m.group(2).strip()
    if not body:
        raise ReleaseError("CHANGELOG.md's section for %s is empty" % version)
    if not m.group(1):
        raise ReleaseError("CHANGELOG.md's section for %s has no date: '## [%s] - YYYY-MM-DD'" % (version, version))
    return body, m.group(1)


def zip_folder(folder, dest, prefix):
    """A zip of `folder`'s files under `prefix/`, in sorted order with fixed dates and modes."""
    names = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            names.append(os.path.relpath(os.path.join(dirpath, name), folder))
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for rel in sorted(names):
            info = zipfile.ZipInfo("%s/%s" % (prefix, rel.replace(os.sep, "/")), ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with open(os.path.join(folder, rel), "rb") as f:
                z.writestr(info, f.read())


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def notes_text(version, date, body, sizes):
    lines = ["# Reedchess %s (%s)" % (version, date), "", body, "", "## Files", "",
             "| file | bytes | what |", "|---|---|---|"]
    for name, size in sizes:
        if name.endswith(".uf2"):
            board = name[len("reedchess-%s-" % version):-4]
            what = "firmware for the %s: hold BOOTSEL, plug in, drop the file on the RPI-RP2 drive" % board
        else:
            what = "the web demo: unzip onto any static web host and open index.html"
        lines.append("| `%s` | %d | %s |" % (name, size, what))
    lines += ["", "Check the downloads with `sha256sum -c SHA256SUMS` (in the folder that holds them).", ""]
    return "\n".join(lines)


def preflight(version, boards, src, log):
    """Everything that can stop a release, checked before anything is built; returns (notes
    body, date, MicroPython tree)."""
    body, date = changelog_section(version)
    for board in boards:
        image.frozen_sources(board)
    why = image.toolchain_missing()
    if why:
        raise ReleaseError(why)
    try:
        tree = image.find_source(src, log)
    except image.ImageError as exc:
        raise ReleaseError(str(exc)) from None
    return body, date, tree


def make_release(out=OUT, src=None, jobs=2, boards=BOARDS, log=print, web_builder=None):
    """Build the release into `out`; returns [(file name, bytes)] in SHA256SUMS's order."""
    from tools import web_demo

    version = image.project_version()
    body, date, tree = preflight(version, boards, src, log)
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".release-", dir=parent)
    os.chmod(work, 0o755)  # mkdtemp makes it private; the release folder is for everyone to read
    try:
        files = []
        for board in boards:
            try:
                info = image.build_image(board, tree, jobs, log=log)
            except image.ImageError as exc:
                raise ReleaseError(str(exc)) from None
            name = os.path.basename(info["paths"]["uf2"])
            shutil.copyfile(info["paths"]["uf2"], os.path.join(work, name))
            files.append(name)
        site = os.path.join(work, ".web")
        try:
            (web_builder or web_demo.build)(site, log=log)
        except (web_demo.WebDemoError, OSError) as exc:
            raise ReleaseError("the web demo did not build: %s" % exc) from None
        web_name = "reedchess-%s-web.zip" % version
        zip_folder(site, os.path.join(work, web_name), "reedchess-%s-web" % version)
        shutil.rmtree(site)
        files.append(web_name)
        sizes = [(name, os.path.getsize(os.path.join(work, name))) for name in files]
        with open(os.path.join(work, NOTES), "w") as f:
            f.write(notes_text(version, date, body, sizes))
        files.append(NOTES)
        with open(os.path.join(work, SUMS), "w") as f:
            for name in sorted(files):
                f.write("%s  %s\n" % (sha256(os.path.join(work, name)), name))
        if os.path.isdir(out):
            shutil.rmtree(out)
        os.replace(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    image._say(log, "release %s in %s:" % (version, os.path.relpath(out, ROOT)))
    for name in sorted(files) + [SUMS]:
        image._say(log, "  %-32s %9d bytes" % (name, os.path.getsize(os.path.join(out, name))))
    return [(name, os.path.getsize(os.path.join(out, name))) for name in sorted(files)]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.release", description=__doc__.split("\n")[0])
    p.add_argument("--out", default=OUT, help="the release folder (default dist/release)")
    p.add_argument("--src", default=None, help="MicroPython %s's source tree or release tarball (default: "
                   "MICROPY_SRC, then ../shared/micropython/, then a shallow clone)" % image.MICROPYTHON_VERSION)
    p.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2") or 2))
    p.add_argument("--version-only", action="store_true", help="print the version (pyproject.toml) and stop")
    args = p.parse_args(argv)
    if args.version_only:
        print(image.project_version())
        return 0
    try:
        make_release(args.out, args.src, args.jobs)
    except ReleaseError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
