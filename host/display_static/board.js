// A board's page: the drawing, whose turn, the moves, the illegal banner and the question,
// from the display server's event stream. Taps are sent only with the board's command
// token, which the page keeps in this browser (given once as #token=... in the address).
"use strict";
(() => {
  const { el, GAMES, cap, turnText, clock } = Arbiter;
  const board = decodeURIComponent(location.pathname.split("/")[2] || "");
  const tokenKey = "arbiter-token:" + board;
  const $ = (id) => document.getElementById(id);
  let view = null;

  if (location.hash.startsWith("#token=")) {  // kept here, out of the address bar and history
    localStorage.setItem(tokenKey, decodeURIComponent(location.hash.slice(7)));
    history.replaceState(null, "", location.pathname);
  }
  const token = () => localStorage.getItem(tokenKey);

  const NAMES = {
    ".": "empty", "?": "not seen", "#": "a ball", L: "a light ball", D: "a dark ball",
    W: "a white ball", B: "a black ball", R: "a spark (red ball)",
  };
  const TILES = { R: "red", G: "green", B: "blue" };
  const MARKERS = { ".": "no marker", b: "black marker", w: "white marker" };
  function cellText(game, value) {
    if (value == null) return "unknown";
    if (game === "sparklies") {
      if (value === "--") return "a hole";
      if (value.length !== 2) return value;
      return (TILES[value[0]] ? TILES[value[0]] + " tile" : "tile not seen") + ", " + (MARKERS[value[1]] || "marker not seen");
    }
    return NAMES[value] || value;
  }

  const COUNT_LABELS = {
    pylos: [["light", "Light in reserve"], ["dark", "Dark in reserve"]],
    sparks: [["white", "White balls"], ["black", "Black balls"], ["sparks", "Sparks on the board"]],
    sparklies: [["black", "Black controls"], ["white", "White controls"], ["uncontrolled", "Uncontrolled"]],
  };
  function countsOf(v) {
    const n = v.counts || {};
    return (COUNT_LABELS[v.game] || []).filter(([key]) => key in n).map(([key, label]) => [label, n[key]]);
  }

  function render(v) {
    view = v;
    const game = GAMES[v.game] || v.game || "";
    document.title = board + " · " + game + " — Tabletop Arbiter";
    $("title").textContent = board + (game ? " · " + game : "") + (v.variant && v.variant !== "standard" && v.variant !== "subtle" ? " (" + v.variant + ")" : "");
    const offline = !v.online;
    $("offline").hidden = !offline;
    $("offline").textContent = v.missing ? "No board called " + board + " has been seen on the broker." : "The board is offline: its referee is not running or cannot reach the broker.";
    if (v.problem) { $("offline").hidden = false; $("offline").textContent = "A message from the board could not be read: " + v.problem; }
    $("board").innerHTML = v.svg || "";

    const turn = $("turn");
    turn.textContent = turnText(v);
    turn.className = "turn " + (v.status === "finished" ? "over" : (v.to_move || "none"));
    turn.setAttribute("data-to-move", v.to_move || "none");

    const result = $("result");
    result.hidden = v.status !== "finished";
    if (v.status === "finished") {
      const winner = { "1-0": 0, "0-1": 1 }[v.result];
      const players = { pylos: ["light", "dark"], sparks: ["white", "black"], sparklies: ["black", "white"] }[v.game] || [];
      const who = winner === undefined ? "Draw" : cap(players[winner]) + " wins";
      result.textContent = who + " (" + v.result + ")" + (v.reason ? ": " + v.reason : "");
    }

    $("counts").replaceChildren(...countsOf(v).flatMap(([k, n]) => [el("dt", { text: k }), el("dd", { text: String(n) })]));

    const banner = $("illegal");
    banner.hidden = !v.flag;
    if (v.flag) {
      $("illegal-reason").textContent = v.flag.reason;
      $("illegal-cells").replaceChildren(...(v.flag.cells || []).map((c) =>
        el("li", { "data-cell": c.cell, text: c.cell + ": should be " + cellText(v.game, c.expected) + ", the board shows " + cellText(v.game, c.seen) })));
    }

    const question = $("question");
    question.hidden = !v.question;
    if (v.question) {
      $("question-text").textContent = v.question.question;
      const can = !!token();
      $("candidates").replaceChildren(...(v.question.candidates || []).map((move) => {
        const b = el("button", { type: "button", class: "candidate", "data-move": move, text: "It was " + move });
        b.disabled = !can;
        b.addEventListener("click", () => send({ cmd: "confirm", move }));
        return b;
      }));
      $("question-hint").textContent = can ? "Tap the turn that was played." :
        "Answer with the board's confirm button, or open this page with the board's token to answer here.";
    }

    $("sensors").hidden = !(v.sensors && v.sensors.length);
    if (v.sensors && v.sensors.length) $("sensors").textContent = "Camera and switches disagree at " + v.sensors.map((s) => s.hollow).join(", ") + ": check those hollows.";

    const moves = v.moves || [];
    $("moves").replaceChildren(...moves.map((m, k) => {
      const li = el("li", { class: k === moves.length - 1 ? "last" : "" },
                    el("span", { class: "who " + m.player, text: cap(m.player) }), " ",
                    el("span", { class: "move", text: m.move }), " ",
                    el("time", { datetime: m.ts || "", text: clock(m.ts) }));
      if (k === moves.length - 1) li.setAttribute("aria-current", "step");
      return li;
    }));
    $("moves").scrollTop = $("moves").scrollHeight;  // the last move in sight, without scrolling the page

    $("download").href = "/board/" + encodeURIComponent(board) + "/record.pgn";
    $("download").hidden = !v.game;
    const can = !!token() && v.online && v.status !== "finished" && v.position;
    $("actions").hidden = !can;
    $("unlock-summary").textContent = token() ? "This device may answer for the board" : "Read-only: answer from this device";
  }

  async function send(body) {
    const reply = $("reply");
    reply.textContent = "Sending…";
    try {
      const r = await fetch("/api/board/" + encodeURIComponent(board) + "/cmd", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...body, token: token() }),
      });
      const answer = await r.json();
      reply.textContent = answer.ok ? "Done: " + body.cmd + (body.move ? " " + body.move : "") : "Refused: " + answer.error;
      reply.className = "reply " + (answer.ok ? "ok" : "refused");
    } catch (e) {
      reply.textContent = "Not sent: the display server cannot be reached.";
      reply.className = "reply refused";
    }
  }

  $("end-turn").addEventListener("click", () => send({ cmd: "end-turn" }));
  $("takeback").addEventListener("click", () => { if (confirm("Take back the last turn?")) send({ cmd: "takeback", turns: 1 }); });
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const t = $("token").value.trim();
    if (t) localStorage.setItem(tokenKey, t);
    $("token").value = "";
    if (view) render(view);
  });
  $("forget").addEventListener("click", () => { localStorage.removeItem(tokenKey); if (view) render(view); });
  Arbiter.stream("/events?board=" + encodeURIComponent(board), { board: render });
})();
