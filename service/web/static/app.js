// The web client: the lobby (/play/) and a game's page (/play/?game=<id>), plain ES modules
// talking to this server's API. A seat's token stays in this browser's localStorage.

import { ApiError, call, heldGames, heldSeats, holdSeat, keepPlayer, newKey, storedPlayer } from "./api.js";
import { COLOURS, drawBoard, drawCards, pieceIcon, SYMBOLS, targetOf } from "./draw.js";
import { language, LANGUAGES, loadWords, setLanguage, t } from "./i18n.js";

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
// A colour by what it stands for in the game, in the chosen language (docs/glossary.md).
const COLOUR_WORDS = { black: "black (settlement)", red: "red (temple)", blue: "blue (farm)", green: "green (market)" };
const CARD_COLOUR_WORDS = { black: "black (population)", red: "red (temples)", blue: "blue (agriculture)", green: "green (trade)" };
const colourWord = (colour) => {
  const words = game.info?.kind === "cards" ? CARD_COLOUR_WORDS : COLOUR_WORDS;
  return colour in words ? t(words[colour]) : colour;
};
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

const NAME = "tigris.name";
const rememberedName = () => (localStorage.getItem(NAME) || "").trim();

// This browser's player: the one kept, checked against the server (a key it no longer knows
// is dropped), else a new one made once (POST /players). Null when the server makes players
// for the admin only: the page then plays by seat tokens alone.
async function identity() {
  const kept = storedPlayer();
  if (kept) {
    try {
      await call("GET", "/players/me", { token: kept.key });
      return kept;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      keepPlayer(null);
    }
  }
  try {
    const { body } = await call("POST", "/players", { body: { name: rememberedName() || t("Player") } });
    keepPlayer(body);
    return storedPlayer();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
    throw error;
  }
}

let player = null;

async function lobby() {
  document.title = `${t("Lobby")} · Tigris & Euphrates`;
  const nameBox = h("input", { type: "text", name: "player-name", maxlength: 40, value: rememberedName(),
    "aria-label": t("Your name"), "data-field": "player-name", placeholder: t("Your name"), autocomplete: "nickname" });
  const openList = h("tbody", { "data-list": "open-games" });
  const myGames = h("div", { "data-list": "my-games" }, h("p", {}, t("Loading…")));
  const form = createForm();
  // The name is kept as it is typed, and is the creator's seat name (seat 0's field).
  nameBox.addEventListener("input", () => {
    localStorage.setItem(NAME, nameBox.value);
    const first = form.querySelector("input[name=seat-0-name]");
    if (first && (first.dataset.fromName === "yes" || !first.value)) { first.value = nameBox.value; first.dataset.fromName = "yes"; }
  });
  main.replaceChildren(
    h("section", {}, h("h2", {}, t("Your name")), nameBox),
    h("section", { "data-section": "quick-start" }, h("h2", {}, t("Play now")),
      h("button", { type: "button", "data-action": "play-bot", "data-kind": "board", onclick: () => playBot("board") }, t("Board game against a bot")),
      " ",
      h("button", { type: "button", "data-action": "play-bot", "data-kind": "cards", onclick: () => playBot("cards") }, t("Card game against a bot"))),
    h("section", { "data-section": "my-games" }, h("h2", {}, t("My games")), myGames,
      h("button", { type: "button", "data-action": "refresh-my-games", onclick: () => loadMine(myGames) }, t("Refresh"))),
    h("section", { "data-section": "open-games" }, h("h2", {}, t("Open games")),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, t("Game")), h("th", {}, t("Kind")), h("th", {}, t("Seats")))), openList),
      h("button", { type: "button", "data-action": "refresh-lobby", onclick: () => loadOpen(openList, nameBox) }, t("Refresh"))),
    form,
  );
  try {
    player = await identity();
  } catch (error) {
    sayProblem(error);
  }
  if (player) {
    main.querySelector("[data-section=my-games]").dataset.player = player.player_id;
    nameBox.after(h("p", {}, h("label", {}, t("Your player id (a friend invites you with it)"), " ",
      h("input", { type: "text", readonly: true, value: player.player_id, "data-field": "player-id", size: 36 }))));
  }
  await Promise.all([loadMine(myGames), loadOpen(openList, nameBox)]);
}

// "My games": the player's games from the server (GET /players/me/games), each with a "your
// turn" badge when one of its seats is awaited, then the games this browser holds seat tokens
// of that are not bound to the player. The title counts the games awaiting the player.
async function loadMine(list) {
  let items = [];
  if (player) {
    try {
      items = (await call("GET", "/players/me/games?limit=50", { token: player.key })).body.items;
    } catch (error) {
      sayProblem(error);
    }
  }
  const known = new Set(items.map((game) => game.game_id));
  const rows = items.map((game) => {
    // The key plays every seat bound to the player: the game's page finds it as a held seat.
    const held = heldSeats(game.game_id);
    for (const seat of game.my_seats) if (!(seat in held)) holdSeat(game.game_id, seat, player.key);
    const names = game.seats.map((seat) => seat.open ? t("open seat") : seat.name).join(", ");
    return h("li", { "data-my-game": game.game_id, "data-status": game.status },
      h("a", { href: `/play/?game=${game.game_id}`, "data-game-link": game.game_id },
        `${game.kind === "board" ? t("Board game") : t("Card game")} ${game.game_id.slice(0, 8)}`),
      ` · ${names} · ${statusWord(game.status)}`,
      game.awaiting_me ? h("strong", { class: "badge your-turn", "data-badge": "your-turn" }, t("Your turn")) : null);
  });
  for (const id of heldGames()) {
    if (!known.has(id)) rows.push(h("li", { "data-my-game": id }, h("a", { href: `/play/?game=${id}`, "data-game-link": id }, id.slice(0, 8))));
  }
  list.replaceChildren(rows.length ? h("ul", { class: "my-games" }, rows) : h("p", {}, t("None yet.")));
  const waiting = items.filter((game) => game.awaiting_me).length;
  document.title = `${waiting ? `(${waiting}) ` : ""}${t("Lobby")} · Tigris & Euphrates`;
}

