// Pictures of a game's structured state: the board game's map and the card game's display,
// as SVG drawn here (our own art: no image is copied or fetched). Every drawn piece carries
// data attributes (what it is and where), every tile and card a symbol of its colour
// (data-symbol: colour is never the only cue), and every square or slot a selected piece
// may go to is a target (data-target) to click, or to reach with Tab / the arrow keys and
// choose with Enter or Space. What never changes in a game (the board's size, rivers and
// temples, the display's columns and bridges) comes from the API's map of the game
// (GET /games/{id}/map), never from a copy here.

const SVG = "http://www.w3.org/2000/svg";
export const COLOURS = { black: "#2b2b2b", red: "#c0392b", blue: "#2f6fd0", green: "#2e8540" };
// What each colour's tile (board) or card (card game) stands for: its symbol's name.
export const SYMBOLS = { black: "settlement", red: "temple", blue: "farm", green: "market" };
const GOLD = "#e8b923";

const CELL = 44;
const MARGIN = 22;

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, attrs = {}) {
  const node = el("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central",
    "font-family": "sans-serif", ...attrs }, parent);
  node.textContent = content;
  return node;
}

// A tile's or card's emblem in a square of `size` at (x, y): a house for a settlement
// (black), a stepped temple (red), a field of furrows and a sheaf (blue, a farm), a market
// stall (green). White strokes over the colour, with a dark under-stroke so the symbol
// also reads on a light ground.
export function tileGlyph(group, colour, x, y, size, ink = "#fff") {
  const c = x + size / 2, m = y + size / 2, s = size / 4;
  const g = el("g", { "data-symbol": SYMBOLS[colour] ?? colour, "aria-hidden": "true" }, group);
  const stroke = { fill: "none", stroke: ink, "stroke-width": Math.max(1.5, size / 16), "stroke-linejoin": "round", "stroke-linecap": "round" };
  let d;
  if (colour === "red") {
    d = `M${c - s * 1.5} ${m + s * 1.1} h${s * 3} M${c - s * 1.1} ${m + s * 1.1} v${-s * 0.7} h${s * 2.2} v${s * 0.7} ` +
      `M${c - s * 0.7} ${m + s * 0.4} v${-s * 0.7} h${s * 1.4} v${s * 0.7} M${c - s * 0.3} ${m - s * 0.3} v${-s * 0.7} h${s * 0.6} v${s * 0.7}`;
  } else if (colour === "blue") {
    d = `M${c - s * 1.4} ${m + s * 1.1} h${s * 2.8} M${c - s * 1.4} ${m + s * 0.5} h${s * 2.8} ` +
      `M${c} ${m + s * 0.2} v${-s * 1.3} M${c} ${m - s * 0.5} l${-s * 0.5} ${-s * 0.5} M${c} ${m - s * 0.5} l${s * 0.5} ${-s * 0.5} M${c} ${m - s * 0.1} l${-s * 0.5} ${-s * 0.5} M${c} ${m - s * 0.1} l${s * 0.5} ${-s * 0.5}`;
  } else if (colour === "green") {
    d = `M${c - s * 1.4} ${m - s * 0.3} l${s * 0.4} ${-s * 0.9} h${s * 2} l${s * 0.4} ${s * 0.9} z ` +
      `M${c - s * 1.1} ${m - s * 0.3} v${s * 1.4} M${c + s * 1.1} ${m - s * 0.3} v${s * 1.4} M${c - s * 0.6} ${m + s * 0.5} h${s * 1.2}`;
  } else {
    d = `M${c - s} ${m + s * 1.1} v${-s * 1.2} l${s} ${-s * 0.9} l${s} ${s * 0.9} v${s * 1.2} z M${c - s * 0.3} ${m + s * 1.1} v${-s * 0.7} h${s * 0.6} v${s * 0.7}`;
  }
  el("path", { d, ...stroke, stroke: "#0008", "stroke-width": Number(stroke["stroke-width"]) + 1.5 }, g);
  el("path", { d, ...stroke }, g);
  return g;
}

