// The hall page: a card per board that is online, updated as the boards change.
"use strict";
(() => {
  const { el, GAMES, turnText, statusText } = Arbiter;
  function render(boards) {
    const list = document.getElementById("boards");
    document.getElementById("empty").hidden = boards.length > 0;
    list.replaceChildren(...boards.map((b) => {
      const card = el("a", { class: "card " + (b.status || "") + " " + (b.to_move || ""), href: "/board/" + encodeURIComponent(b.board),
                              "data-board": b.board });
      card.append(el("span", { class: "card-id", text: b.board }),
                  el("span", { class: "card-game", text: (GAMES[b.game] || b.game || "") + (b.turn ? " · turn " + b.turn : "") }),
                  el("span", { class: "card-turn", text: turnText(b) }),
                  el("span", { class: "card-status", text: statusText(b) }));
      if (b.last_move) card.append(el("span", { class: "card-last", text: "last: " + b.last_move }));
      if (b.flag) card.append(el("span", { class: "badge illegal-badge", text: "⚠ Illegal move" }));
      if (b.question) card.append(el("span", { class: "badge question-badge", text: "? Confirmation needed" }));
      return el("li", {}, card);
    }));
  }
  Arbiter.stream("/events", { hall: render });
})();
