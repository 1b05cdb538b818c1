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
export type PendingView = Schemas["PendingView"];
/** The caller's legal commands in a write's answer (`null` when it is not awaited). */
export type CallerLegalCommands = Schemas["CallerLegalCommands"];
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
    return this.claimTagged(gameId, seat, name).then((r) => r.body);
  }

  /** A claim with its ETag (the If-Match of the claimer's first command). */
  claimTagged(gameId: string, seat: number, name: string): Promise<Tagged<SeatClaimed>> {
    const claim: Schemas["SeatClaim"] = { name };
    return this.call<SeatClaimed>("POST", `${this.game(gameId)}/seats/${seat}/claim`, 201, claim, {
      "Idempotency-Key": crypto.randomUUID(),
    });
  }

  legalCommands(gameId: string): Promise<Tagged<LegalCommands>> {
    return this.call<LegalCommands>("GET", `${this.game(gameId)}/legal-commands`, 200);
  }

  /**
   * Send one command; `etag` is the version it was chosen at (If-Match). The answer says what
   * comes next (`next`) and, while this seat stays awaited, its legal commands (`legal`):
   * its `etag` is the If-Match of the next command, so the next move needs no read.
   */
  sendCommand(gameId: string, command: Command, etag: string): Promise<Tagged<CommandResult>> {
    return this.call<CommandResult>("POST", `${this.game(gameId)}/commands`, 200, command, {
      "If-Match": etag,
      "Idempotency-Key": crypto.randomUUID(),
    });
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
  /** The answer listed the seat's own legal commands for its second action. */
  still_awaited: boolean;
  /** Reads of legal commands before the first move (the last claim's answer had them). */
  reads: number;
}

/**
 * Create a board game with two open seats, claim both, place a tile where the awaited
 * seat may (a command built from its typed parts), and read the typed state back. The last
 * claim's answer names the awaited seat (and, when the claimer is awaited, lists its legal
 * commands); the command's answer lists them for the seat's next action: one call per move.
 */
export async function playOneTile(baseUrl: string): Promise<Played> {
  const lobby = new TigrisClient(baseUrl);
  const created = await lobby.createGame({
    kind: "board",
    seats: [{ type: "open" }, { type: "open", name: "Bea" }],
  });
  const gameId = created.game.game_id;
  const seats: TigrisClient[] = [];
  let last: Tagged<SeatClaimed> | undefined;
  for (const [seat, name] of ["Ada", "Bea"].entries()) {
    last = await lobby.claimTagged(gameId, seat, name);
    seats.push(lobby.as(last.body.seat.token));
  }
  if (last === undefined || last.body.next === undefined) throw new Error("no next decision");
  const seat = last.body.next.awaited[0];
  const player = seat === undefined ? undefined : seats[seat];
  if (seat === undefined || player === undefined) throw new Error("no seat is awaited");
  const claimed = last.body.legal;
  let legal: LegalCommands;
  let etag: string;
  let reads = 0;
  if (claimed !== null && claimed !== undefined && claimed.seat === seat) {
    legal = claimed; // the claimer is awaited: its commands came with its claim
    etag = last.etag;
  } else {
    const read = await player.legalCommands(gameId); // another seat claimed last
    legal = read.body;
    etag = read.etag;
    reads = 1;
  }
  if (legal.kind !== "board") throw new Error("a board game answered as another kind");
  const tile = legal.commands.find(
    (c): c is Schemas["BoardCommandPlaceTile"] => c.type === "PlaceTile",
  );
  if (tile === undefined) throw new Error("the awaited seat may not place a tile");
  const command: BoardCommand = { type: "PlaceTile", colour: tile.colour, at: tile.at };
  const result = await player.sendCommand(gameId, command, etag);
  const view = await player.state(gameId);
  const state = view.body.state;
  if (state.kind !== "board") throw new Error("a board game's state of another kind");
  const placed = state.tiles.some(
    (t) => t.colour === tile.colour && t.at[0] === tile.at[0] && t.at[1] === tile.at[1],
  );
  const mine = result.body.legal;
  return {
    game_id: gameId,
    seat,
    command,
    version: result.body.version,
    tile_on_board: placed,
    still_awaited: mine !== null && mine !== undefined && mine.seat === seat,
    reads,
  };
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
