// Shared by the hall and board pages: the event stream from the display server, and the
// "connected / disconnected" pill. EventSource reconnects by itself; a stream that falls
// silent (no ping for STALE_MS) is closed and opened again, so a dead server is noticed.
"use strict";
const Arbiter = (() => {
  const STALE_MS = 25000;
  let linkState = { server: false, broker: false, problem: null };

  function showLink() {
    const pill = document.getElementById("link");
    if (!pill) return;
    let text, ok = false;
    if (!linkState.server) text = "Disconnected: cannot reach the display server, retrying…";
    else if (!linkState.broker) text = "Disconnected from the broker" + (linkState.problem ? ": " + linkState.problem : "") + ", retrying…";
    else { text = "Connected"; ok = true; }
    pill.textContent = text;
    pill.className = "link " + (ok ? "ok" : "down");
    document.body.classList.toggle("disconnected", !ok);
  }

  function stream(url, handlers) {
    let source = null, timer = null;
    function arm() {
      clearTimeout(timer);
      timer = setTimeout(() => { linkState.server = false; showLink(); open(); }, STALE_MS);
    }
    function open() {
      if (source) source.close();
      source = new EventSource(url);
      source.onopen = () => { linkState.server = true; showLink(); arm(); };
      source.onerror = () => { linkState.server = false; showLink(); arm(); };
      source.addEventListener("ping", arm);
      source.addEventListener("link", (e) => {
        const link = JSON.parse(e.data);
        linkState.server = true; linkState.broker = link.connected; linkState.problem = link.problem;
        showLink(); arm();
      });
      for (const [name, fn] of Object.entries(handlers)) {
        source.addEventListener(name, (e) => { linkState.server = true; arm(); fn(JSON.parse(e.data)); });
      }
    }
    open();
    showLink();
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const child of children) node.append(child);
    return node;
  }

  const GAMES = { pylos: "Pylos", sparks: "Sparks", sparklies: "Sparklies" };
  const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : "");

  function turnText(view) {
    if (view.status === "finished") return "Game over";
    if (!view.to_move) return "Waiting for the game to start";
    const name = (view.players || {})[view.to_move];
    return cap(view.to_move) + " to move" + (name ? " (" + name + ")" : "");
  }

  function statusText(view) {
    return { "playing": "playing", "flagged": "illegal move on the board",
             "awaiting-confirmation": "waiting for a confirmation", "finished": "finished " + (view.result || "") }[view.status] || "";
  }

  function clock(ts) {
    if (!ts) return "";
    const d = new Date(ts);
    return isNaN(d) ? "" : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
  }

  return { stream, el, GAMES, cap, turnText, statusText, clock };
})();
