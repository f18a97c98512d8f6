"""The web demo's figures (run by hand; results go to docs/web-demo.md): engine speed in the
browser against CPython and the wasm port under Node, time to the first screen, download size,
how long the computer takes to answer at the demo's level.

    python bench/web_demo.py                  # builds dist/web/ (make web-demo), then measures
    python bench/web_demo.py --no-build --loads 5 --moves 3

Needs Debian chromium + chromium-driver, selenium and MicroPython's wasm port (make emulators).
The site is served from loopback by a plain static file server (http.server), so the first
screen's time is the browser's own work (parse, compile the WebAssembly, import the firmware,
boot it): a real host adds its download time (the sizes printed, gzip as most hosts send them).

- nodes/s: bench/search_speed.py's set (8 positions to depth 5, fresh tables each: the bench
  signature, 21,570 nodes today) and the emulated Pico's set (bench/pico_speed.py: its first 3
  positions to depth 3, one Searcher of 2,048 entries), each run in the page's worker on the
  firmware it loaded (bytecode .mpy, no machine code), then the same code on the wasm port
  under Node and the first set on CPython (this process). Wall-clock time, and nodes per CPU
  second (the browser's processes, Node's, this process's: what other jobs on a shared machine
  change much less; the browser's include its own housekeeping while the search runs).
- first screen: from the navigation's start to the first drawn state of the firmware, a fresh
  browser profile each load (nothing cached), the median of --loads.
- answer: out of the book, without pondering, the demo's default level, from the move's last click to the
  computer's move on the LEDs (the board's stable_ms of waiting for the move to settle included),
  and the nodes each of those searches reached inside the running App.
"""
import argparse
import contextlib
import functools
import gzip
import io
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tools import web_demo  # noqa: E402

CHROME_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1180,900")

SEARCH_BENCH = """
import bench_search
bench_search.run(5)
"""
# bench/pico_speed.py's search: its first 3 positions to depth 3, one Searcher, new_game() between
PICO_BENCH = """
from firmware.compat import ticks_ms, ticks_diff
from firmware.engine.position import Position
from firmware.engine.search import Searcher, Limits
import bench_search
s = Searcher(tt_entries=2048, move_stack=1024, poll_nodes=1024)
n = t = 0
for fen in bench_search.BENCH_FENS[:3]:
    p = Position(fen)
    s.new_game()
    t0 = ticks_ms()
    r = s.search(p, Limits(depth=3))
    t += ticks_diff(ticks_ms(), t0)
    n += r.nodes
print('bench %d nodes %d ms %d nps' % (n, t, n * 1000 // (t or 1)))
"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass


def parse_bench(text):
    m = re.search(r"^bench (\d+) nodes (\d+) ms (\d+) nps", text, re.M)
    if not m:
        raise RuntimeError("no bench line in:\n" + text[-2000:])
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _tree_cpu_s(root_pid):
    """User + system CPU seconds of every live process under `root_pid` (from /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)  # ppid, utime+stime
    total, todo = 0.0, [root_pid]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0.0))[1]
        todo.extend(p for p, (ppid, _) in stats.items() if ppid == pid)
    return total


def cpu_timed(driver, code):
    """(output, CPU seconds the browser's processes spent) of running `code` in the page's worker."""
    pid = driver.service.process.pid
    before = _tree_cpu_s(pid)
    out = in_page(driver, code)
    return out, _tree_cpu_s(pid) - before


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="reedchess-bench-")
    opts = Options()
    opts.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for flag in CHROME_FLAGS + ("--user-data-dir=" + profile,):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    driver.set_script_timeout(600)
    return driver, profile


def wait(fn, timeout_s, what):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.02)
    raise RuntimeError("timed out waiting for " + what)


def load(url):
    driver, profile = browser()
    driver.get(url)
    wait(lambda: driver.execute_script("return window.reedchessDemo.firstScreenMs"), 120, "the first screen")
    return driver, profile


def close(driver, profile):
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def in_page(driver, code):
    out = driver.execute_async_script("window.reedchessDemo.python(arguments[0]).then(arguments[1])", code)
    if not out["ok"]:
        raise RuntimeError(out["output"])
    return out["output"]


