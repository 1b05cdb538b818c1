// The web client: the lobby (/play/) and a game's page (/play/?game=<id>), plain ES modules
// talking to this server's API. A seat's token stays in this browser's localStorage.

import { ApiError, call, heldGames, heldSeats, holdSeat, newKey } from "./api.js";
import { COLOURS, drawBoard, drawCards, targetOf } from "./draw.js";

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
const COLOUR_NAMES = Object.keys(COLOURS);
const OPTIONS = {
  board: { open_scoring: "Open scoring (points shown to all)" },
  cards: {
    leader_colour_must_differ: "A leader's colour must differ from its card",
    allow_withdraw: "Leaders may be withdrawn",
    open_vp_piles: "Victory point piles shown to all",
    trader_takes_one: "The trader swaps one treasure per join (Hungarian/Italian rules)",
  },
};
const PLACING = {
  board: new Set(["PlaceTile", "PlaceLeader", "PlaceCatastrophe"]),
  cards: new Set(["PlayCard", "PlaceLeader", "PlayCatastrophe"]),
};

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (name.startsWith("data-") || name.startsWith("aria-")) { node.setAttribute(name, String(value)); continue; }
    if (value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const cap = (word) => word.charAt(0).toUpperCase() + word.slice(1);
const swatch = (colour) => h("span", { class: `swatch ${colour}`, "aria-hidden": "true" });
const square = (at) => `(${at[0]}, ${at[1]})`;

function say(message, error = false) {
  statusLine.textContent = message;
  statusLine.className = error ? "error" : "";
}

// A refused request in the status line; a refused command's rule (409 with `rule` and
// `rule_url`) as a link to its text in the rules documentation.
function sayProblem(error) {
  say(problemText(error), true);
  const rule = error instanceof ApiError ? error.problem : null;
  if (rule?.rule && rule?.rule_url) {
    statusLine.replaceChildren(h("span", { "data-problem": rule.type ?? "" }, `${error.message} `),
      h("a", { href: rule.rule_url, target: "_blank", rel: "noopener", "data-rule-link": rule.rule }, `Rule ${rule.rule}`));
  }
}

function problemText(error) {
  if (error instanceof ApiError) {
    const rule = error.problem?.rule ? ` [${error.problem.rule}]` : "";
    // A refused move: its rule in one sentence, in the browser's language (Accept-Language).
    const why = error.problem?.description ? ` ${error.problem.description}` : "";
    return `${error.message}${rule}${why}`;
  }
  return String(error);
}

// ---------------------------------------------------------------------------- lobby

async function lobby() {
  document.title = "Lobby · Tigris & Euphrates";
  const nameBox = h("input", { type: "text", name: "player-name", maxlength: 40, value: localStorage.getItem("tigris.name") || "",
    "aria-label": "Your name", "data-field": "player-name", placeholder: "Your name" });
  nameBox.addEventListener("change", () => localStorage.setItem("tigris.name", nameBox.value));
  const openList = h("tbody", { "data-list": "open-games" });
  const mine = heldGames();
  main.replaceChildren(
    h("section", {}, h("h2", {}, "Your name"), nameBox),
    h("section", { "data-section": "open-games" }, h("h2", {}, "Open games"),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Kind"), h("th", {}, "Seats"))), openList),
      h("button", { type: "button", "data-action": "refresh-lobby", onclick: () => loadOpen(openList, nameBox) }, "Refresh")),
    h("section", { "data-section": "my-games" }, h("h2", {}, "Your games"),
      mine.length ? h("ul", {}, mine.map((id) => h("li", {}, h("a", { href: `/play/?game=${id}`, "data-game-link": id }, id))))
        : h("p", {}, "None yet.")),
    createForm(),
  );
  await loadOpen(openList, nameBox);
}

async function loadOpen(list, nameBox) {
  try {
    const { body } = await call("GET", "/games?open=true&limit=50");
    list.replaceChildren(...body.items.map((game) => h("tr", { "data-open-game": game.game_id },
      h("td", {}, game.game_id.slice(0, 8)), h("td", {}, game.kind),
      h("td", {}, game.seats.map((seat) => seat.open
        ? h("button", { type: "button", "data-claim": `${game.game_id}:${seat.seat}`,
          onclick: () => claim(game.game_id, seat.seat, nameBox.value || seat.name) }, `Claim seat ${seat.seat} (${seat.name})`)
        : h("span", {}, `${seat.name} `))))));
    if (!body.items.length) list.replaceChildren(h("tr", {}, h("td", { colspan: 3 }, "No open game.")));
  } catch (error) {
    sayProblem(error);
  }
}

async function claim(gameId, seat, name) {
  try {
    const { body } = await call("POST", `/games/${gameId}/seats/${seat}/claim`,
      { body: { name: name.trim() || `Player ${seat + 1}` }, headers: { "Idempotency-Key": newKey() } });
    holdSeat(gameId, body.seat.seat, body.seat.token);
    location.assign(`/play/?game=${gameId}`);
  } catch (error) {
    sayProblem(error);
  }
}

const BOTS = { random: "Random bot", greedy: "Greedy bot (one move ahead)", mcts: "Searching bot (MCTS)" };

// One seat of the create form: a named player, an open seat, or a bot (the kind of bot and
// its think time shown only for a bot).
function seatRow(i) {
  const type = h("select", { name: `seat-${i}-type`, "data-seat-type": i, "aria-label": `Seat ${i} is` },
    h("option", { value: "human", selected: i === 0 }, "a named player"),
    h("option", { value: "open", selected: i > 0 }, "open for anyone to claim"),
    h("option", { value: "bot" }, "a bot"));
  const botFields = h("span", { "data-bot-fields": i, hidden: true },
    h("label", {}, " ", h("select", { name: `seat-${i}-bot`, "aria-label": `Seat ${i} bot` },
      Object.entries(BOTS).map(([value, label]) => h("option", { value }, label)))),
    h("label", {}, " thinking ", h("input", { type: "number", name: `seat-${i}-think-ms`, min: 0, max: 10000, step: 100,
      value: 500, style: "width:6em", "aria-label": `Seat ${i} think time (ms)` }), " ms"));
  type.addEventListener("change", () => { botFields.hidden = type.value !== "bot"; });
  return h("div", { "data-seat-row": i },
    h("label", {}, `Seat ${i}: `, h("input", { type: "text", name: `seat-${i}-name`, maxlength: 40, placeholder: "name" })),
    " ", type, botFields);
}

// The create body's seat (openapi.yaml SeatSpec): a name, {type: "open"} or {bot, think_ms}.
function seatSpec(form, i) {
  const name = form.elements[`seat-${i}-name`].value.trim();
  switch (form.elements[`seat-${i}-type`].value) {
    case "open": return name ? { type: "open", name } : { type: "open" };
    case "bot": {
      const think = Number(form.elements[`seat-${i}-think-ms`].value || 500);
      const bot = { bot: form.elements[`seat-${i}-bot`].value, think_ms: Math.max(0, Math.min(10000, Math.round(think))) };
      return name ? { ...bot, name } : bot;
    }
    default: return name || `Player ${i + 1}`;
  }
}

function createForm() {
  const kind = h("select", { name: "kind", "data-field": "kind" }, h("option", { value: "board" }, "Tigris & Euphrates (board)"),
    h("option", { value: "cards" }, "Wettstreit der Könige (cards)"));
  const count = h("select", { name: "seat-count", "data-field": "seat-count" }, [2, 3, 4].map((n) => h("option", { value: n }, `${n} players`)));
  const seatRows = h("div", {});
  const options = h("div", {});
  const drawSeats = () => {
    seatRows.replaceChildren(...Array.from({ length: Number(count.value) }, (_, i) => seatRow(i)));
  };
  const drawOptions = () => {
    options.replaceChildren(...Object.entries(OPTIONS[kind.value]).map(([name, label]) =>
      h("label", { style: "display:block" }, h("input", { type: "checkbox", name: `option-${name}`, "data-option": name }), ` ${label}`)));
  };
  count.addEventListener("change", drawSeats);
  kind.addEventListener("change", drawOptions);
  drawSeats();
  drawOptions();
  const form = h("form", { "data-form": "create-game" }, h("h2", {}, "Create a game"), kind, " ", count, seatRows,
    h("fieldset", {}, h("legend", {}, "Options"), options),
    h("button", { type: "submit", "data-action": "create-game" }, "Create game"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const seats = Array.from({ length: Number(count.value) }, (_, i) => seatSpec(form, i));
    const chosen = {};
    for (const box of options.querySelectorAll("[data-option]")) chosen[box.dataset.option] = box.checked;
    try {
      const { body } = await call("POST", "/games", { body: { kind: kind.value, seats, options: chosen },
        headers: { "Idempotency-Key": newKey() } });
      for (const seat of body.seats) if (seat.token) holdSeat(body.game.game_id, seat.seat, seat.token);
      location.assign(`/play/?game=${body.game.game_id}`);
    } catch (error) {
      sayProblem(error);
    }
  });
  return h("section", { "data-section": "create-game" }, form);
}

// ---------------------------------------------------------------------------- a game

const game = {
  id: null, info: null, map: null, seat: null, token: null, view: null, etag: null, legal: [], legalVersion: null,
  source: null, replay: null, undo: [], answered: new Set(), stream: null, busy: false,
  events: [], eventsToken: undefined, log: null,
};
let queue = Promise.resolve();
const refresh = () => { queue = queue.then(load).catch((error) => sayProblem(error)); return queue; };

async function gamePage(gameId) {
  game.id = gameId;
  const held = heldSeats(gameId);
  const seats = Object.keys(held).map(Number).sort();
  game.seat = seats.length ? seats[0] : null;
  game.token = game.seat === null ? null : held[game.seat];
  await refresh();
  follow();
}

async function load() {
  const seats = heldSeats(game.id);
  const info = await call("GET", `/games/${game.id}`);
  game.info = info.body;
  // What never changes in the game (the board's rivers and temples, the display's columns
  // and bridges): read once, from the API (a public resource the browser's cache may keep).
  if (!game.map) game.map = (await call("GET", `/games/${game.id}/map`, { cache: "default" })).body;
  if (game.info.status !== "open") {
    const got = await call("GET", `/games/${game.id}/state`, { token: game.token,
      headers: game.etag ? { "If-None-Match": game.etag } : {} });
    if (got.status !== 304) {
      game.view = got.body;
      game.etag = got.etag;
    }
    // With several seats held in this browser (a shared screen), play the awaited one.
    const awaited = game.view.state.pending.awaiting;
    const mine = awaited.find((seat) => seat in seats);
    if (mine !== undefined && mine !== game.seat && !game.view.over) {
      game.seat = mine;
      game.token = seats[mine];
      game.etag = null;
      return load();
    }
    if (game.token && awaited.includes(game.seat) && !game.view.over) {
      if (game.legalVersion !== game.view.version) {
        const legal = await call("GET", `/games/${game.id}/legal-commands`, { token: game.token });
        game.legal = legal.body.commands;
        game.legalVersion = legal.body.version;
        game.source = null;
      }
    } else {
      game.legal = [];
      game.legalVersion = null;
    }
    if (game.token) game.undo = (await call("GET", `/games/${game.id}/undo-requests`, { token: game.token })).body.items;
    await loadEvents();
  }
  render();
}

// Live updates: the event stream (a ticket stands for the seat's token), and on each event
// a conditional re-read of the state.
async function follow() {
  if (game.stream) game.stream.close();
  let url = `/games/${game.id}/events/stream?wait=600`;
  if (game.token) {
    try {
      const { body } = await call("POST", `/games/${game.id}/stream-tickets`, { token: game.token });
      url = `${body.stream}&wait=600`;
    } catch (error) {
      sayProblem(error);
    }
  }
  const version = game.view?.version ?? game.info?.version ?? 0;
  const stream = new EventSource(`${url}&after=${version}`);
  game.stream = stream;
  stream.addEventListener("game-event", () => refresh());
  stream.addEventListener("error", () => {
    stream.close();
    if (game.stream === stream && !game.view?.over) setTimeout(() => { refresh(); follow(); }, 1000);
  });
}

async function send(command) {
  if (game.busy) return;
  game.busy = true;
  const { type, ...fields } = command;
  try {
    await call("POST", `/games/${game.id}/commands`, { token: game.token, body: { type, ...fields },
      headers: { "If-Match": `"${game.view.version}"`, "Idempotency-Key": newKey() } });
    say(`Sent: ${commandLabel(command)}`);
  } catch (error) {
    sayProblem(error);
  } finally {
    game.busy = false;
  }
  await refresh();
}

function sourceOf(command) {
  switch (command.type) {
    case "PlaceTile": return `tile:${command.colour}`;
    case "PlayCard": return `card:${command.colour}`;
    case "PlaceLeader": return `leader:${command.leader}`;
    default: return "catastrophe";
  }
}

function sourceLabel(source) {
  const [what, colour] = source.split(":");
  return colour ? `${cap(colour)} ${what}` : "Catastrophe";
}

function commandLabel(command) {
  const c = command;
  switch (c.type) {
    case "Pass": return "Pass";
    case "PlaceTile": return `${cap(c.colour)} tile on ${square(c.at)}`;
    case "PlaceLeader": return `${cap(c.leader)} leader` + (c.at ? ` on ${square(c.at)}` : "");
    case "PlaceCatastrophe": return `Catastrophe on ${square(c.at)}`;
    case "PlayCard": return `${cap(c.colour)} card`;
    case "PlayCatastrophe": return "Catastrophe";
    case "WithdrawLeader": return `Withdraw the ${c.leader} leader`;
    case "SwapTiles": return "Swap " + COLOUR_NAMES.filter((k) => c[k]).map((k) => `${c[k]} ${k}`).join(", ");
    case "CommitSupport": return `Commit ${c.count} tile${c.count === 1 ? "" : "s"}`;
    case "CommitCards": return `Commit ${c.count} card${c.count === 1 ? "" : "s"}`;
    case "ChooseWar": return `Fight the ${c.colour} war`;
    case "BuildMonument": return `Build the ${c.monument} monument at ${square(c.at)}`;
    case "DeclineMonument": return "Build no monument";
    case "TakeTreasures": return `Take the treasure${c.squares.length === 1 ? "" : "s"} at ${c.squares.map(square).join(" and ")}`;
    case "TakePoint": return `Take a ${c.colour} point`;
    case "Decline": return "Decline";
    case "BuildShip": return `Build the ${c.ship} ship`;
    case "SwapTreasure": return `Swap the treasure of column ${c.column}`;
    default: return `${c.type} ${JSON.stringify(c)}`;
  }
}

function seatName(state, seat) {
  return state.seats.find((s) => s.seat === seat)?.name ?? `seat ${seat}`;
}

function decisionText(state) {
  const p = state.pending, names = (seats) => seats.map((s) => seatName(state, s)).join(", ");
  const conflict = p.conflict || state.conflict;
  const side = (base, commit) => `${base}` + (commit === null || commit === undefined ? "" : ` + ${commit} committed`);
  const fight = !conflict ? "" : `${cap(conflict.kind)} over ${conflict.colour}: ${seatName(state, conflict.attacker)} attacks (` +
    (state.kind === "board" ? side(conflict.attacker_base, conflict.attacker_commit) : side(conflict.attacker_strength, conflict.attacker_cards)) +
    `), ${seatName(state, conflict.defender)} defends (` +
    (state.kind === "board" ? side(conflict.defender_base, conflict.defender_commit) : side(conflict.defender_strength, conflict.defender_cards)) + "). ";
  switch (p.decision) {
    case "action": return `${names(p.awaiting)}: ${p.actions_left} action${p.actions_left === 1 ? "" : "s"} left.`;
    case "commit": return `${fight}${names(p.awaiting)}: commit support.`;
    case "choose_war": return `${names(p.awaiting)}: choose the war to fight first (${(p.colours || []).join(", ")}).`;
    case "monument": return `${names(p.awaiting)}: build a monument?`;
    case "treasure": return `${names(p.awaiting)}: take ${p.take} treasure${p.take === 1 ? "" : "s"}.`;
    case "point": return `${names(p.awaiting)}: take a point?`;
    case "ship": case "ship_points": return `${names(p.awaiting)}: build a ship?`;
    case "treasure_swap": return `${names(p.awaiting)}: swap a treasure?`;
    case "over": return "The game is over.";
    default: return `${names(p.awaiting)}: ${p.decision}.`;
  }
}

function render() {
  if (!game.info) return;
  document.title = `Game ${game.id.slice(0, 8)} · Tigris & Euphrates`;
  const root = h("div", { "data-game": game.id, "data-kind": game.info.kind, "data-status": game.info.status,
    "data-version": game.view?.version ?? game.info.version, "data-seat": game.seat ?? "" });
  if (game.info.status === "open") {
    root.append(h("section", { "data-section": "waiting" }, h("h2", {}, "Waiting for players"),
      h("ul", {}, game.info.seats.map((seat) => h("li", {}, seat.open
        ? h("button", { type: "button", "data-claim": `${game.id}:${seat.seat}`,
          onclick: () => claimHere(seat.seat) }, `Claim seat ${seat.seat}`)
        : `${seat.name} (seat ${seat.seat})`)))));
    main.replaceChildren(root);
    return;
  }
  const live = game.view.state;
  const shown = game.replay ? game.replay.state : live;
  const picture = h("div", { class: "picture", "data-section": "picture",
    "data-shown-version": game.replay ? game.replay.version : game.view.version });
  const targets = game.replay || !game.source ? [] : game.legal.filter((c) => PLACING[live.kind].has(c.type) && sourceOf(c) === game.source)
    .map((c) => [targetOf(live.kind, c), c]);
  picture.append(live.kind === "board" ? drawBoard(shown, game.map, targets, send) : drawCards(shown, game.map, targets, send));
  const side = h("div", { class: "side" });
  if (game.replay) {
    side.append(h("p", { class: "replay-banner", "data-replay-version": game.replay.version },
      `Replay: the game at version ${game.replay.version} of ${game.view.version}.`));
  }
  side.append(...[turnSection(shown), controls(live), seatsSection(shown), resultSection(shown), replaySection(), undoSection(),
    movesSection()].filter(Boolean));
  root.append(h("div", { class: "game" }, picture, side));
  main.replaceChildren(root);
  const log = root.querySelector("[data-move-log]");
  if (log) log.scrollTop = log.scrollHeight;
  askUndoAnswer();
}

async function claimHere(seat) {
  await claim(game.id, seat, localStorage.getItem("tigris.name") || "");
}

function turnSection(state) {
  const awaiting = state.over ? [] : state.pending.awaiting;
  const mine = game.seat !== null && awaiting.includes(game.seat);
  return h("section", { "data-section": "turn", "data-awaiting": awaiting.join(","), "data-over": state.over },
    h("p", {}, `Turn ${state.turn}. `, game.seat === null ? "You are watching." : `You play ${seatName(state, game.seat)} (seat ${game.seat}).`),
    h("p", { class: mine && !game.replay ? "prompt" : "" }, mine && !game.replay ? h("strong", {}, "Your move. ") : null, decisionText(state)),
    h("p", { "data-supplies": "" }, state.kind === "board"
      ? `Bag: ${state.bag_size} tiles. Treasures on the board: ${state.treasures.length}. Monuments unbuilt: ${state.unbuilt_monuments.length}.`
      : `Pile: ${state.pile_size} cards. Discarded: ${COLOUR_NAMES.reduce((n, c) => n + state.discard[c], 0)}. ` +
        `Treasures left: ${state.treasures_left}. Ships to build: ${state.ships_available.join(", ") || "none"}.`));
}

function controls(state) {
  const section = h("section", { "data-section": "controls" });
  if (game.replay || !game.legal.length) return section;
  const placing = game.legal.filter((c) => PLACING[state.kind].has(c.type));
  const sources = [...new Set(placing.map(sourceOf))];
  if (sources.length) {
    section.append(h("h2", {}, "Place a piece"), h("p", {}, game.source ? `Now click a highlighted ${state.kind === "board" ? "square" : "slot"}.` : "Choose a piece, then where it goes."),
      h("div", { role: "group", "aria-label": "Pieces" }, sources.map((source) => h("button", { type: "button", "data-source": source,
        "aria-pressed": game.source === source, onclick: () => { game.source = game.source === source ? null : source; render(); } },
      swatch(source.split(":")[1] || "catastrophe"), sourceLabel(source)))));
  }
  const others = game.legal.filter((c) => !PLACING[state.kind].has(c.type));
  const swaps = others.filter((c) => c.type === "SwapTiles");
  const prompts = others.filter((c) => c.type !== "SwapTiles");
  if (prompts.length) {
    section.append(h("div", { class: "prompt", role: "group", "aria-label": "Decisions", "data-prompt": state.pending.decision },
      h("h2", {}, "Decide"), prompts.map((c) => h("button", { type: "button", "data-command": JSON.stringify(c), onclick: () => send(c) }, commandLabel(c)))));
  }
  if (swaps.length) {
    section.append(h("details", { "data-swaps": swaps.length }, h("summary", {}, "Swap tiles with the bag…"),
      swaps.map((c) => h("button", { type: "button", "data-command": JSON.stringify(c), onclick: () => send(c) }, commandLabel(c)))));
  }
  return section;
}

function counts(value, hiddenText = "hidden") {
  if (value === null || value === undefined) return h("span", { class: "hidden-value", "data-hidden": "true" }, hiddenText);
  return h("span", {}, COLOUR_NAMES.map((colour) => h("span", { "data-colour": colour, "data-count": value[colour] },
    swatch(colour), `${value[colour]} `)));
}

function botLabel(seat) {
  const bot = game.info.seats.find((s) => s.seat === seat)?.bot;
  return bot ? h("em", { "data-bot": bot.bot }, ` ${BOTS[bot.bot] ?? bot.bot}, ${bot.think_ms} ms`) : null;
}

function seatsSection(state) {
  return h("section", { "data-section": "seats" }, h("h2", {}, "Players"), h("table", {},
    h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", {}, "Hand"), h("th", {}, "Points"), h("th", {}, "Treasures"), h("th", {}, "Leaders"))),
    h("tbody", {}, state.seats.map((seat) => h("tr", { "data-seat-row": seat.seat },
      h("td", {}, `${seat.name} (${seat.dynasty})`, botLabel(seat.seat), state.pending.awaiting.includes(seat.seat) && !state.over ? h("strong", { "data-to-move": "" }, " (to move)") : null),
      h("td", { "data-hand": seat.hand ? "shown" : "hidden" }, seat.hand ? counts(seat.hand) : `${seat.hand_size} ${state.kind === "board" ? "tiles" : "cards"} (hidden)`,
        h("div", {}, `${seat.catastrophes} catastrophe${seat.catastrophes === 1 ? "" : "s"}`)),
      h("td", { "data-points": seat.points ? "shown" : "hidden" }, counts(seat.points)),
      h("td", {}, seat.treasures === null ? h("span", { class: "hidden-value" }, "hidden") : seat.treasures),
      h("td", {}, seat.supply.map((colour) => h("span", {}, swatch(colour)))))))));
}

function resultSection(state) {
  if (!state.result) return null;
  const result = state.result;
  return h("section", { class: "result", "data-section": "result", "data-reason": result.reason },
    h("h2", {}, `Final result (${result.reason})`),
    h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Place"), h("th", {}, "Player"), h("th", {}, "Score"), h("th", {}, "Totals"))),
      h("tbody", {}, [...result.seats].sort((a, b) => a.place - b.place).map((seat) => h("tr", { "data-result-seat": seat.seat,
        "data-place": seat.place, "data-winner": seat.winner, "data-score": JSON.stringify(seat.score) },
      h("td", {}, seat.place, seat.winner ? h("strong", {}, " winner") : null), h("td", {}, seat.name),
      h("td", {}, Array.isArray(seat.score) ? seat.score.join(" / ") : JSON.stringify(seat.score)), h("td", {}, counts(seat.totals)))))));
}

