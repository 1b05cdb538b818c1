// Pictures of a game's structured state: the board game's map and the card game's display,
// as SVG. Every drawn piece carries data attributes (what it is and where), and every
// square or slot a selected piece may go to is a clickable target (data-target). What never
// changes in a game (the board's size, rivers and temples, the display's columns and
// bridges) comes from the API's map of the game (GET /games/{id}/map), never from a copy here.

const SVG = "http://www.w3.org/2000/svg";
export const COLOURS = { black: "#2b2b2b", red: "#c0392b", blue: "#2f6fd0", green: "#2e9e4a" };
const GOLD = "#e8b923";

const CELL = 44;
const MARGIN = 22;
const DYNASTY_MARK = {
  archer: "A", bull: "B", pot: "P", lion: "L", vase: "V",
};

function el(name, attrs = {}, parent = null) {
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

function tileGlyph(group, colour, x, y, size) {
  // A small emblem per tile colour: a stepped temple, a field, a market stall, a house.
  const c = x + size / 2, m = y + size / 2, s = size / 4;
  const stroke = { fill: "none", stroke: "#fff", "stroke-width": 2, "stroke-linejoin": "round" };
  if (colour === "red") {
    el("path", { d: `M${c - s * 1.4} ${m + s} h${s * 2.8} M${c - s} ${m + s} v${-s * 0.8} h${s * 2} v${s * 0.8} M${c - s * 0.5} ${m + s * 0.2} v${-s * 0.9} h${s} v${s * 0.9}`, ...stroke }, group);
  } else if (colour === "blue") {
    for (const dy of [-s * 0.6, s * 0.2, s]) {
      el("path", { d: `M${c - s * 1.3} ${m + dy} q${s * 0.65} ${-s * 0.6} ${s * 1.3} 0 t${s * 1.3} 0`, ...stroke }, group);
    }
  } else if (colour === "green") {
    el("path", { d: `M${c - s * 1.3} ${m - s * 0.3} l${s * 0.4} ${-s * 0.9} h${s * 1.8} l${s * 0.4} ${s * 0.9} z M${c - s} ${m - s * 0.3} v${s * 1.4} M${c + s} ${m - s * 0.3} v${s * 1.4}`, ...stroke }, group);
  } else {
    el("path", { d: `M${c - s} ${m + s} v${-s * 1.2} l${s} ${-s * 0.9} l${s} ${s * 0.9} v${s * 1.2} z`, ...stroke }, group);
  }
}

function leaderShape(group, seatDynasty, colour, x, y, size, attrs) {
  const c = x + size / 2, m = y + size / 2, r = size * 0.36;
  const node = el("g", attrs, group);
  el("path", { d: `M${c - r} ${m - r} h${2 * r} v${r} q0 ${r} ${-r} ${r * 1.2} q${-r} ${-r * 0.2} ${-r} ${-r * 1.2} z`,
    fill: COLOURS[colour], stroke: "#fff", "stroke-width": 2.5 }, node);
  text(node, c, m - r * 0.1, DYNASTY_MARK[seatDynasty] ?? "?", { fill: "#fff", "font-size": size * 0.38, "font-weight": "bold" });
  return node;
}

const key = (at) => `${at[0]},${at[1]}`;

// The board game: the map's squares (river or land, the starting temples marked), tiles
// (face down ones grey), temples' treasures (the border temples' special ones ringed),
// leaders marked by dynasty, catastrophes, monuments over their 2x2 squares, the unification
// marker, and the clickable targets of the selected piece. `map` is the game's BoardMap.
export function drawBoard(state, map, targets, onTarget) {
  const width = MARGIN + map.columns * CELL + 4, height = MARGIN + map.rows * CELL + 4;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": "The board", "data-picture": "board" });
  const pos = (r, c) => [MARGIN + c * CELL, MARGIN + r * CELL];
  const rivers = new Set(map.rivers.map(key)), temples = new Set(map.temples.map(key));
  const border = new Set(map.border_treasures.map(key));
  for (let c = 0; c < map.columns; c++) text(svg, MARGIN + c * CELL + CELL / 2, MARGIN / 2, c, { "font-size": 11, fill: "#666" });
  for (let r = 0; r < map.rows; r++) {
    text(svg, MARGIN / 2, MARGIN + r * CELL + CELL / 2, r, { "font-size": 11, fill: "#666" });
    for (let c = 0; c < map.columns; c++) {
      const [x, y] = pos(r, c);
      const river = rivers.has(key([r, c]));
      const square = el("rect", { x, y, width: CELL, height: CELL, fill: river ? "#9cc9ec" : "#efe3c2",
        stroke: river ? "#7fb3dc" : "#d9c99c", "data-square": key([r, c]),
        "data-terrain": river ? "river" : "land" }, svg);
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
  }
  for (const at of state.catastrophes) {
    const [x, y] = pos(...at);
    const g = el("g", { "data-catastrophe": key(at) }, tiles);
    el("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 4, fill: "#555", stroke: "#000" }, g);
    el("path", { d: `M${x + 10} ${y + 10} L${x + CELL - 10} ${y + CELL - 10} M${x + CELL - 10} ${y + 10} L${x + 10} ${y + CELL - 10}`,
      stroke: "#ff6b4a", "stroke-width": 4, "stroke-linecap": "round" }, g);
  }
  for (const at of state.treasures) {
    const [x, y] = pos(...at);
    const special = border.has(key(at));
    el("path", { d: `M${x + CELL - 11} ${y + 4} l7 7 l-7 7 l-7 -7 z`, fill: GOLD,
      stroke: special ? "#b0005a" : "#7a5a00", "stroke-width": special ? 2.5 : 1,
      "data-treasure": key(at), "data-special": special }, tiles);
  }
  for (const monument of state.monuments) {
    const [x, y] = pos(...monument.at);
    const [a, b] = monument.monument.split("-");
    const g = el("g", { "data-monument": monument.monument, "data-at": key(monument.at) }, svg);
    const s = CELL * 2, inset = 12;
    el("rect", { x: x + inset - 4, y: y + inset - 4, width: s - 2 * inset + 8, height: s - 2 * inset + 8, rx: 6, fill: "#fff", stroke: "#333", "stroke-width": 2 }, g);
    el("path", { d: `M${x + inset} ${y + inset} h${s - 2 * inset} L${x + inset} ${y + s - inset} z`, fill: COLOURS[a] }, g);
    el("path", { d: `M${x + s - inset} ${y + inset} v${s - 2 * inset} h${-(s - 2 * inset)} z`, fill: COLOURS[b] }, g);
  }
  for (const leader of state.leaders) {
    const [x, y] = pos(...leader.at);
    leaderShape(svg, seatsDynasty[leader.seat], leader.colour, x, y, CELL,
      { "data-leader": leader.colour, "data-seat": leader.seat, "data-at": key(leader.at) });
  }
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
    const rect = el("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, fill: "#ffe066",
      "fill-opacity": 0.45, stroke: "#c9a400", "stroke-width": 2, "data-target": key(at),
      role: "button", "aria-label": `Square ${at[0]}, ${at[1]}` }, svg);
    rect.addEventListener("click", () => onTarget(command));
  }
  return svg;
}

const CARD_W = 84, CARD_H = 56, STEP = 40, COL_GAP = 112, TOP = 96;

function drawCard(parent, card, x, y, attrs) {
  const g = el("g", attrs, parent);
  let fill = COLOURS[card] ?? "#ddd";
  if (card === "treasure") fill = GOLD;
  if (card === "face-down") fill = "#9a9a9a";
  if (card.startsWith("ship-")) fill = "#d8eefc";
  el("rect", { x, y, width: CARD_W, height: CARD_H, rx: 6, fill, stroke: "#0008", "stroke-width": 1.5 }, g);
  if (COLOURS[card]) tileGlyph(g, card, x + CARD_W / 2 - 16, y + 4, 32);
  else if (card === "treasure") el("path", { d: `M${x + CARD_W / 2} ${y + 8} l12 12 l-12 12 l-12 -12 z`, fill: "#fff6", stroke: "#7a5a00" }, g);
  else if (card.startsWith("ship-")) {
    const colour = card.slice(5);
    el("path", { d: `M${x + 18} ${y + 26} h48 l-8 12 h-32 z`, fill: COLOURS[colour], stroke: "#333" }, g);
    el("path", { d: `M${x + 42} ${y + 6} v20 l14 -6 z`, fill: COLOURS.blue }, g);
  }
  return g;
}

// The card game's display: the map's columns from their treasure down, its bridge slots
// between two columns each, leaders on their cards, and the clickable targets (a card's
// slot, a column's end, a bridge) of the selected card or leader. `map` is the game's
// CardsMap.
export function drawCards(state, map, targets, onTarget) {
  const columns = state.display.columns, bridges = state.display.bridges;
  const longest = Math.max(...columns.map((c) => c.length), 1);
  const width = 24 + map.columns * COL_GAP, height = TOP + (longest + 1) * STEP + CARD_H + 20;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": "The card display", "data-picture": "cards" });
  el("rect", { x: 0, y: 0, width, height, fill: "#f3ead2" }, svg);
  const seatsDynasty = Object.fromEntries(state.seats.map((s) => [s.seat, s.dynasty]));
  const colX = (c) => 14 + c * COL_GAP;
  const slots = new Map();
  columns.forEach((column, c) => {
    text(svg, colX(c) + CARD_W / 2, TOP - 12, `column ${c}`, { "font-size": 11, fill: "#666", "data-column-label": c });
    column.forEach((cell, depth) => {
      const y = TOP + depth * STEP;
      drawCard(svg, cell.card, colX(c), y, { "data-card": cell.card, "data-column": c, "data-depth": depth });
      if (cell.leader) leaderShape(svg, seatsDynasty[cell.leader.seat], cell.leader.colour, colX(c) + CARD_W - 34, y - 4, 36,
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
      if (cell.leader) leaderShape(svg, seatsDynasty[cell.leader.seat], cell.leader.colour, x + CARD_W - 34, y - 4, 36,
        { "data-leader": cell.leader.colour, "data-seat": cell.leader.seat, "data-bridge": b });
    } else {
      el("rect", { x, y, width: CARD_W, height: CARD_H, rx: 6, fill: "none", stroke: "#b9a87a", "stroke-dasharray": "4 3",
        "data-bridge-slot": b, "data-between": map.bridges[b].columns.join(",") }, svg);
      text(svg, x + CARD_W / 2, y + CARD_H / 2, `bridge ${b}`, { "font-size": 10, fill: "#998" });
    }
    slots.set(`b${b}`, [x, y]);
  });
  for (const [slot, command] of targets) {
    const [x, y] = slots.get(slot) ?? [0, 0];
    const rect = el("rect", { x: x - 3, y: y - 3, width: CARD_W + 6, height: (slot.endsWith(":end") || slot.startsWith("b")) ? CARD_H + 6 : STEP,
      rx: 6, fill: "#ffe066", "fill-opacity": 0.5, stroke: "#c9a400", "stroke-width": 2,
      "data-target": slot, role: "button", "aria-label": `Slot ${slot}` }, svg);
    rect.addEventListener("click", () => onTarget(command));
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