def answer_times(driver, moves):
    import chess

    in_page(driver, "_demo.app.settings.book = False\n_demo.app.settings.ponder = False")
    level = in_page(driver, "print(_demo.controller.level_name(_demo.app.settings.level))").strip()
    times = []
    before = driver.execute_script("return window.reedchessDemo.state().state")
    for _ in range(moves):
        st = driver.execute_script("return window.reedchessDemo.state()")
        board = chess.Board(st["fen"])
        move = sorted(m.uci() for m in board.legal_moves if not board.is_capture(m))[0]
        driver.execute_script("window.reedchessDemo.send('click %s')" % move[:2])
        wait(lambda: driver.execute_script("return window.reedchessDemo.state().hand.length"), 10, "the hand")
        t0 = time.monotonic()
        driver.execute_script("window.reedchessDemo.send('click %s')" % move[2:4])
        wait(lambda: driver.execute_script("return window.reedchessDemo.state().computer_move"), 120, "the answer")
        times.append(time.monotonic() - t0)
        driver.execute_script("window.reedchessDemo.send('do')")
        n = len(st["game"]) + 2
        wait(lambda n=n: len(driver.execute_script("return window.reedchessDemo.state().game")) == n
             and not driver.execute_script("return window.reedchessDemo.state().computer_move"), 30, "the move made")
    after = driver.execute_script("return window.reedchessDemo.state().state")
    searches = after["searches"] - before["searches"]
    return level, times, (after["nodes"] - before["nodes"]) // max(1, searches), searches


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-build", action="store_true", help="measure dist/web/ as it is")
    ap.add_argument("--loads", type=int, default=3, help="page loads for the first-screen time")
    ap.add_argument("--moves", type=int, default=3, help="moves for the answer time")
    args = ap.parse_args(argv)
    out = web_demo.OUT
    if not args.no_build:
        web_demo.build(out, log=None)
    # the bench module beside the firmware the page loads (a copy of the site: dist/web stays as built)
    site = tempfile.mkdtemp(prefix="reedchess-web-bench-")
    shutil.copytree(out, site, dirs_exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, "bench", "search_speed.py"), os.path.join(site, "py", "bench_search.py"))
    with open(os.path.join(site, "files.json")) as f:
        manifest = f.read()
    extra = '{"path": "bench_search.py", "bytes": %d}, ' % os.path.getsize(os.path.join(site, "py", "bench_search.py"))
    with open(os.path.join(site, "files.json"), "w") as f:
        f.write(manifest.replace('"files": [', '"files": [' + extra, 1))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=site))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/" % httpd.server_address[1]
    rows = []
    try:
        firsts = []
        for _ in range(args.loads):
            driver, profile = load(url)
            firsts.append(driver.execute_script("return window.reedchessDemo.firstScreenMs"))
            close(driver, profile)
        driver, profile = load(url)
        try:
            text, browser_cpu = cpu_timed(driver, SEARCH_BENCH)
            browser_bench = parse_bench(text)
            text, browser_pico_cpu = cpu_timed(driver, PICO_BENCH)
            browser_pico = parse_bench(text)
            level, answers, per_search, searches = answer_times(driver, args.moves)
            agent = driver.execute_script("return navigator.userAgent")
        finally:
            close(driver, profile)
        from tools.wasm_port import run

        import resource

        def node(code):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            text = run(code, tree=os.path.join(site, "py"), heap_bytes=16 << 20)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            return parse_bench(text), (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

        node_bench, node_cpu = node(SEARCH_BENCH)
        node_pico, node_pico_cpu = node(PICO_BENCH)
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import search_speed

        t0 = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()) as buf:
            search_speed.run(5)
        cpython_cpu = time.process_time() - t0
        cpython = parse_bench(buf.getvalue())
    finally:
        httpd.shutdown()
        shutil.rmtree(site, ignore_errors=True)
    sizes = web_demo.site_bytes(out)
    gz = 0
    for dirpath, _, names in os.walk(out):
        for name in names:
            with open(os.path.join(dirpath, name), "rb") as f:
                gz += len(gzip.compress(f.read(), 9))
    browser_name = re.search(r"(Headless)?Chrome/[\d.]+", agent)
    browser_name = browser_name.group(0) if browser_name else agent
    def speed(result, cpu_s):
        return "%d nodes/s wall clock, %d nodes per CPU second" % (result[2], result[0] / max(cpu_s, 1e-3))

    rows.append(("search bench (8 positions, depth 5, %d nodes): in the browser (%s, wasm, bytecode)"
                 % (browser_bench[0], browser_name), speed(browser_bench, browser_cpu)))
    rows.append(("the same on the wasm port under Node (%d nodes)" % node_bench[0], speed(node_bench, node_cpu)))
    rows.append(("the same on CPython %d.%d (%d nodes)" % (sys.version_info[0], sys.version_info[1], cpython[0]),
                 speed(cpython, cpython_cpu)))
    rows.append(("Pico bench set (3 positions, depth 3, %d nodes): in the browser" % browser_pico[0],
                 speed(browser_pico, browser_pico_cpu)))
    rows.append(("the same on the wasm port under Node", speed(node_pico, node_pico_cpu)))
    rows.append(("first screen (navigation start to the firmware's first state, loopback, nothing cached, "
                 "median of %d)" % len(firsts), "%.2f s (%s)" % (statistics.median(firsts) / 1000.0,
                                                                ", ".join("%.2f" % (f / 1000.0) for f in firsts))))
    rows.append(("download: the whole site / gzip",
                 "%.0f KB / %.0f KB (MicroPython %.0f KB, firmware and book %.0f KB, page %.0f KB)"
                 % (sizes["total"] / 1024, gz / 1024, sizes["wasm"] / 1024, sizes["py"] / 1024, sizes["page"] / 1024)))
    rows.append(("the computer's answer at level %s, out of book (last click to LEDs, %d moves)"
                 % (level, len(answers)),
                 "%s s" % ", ".join("%.2f" % a for a in answers)))
    rows.append(("nodes a search at that level inside the running firmware (the App polling the board), "
                 "mean of %d searches" % searches, "%d" % per_search))
    for name, value in rows:
        print("| %s | %s |" % (name, value))
    return 0


if __name__ == "__main__":
    sys.exit(main())