function replaySection() {
  const current = game.view.version;
  const at = game.replay?.version ?? current;
  const slider = h("input", { type: "range", min: 1, max: current, value: at, "data-replay-slider": "", "aria-label": "Version" });
  const number = h("input", { type: "number", min: 1, max: current, value: at, "data-replay-input": "", "aria-label": "Version number", style: "width:6em" });
  slider.addEventListener("input", () => { number.value = slider.value; });
  slider.addEventListener("change", () => showVersion(Number(slider.value)));
  return h("section", { "data-section": "replay" }, h("h2", {}, "Replay"), slider, " ", number,
    h("button", { type: "button", "data-action": "replay", onclick: () => showVersion(Number(number.value)) }, "Show version"),
    game.replay ? h("button", { type: "button", "data-action": "live", onclick: () => { game.replay = null; render(); } }, "Back to live") : null);
}

async function showVersion(version) {
  if (!version || version >= game.view.version) {
    game.replay = null;
    render();
    return;
  }
  try {
    const { body } = await call("GET", `/games/${game.id}/states/${version}`, { token: game.token });
    game.replay = { version, state: body.state };
    render();
  } catch (error) {
    sayProblem(error);
  }
}

function undoSection() {
  if (!game.token) return null;
  return h("section", { "data-section": "undo" }, h("h2", {}, "Undo"),
    h("button", { type: "button", "data-action": "request-undo", onclick: openUndoRequest }, "Ask to undo…"),
    game.undo.length ? h("ul", {}, game.undo.slice(-5).map((r) => h("li", { "data-undo-request": r.request_id, "data-undo-status": r.status },
      `Back to version ${r.to_version} (${r.reason}): ${r.status}`))) : null);
}

