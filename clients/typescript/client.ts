// A small typed client of the rules service, written against the types that
// openapi-typescript generates from openapi.yaml into ./api.d.ts (generated, not committed):
//   npx openapi-typescript ../../openapi.yaml -o api.d.ts && npx tsc --noEmit -p .
// Every body it sends and reads is a type of the contract; a command of the wrong shape
// does not compile.
import type { components } from "./api";

type Schemas = components["schemas"];
export type GameCreate = Schemas["GameCreate"];
export type GameCreated = Schemas["GameCreated"];
export type SeatClaimed = Schemas["SeatClaimed"];
export type Command = Schemas["Command"];
export type BoardCommand = Schemas["BoardCommand"];
export type CardsCommand = Schemas["CardsCommand"];
export type LegalCommands = Schemas["LegalCommands"];
export type CommandResult = Schemas["CommandResult"];
export type StateView = Schemas["StateView"];
export type Problem = Schemas["Problem"];

/** A refused request: its status and the service's problem body. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.title}: ${problem.detail ?? ""}`);
  }
}

/** A typed answer with its ETag (`"<version>-<viewer>"`, maybe `:<coding>`): any form is an If-Match. */
export interface Tagged<T> {
  body: T;
  etag: string;
}

export class TigrisClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  /** The same server, acting as the seat (or admin) whose token this is. */
  as(token: string): TigrisClient {
    return new TigrisClient(this.baseUrl, token);
  }

  createGame(body: GameCreate): Promise<GameCreated> {
    return this.call<GameCreated>("POST", "/games", 201, body).then((r) => r.body);
  }

  claimSeat(gameId: string, seat: number, name: string): Promise<SeatClaimed> {
    const claim: Schemas["SeatClaim"] = { name };
    return this.call<SeatClaimed>("POST", `${this.game(gameId)}/seats/${seat}/claim`, 201, claim, {
      "Idempotency-Key": crypto.randomUUID(),
    }).then((r) => r.body);
  }

  legalCommands(gameId: string): Promise<Tagged<LegalCommands>> {
    return this.call<LegalCommands>("GET", `${this.game(gameId)}/legal-commands`, 200);
  }

  /** Send one command; `etag` is the version it was chosen at (If-Match). */
  sendCommand(gameId: string, command: Command, etag: string): Promise<CommandResult> {
    return this.call<CommandResult>("POST", `${this.game(gameId)}/commands`, 200, command, {
      "If-Match": etag,
      "Idempotency-Key": crypto.randomUUID(),
    }).then((r) => r.body);
  }

  state(gameId: string): Promise<Tagged<StateView>> {
    return this.call<StateView>("GET", `${this.game(gameId)}/state`, 200);
  }

  private game(gameId: string): string {
    return `/games/${encodeURIComponent(gameId)}`;
  }

  private async call<T>(
    method: "GET" | "POST",
    path: string,
    expected: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Tagged<T>> {
    const sent: Record<string, string> = { Accept: "application/json", ...headers };
    if (this.token !== undefined) sent["Authorization"] = `Bearer ${this.token}`;
    if (body !== undefined) sent["Content-Type"] = "application/json";
    const init: RequestInit = { method, headers: sent };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(this.baseUrl + path, init);
    const parsed: unknown = await response.json();
    if (response.status !== expected) throw new ProblemError(response.status, parsed as Problem);
    return { body: parsed as T, etag: response.headers.get("ETag") ?? "" };
  }
}

/** What the demonstration did, for whoever runs it. */
export interface Played {
  game_id: string;
  seat: number;
  command: BoardCommand;
  version: number;
  tile_on_board: boolean;
}

/**
 * Create a board game with two open seats, claim both, place a tile where the awaited
 * seat may (a command built from its typed parts), and read the typed state back.
 */
export async function playOneTile(baseUrl: string): Promise<Played> {
  const lobby = new TigrisClient(baseUrl);
  const created = await lobby.createGame({
    kind: "board",
    seats: [{ type: "open" }, { type: "open", name: "Bea" }],
  });
  const gameId = created.game.game_id;
  const seats: TigrisClient[] = [];
  for (const [seat, name] of ["Ada", "Bea"].entries()) {
    const claimed = await lobby.claimSeat(gameId, seat, name);
    seats.push(lobby.as(claimed.seat.token));
  }
  for (const [seat, player] of seats.entries()) {
    const legal = await player.legalCommands(gameId);
    if (legal.body.kind !== "board") throw new Error("a board game answered as another kind");
    const tile = legal.body.commands.find(
      (c): c is Schemas["BoardCommandPlaceTile"] => c.type === "PlaceTile",
    );
    if (tile === undefined) continue;
    const command: BoardCommand = { type: "PlaceTile", colour: tile.colour, at: tile.at };
    const result = await player.sendCommand(gameId, command, legal.etag);
    const view = await player.state(gameId);
    const state = view.body.state;
    if (state.kind !== "board") throw new Error("a board game's state of another kind");
    const placed = state.tiles.some(
      (t) => t.colour === tile.colour && t.at[0] === tile.at[0] && t.at[1] === tile.at[1],
    );
    return { game_id: gameId, seat, command, version: result.version, tile_on_board: placed };
  }
  throw new Error("no seat may place a tile at the start of a game");
}

if (require.main === module) {
  const baseUrl = process.argv[2];
  if (baseUrl === undefined) throw new Error("usage: node client.js <base url>");
  playOneTile(baseUrl).then(
    (played) => console.log(JSON.stringify(played)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
