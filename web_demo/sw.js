// The mailbox between the page and the chess computer's worker (web_demo/worker.js).
// The page posts each line here ({box, id, line}); the worker, even in the middle of a search,
// takes them with a synchronous GET of mailbox/take?box=ID, answered here as a JSON list of
// [id, line]. Everything else goes to the network (the static files) untouched.
"use strict";
const boxes = new Map(); // box id -> [[id, line], ...]

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (ev) => ev.waitUntil(self.clients.claim()));

self.addEventListener("message", (ev) => {
  const m = ev.data || {};
  if (typeof m.box !== "string" || typeof m.line !== "string") return;
  if (!boxes.has(m.box)) boxes.set(m.box, []);
  boxes.get(m.box).push([m.id, m.line]);
});

self.addEventListener("fetch", (ev) => {
  const url = new URL(ev.request.url);
  if (!url.pathname.endsWith("/mailbox/take")) return;
  const id = url.searchParams.get("box") || "";
  const lines = boxes.get(id) || [];
  boxes.set(id, []);
  ev.respondWith(new Response(JSON.stringify(lines), {
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", "X-Reedchess-Mailbox": "1" },
  }));
});