// A dynasty's emblem (bow, bull, pot, lion, vase) in white, centred at (c, m), `r` its half size.
function dynastyGlyph(group, dynasty, c, m, r) {
  const w = { fill: "none", stroke: "#fff", "stroke-width": Math.max(1.5, r / 5), "stroke-linecap": "round", "stroke-linejoin": "round" };
  const g = el("g", { "data-dynasty": dynasty ?? "", "aria-hidden": "true" }, group);
  switch (dynasty) {
    case "archer": // a bow and its arrow
      el("path", { d: `M${c - r * 0.3} ${m - r} q${r * 1.3} ${r} 0 ${2 * r} M${c - r * 0.3} ${m - r} v${2 * r} M${c - r} ${m} h${r * 1.6} m${-r * 0.4} ${-r * 0.3} l${r * 0.4} ${r * 0.3} l${-r * 0.4} ${r * 0.3}`, ...w }, g);
      break;
    case "bull": // a head with two horns
      el("circle", { cx: c, cy: m + r * 0.25, r: r * 0.55, ...w }, g);
      el("path", { d: `M${c - r * 0.5} ${m - r * 0.05} q${-r * 0.6} ${-r * 0.3} ${-r * 0.4} ${-r * 0.95} M${c + r * 0.5} ${m - r * 0.05} q${r * 0.6} ${-r * 0.3} ${r * 0.4} ${-r * 0.95}`, ...w }, g);
      break;
    case "pot": // a round pot with a rim
      el("path", { d: `M${c - r * 0.45} ${m - r * 0.8} h${r * 0.9} M${c - r * 0.3} ${m - r * 0.8} q${-r * 0.9} ${r * 0.5} ${-r * 0.5} ${r * 1.3} h${r * 1.6} q${r * 0.4} ${-r * 0.8} ${-r * 0.5} ${-r * 1.3}`, ...w }, g);
      break;
    case "lion": { // a face in a mane
      el("circle", { cx: c, cy: m, r: r * 0.45, ...w }, g);
      const spikes = [];
      for (let i = 0; i < 8; i++) {
        const a = (i * Math.PI) / 4;
        spikes.push(`M${c + Math.cos(a) * r * 0.62} ${m + Math.sin(a) * r * 0.62} L${c + Math.cos(a) * r * 0.95} ${m + Math.sin(a) * r * 0.95}`);
      }
      el("path", { d: spikes.join(" "), ...w }, g);
      break;
    }
    case "vase": // a tall amphora with handles
      el("path", { d: `M${c - r * 0.25} ${m - r} h${r * 0.5} M${c - r * 0.2} ${m - r} q${-r * 0.1} ${r * 0.4} ${-r * 0.45} ${r * 0.8} q${-r * 0.2} ${r * 0.6} ${r * 0.2} ${r * 1.1} h${r * 0.9} q${r * 0.4} ${-r * 0.5} ${r * 0.2} ${-r * 1.1} q${-r * 0.35} ${-r * 0.4} ${-r * 0.45} ${-r * 0.8} M${c - r * 0.35} ${m - r * 0.4} q${-r * 0.6} ${0} ${-r * 0.45} ${r * 0.5} M${c + r * 0.35} ${m - r * 0.4} q${r * 0.6} 0 ${r * 0.45} ${r * 0.5}`, ...w }, g);
      break;
    default:
      text(g, c, m, "?", { fill: "#fff", "font-size": r * 1.4, "font-weight": "bold" });
  }
  return g;
}

// A leader: a shield of its colour bearing its dynasty's emblem, on a pale halo with a dark
// rim (so a black leader stands out on a black tile or card, and any leader on any ground),
// with its colour's symbol in a small badge.
export function leaderShape(group, dynasty, colour, x, y, size, attrs) {
  const c = x + size / 2, m = y + size / 2, r = size * 0.34;
  const node = el("g", attrs, group);
  el("circle", { cx: c, cy: m, r: size * 0.47, fill: "#fffdf5", "fill-opacity": 0.92, stroke: "#222", "stroke-width": 1.5 }, node);
  el("path", { d: `M${c - r} ${m - r} h${2 * r} v${r} q0 ${r} ${-r} ${r * 1.25} q${-r} ${-r * 0.25} ${-r} ${-r * 1.25} z`,
    fill: COLOURS[colour], stroke: "#fff", "stroke-width": 1.5 }, node);
  dynastyGlyph(node, dynasty, c, m - r * 0.05, r * 0.62);
  const b = size * 0.17;
  el("circle", { cx: x + size - b * 1.05, cy: y + size - b * 1.05, r: b, fill: COLOURS[colour], stroke: "#fff", "stroke-width": 1 }, node);
  tileGlyph(node, colour, x + size - b * 2.05, y + size - b * 2.05, b * 2);
  return node;
}