async function openUndoRequest() {
  const dialog = document.getElementById("undo-request-dialog");
  const form = document.getElementById("undo-request-form");
  form.elements.to_version.value = await lastCommandStart();
  form.elements.reason.value = "";
  dialog.querySelector("[data-undo-error]").textContent = "";
  dialog.showModal();
}

// The version just before the latest command: the default target of an undo.
async function lastCommandStart() {
  const version = game.view.version;
  const { body } = await call("GET", `/games/${game.id}/events?after=${Math.max(0, version - 40)}&limit=40`, { token: game.token });
  const events = body.items;
  const last = events.filter((e) => !e.type.startsWith("service."));
  if (!last.length) return Math.max(1, version - 1);
  const id = last[last.length - 1].command_id;
  return Math.max(1, events.find((e) => e.command_id === id).version - 1);
}

function setUpDialogs() {
  const requestDialog = document.getElementById("undo-request-dialog");
  const form = document.getElementById("undo-request-form");
  form.querySelector("[data-action=cancel-undo-request]").addEventListener("click", () => requestDialog.close());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("POST", `/games/${game.id}/undo-requests`, { token: game.token,
        body: { to_version: Number(form.elements.to_version.value), reason: form.elements.reason.value },
        headers: { "If-Match": `"${game.view.version}"` } });
      requestDialog.close();
      say("Undo requested.");
      await refresh();
    } catch (error) {
      requestDialog.querySelector("[data-undo-error]").textContent = problemText(error);
    }
  });
  const answerDialog = document.getElementById("undo-answer-dialog");
  const answer = async (approve) => {
    const id = answerDialog.dataset.requestId;
    game.answered.add(id);
    answerDialog.close();
    try {
      await call("POST", `/games/${game.id}/undo-requests/${id}/answers`, { token: game.token, body: { approve },
        headers: { "If-Match": `"${game.view.version}"` } });
      say(approve ? "Undo approved." : "Undo rejected.");
    } catch (error) {
      sayProblem(error);
    }
    await refresh();
  };
  answerDialog.querySelector("[data-action=approve-undo]").addEventListener("click", () => answer(true));
  answerDialog.querySelector("[data-action=reject-undo]").addEventListener("click", () => answer(false));
  const explanation = document.getElementById("explanation-dialog");
  explanation.querySelector("[data-action=close-explanation]").addEventListener("click", () => explanation.close());
}

