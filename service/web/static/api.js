// The service's HTTP API as the page uses it: JSON in and out, problem bodies as errors,
// the seat token (from this browser's storage, never from a URL) in the Authorization header,
// the chosen language in Accept-Language (the API's descriptions and rule sentences follow it).

import { language } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

const STORE = "tigris.seats.";

// The seats this browser holds in a game: {seat: token}.
export function heldSeats(gameId) {
  try {
    return JSON.parse(localStorage.getItem(STORE + gameId) || "{}");
  } catch {
    return {};
  }
}

export function holdSeat(gameId, seat, token) {
  localStorage.setItem(STORE + gameId, JSON.stringify({ ...heldSeats(gameId), [seat]: token }));
}

export function heldGames() {
  const games = [];
  for (let i = 0; i < localStorage.length; i++) {
    const name = localStorage.key(i);
    if (name.startsWith(STORE)) games.push(name.slice(STORE.length));
  }
  return games.sort();
}

// This browser's player (POST /players): one key for every seat it creates or claims, made
// once and kept in localStorage ({player_id, key}); null when the server makes no players for
// anyone (signup by the admin only) or none was made yet.
const PLAYER = "tigris.player";

export function storedPlayer() {
  try {
    const found = JSON.parse(localStorage.getItem(PLAYER) || "null");
    return found && typeof found.key === "string" && typeof found.player_id === "string" ? found : null;
  } catch {
    return null;
  }
}

export function keepPlayer(player) {
  if (player) localStorage.setItem(PLAYER, JSON.stringify({ player_id: player.player_id, key: player.key }));
  else localStorage.removeItem(PLAYER);
}

export function newKey() {
  return crypto.randomUUID();
}

// `cache`: the fetch's cache mode; "no-store" (the default) for what may change, "default" for a
// public resource that never does (a game's map).
export async function call(method, path, { token = null, body = undefined, headers = {}, cache = "no-store" } = {}) {
  const sent = { Accept: "application/json", "Accept-Language": language, ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers: sent, cache,
    body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 304) return { status: 304, body: null, etag: response.headers.get("ETag") };
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : null;
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, body: data, etag: response.headers.get("ETag") };
}