const key = (at) => `${at[0]},${at[1]}`;

// Targets: keyboard-reachable buttons inside the picture; the arrow keys move between them.
function target(svg, attrs, label, command, onTarget) {
  const node = el("rect", { ...attrs, role: "button", tabindex: 0, "aria-label": label, class: "target" }, svg);
  node.addEventListener("click", () => onTarget(command));
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onTarget(command);
      return;
    }
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const all = [...svg.querySelectorAll("[data-target]")];
    const next = all[(all.indexOf(node) + step + all.length) % all.length];
    next?.focus();
  });
  return node;
}

// The squares or slots of the latest move of another seat: a ring, briefly pulsing (CSS,
// none when the reader prefers reduced motion).
function lastMoveMark(svg, x, y, w, hgt, where) {
  el("rect", { x: x + 1, y: y + 1, width: w - 2, height: hgt - 2, rx: 6, fill: "none", stroke: "#ff2d95",
    "stroke-width": 3.5, "stroke-dasharray": "7 3", class: "last-move", "data-last-move": where }, svg);
}

// The board game: the map's squares (river with its waves, or land; the starting temples
// marked), tiles with their symbols (face-down ones grey), temples' treasures (the border
// temples' special ones ringed and starred), leaders by dynasty, catastrophes, monuments
// over their 2x2 squares, the unification marker, the latest move of another seat
// (`options.last`: squares), and the targets of the selected piece. `map` is the game's
// BoardMap; `options.label(square)` names a target for a screen reader.
export function drawBoard(state, map, targets, onTarget, options = {}) {
  const width = MARGIN + map.columns * CELL + 4, height = MARGIN + map.rows * CELL + 4;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "group",
    "aria-label": options.title ?? "The board", "data-picture": "board", class: "board-svg" });
  const pos = (r, c) => [MARGIN + c * CELL, MARGIN + r * CELL];
  const rivers = new Set(map.rivers.map(key)), temples = new Set(map.temples.map(key));
  const border = new Set(map.border_treasures.map(key));
  for (let c = 0; c < map.columns; c++) text(svg, MARGIN + c * CELL + CELL / 2, MARGIN / 2, c, { "font-size": 11, fill: "#555", "aria-hidden": "true" });
  const ground = el("g", { "aria-hidden": "true" }, svg);
  for (let r = 0; r < map.rows; r++) {
    text(svg, MARGIN / 2, MARGIN + r * CELL + CELL / 2, r, { "font-size": 11, fill: "#555", "aria-hidden": "true" });
    for (let c = 0; c < map.columns; c++) {
      const [x, y] = pos(r, c);
      const river = rivers.has(key([r, c]));
      const square = el("rect", { x, y, width: CELL, height: CELL, fill: river ? "#9cc9ec" : "#efe3c2",
        stroke: river ? "#7fb3dc" : "#d9c99c", "data-square": key([r, c]),
        "data-terrain": river ? "river" : "land" }, ground);
      if (river) {
        el("path", { d: `M${x + 6} ${y + 16} q6 -5 12 0 t12 0 M${x + 12} ${y + 30} q6 -5 12 0 t12 0`, fill: "none",
          stroke: "#fff", "stroke-opacity": 0.7, "stroke-width": 1.5 }, ground);
      }
      if (temples.has(key([r, c]))) square.setAttribute("data-temple", border.has(key([r, c])) ? "border" : "inner");
    }
  }
  const seatsDynasty = Object.fromEntries(state.seats.map((s) => [s.seat, s.dynasty]));
  const tiles = el("g", { "data-layer": "tiles" }, svg);
  for (const tile of state.tiles) {
    const [x, y] = pos(...tile.at);
    const g = el("g", { "data-tile": tile.colour, "data-at": key(tile.at), "data-face-up": tile.face_up }, tiles);
    el("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 4,
      fill: tile.face_up ? COLOURS[tile.colour] : "#9a9a9a", stroke: "#0006" }, g);
    if (tile.face_up) tileGlyph(g, tile.colour, x + 3, y + 3, CELL - 6);
    else text(g, x + CELL / 2, y + CELL / 2, "?", { fill: "#fff", "font-size": 18, "font-weight": "bold", "data-symbol": "face-down" });
  }
  for (const at of state.catastrophes) {
    const [x, y] = pos(...at);
    const g = el("g", { "data-catastrophe": key(at) }, tiles);
    el("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 4, fill: "#4a4a4a", stroke: "#000" }, g);
    el("path", { d: `M${x + 12} ${y + 8} l8 12 l-5 2 l9 14 M${x + 30} ${y + 9} l-5 9 l6 3 l-4 10`, fill: "none",
      stroke: "#ff8a5c", "stroke-width": 3, "stroke-linecap": "round", "stroke-linejoin": "round", "data-symbol": "catastrophe" }, g);
  }
  for (const at of state.treasures) {
    const [x, y] = pos(...at);
    const special = border.has(key(at));
    const g = el("g", { "data-treasure": key(at), "data-special": special }, tiles);
    if (special) el("circle", { cx: x + CELL - 11, cy: y + 11, r: 10, fill: "#fff", stroke: "#b0005a", "stroke-width": 2.5 }, g);
    el("path", { d: `M${x + CELL - 11} ${y + 3} l8 8 l-8 8 l-8 -8 z`, fill: GOLD, stroke: "#7a5a00", "stroke-width": 1.2 }, g);
    if (special) text(g, x + CELL - 11, y + 11.5, "★", { "font-size": 9, fill: "#b0005a", "aria-hidden": "true" });
  }
  for (const monument of state.monuments) {
    const [x, y] = pos(...monument.at);
    const [a, b] = monument.monument.split("-");
    const g = el("g", { "data-monument": monument.monument, "data-at": key(monument.at) }, svg);
    const s = CELL * 2, i = 8, w = s - 2 * i;
    el("rect", { x: x + i - 3, y: y + i - 3, width: w + 6, height: w + 6, rx: 6, fill: "#fff", stroke: "#333", "stroke-width": 2 }, g);
    // A stepped tower: the lower steps of its first colour, the upper of its second.
    el("path", { d: `M${x + i} ${y + i + w} v${-w * 0.3} h${w * 0.1} v${-w * 0.25} h${w * 0.8} v${w * 0.25} h${w * 0.1} v${w * 0.3} z`, fill: COLOURS[a], stroke: "#fff" }, g);
    el("path", { d: `M${x + i + w * 0.2} ${y + i + w * 0.45} v${-w * 0.22} h${w * 0.12} v${-w * 0.2} h${w * 0.36} v${w * 0.2} h${w * 0.12} v${w * 0.22} z`, fill: COLOURS[b], stroke: "#fff" }, g);
    tileGlyph(g, a, x + i + w * 0.35, y + i + w * 0.6, w * 0.3);
    tileGlyph(g, b, x + i + w * 0.4, y + i + w * 0.1, w * 0.2);
  }
  for (const leader of state.leaders) {
    const [x, y] = pos(...leader.at);
    leaderShape(svg, seatsDynasty[leader.seat], leader.colour, x, y, CELL,
      { "data-leader": leader.colour, "data-seat": leader.seat, "data-at": key(leader.at) });
  }
  for (const at of options.last ?? []) lastMoveMark(svg, ...pos(...at), CELL, CELL, key(at));
  const conflict = state.pending.conflict;
  for (const [role, at] of conflict ? [["attacker", conflict.attacker_at], ["defender", conflict.defender_at]] : []) {
    const [x, y] = pos(...at);
    el("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, fill: "none", rx: 6,
      stroke: role === "attacker" ? "#ff3b00" : "#7a00ff", "stroke-width": 4, "data-conflict": role }, svg);
  }
  if (state.unification) {
    const [x, y] = pos(...state.unification);
    el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL / 2 - 1, fill: "none", stroke: "#ff00aa",
      "stroke-width": 4, "stroke-dasharray": "6 4", "data-unification": key(state.unification) }, svg);
  }
  for (const [square, command] of targets) {
    const at = square.split(",").map(Number);
    const [x, y] = pos(...at);
    target(svg, { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, fill: "#ffe066",
      "fill-opacity": 0.45, stroke: "#8a6d00", "stroke-width": 2.5, "data-target": key(at) },
    options.label ? options.label(key(at)) : `Square ${at[0]}, ${at[1]}`, command, onTarget);
  }
  return svg;
}