function askUndoAnswer() {
  const dialog = document.getElementById("undo-answer-dialog");
  const open = game.undo.find((r) => r.status === "open" && r.awaiting.includes(`seat:${game.seat}`) && !game.answered.has(r.request_id));
  if (!open) {
    if (dialog.open) dialog.close();
    return;
  }
  dialog.dataset.requestId = open.request_id;
  dialog.querySelector("[data-undo-question]").textContent =
    `${open.requested_by} asks to take the game back to version ${open.to_version}: “${open.reason}”.`;
  if (!dialog.open) dialog.showModal();
}

// ---------------------------------------------------------------------------- moves explained

// The game's events as this seat (or a spectator) may see them, newest last: read once, then
// only those after the last one read. Another seat's token sees other redactions: read again.
async function loadEvents() {
  if (game.eventsToken !== game.token) {
    game.events = [];
    game.eventsToken = game.token;
  }
  let after = game.events.length ? game.events[game.events.length - 1].version : 0;
  while (after !== null) {
    const { body } = await call("GET", `/games/${game.id}/events?after=${after}&limit=500`, { token: game.token });
    game.events.push(...body.items.map(({ version, type, actor, seat, recorded_at, description }) => ({ version, type, actor, seat, recorded_at, description })));
    after = body.next_after;
  }
}

