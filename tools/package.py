"""Generate package.json, the index `mip` reads to install Reedchess onto a board:

    mpremote mip install github:<owner>/<repo>            # from GitHub, into the board's /lib
    mpremote mip install --target lib path/to/package.json  # from a checkout

It lists every firmware module, the data files (opening book) and every boards/ module (the
person picks a board in main.py), as relative URLs, so it works from any fork. Never edit
package.json by hand: `make package` rewrites it and a test fails when it is out of date.

    python -m tools.package          # write package.json
    python -m tools.package --check  # exit 1 if package.json is not what would be written
"""

import argparse
import json
import os
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

try:
    from tools import fileset
except ImportError:  # run as a script: python tools/package.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tools import fileset

ROOT = fileset.ROOT
PACKAGE_JSON = "package.json"


def project_version(root=ROOT):
    """The version in pyproject.toml ([project] version)."""
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        if tomllib:
            return tomllib.load(f)["project"]["version"]
        for line in f.read().decode().splitlines():  # fallback: the first `version = "..."`
            if line.strip().startswith("version"):
                return line.split("=", 1)[1].strip().strip('"')
    raise ValueError("no version in pyproject.toml")


def package_files(root=ROOT):
    """Repository-relative paths mip installs, sorted."""
    return sorted(set(fileset.firmware_sources(root) + fileset.data_files(root) + fileset.all_board_files(root)))


def package_json(root=ROOT):
    """The package.json content as a dict: {"urls": [[dest, url], ...], "deps": [], "version": ...}."""
    return {
        "urls": [[path, path] for path in package_files(root)],
        "deps": [],
        "version": project_version(root),
    }


def render(root=ROOT):
    """package.json as text: one [dest, url] pair a line, so diffs show added files plainly."""
    doc = package_json(root)
    urls = ",\n".join("    " + json.dumps(pair) for pair in doc["urls"])
    return '{\n  "urls": [\n%s\n  ],\n  "deps": %s,\n  "version": %s\n}\n' % (
        urls,
        json.dumps(doc["deps"]),
        json.dumps(doc["version"]),
    )


def main(argv=None, root=ROOT):
    parser = argparse.ArgumentParser(description="Write or check package.json (the mip index).")
    parser.add_argument("--check", action="store_true", help="fail if package.json is out of date")
    args = parser.parse_args(argv)
    path = os.path.join(root, PACKAGE_JSON)
    text = render(root)
    count = len(package_files(root))
    if args.check:
        try:
            with open(path) as f:
                current = f.read()
        except OSError:
            current = ""
        if current != text:
            print("package.json is out of date: run `make package` and commit it", file=sys.stderr)
            return 1
        print("package.json is up to date (%d files)" % count)
        return 0
    with open(path, "w") as f:
        f.write(text)
    print("wrote package.json (%d files)" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