const CARD_W = 84, CARD_H = 56, STEP = 40, COL_GAP = 100, TOP = 96;

function drawCard(parent, card, x, y, attrs) {
  const g = el("g", attrs, parent);
  let fill = COLOURS[card] ?? "#ddd";
  if (card === "treasure") fill = GOLD;
  if (card === "face-down") fill = "#9a9a9a";
  if (card.startsWith("ship-")) fill = "#d8eefc";
  el("rect", { x, y, width: CARD_W, height: CARD_H, rx: 6, fill, stroke: "#0008", "stroke-width": 1.5 }, g);
  if (COLOURS[card]) {
    tileGlyph(g, card, x + 4, y + 2, 30);
    tileGlyph(g, card, x + CARD_W - 34, y + 2, 30);
  } else if (card === "treasure") {
    el("path", { d: `M${x + CARD_W / 2} ${y + 6} l13 13 l-13 13 l-13 -13 z`, fill: "#fff8", stroke: "#7a5a00", "stroke-width": 1.5, "data-symbol": "treasure" }, g);
  } else if (card.startsWith("ship-")) {
    // A boat of the served colour under a blue sail, and the colour's symbol on its hull.
    const colour = card.slice(5);
    const ship = el("g", { "data-symbol": `ship-${SYMBOLS[colour] ?? colour}` }, g);
    el("path", { d: `M${x + 12} ${y + 28} h60 l-10 14 h-40 z`, fill: COLOURS[colour], stroke: "#333" }, ship);
    el("path", { d: `M${x + 42} ${y + 4} v24 l18 -6 z`, fill: COLOURS.blue, stroke: "#fff" }, ship);
    tileGlyph(g, colour, x + 30, y + 28, 16);
  } else if (card === "face-down") {
    text(g, x + CARD_W / 2, y + 18, "?", { fill: "#fff", "font-size": 18, "font-weight": "bold", "data-symbol": "face-down" });
  }
  return g;
}