const statusWord = (status) => ({ open: t("waiting for players"), active: t("running"), over: t("over") })[status] ?? status;

// One click: a two-seat game of the kind, this browser's player against the greedy bot.
async function playBot(kind) {
  const me = playerSeat(rememberedName());
  await createGame({ kind, seats: [me, { bot: "greedy", think_ms: 500 }], options: {} });
}

// The creator's seat: bound to this browser's player when there is one (its key plays it),
// else a named seat (its token comes back).
function playerSeat(name) {
  if (player) return name ? { type: "player", player: player.player_id, name } : { type: "player", player: player.player_id, name: t("Player 1") };
  return name || t("Player 1");
}

async function createGame(body) {
  try {
    const { body: made } = await call("POST", "/games", { body, token: player?.key ?? null,
      headers: { "Idempotency-Key": newKey() } });
    for (const seat of made.seats) {
      if (seat.token) holdSeat(made.game.game_id, seat.seat, seat.token);
      else if (player && seat.player === player.player_id) holdSeat(made.game.game_id, seat.seat, player.key);
    }
    location.assign(`/play/?game=${made.game.game_id}`);
  } catch (error) {
    sayProblem(error);
  }
}

async function loadOpen(list, nameBox) {
  try {
    const { body } = await call("GET", "/games?open=true&limit=50");
    list.replaceChildren(...body.items.map((game) => h("tr", { "data-open-game": game.game_id },
      h("td", {}, game.game_id.slice(0, 8)), h("td", {}, game.kind),
      h("td", {}, game.seats.map((seat) => seat.open
        ? h("button", { type: "button", "data-claim": `${game.game_id}:${seat.seat}`,
          onclick: () => claim(game.game_id, seat.seat, nameBox.value || seat.name) }, t("Claim seat {seat} ({name})", { seat: seat.seat, name: seat.name }))
        : h("span", {}, `${seat.name} `))))));
    if (!body.items.length) list.replaceChildren(h("tr", {}, h("td", { colspan: 3 }, t("No open game."))));
  } catch (error) {
    sayProblem(error);
  }
}

async function claim(gameId, seat, name) {
  try {
    // With this browser's player key the seat is bound to the player (its "my games").
    const { body } = await call("POST", `/games/${gameId}/seats/${seat}/claim`,
      { body: { name: name.trim() || `Player ${seat + 1}` }, token: storedPlayer()?.key ?? null,
        headers: { "Idempotency-Key": newKey() } });
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
    h("option", { value: "human", selected: i === 0 }, t("a named player")),
    h("option", { value: "open", selected: i > 0 }, t("open for anyone to claim")),
    h("option", { value: "bot" }, t("a bot")));
  const botFields = h("span", { "data-bot-fields": i, hidden: true },
    h("label", {}, " ", h("select", { name: `seat-${i}-bot`, "aria-label": `Seat ${i} bot` },
      Object.entries(BOTS).map(([value, label]) => h("option", { value }, t(label))))),
    h("label", {}, " thinking ", h("input", { type: "number", name: `seat-${i}-think-ms`, min: 0, max: 10000, step: 100,
      value: 500, style: "width:6em", "aria-label": `Seat ${i} think time (ms)` }), " ms"));
  type.addEventListener("change", () => { botFields.hidden = type.value !== "bot"; });
  return h("div", { "data-seat-row": i },
    h("label", {}, `Seat ${i}: `, h("input", { type: "text", name: `seat-${i}-name`, maxlength: 40, placeholder: "name",
      // The creator's seat takes the remembered name (until a name is typed into it).
      value: i === 0 ? rememberedName() : null, "data-from-name": i === 0 ? "yes" : null,
      oninput: (event) => { event.target.dataset.fromName = "no"; } })),
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
    default: return i === 0 ? playerSeat(name) : name || `Player ${i + 1}`;
  }
}

function createForm() {
  const kind = h("select", { name: "kind", "data-field": "kind", "aria-label": t("Kind") }, h("option", { value: "board" }, "Tigris & Euphrates (board)"),
    h("option", { value: "cards" }, "Wettstreit der Könige (cards)"));
  const count = h("select", { name: "seat-count", "data-field": "seat-count", "aria-label": t("Players") }, [2, 3, 4].map((n) => h("option", { value: n }, t("{n} players", { n }))));
  const seatRows = h("div", {});
  const options = h("div", {});
  const drawSeats = () => {
    seatRows.replaceChildren(...Array.from({ length: Number(count.value) }, (_, i) => seatRow(i)));
  };
  const drawOptions = () => {
    options.replaceChildren(...Object.entries(OPTIONS[kind.value]).map(([name, label]) =>
      h("label", { style: "display:block" }, h("input", { type: "checkbox", name: `option-${name}`, "data-option": name }), ` ${t(label)}`)));
  };
  count.addEventListener("change", drawSeats);
  kind.addEventListener("change", drawOptions);
  drawSeats();
  drawOptions();
  const form = h("form", { "data-form": "create-game" }, h("h2", {}, t("Create a game")), kind, " ", count, seatRows,
    h("fieldset", {}, h("legend", {}, t("Options")), options),
    h("button", { type: "submit", "data-action": "create-game" }, t("Create game")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const seats = Array.from({ length: Number(count.value) }, (_, i) => seatSpec(form, i));
    const chosen = {};
    for (const box of options.querySelectorAll("[data-option]")) chosen[box.dataset.option] = box.checked;
    await createGame({ kind: kind.value, seats, options: chosen });
  });
  return h("section", { "data-section": "create-game" }, form);
}

