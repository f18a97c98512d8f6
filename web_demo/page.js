// The static demo's page (`make web-demo`, dist/web/): the simulator's board (board_ui.js,
// shared with `make sim-web`) over a Web Worker that runs the firmware on MicroPython's
// WebAssembly port (worker.js). Lines go to the worker through the service worker's mailbox
// (sw.js: they reach the firmware even while it searches), or as messages where there is none.
// Anything that keeps the demo from running is said on the page (#notice), never a blank page.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const BOARDS = [["pico", "Pico: NeoPixels, display"], ["pico2", "Pico 2: LED matrix"],
                  ["esp32", "ESP32: edge LEDs"], ["esp32s3", "ESP32-S3: 74HC165, NeoPixels"]];
  const SIDES = [["white", "you play White"], ["black", "you play Black"], ["both", "two players"]];
  const demo = window.reedchessDemo = { firstScreenMs: null, mailbox: null, faults: [], ready: false };
  let worker = null;
  let box = null;
  let nextId = 1;
  const pending = new Map();

  function notice(text, kind) {
    const n = $("notice");
    n.textContent = text;
    n.className = kind || "";
    n.hidden = !text;
  }

  function unsupported() {
    if (location.protocol === "file:") {
      return "This page was opened from a file (file://), where the browser does not let it start " +
        "its worker or load WebAssembly. Serve the folder instead, e.g. `python3 -m http.server --bind 127.0.0.1 -d dist/web 8000`, " +
        "and open http://localhost:8000/ (docs/web-demo.md).";
    }
    if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") {
      return "This browser has no WebAssembly, which the chess computer needs (MicroPython runs on it). " +
        "Any current Chrome, Edge, Firefox or Safari has it.";
    }
    if (typeof Worker !== "function") {
      return "This browser has no Web Workers, which the chess computer needs to think without freezing the page.";
    }
    return null;
  }

  async function mailboxReady() {
    // The service worker (sw.js) must control this page before the worker starts, so the
    // worker's requests reach it too. null (no mailbox) where it cannot be had.
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return null;
    try {
      await navigator.serviceWorker.register("sw.js");
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) {
        await new Promise((ok) => {
          navigator.serviceWorker.addEventListener("controllerchange", ok, { once: true });
          setTimeout(ok, 3000);
        });
      }
      return navigator.serviceWorker.controller ? "box-" + Math.random().toString(36).slice(2) : null;
    } catch (e) {
      return null;
    }
  }

  function command(line) {
    return new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      const ctl = box && navigator.serviceWorker.controller;
      if (ctl) ctl.postMessage({ box: box, id: id, line: line });
      else worker.postMessage({ type: "line", id: id, line: line });
    });
  }

  const board = ReedchessBoard({ command: command });

  function onMessage(ev) {
    const m = ev.data || {};
    if (m.type === "state") {
      board.render(m.state);
      if (demo.firstScreenMs === null) {
        demo.firstScreenMs = Math.round(performance.now()); // since the navigation started
        notice(demo.mailbox ? "" : "This browser gave the page no service worker: touches and buttons reach " +
          "the computer only between its searches, and it does not think on your time.", demo.mailbox ? "" : "warn");
        $("demo-status").textContent = "ready in " + (demo.firstScreenMs / 1000).toFixed(1) + " s";
      }
    } else if (m.type === "reply") {
      const resolve = pending.get(m.id);
      pending.delete(m.id);
      if (resolve) resolve(m);
    } else if (m.type === "ready") {
      demo.mailbox = m.mailbox;
      demo.version = m.version;
      demo.ready = true;
    } else if (m.type === "fault") {
      demo.faults.push(m.error);
      notice(m.error + (m.traceback ? "\n" + m.traceback : ""), "error");
    } else if (m.type === "fatal") {
      demo.fatal = m.error;
      notice("The chess computer stopped: " + m.error, "error");
      $("demo-status").textContent = "stopped";
    } else if (m.type === "output") {
      const resolve = pending.get("py" + m.id);
      pending.delete("py" + m.id);
      if (resolve) resolve(m);
    }
  }

  function choices() {
    return { board: $("demo-board").value, human: $("demo-side").value };
  }

  function start() {
    const c = choices();
    worker.postMessage({ type: "start", board: c.board, human: c.human, box: box });
  }

  function buildBar() {
    const bar = document.createElement("span");
    bar.id = "demo-bar";
    const sel = (id, options, label) => {
      const s = document.createElement("select");
      s.id = id;
      s.title = label;
      for (const [value, text] of options) {
        const o = document.createElement("option");
        o.value = value; o.textContent = text;
        s.appendChild(o);
      }
      s.addEventListener("change", () => { if (worker) { $("demo-status").textContent = "new game"; start(); } });
      bar.appendChild(s);
      return s;
    };
    sel("demo-board", BOARDS, "board config");
    sel("demo-side", SIDES, "your side");
    const st = document.createElement("span");
    st.id = "demo-status";
    st.className = "muted small";
    st.textContent = "loading MicroPython\u2026";
    bar.appendChild(st);
    document.querySelector("header").appendChild(bar);
    const params = new URLSearchParams(location.search);
    if (params.get("board")) $("demo-board").value = params.get("board");
    if (params.get("side")) $("demo-side").value = params.get("side");
  }

  function pgnLink() {
    const a = $("pgn");
    a.href = "#";
    a.addEventListener("click", (ev) => {
      ev.preventDefault();
      board.send("pgn").then((res) => {
        if (!res || !res.ok) return;
        const url = URL.createObjectURL(new Blob([res.reply + "\n"], { type: "application/x-chess-pgn" }));
        const link = document.createElement("a");
        link.href = url; link.download = "reedchess.pgn";
        document.body.appendChild(link); link.click(); link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10000);
      });
    });
  }

  // test and bench hooks: run Python in the worker, make the firmware raise on its next pass
  demo.python = (code) => new Promise((resolve) => {
    const id = nextId++;
    pending.set("py" + id, resolve);
    worker.postMessage({ type: "python", id: id, code: code });
  });
  demo.fault = () => worker.postMessage({ type: "fault" });
  demo.send = (line) => board.send(line);
  demo.state = () => board.state();

  async function main() {
    buildBar();
    pgnLink();
    const why = unsupported();
    if (why) { notice(why, "error"); $("demo-status").textContent = "cannot start"; return; }
    notice("Loading the chess computer (MicroPython on WebAssembly, the firmware, the opening book)\u2026", "");
    box = await mailboxReady();
    demo.mailbox = !!box;
    try {
      worker = new Worker("worker.js", { type: "module" });
    } catch (e) {
      notice("The browser would not start the chess computer's worker: " + e.message, "error");
      return;
    }
    worker.onmessage = onMessage;
    worker.onerror = (e) => {
      e.preventDefault();
      notice("The chess computer's worker failed to load (" + (e.message || "a file did not load") +
        "). Is every file of dist/web/ on the server? Module workers need a current browser.", "error");
      $("demo-status").textContent = "stopped";
    };
    start();
  }
  main();
})();