// The card game's display as the German rulebook lays it out: the map's columns side by
// side, each from its treasure card down; the bridge slots above, each between its two
// columns; ships where they were built in their column; leaders on their cards; the latest
// move of another seat (`options.last`: slots) and the targets (a card's slot, a column's
// end, a bridge) of the selected card or leader. `map` is the game's CardsMap.
export function drawCards(state, map, targets, onTarget, options = {}) {
  const columns = state.display.columns, bridges = state.display.bridges;
  const longest = Math.max(...columns.map((c) => c.length), 1);
  const width = 28 + (map.columns - 1) * COL_GAP + CARD_W, height = TOP + (longest + 1) * STEP + CARD_H + 20;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "group",
    "aria-label": options.title ?? "The card display", "data-picture": "cards", class: "cards-svg" });
  el("rect", { x: 0, y: 0, width, height, fill: "#f3ead2", "aria-hidden": "true" }, svg);
  const seatsDynasty = Object.fromEntries(state.seats.map((s) => [s.seat, s.dynasty]));
  const colX = (c) => 14 + c * COL_GAP;
  const slots = new Map();
  columns.forEach((column, c) => {
    text(svg, colX(c) + CARD_W / 2, TOP - 12, `${options.columnWord ?? "column"} ${c}`, { "font-size": 11, fill: "#555", "data-column-label": c });
    column.forEach((cell, depth) => {
      const y = TOP + depth * STEP;
      drawCard(svg, cell.card, colX(c), y, { "data-card": cell.card, "data-column": c, "data-depth": depth });
      if (cell.leader) leaderShape(svg, seatsDynasty[cell.leader.seat], cell.leader.colour, colX(c) + CARD_W - 38, y - 2, 38,
        { "data-leader": cell.leader.colour, "data-seat": cell.leader.seat, "data-column": c, "data-depth": depth });
      slots.set(`c${c}:${depth}`, [colX(c), y]);
    });
    slots.set(`c${c}:end`, [colX(c), TOP + column.length * STEP]);
  });
  bridges.forEach((cell, b) => {
    const [left, right] = map.bridges[b].columns;
    const x = (colX(left) + colX(right)) / 2, y = 14;
    if (cell) {
      drawCard(svg, cell.card, x, y, { "data-card": cell.card, "data-bridge": b });
      if (cell.leader) leaderShape(svg, seatsDynasty[cell.leader.seat], cell.leader.colour, x + CARD_W - 38, y - 2, 38,
        { "data-leader": cell.leader.colour, "data-seat": cell.leader.seat, "data-bridge": b });
    } else {
      el("rect", { x: x + 4, y, width: CARD_W - 8, height: CARD_H, rx: 6, fill: "none", stroke: "#9d8a55", "stroke-dasharray": "4 3",
        "data-bridge-slot": b, "data-between": map.bridges[b].columns.join(",") }, svg);
      text(svg, x + CARD_W / 2, y + CARD_H / 2, `${options.bridgeWord ?? "bridge"} ${b}`, { "font-size": 10, fill: "#6b5d33" });
    }
    slots.set(`b${b}`, [x, y]);
  });
  const spot = (slot) => {
    const [x, y] = slots.get(slot) ?? [0, 0];
    return [x, y, (slot.endsWith(":end") || slot.startsWith("b")) ? CARD_H : STEP];
  };
  for (const slot of options.last ?? []) {
    if (!slots.has(slot)) continue;
    const [x, y, hgt] = spot(slot);
    lastMoveMark(svg, x - 3, y - 3, CARD_W + 6, hgt + 6, slot);
  }
  for (const [slot, command] of targets) {
    const [x, y, hgt] = spot(slot);
    target(svg, { x: x - 3, y: y - 3, width: CARD_W + 6, height: hgt,
      rx: 6, fill: "#ffe066", "fill-opacity": 0.5, stroke: "#8a6d00", "stroke-width": 2.5, "data-target": slot },
    options.label ? options.label(slot) : `Slot ${slot}`, command, onTarget);
  }
  return svg;
}