// ---------------------------------------------------------------------------- a game

const game = {
  id: null, info: null, map: null, seat: null, token: null, view: null, etag: null, legal: [], legalVersion: null,
  source: null, replay: null, undo: [], answered: new Set(), stream: null, busy: false,
  events: [], eventsToken: undefined, log: null, news: null, newsSeen: 0, focusTarget: false, mine: false, notified: null, invites: {},
  fit: window.innerWidth >= 900, // a narrow screen pans a board of finger-sized squares
};
// One load at a time, and at most one waiting: a burst of events (a bot's turn) is one more
// load, not one per event; the waiting one starts after them all and sees them all.
let queue = Promise.resolve();
let waiting = false;
const refresh = () => {
  if (waiting) return queue;
  waiting = true;
  queue = queue.then(() => { waiting = false; return load(); }).catch((error) => sayProblem(error));
  return queue;
};
// What the last load drew; a load that found nothing new does not draw the page again, so a
// click under way is never split between two drawings of the same version (lost, if its
// press and release land on different buttons).
let drawn = null;

async function gamePage(gameId) {
  game.id = gameId;
  drawn = null;
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
  const loaded = JSON.stringify([game.info, game.etag, game.seat, game.token, game.legalVersion, game.undo, game.events.length]);
  if (loaded === drawn) return;
  drawn = loaded;
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
  if (what === "leader") return t("Leader: {colour}", { colour: colourWord(colour) });
  if (what === "tile") return t("Tile: {colour}", { colour: colourWord(colour) });
  if (what === "card") return t("Card: {colour}", { colour: colourWord(colour) });
  return t("Catastrophe");
}

function commandLabel(command) {
  const c = command;
  const colour = colourWord(c.colour ?? c.leader ?? "");
  switch (c.type) {
    case "Pass": return t("Pass");
    case "PlaceTile": return t("{colour} tile on {square}", { colour, square: square(c.at) });
    case "PlaceLeader": return c.at ? t("{colour} leader on {square}", { colour, square: square(c.at) }) : t("{colour} leader", { colour });
    case "PlaceCatastrophe": return t("Catastrophe on {square}", { square: square(c.at) });
    case "PlayCard": return t("{colour} card", { colour });
    case "PlayCatastrophe": return t("Catastrophe");
    case "WithdrawLeader": return t("Withdraw the {colour} leader", { colour });
    case "SwapTiles": return t("Swap {tiles}", { tiles: COLOUR_NAMES.filter((k) => c[k]).map((k) => `${c[k]} ${colourWord(k)}`).join(", ") });
    case "CommitSupport": return t("Commit {n} tile(s)", { n: c.count });
    case "CommitCards": return t("Commit {n} card(s)", { n: c.count });
    case "ChooseWar": return t("Fight the {colour} war", { colour });
    case "BuildMonument": return t("Build the {monument} monument at {square}", { monument: c.monument.split("-").map(colourWord).join(" / "), square: square(c.at) });
    case "DeclineMonument": return t("Build no monument");
    case "TakeTreasures": return t("Take the treasure(s) at {squares}", { squares: c.squares.map(square).join(", ") });
    case "TakePoint": return t("Take a {colour} point", { colour });
    case "Decline": return t("Decline");
    case "BuildShip": return t("Build the {colour} ship", { colour: colourWord(c.ship) });
    case "SwapTreasure": return t("Swap the treasure of column {c}", { c: c.column });
    case "Resign": return t("Resign");
    default: return `${c.type} ${JSON.stringify(c)}`;
  }
}

function seatName(state, seat) {
  return state.seats.find((s) => s.seat === seat)?.name ?? `seat ${seat}`;
}

function decisionText(state) {
  const p = state.pending, names = (seats) => seats.map((s) => seatName(state, s)).join(", ");
  const conflict = p.conflict || state.conflict;
  const side = (base, commit) => `${base}` + (commit === null || commit === undefined ? "" : ` + ${commit}`);
  const fight = !conflict ? "" : t("{kind} over {colour}: {attacker} attacks ({a}), {defender} defends ({d}).", {
    kind: t(conflict.kind === "revolt" ? "Revolt" : "War"), colour: colourWord(conflict.colour),
    attacker: seatName(state, conflict.attacker), defender: seatName(state, conflict.defender),
    a: state.kind === "board" ? side(conflict.attacker_base, conflict.attacker_commit) : side(conflict.attacker_strength, conflict.attacker_cards),
    d: state.kind === "board" ? side(conflict.defender_base, conflict.defender_commit) : side(conflict.defender_strength, conflict.defender_cards) }) + " ";
  const who = names(p.awaiting);
  switch (p.decision) {
    case "action": return t("{who}: {n} action(s) left.", { who, n: p.actions_left });
    case "commit": return fight + t("{who}: commit support.", { who });
    case "choose_war": return t("{who}: choose the war to fight first ({colours}).", { who, colours: (p.colours || []).map(colourWord).join(", ") });
    case "monument": return t("{who}: build a monument?", { who });
    case "treasure": return t("{who}: take {n} treasure(s).", { who, n: p.take });
    case "point": return t("{who}: take a {colour} point? (A {colour} card from the hand goes onto the victory pile.)", { who, colour: colourWord(p.colour) });
    case "ship": case "ship_points": return t("{who}: build a ship?", { who });
    case "treasure_swap": return t("{who}: swap a treasure?", { who });
    case "over": return t("The game is over.");
    default: return `${who}: ${p.decision}.`;
  }
}