function actorText(actor) {
  const [who, seat] = actor.split(":");
  const name = seat === undefined ? null : seatName(game.view.state, Number(seat));
  if (who === "seat") return name;
  if (who === "bot") return `${name} (bot)`;
  return actor;
}

// The log's list is kept between renders: only the entries of new events are added to it.
function movesSection() {
  if (!game.log || game.log.dataset.token !== String(game.eventsToken)) {
    game.log = h("ol", { class: "move-log", "data-move-log": "", "aria-label": "Move log", "data-token": String(game.eventsToken) });
  }
  const log = game.log;
  log.append(...game.events.slice(log.childElementCount).map((e) => h("li", {},
    h("button", { type: "button", class: "move", "data-event-version": e.version, "data-actor": e.actor, "data-type": e.type,
      onclick: () => explain(e.version), title: `${e.type} (${e.actor})` },
    // The server's words for the move, in the browser's language (Accept-Language).
    h("span", { class: "move-version" }, `v${e.version}`), " ",
    h("span", { class: "move-description", "data-description": "" }, e.description ?? e.type)))));
  return h("section", { "data-section": "moves" }, h("h2", {}, "Moves"),
    h("p", {}, "Choose a move to see the rules that decided it."), log);
}

async function explain(version) {
  const dialog = document.getElementById("explanation-dialog");
  const body = dialog.querySelector("[data-explanation-body]");
  dialog.dataset.version = version;
  dialog.querySelector("[data-explanation-title]").textContent = `Version ${version} explained`;
  body.replaceChildren(h("p", {}, "Loading…"));
  if (!dialog.open) dialog.showModal();
  try {
    const { body: found } = await call("GET", `/games/${game.id}/versions/${version}/explanation`, { token: game.token });
    if (dialog.dataset.version === String(version)) body.replaceChildren(...explanationView(found));
  } catch (error) {
    body.replaceChildren(h("p", { class: "error", "data-explanation-error": "" }, problemText(error)));
  }
}

