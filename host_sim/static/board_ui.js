// The Reedchess board on a page, shared by the simulator's page (host_sim/static/app.js,
// `make sim-web`) and the static demo (web_demo/page.js, `make web-demo`): draws a state
// (host_sim Table.snapshot(): pieces, lit LEDs, display, moves ...) and turns every touch into
// a Table command line ("click e2", "hold new", "do" ...). Where the lines go is the caller's:
//   const board = ReedchessBoard({ command: (line) => Promise of {ok, reply|error, state} });
//   board.render(state);   // a state from elsewhere (the simulator's poll, the demo's worker)
//   board.send(line);      // a command, as the page's own controls send them
"use strict";
function ReedchessBoard(transport) {
  const GLYPH = { K: "\u265A", Q: "\u265B", R: "\u265C", B: "\u265D", N: "\u265E", P: "\u265F" };
  const FILES = "abcdefgh";
  let state = null;
  let selected = null; // {tray: "hand"|"box", letter}
  let queue = Promise.resolve();
  const $ = (id) => document.getElementById(id);

  function pieceSpan(letter) {
    const s = document.createElement("span");
    s.className = "piece " + (letter === letter.toUpperCase() ? "white" : "black");
    s.textContent = GLYPH[letter.toUpperCase()] || "?";
    s.dataset.piece = letter;
    return s;
  }

  function send(line) {
    // Commands run one after another, in the order the hand made them.
    queue = queue.then(() => transport.command(line).then((res) => {
      const reply = $("reply");
      reply.textContent = res.ok ? (res.reply || "") : "error: " + res.error;
      reply.className = "mono" + (res.ok ? "" : " error");
      if (res.state) render(res.state);
      return res;
    }).catch((e) => { $("reply").textContent = "error: " + e; }));
    return queue;
  }

  function squareOrder(flipped) {
    const out = [];
    for (let r = 7; r >= 0; r--) for (let f = 0; f < 8; f++) {
      const rank = flipped ? 7 - r : r, file = flipped ? 7 - f : f;
      out.push(FILES[file] + (rank + 1));
    }
    return out;
  }

  function buildBoard(flipped) {
    const board = $("board");
    board.innerHTML = "";
    board.dataset.flipped = flipped ? "1" : "0";
    for (const sq of squareOrder(flipped)) {
      const d = document.createElement("div");
      const f = FILES.indexOf(sq[0]), r = +sq[1] - 1;
      d.className = "sq " + ((f + r) % 2 ? "light" : "dark");
      d.id = "sq-" + sq;
      d.dataset.square = sq;
      d.dataset.led = "off";
      d.innerHTML = '<span class="name">' + sq + '</span><span class="led"></span>';
      d.addEventListener("click", (ev) => clickSquare(sq, ev.shiftKey));
      d.addEventListener("dragover", (ev) => ev.preventDefault());
      d.addEventListener("drop", (ev) => { ev.preventDefault(); dropOn(sq); });
      board.appendChild(d);
    }
    const ranks = $("ranks-edge"), files = $("files-edge");
    ranks.innerHTML = ""; files.innerHTML = "";
    for (let i = 0; i < 8; i++) {
      const r = document.createElement("div");
      r.className = "eled"; r.dataset.rank = flipped ? i + 1 : 8 - i; r.textContent = r.dataset.rank;
      ranks.appendChild(r);
      const f = document.createElement("div");
      f.className = "eled"; f.dataset.file = FILES[flipped ? 7 - i : i]; f.textContent = f.dataset.file;
      files.appendChild(f);
    }
  }

  function pieceArg() { return selected ? " " + selected.letter : ""; }

  function clickSquare(sq, liftOnly) {
    // The simulator decides what a click does (lift, put down, capture) on its own state when
    // the command runs: this page's copy may be older than the touches still on their way, and
    // a click judged on it could be lost (host_sim/web.py, "click").
    if (liftOnly) {
      send("click " + sq + " lift");
      return;
    }
    const arg = pieceArg();
    selected = null;
    send("click " + sq + arg);
  }

  function dropOn(sq) {
    if (!state) return;
    clickSquare(sq, false);
  }

  function render(s) {
    if (state && s.rev < state.rev) return; // an answer overtaken by a newer one: never go back
    const rebuild = !state || state.flipped !== s.flipped || !$("board").children.length;
    state = s;
    if (rebuild) buildBoard(s.flipped);
    $("boardinfo").textContent = "board " + s.board + " \u00b7 " + s.leds_kind + " LEDs \u00b7 you play " + s.human;
    const lit = s.lit || {};
    const rgb = s.led_rgb || {};
    for (const el of $("board").children) {
      const sq = el.dataset.square;
      const led = lit[sq] || "off";
      if (el.dataset.led !== led) el.dataset.led = led;
      if (rgb[sq]) el.style.setProperty("--ledrgb", rgb[sq]); else el.style.removeProperty("--ledrgb");
      const letter = s.pieces[sq] || "";
      const cur = el.querySelector(".piece");
      if ((cur ? cur.dataset.piece : "") !== letter) {
        if (cur) cur.remove();
        if (letter) {
          const p = pieceSpan(letter);
          p.draggable = true;
          p.addEventListener("dragstart", (ev) => { ev.dataTransfer.setData("text/plain", sq); send("lift " + sq); });
          el.appendChild(p);
        }
      }
      el.dataset.piece = letter;
    }
    // edge LED boards light a rank LED and a file LED per square
    const edge = s.leds_kind === "edge";
    const ranksLit = new Set(), filesLit = new Set();
    for (const sq in lit) { ranksLit.add(sq[1]); filesLit.add(sq[0]); }
    for (const e of document.querySelectorAll("#ranks-edge .eled")) e.classList.toggle("lit", edge && ranksLit.has(String(e.dataset.rank)));
    for (const e of document.querySelectorAll("#files-edge .eled")) e.classList.toggle("lit", edge && filesLit.has(e.dataset.file));
    fillTray($("hand"), s.hand, "hand");
    fillTray($("box"), s.box, "box");
    const btns = $("buttons");
    if (btns.dataset.names !== s.buttons.join(",")) {
      btns.innerHTML = "";
      btns.dataset.names = s.buttons.join(",");
      for (const name of s.buttons) btns.appendChild(makeButton(name));
    }
    const disp = $("display");
    if (s.has_display === false) { disp.textContent = "(this board has no display)"; disp.className = "none"; }
    else { disp.textContent = (s.display || []).join("\n"); disp.className = ""; }
    if (s.error) { $("reply").textContent = "error: " + s.error; $("reply").className = "mono error"; }
    $("thinking").textContent = s.thinking || "-";
    $("computer").textContent = s.computer_move || "-";
    $("do").disabled = !s.computer_move;
    $("result").textContent = s.result;
    $("time").textContent = (s.time_ms / 1000).toFixed(1);
    $("fen").textContent = s.fen;
    $("auto").checked = !!s.auto;
    const moves = $("moves");
    const lines = [];
    for (const [num, san] of s.moves) {
      if (num || !lines.length) lines.push(num || "");
      lines[lines.length - 1] += (lines[lines.length - 1] ? " " : "") + san;
    }
    const html = lines.map((t) => "<li>" + t + "</li>").join("");
    if (moves.innerHTML !== html) {
      moves.innerHTML = html;
      moves.scrollTop = moves.scrollHeight;
    }
  }

  function fillTray(el, letters, tray) {
    const key = letters.join("") + "|" + (selected && selected.tray === tray ? selected.letter : "");
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    el.innerHTML = "";
    letters.forEach((letter) => {
      const p = pieceSpan(letter);
      if (selected && selected.tray === tray && selected.letter === letter) p.classList.add("selected");
      p.title = tray === "hand" ? "click to choose which piece to put down next" : "click, then click a square to put it on the board";
      p.addEventListener("click", () => {
        selected = selected && selected.tray === tray && selected.letter === letter ? null : { tray: tray, letter: letter };
        el.dataset.key = "";
        render(state);
      });
      el.appendChild(p);
    });
    if (!letters.length) el.textContent = "-";
  }

  function makeButton(name) {
    const b = document.createElement("button");
    b.textContent = name;
    b.id = "btn-" + name;
    b.title = "click: short press; hold down: long press";
    let down = 0;
    b.addEventListener("pointerdown", () => { down = performance.now(); });
    b.addEventListener("pointerup", () => {
      const held = down && performance.now() - down >= 600;
      down = 0;
      send((held ? "hold " : "") + name);
    });
    b.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); send(name); } });
    return b;
  }

  $("do").addEventListener("click", () => send("do"));
  $("flip").addEventListener("click", () => send("flip"));
  $("auto").addEventListener("change", (ev) => send("auto " + (ev.target.checked ? "on" : "off")));
  $("cmdform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const line = $("cmd").value;
    $("cmd").value = "";
    send(line);
  });
  return { render: render, send: send, state: () => state };
}