function render() {
  if (!game.info) return;
  const root = h("div", { "data-game": game.id, "data-kind": game.info.kind, "data-status": game.info.status,
    "data-version": game.view?.version ?? game.info.version, "data-seat": game.seat ?? "" });
  if (game.info.status === "open") {
    document.title = t("Waiting for players") + " · Tigris & Euphrates";
    root.append(h("section", { "data-section": "waiting" }, h("h2", {}, t("Waiting for players")),
      h("ul", {}, game.info.seats.map((seat) => h("li", {}, seat.open
        ? [h("button", { type: "button", "data-claim": `${game.id}:${seat.seat}`,
          onclick: () => claimHere(seat.seat) }, t("Claim seat {seat}", { seat: seat.seat })), game.token ? inviteForm(seat.seat) : null]
        : `${seat.name} (${t("seat {seat}", { seat: seat.seat })})`)))));
    main.replaceChildren(root);
    return;
  }
  const live = game.view.state;
  const shown = game.replay ? game.replay.state : live;
  const mine = !game.replay && !live.over && game.seat !== null && live.pending.awaiting.includes(game.seat);
  // A badge in the title when this seat is awaited, "(1)" first while the tab is in the
  // background, and a notification then (once per version) if the player allowed them.
  yourTurn(mine);
  const focused = document.activeElement?.dataset?.target ?? document.activeElement?.dataset?.rack ?? null;
  const picture = h("div", { class: `picture ${game.fit ? "fit" : "zoom"}`, "data-section": "picture", tabindex: 0, role: "region",
    "aria-label": live.kind === "board" ? t("The board") : t("The card display"),
    "data-shown-version": game.replay ? game.replay.version : game.view.version });
  const targets = game.replay || !game.source ? [] : game.legal.filter((c) => PLACING[live.kind].has(c.type) && sourceOf(c) === game.source)
    .map((c) => [targetOf(live.kind, c), c]);
  const options = { last: game.replay ? [] : lastMove(live), label: (where) => targetLabel(live.kind, where),
    title: live.kind === "board" ? t("The board") : t("The card display"), columnWord: t("column"), bridgeWord: t("bridge") };
  picture.append(live.kind === "board" ? drawBoard(shown, game.map, targets, send, options) : drawCards(shown, game.map, targets, send, options));
  const zoom = h("button", { type: "button", class: "zoom-toggle", "data-action": "zoom", "aria-pressed": !game.fit,
    onclick: () => { game.fit = !game.fit; render(); } }, game.fit ? t("Zoom in") : t("Fit to the screen"));
  // What to do now and the final screen above the picture (first on a phone), the rest beside.
  const table = h("div", { class: "table" }, ...[resultSection(shown), turnSection(shown)].filter(Boolean),
    h("div", { class: "picture-bar" }, zoom), picture, controls(live));
  const side = h("div", { class: "side" });
  if (game.replay) {
    side.append(h("p", { class: "replay-banner", "data-replay-version": game.replay.version },
      t("Replay: the game at version {v} of {of}.", { v: game.replay.version, of: game.view.version })));
  }
  side.append(...[newsSection(), pointsSection(shown), seatsSection(shown),
    replaySection(), undoSection(), movesSection()].filter(Boolean));
  root.append(h("div", { class: "game" }, table, side));
  main.replaceChildren(root);
  for (const list of root.querySelectorAll("[data-move-log], [data-news]")) list.scrollTop = list.scrollHeight;
  // Keep the keyboard where it was: the same target or rack piece, else the first target.
  const again = focused && (root.querySelector(`[data-target="${focused}"]`) || root.querySelector(`[data-rack="${focused}"]`));
  const first = game.focusTarget ? root.querySelector("[data-picture] [data-target]") : null;
  if (first) first.focus();
  else if (again) again.focus();
  game.focusTarget = false;
  askUndoAnswer();
}

function targetLabel(kind, where) {
  if (kind === "board") {
    const [row, column] = where.split(",");
    return t("Square: row {row}, column {column}", { row, column });
  }
  if (where.startsWith("b")) return t("Bridge {b}", { b: where.slice(1) });
  const [column, depth] = where.slice(1).split(":");
  return depth === "end" ? t("End of column {c}", { c: column }) : t("Column {c}, card {d}", { c: column, d: Number(depth) + 1 });
}

// The squares or slots of the latest command of another seat (or a bot): the places its
// events name.
function lastMove(state) {
  const moves = game.events.filter((e) => /^(seat|bot):/.test(e.actor) && e.actor.split(":")[1] !== String(game.seat));
  if (!moves.length) return [];
  const last = moves[moves.length - 1].command_id;
  const places = [];
  for (const e of game.events) {
    if (e.command_id !== last || !e.data) continue;
    const d = e.data;
    if (state.kind === "board") {
      if (d.at && /(TilePlaced|LeaderPlaced|LeaderMoved|CatastrophePlaced|MonumentBuilt)$/.test(e.type)) places.push(d.at);
      continue;
    }
    if (!/(CardPlayed|LeaderPlaced|CatastrophePlayed)$/.test(e.type)) continue;
    if (d.bridge !== null && d.bridge !== undefined) places.push(`b${d.bridge}`);
    else if (e.type.endsWith("CardPlayed")) places.push(`c${d.column}:${Math.max(0, (state.display.columns[d.column]?.length ?? 1) - 1)}`);
    else places.push(`c${d.column}:${d.depth ?? 0}`);
  }
  return places;
}

function gameTitle(mine) {
  const away = mine && document.hidden ? "(1) " : "";
  return `${away}${mine ? "● " + t("Your move") + " · " : ""}${t("Game {id}", { id: game.id.slice(0, 8) })} · Tigris & Euphrates`;
}