function explanationView(x) {
  const when = x.recorded_at ? new Date(x.recorded_at) : null;
  const sender = actorText(x.actor) ?? x.actor;
  const command = x.command === null ? h("span", { class: "hidden-value", "data-command-hidden": "true" }, "not shown to you")
    : h("code", { "data-explained-command": JSON.stringify(x.command) }, commandLabel(x.command));
  const parts = [
    h("p", { "data-explained-type": x.type }, h("strong", {}, x.type),
      x.command_version === x.version ? " (the command's first event)" : ` (part of the command made at version ${x.command_version})`),
    h("dl", {},
      h("dt", {}, "Command"), h("dd", {}, command),
      h("dt", {}, "Sent by"), h("dd", { "data-explained-actor": x.actor }, sender === x.actor ? x.actor : `${sender} [${x.actor}]`),
      h("dt", {}, "When"), h("dd", { "data-explained-when": x.recorded_at ?? "" }, when
        ? h("time", { datetime: x.recorded_at }, when.toLocaleString()) : h("span", { class: "hidden-value" }, "not recorded"))),
    h("h3", {}, "Rules applied"),
  ];
  if (x.rules === null) parts.push(h("p", { class: "hidden-value", "data-rules": "not-recorded" }, "Not recorded for this event."));
  else if (!x.rules.length) parts.push(h("p", { "data-rules": "none" }, "No rule named for this event."));
  else {
    parts.push(h("ol", { "data-rules": x.rules.map((r) => r.id).join(",") }, x.rules.map((r) => h("li", {},
      h("a", { href: r.url, "data-rule-link": r.id }, r.id),
      r.description ? h("span", { "data-rule-sentence": r.id }, ` ${r.description}`) : null))));
  }
  parts.push(h("h3", {}, "Alternatives"));
  if (x.alternatives === null) {
    parts.push(h("p", { class: "hidden-value", "data-alternatives": "hidden" }, "Not shown (another seat's command, an undo or the start)."));
  } else {
    const n = x.alternatives.length;
    parts.push(h("details", { "data-alternatives": n },
      h("summary", {}, `${n} legal command${n === 1 ? "" : "s"} ${x.actor.startsWith("seat:") ? "the sender" : "the seat"} had then`),
      h("ul", {}, x.alternatives.map((c) => h("li", { "data-alternative": JSON.stringify(c) }, commandLabel(c))))));
  }
  return parts;
}

// ---------------------------------------------------------------------------- start

setUpDialogs();
const gameId = new URLSearchParams(location.search).get("game");
if (gameId && /^[0-9a-f]{32}$/.test(gameId)) gamePage(gameId);
else lobby();
