// Reedchess simulator page (`make sim-web`): the board (board_ui.js) over host_sim/web.py's
// JSON API: every touch is a POST of a Table command, and the page polls /api/state.
"use strict";
(function () {
  const board = ReedchessBoard({
    command: (line) => fetch("/api/command", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ line: line }),
    }).then((r) => r.json()),
  });

  function poll() {
    fetch("/api/state").then((r) => r.json()).then(board.render).catch(() => {}).finally(() => setTimeout(poll, 150));
  }
  window.render = board.render; // as before the page's code was shared (tests draw states with it)
  poll();
})();