function yourTurn(mine) {
  game.mine = mine;
  document.title = gameTitle(mine);
  const version = game.view?.version;
  if (!mine || !document.hidden || game.notified === version) return;
  game.notified = version;
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const note = new Notification(t("Your move"), { body: t("Game {id}", { id: game.id.slice(0, 8) }), tag: `tigris-${game.id}` });
  note.addEventListener("click", () => { window.focus(); note.close(); });
}

// Back in the tab: the "(1)" goes.
document.addEventListener("visibilitychange", () => { if (game.view) document.title = gameTitle(game.mine); });

// Notifications are asked for only when the player presses this button (never on load).
function notifyButton() {
  if (!("Notification" in window) || Notification.permission !== "default") return null;
  return h("button", { type: "button", "data-action": "allow-notifications",
    onclick: async () => { await Notification.requestPermission(); render(); } }, t("Notify me when it is my turn"));
}

// An open seat reserved for one friend (POST /games/{id}/seats/{seat}/invitation, by a seat of
// the game): the friend's player id (shown in their lobby) in, a link out, copied to the
// clipboard and shown to copy by hand; only the friend's key redeems it.
function inviteForm(seat) {
  const who = h("input", { type: "text", name: `invite-${seat}`, "data-invite-player": seat, required: true,
    maxlength: 80, "aria-label": t("The player id of the friend to invite to seat {seat}", { seat }), placeholder: t("Friend's player id") });
  // (kept in `game.invites`: the reservation's event redraws the page)
  const made = game.invites[seat];
  const out = h("input", { type: "text", readonly: true, "data-invitation-link": seat, hidden: !made, value: made ?? null,
    "aria-label": t("Invitation link for seat {seat}", { seat }) });
  const form = h("form", { class: "invite", "data-invite-form": seat }, who, " ",
    h("button", { type: "submit", "data-action": "invite", "data-seat": seat }, t("Copy invitation link")), " ", out);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const { body } = await call("POST", `/games/${game.id}/seats/${seat}/invitation`,
        { token: game.token, body: { player: who.value.trim() } });
      const link = `${location.origin}/play/?invitation=${encodeURIComponent(body.code)}`;
      game.invites[seat] = link;
      render(); // the page as it is now, with the link shown
      main.querySelector(`[data-invitation-link="${seat}"]`)?.select();
      try {
        await navigator.clipboard.writeText(link);
        say(t("Invitation link copied."));
      } catch {
        say(t("Copy the invitation link shown."));
      }
    } catch (error) {
      sayProblem(error);
    }
  });
  return form;
}

// The page opened with an invitation link (/play/?invitation=<code>): this browser's player
// redeems it (POST /invitations/{code}) and goes to the game.
async function redeem(code) {
  try {
    player = await identity();
    if (!player) throw new Error(t("This server makes no players: an invitation cannot be redeemed here."));
    const { body } = await call("POST", `/invitations/${encodeURIComponent(code)}`,
      { token: player.key, body: rememberedName() ? { name: rememberedName() } : {}, headers: { "Idempotency-Key": newKey() } });
    holdSeat(body.game.game_id, body.seat.seat, body.seat.token ?? player.key);
    location.replace(`/play/?game=${body.game.game_id}`);
  } catch (error) {
    sayProblem(error);
    await lobby();
  }
}

async function claimHere(seat) {
  await claim(game.id, seat, localStorage.getItem("tigris.name") || "");
}

function turnSection(state) {
  const awaiting = state.over ? [] : state.pending.awaiting;
  const mine = game.seat !== null && awaiting.includes(game.seat);
  return h("section", { "data-section": "turn", "data-awaiting": awaiting.join(","), "data-over": state.over },
    h("p", {}, t("Turn {turn}.", { turn: state.turn }), " ", game.seat === null ? t("You are watching.")
      : t("You play {name} (seat {seat}).", { name: seatName(state, game.seat), seat: game.seat })),
    h("p", { class: mine && !game.replay ? "prompt your-move" : "" }, mine && !game.replay ? h("strong", {}, t("Your move.") + " ") : null, decisionText(state)),
    game.seat === null || state.over ? null : notifyButton(),
    h("p", { "data-supplies": "" }, state.kind === "board"
      ? t("Bag: {bag} tiles. Treasures on the board: {treasures}. Monuments unbuilt: {monuments}.",
        { bag: state.bag_size, treasures: state.treasures.length, monuments: state.unbuilt_monuments.length })
      : t("Pile: {pile} cards. Discarded: {discarded}. Treasures left: {treasures}. Ships to build: {ships}.",
        { pile: state.pile_size, discarded: COLOUR_NAMES.reduce((n, c) => n + state.discard[c], 0),
          treasures: state.treasures_left, ships: state.ships_available.map(colourWord).join(", ") || t("none") })));
}

// Your hand as a rack: every tile or card, leader and catastrophe you hold, the ones you may
// play now as buttons (data-source) to pick, then drop on a highlighted target. The arrow
// keys move along the rack; Enter or Space picks; the first target then takes the focus.
function rack(state, placing) {
  const me = state.seats.find((s) => s.seat === game.seat);
  if (!me) return null;
  const playable = new Set(placing.map(sourceOf));
  const pieces = [];
  const word = state.kind === "board" ? "tile" : "card";
  if (me.hand) for (const colour of COLOUR_NAMES) for (let i = 0; i < me.hand[colour]; i++) pieces.push([`${word}:${colour}`, i]);
  for (const colour of me.supply) pieces.push([`leader:${colour}`, 0]);
  for (let i = 0; i < me.catastrophes; i++) pieces.push(["catastrophe", i]);
  for (const source of playable) if (!pieces.some(([s]) => s === source)) pieces.push([source, 0]);
  const buttons = pieces.map(([source, i]) => {
    const usable = playable.has(source) && !game.replay;
    return h("button", { type: "button", class: "piece", "data-rack": `${source}#${i}`, "data-source": usable ? source : null,
      "data-piece": source, disabled: !usable, "aria-pressed": usable ? game.source === source : null,
      "aria-label": sourceLabel(source), title: sourceLabel(source), tabindex: -1,
      onclick: () => { game.source = game.source === source ? null : source; game.focusTarget = game.source !== null; render(); },
      onkeydown: (event) => moveAlong(event, "[data-rack]:not([disabled])") },
    pieceIcon(state.kind, source, me.dynasty));
  });
  const first = buttons.find((b) => b.getAttribute("aria-pressed") === "true") ?? buttons.find((b) => !b.disabled);
  if (first) first.tabIndex = 0;
  return h("div", { class: "rack", role: "group", "aria-label": t("Your hand"), "data-rack-of": game.seat }, buttons);
}