// Where a placing command goes: a board square, or a card slot / column end / bridge.
export function targetOf(kind, command) {
  if (kind === "board") return key(command.at);
  if (command.bridge !== null && command.bridge !== undefined) return `b${command.bridge}`;
  if (command.type === "PlayCard") return `c${command.column}:end`;
  return `c${command.column}:${command.depth ?? 0}`;
}

// A piece of a hand or supply drawn small, for the rack: a tile or card of a colour, a
// leader, a catastrophe.
export function pieceIcon(kind, what, dynasty) {
  const svg = el("svg", { viewBox: "0 0 40 40", width: 36, height: 36, "aria-hidden": "true", class: "piece-icon" });
  const [type, colour] = what.split(":");
  if (type === "leader") leaderShape(svg, dynasty, colour, 0, 0, 40, {});
  else if (type === "catastrophe") {
    el("rect", { x: 2, y: 2, width: 36, height: 36, rx: 5, fill: "#4a4a4a" }, svg);
    el("path", { d: "M12 6 l7 11 l-5 2 l8 14 M28 7 l-5 8 l6 3 l-4 10", fill: "none", stroke: "#ff8a5c", "stroke-width": 3,
      "stroke-linecap": "round", "data-symbol": "catastrophe" }, svg);
  } else {
    el("rect", { x: 2, y: 2, width: 36, height: 36, rx: kind === "cards" ? 3 : 5, fill: COLOURS[colour], stroke: "#0006" }, svg);
    tileGlyph(svg, colour, 2, 2, 36);
  }
  return svg;
}
