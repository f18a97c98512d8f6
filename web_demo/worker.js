// The chess computer's thread: MicroPython's WebAssembly port running the firmware
// (web_demo/demo_board.py) in a Web Worker, so a search never blocks the page.
//
// Messages from the page: {type: "start", board, human, box}, then lines as
//   {type: "line", id, line} (only without the mailbox, see below), {type: "fault"} (test hook:
//   the firmware raises on its next pass), {type: "python", id, code} (test and bench hook: run
//   code, answer its output). To the page: {type: "ready", mailbox, version}, {type: "state"},
//   {type: "reply", id, ...}, {type: "fault", error, traceback}, {type: "output", id, ...},
//   {type: "fatal", error} (the worker cannot go on: shown on the page).
//
// The page's lines during a search: a search is one long call into WebAssembly, and a worker
// gets no message while it runs. So the page hands its lines to the service worker (sw.js),
// and the firmware's poll fetches them with a synchronous request the service worker answers
// (takeMail). Without a service worker (a browser or host that has none) the lines come as
// messages and wait for the end of a search; pondering is then turned off.
"use strict";
import { loadMicroPython } from "./mpwasm/micropython.mjs";

const HEAP_BYTES = 32 * 1024 * 1024; // the firmware needs < 300 KB; the rest is room for garbage
const PYSTACK_WORDS = 64 * 1024;      // the search's recursion runs on MicroPython's own stack
const TICK_MS = 5;                    // the main loop's pace between passes while idle
let mp = null;
let box = null;        // the mailbox id, or null without one
let mailbox = false;
const queue = [];      // lines that came as messages (no mailbox)
let running = false;
let started = false;

function post(obj) { self.postMessage(obj); }
function fatal(text) { post({ type: "fatal", error: text }); }

function takeMail() {
  if (mailbox) {
    const x = new XMLHttpRequest();
    x.open("GET", "mailbox/take?box=" + encodeURIComponent(box), false);
    x.send();
    if (x.status === 200 && x.responseText !== "[]") return x.responseText;
  }
  if (queue.length) return JSON.stringify(queue.splice(0, queue.length));
  return null;
}

function probeMailbox() {
  // true when the service worker answers (a plain server would say 404, or serve nothing)
  if (!box) return false;
  try {
    const x = new XMLHttpRequest();
    x.open("GET", "mailbox/take?box=" + encodeURIComponent(box) + "&probe=1", false);
    x.send();
    return x.status === 200 && x.getResponseHeader("X-Reedchess-Mailbox") === "1";
  } catch (e) {
    return false;
  }
}

async function loadFiles() {
  const res = await fetch("files.json", { cache: "no-cache" });
  if (!res.ok) throw new Error("files.json: HTTP " + res.status);
  const manifest = await res.json();
  const datas = await Promise.all(manifest.files.map(async (f) => {
    const r = await fetch("py/" + f.path, { cache: "no-cache" }); // revalidated: a rebuilt site is never mixed
    if (!r.ok) throw new Error("py/" + f.path + ": HTTP " + r.status);
    const buf = new Uint8Array(await r.arrayBuffer());
    if (buf.length !== f.bytes) throw new Error("py/" + f.path + ": " + buf.length + " bytes, expected " + f.bytes);
    return buf;
  }));
  return { manifest, datas };
}

function mkdirs(path) {
  const parts = path.split("/");
  let dir = "";
  for (let i = 0; i < parts.length - 1; i++) {
    dir += "/" + parts[i];
    try { mp.FS.mkdir(dir); } catch (e) { /* exists */ }
  }
}

let stdout = "";
const decoder = new TextDecoder();
function collect(data) { stdout += typeof data === "string" ? data : decoder.decode(data, { stream: true }); }
async function boot(msg) {
  box = msg.box || null;
  const [{ manifest, datas }, port] = await Promise.all([
    loadFiles(),
    loadMicroPython({ heapsize: HEAP_BYTES, pystack: PYSTACK_WORDS, linebuffer: false,
                      stdout: collect, stderr: collect }),
  ]);
  mp = port;
  manifest.files.forEach((f, i) => { mkdirs("demo/" + f.path); mp.FS.writeFile("/demo/" + f.path, datas[i]); });
  mp.FS.chdir("/demo");
  mailbox = probeMailbox();
  mp.registerJsModule("demo_host", {
    post: (text) => post(JSON.parse(text)),
    take_mail: () => takeMail(),
    ticks_ms: () => Math.floor(performance.now()) & 0x3fffffff,
  });
  mp.runPython("import sys\nif '/demo' not in sys.path: sys.path.insert(0, '/demo')\n" +
               "import demo_host\nfrom web_demo import demo_board\n_demo = None\n");
  post({ type: "ready", mailbox: mailbox, version: manifest.version, modules: manifest.modules });
  start(msg);
}

function start(msg) {
  const args = JSON.stringify({ board: msg.board || "pico", human: msg.human || "white", ponder: mailbox });
  try {
    mp.runPython(
      "import json\n_a = json.loads(" + JSON.stringify(args) + ")\n_demo = None\n" +
      "_demo = demo_board.DemoBoard(board=_a['board'], human=_a['human'], post=demo_host.post, " +
      "take_mail=demo_host.take_mail, ticks_ms=demo_host.ticks_ms)\n" +
      "if not _a['ponder']: _demo.app.settings.ponder = False\n" +
      "_demo.post_state(0)\n");
  } catch (e) {
    fatal("the firmware did not start: " + pyError(e));
    return;
  }
  started = true;
  if (!running) { running = true; loop(); }
}

function pyError(e) {
  const text = String((e && e.message) || e);
  const out = stdout; stdout = "";
  return (out ? out + "\n" : "") + text;
}

function loop() {
  // One main-loop pass per call: MicroPython collects its garbage between calls only.
  if (!started) { running = false; return; }
  try {
    mp.runPython("_demo.tick()");
  } catch (e) { // tick() catches the firmware's exceptions; this is the port itself failing
    post({ type: "fault", error: "the main loop failed: " + pyError(e), traceback: "" });
  }
  setTimeout(loop, TICK_MS);
}

self.onmessage = (ev) => {
  const msg = ev.data || {};
  if (msg.type === "start") {
    if (!mp) boot(msg).catch((e) => fatal(String((e && e.message) || e)));
    else { started = false; start(msg); }
  } else if (msg.type === "line") {
    queue.push([msg.id, msg.line]);
  } else if (msg.type === "fault") {
    if (mp) mp.runPython("_demo.app.fault = True");
  } else if (msg.type === "python") {
    let ok = true;
    stdout = "";
    try { mp.runPython(msg.code); } catch (e) { ok = false; stdout += "\n" + String((e && e.message) || e); }
    post({ type: "output", id: msg.id, ok: ok, output: stdout });
    stdout = "";
  }
};
self.onerror = (e) => { fatal(String(e.message || e)); };