function moveAlong(event, selector) {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
  if (!step) return;
  event.preventDefault();
  const all = [...event.currentTarget.parentElement.querySelectorAll(selector)];
  const next = all[(all.indexOf(event.currentTarget) + step + all.length) % all.length];
  if (!next) return;
  event.currentTarget.tabIndex = -1;
  next.tabIndex = 0;
  next.focus();
}

function controls(state) {
  const section = h("section", { "data-section": "controls", "aria-label": t("Your move") });
  if (game.replay) return section;
  const placing = game.legal.filter((c) => PLACING[state.kind].has(c.type));
  const hand = rack(state, placing);
  if (hand) {
    section.append(h("h2", {}, t("Your hand")), hand);
    if (placing.length) {
      section.append(h("p", { class: "hint" }, game.source ? t("Now choose a highlighted place (click, or Tab and Enter).") : t("Pick a piece, then where it goes.")));
    }
  }
  const others = game.legal.filter((c) => !PLACING[state.kind].has(c.type) && c.type !== "Resign");
  const swaps = others.filter((c) => c.type === "SwapTiles");
  const prompts = others.filter((c) => c.type !== "SwapTiles");
  if (prompts.length) {
    const only = prompts.length === 1 && prompts[0].type === "Decline" && state.pending.decision === "point"
      ? h("p", { "data-why-decline": "" }, t("You hold no {colour} card to put on your victory pile: you can only decline.", { colour: colourWord(state.pending.colour) }))
      : null;
    section.append(h("div", { class: "prompt", role: "group", "aria-label": t("Decide"), "data-prompt": state.pending.decision },
      h("h2", {}, t("Decide")), only, prompts.map((c) => h("button", { type: "button", "data-command": JSON.stringify(c), onclick: () => send(c) }, commandLabel(c)))));
  }
  if (swaps.length) {
    section.append(h("details", { "data-swaps": swaps.length }, h("summary", {}, t("Swap tiles with the bag…")),
      swaps.map((c) => h("button", { type: "button", "data-command": JSON.stringify(c), onclick: () => send(c) }, commandLabel(c)))));
  }
  if (game.token && game.seat !== null && !state.over) {
    section.append(h("p", { class: "resign" }, h("button", { type: "button", "data-action": "resign", onclick: resign }, t("Resign…"))));
  }
  return section;
}

// Resigning (the games' `Resign` command: the seat ranks last; see DECISIONS.md) after a
// confirmation; a player key names its seat (it may hold more than one of the game).
async function resign() {
  if (!window.confirm(t("Resign this game? Your seat ranks last, and this cannot be undone."))) return;
  const byPlayer = game.token === storedPlayer()?.key;
  await send(byPlayer ? { type: "Resign", seat: game.seat } : { type: "Resign" });
}

// A rematch of the finished game (POST /games/{id}/rematch): the first asker makes it (the
// same kind, options and players), later ones get that same game; the page goes there,
// holding the new seat's token, or the player key for a seat bound to the player.
async function rematch() {
  try {
    const { body } = await call("POST", `/games/${game.id}/rematch?seat=${game.seat}`, { token: game.token });
    const next = body.game.game_id;
    if (body.seat?.token) holdSeat(next, body.seat.seat, body.seat.token);
    const me = storedPlayer();
    if (me && game.token === me.key) holdSeat(next, game.seat, me.key);
    location.assign(`/play/?game=${next}`);
  } catch (error) {
    sayProblem(error);
  }
}

function counts(value, hiddenText = t("hidden")) {
  if (value === null || value === undefined) return h("span", { class: "hidden-value", "data-hidden": "true" }, hiddenText);
  return h("span", { class: "counts" }, COLOUR_NAMES.map((colour) => h("span", { "data-colour": colour, "data-count": value[colour],
    title: colourWord(colour) }, swatch(colour), h("span", { class: "visually-hidden" }, `${colourWord(colour)}: `), `${value[colour]} `)));
}

function botLabel(seat) {
  const bot = game.info.seats.find((s) => s.seat === seat)?.bot;
  return bot ? h("em", { "data-bot": bot.bot }, ` ${t(BOTS[bot.bot] ?? bot.bot)}, ${bot.think_ms} ms`) : null;
}

// Your points: the four colours and the treasures (board game), your victory piles (card
// game); the weakest colour counts, so it is marked.
function pointsSection(state) {
  const me = state.seats.find((s) => s.seat === game.seat);
  if (!me) return null;
  const parts = [h("h2", {}, t("Your points"))];
  if (me.points) {
    const weakest = Math.min(...COLOUR_NAMES.map((c) => me.points[c]));
    parts.push(h("ul", { class: "points", "data-my-points": JSON.stringify(me.points) }, COLOUR_NAMES.map((colour) =>
      h("li", { "data-colour": colour, "data-count": me.points[colour], class: me.points[colour] === weakest ? "weakest" : "" },
        pieceIcon(state.kind, `tile:${colour}`), h("span", {}, colourWord(colour)), h("strong", {}, me.points[colour])))));
  }
  if (me.treasures !== null && me.treasures !== undefined) {
    parts.push(h("p", { "data-my-treasures": me.treasures }, t("Treasures: {n} (each counts as a point of any colour at the end)", { n: me.treasures })));
  }
  if (state.kind === "cards") {
    parts.push(h("p", { "data-my-vp": me.vp_count }, t("Your victory pile: {n} cards", { n: me.vp_count ?? 0 }),
      me.vp_order ? h("span", {}, ` (${me.vp_order.map(colourWord).join(", ")})`) : null));
  }
  if (parts.length === 1) parts.push(h("p", { class: "hidden-value" }, t("hidden")));
  return h("section", { "data-section": "points" }, parts);
}

function seatsSection(state) {
  return h("section", { "data-section": "seats" }, h("h2", {}, t("Players")), h("div", { class: "scroll-x", tabindex: 0, role: "region", "aria-label": t("Players") }, h("table", {},
    h("thead", {}, h("tr", {}, h("th", {}, t("Player")), h("th", {}, t("Hand")), h("th", {}, t("Points")), h("th", {}, t("Treasures")), h("th", {}, t("Leaders")))),
    h("tbody", {}, state.seats.map((seat) => h("tr", { "data-seat-row": seat.seat },
      h("td", {}, `${seat.name} `, pieceIcon(state.kind, `leader:black`, seat.dynasty), botLabel(seat.seat),
        state.pending.awaiting.includes(seat.seat) && !state.over ? h("strong", { "data-to-move": "" }, ` (${t("to move")})`) : null),
      h("td", { "data-hand": seat.hand ? "shown" : "hidden" }, seat.hand ? counts(seat.hand)
        : t(state.kind === "board" ? "{n} tiles (hidden)" : "{n} cards (hidden)", { n: seat.hand_size }),
        h("div", {}, t("{n} catastrophe(s)", { n: seat.catastrophes }))),
      h("td", { "data-points": seat.points ? "shown" : "hidden" }, counts(seat.points),
        state.kind === "cards" ? h("div", { "data-vp-count": seat.vp_count }, t("Victory pile: {n}", { n: seat.vp_count ?? 0 })) : null),
      h("td", {}, seat.treasures === null ? h("span", { class: "hidden-value" }, t("hidden")) : seat.treasures),
      h("td", {}, seat.supply.map((colour) => h("span", { title: colourWord(colour) }, swatch(colour), h("span", { class: "visually-hidden" }, colourWord(colour) + " "))))))))));
}

// The final screen: every seat's colours and the ranking by the weakest-colour rule (the
// API's result: a seat's score is its colours from the weakest up; the first that differs
// decides).
function resultSection(state) {
  if (!state.result) return null;
  const result = state.result;
  return h("section", { class: "result final-screen", "data-section": "result", "data-reason": result.reason, "aria-labelledby": "final-title" },
    h("h2", { id: "final-title" }, t("The game is over")),
    h("p", {}, t("Ranked by the weakest colour: each player's lowest colour (treasures added where they help most); a tie goes to the next lowest.")),
    h("div", { class: "scroll-x", tabindex: 0, role: "region", "aria-label": t("Score, weakest first") }, h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, t("Place")), h("th", {}, t("Player")), h("th", {}, t("Score, weakest first")), h("th", {}, t("Colours")))),
      h("tbody", {}, [...result.seats].sort((a, b) => a.place - b.place).map((seat) => h("tr", { "data-result-seat": seat.seat,
        "data-place": seat.place, "data-winner": seat.winner, "data-score": JSON.stringify(seat.score) },
      h("td", {}, seat.place, seat.winner ? h("strong", {}, " ", t("winner")) : null), h("td", {}, seat.name),
      h("td", {}, Array.isArray(seat.score) ? seat.score.join(" / ") : JSON.stringify(seat.score)), h("td", {}, counts(seat.totals))))))),
    h("p", { class: "reason" }, t("Why it ended: {reason}", { reason: result.reason })),
    game.token && game.seat !== null && !game.replay
      ? h("p", {}, h("button", { type: "button", "data-action": "rematch", onclick: rematch }, t("Rematch"))) : null);
}

// What just happened, told: the conflicts (both sides' strengths, the winner, removals,
// points), monuments, treasures, refills, ships, points and the end, in the API's words in
// the chosen language. The list is kept between renders (an aria-live log: a screen reader
// reads each new entry once).
const TOLD = /\.(ConflictResolved|MonumentBuilt|TreasuresTaken|TreasureSwapped|ShipBuilt|PointScored|GameEnded|WarChosen|CatastrophePlaced|CatastrophePlayed|LeaderWithdrawn|TilesSwapped|TurnEnded|TilesDrawn|CardsDrawn)$/;

function newsSection() {
  if (!game.news || game.news.dataset.token !== String(game.eventsToken)) {
    game.news = h("div", { class: "news", "data-news": "", role: "log", tabindex: 0, "aria-live": "polite", "aria-label": t("What happened"),
      "data-token": String(game.eventsToken) });
    game.newsSeen = 0;
  }
  const fresh = game.events.slice(game.newsSeen);
  game.newsSeen = game.events.length;
  game.news.append(...fresh.filter((e) => TOLD.test(e.type)).map((e) => {
    const conflict = e.type.endsWith("ConflictResolved") && e.data ? e.data : null;
    return h("p", { class: `told ${conflict ? "conflict" : ""}`, "data-announce": e.type.split(".")[1], "data-event-version": e.version,
      "data-winner": conflict?.winner, "data-strengths": conflict ? `${conflict.attacker_strength}:${conflict.defender_strength}` : null },
    conflict ? h("strong", {}, `${t(conflict.kind === "revolt" ? "Revolt" : "War")}: ` +
      `${seatName(game.view.state, conflict.attacker)} ${conflict.attacker_strength} – ${conflict.defender_strength} ${seatName(game.view.state, conflict.defender)}. `) : null,
    h("span", { "data-told": "" }, e.description ?? e.type));
  }));
  return h("section", { "data-section": "news" }, h("h2", {}, t("What happened")), game.news);
}

function replaySection() {
  const current = game.view.version;
  const at = game.replay?.version ?? current;
  const slider = h("input", { type: "range", min: 1, max: current, value: at, "data-replay-slider": "", "aria-label": t("Version") });
  const number = h("input", { type: "number", min: 1, max: current, value: at, "data-replay-input": "", "aria-label": t("Version number"), style: "width:6em" });
  slider.addEventListener("input", () => { number.value = slider.value; });
  slider.addEventListener("change", () => showVersion(Number(slider.value)));
  return h("section", { "data-section": "replay" }, h("h2", {}, t("Replay")), slider, " ", number,
    h("button", { type: "button", "data-action": "replay", onclick: () => showVersion(Number(number.value)) }, t("Show version")),
    game.replay ? h("button", { type: "button", "data-action": "live", onclick: () => { game.replay = null; render(); } }, t("Back to live")) : null);
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
  return h("section", { "data-section": "undo" }, h("h2", {}, t("Undo")),
    h("button", { type: "button", "data-action": "request-undo", onclick: openUndoRequest }, t("Ask to undo…")),
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

// The page's fixed words (index.html's dialogs), in the chosen language.
function translateStatic() {
  for (const node of document.querySelectorAll("dialog h2, dialog button, dialog label")) {
    const first = [...node.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (first) first.textContent = first.textContent.replace(first.textContent.trim(), t(first.textContent.trim())) ;
  }
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
      say(t("Undo requested."));
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
      say(approve ? t("Undo approved.") : t("Undo rejected."));
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
// only those after the last one read. Another seat's token sees other redactions, and the
// end of the game shows what was secret (others' points): read again then.
async function loadEvents() {
  const key = `${game.token}|${Boolean(game.view?.over)}`;
  if (game.eventsToken !== key) {
    game.events = [];
    game.eventsToken = key;
  }
  let after = game.events.length ? game.events[game.events.length - 1].version : 0;
  while (after !== null) {
    const { body } = await call("GET", `/games/${game.id}/events?after=${after}&limit=500`, { token: game.token });
    game.events.push(...body.items.map(({ version, type, actor, seat, recorded_at, description, command_id, data }) =>
      ({ version, type, actor, seat, recorded_at, description, command_id, data })));
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
    game.log = h("ol", { class: "move-log", "data-move-log": "", "aria-label": t("Moves"), "data-token": String(game.eventsToken) });
  }
  const log = game.log;
  log.append(...game.events.slice(log.childElementCount).map((e) => h("li", {},
    h("button", { type: "button", class: "move", "data-event-version": e.version, "data-actor": e.actor, "data-type": e.type,
      onclick: () => explain(e.version), title: `${e.type} (${e.actor})` },
    // The server's words for the move, in the browser's language (Accept-Language).
    h("span", { class: "move-version" }, `v${e.version}`), " ",
    h("span", { class: "move-description", "data-description": "" }, e.description ?? e.type)))));
  return h("section", { "data-section": "moves" }, h("h2", {}, t("Moves")),
    h("p", {}, t("Choose a move to see the rules that decided it.")), log);
}

async function explain(version) {
  const dialog = document.getElementById("explanation-dialog");
  const body = dialog.querySelector("[data-explanation-body]");
  dialog.dataset.version = version;
  dialog.querySelector("[data-explanation-title]").textContent = `Version ${version} explained`;
  body.replaceChildren(h("p", {}, t("Loading…")));
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
      h("dt", {}, t("Command")), h("dd", {}, command),
      h("dt", {}, t("Sent by")), h("dd", { "data-explained-actor": x.actor }, sender === x.actor ? x.actor : `${sender} [${x.actor}]`),
      h("dt", {}, t("When")), h("dd", { "data-explained-when": x.recorded_at ?? "" }, when
        ? h("time", { datetime: x.recorded_at }, when.toLocaleString()) : h("span", { class: "hidden-value" }, "not recorded"))),
    h("h3", {}, t("Rules applied")),
  ];
  if (x.rules === null) parts.push(h("p", { class: "hidden-value", "data-rules": "not-recorded" }, "Not recorded for this event."));
  else if (!x.rules.length) parts.push(h("p", { "data-rules": "none" }, "No rule named for this event."));
  else {
    parts.push(h("ol", { "data-rules": x.rules.map((r) => r.id).join(",") }, x.rules.map((r) => h("li", {},
      h("a", { href: r.url, "data-rule-link": r.id }, r.id),
      r.description ? h("span", { "data-rule-sentence": r.id }, ` ${r.description}`) : null))));
  }
  parts.push(h("h3", {}, t("Alternatives")));
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

// The language switch in the header: the choice is kept in this browser and the page read
// again in it (the client's words and the API's).
function languageSwitch() {
  const select = h("select", { "data-field": "language", "aria-label": "Language / Sprache / Nyelv / Lingua" },
    Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, selected: code === language, lang: code }, name)));
  select.addEventListener("change", () => { setLanguage(select.value); location.reload(); });
  document.querySelector("header").append(select);
}

await loadWords();
languageSwitch();
translateStatic();
setUpDialogs();
const gameId = new URLSearchParams(location.search).get("game");
const invitation = new URLSearchParams(location.search).get("invitation");
if (gameId && /^[0-9a-f]{32}$/.test(gameId)) gamePage(gameId);
else if (invitation) redeem(invitation);
else lobby();
