"""``/players``: make a player (one key for all of a person's seats), read it, list its games
(``service.application.players``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from service.api.auth import Caller
from service.api.context import caller_for, services
from service.api.declare import body, ok, operation, query
from service.api.http import json_response, load_body, load_query
from service.api.presenters import clock_json, player_game_json
from service.api.problems import bad_request, forbidden, unauthorized
from service.api.schemas import PlayerCreateSchema, PlayerGamesQuerySchema
from service.errors import GameNotFound
from service.jobs.clocks import clock_reading
from service.store.port import PlayerRecord

blueprint = Blueprint("players", __name__)


def player_json(record: PlayerRecord) -> dict[str, Any]:
    return {"player_id": record.player_id, "name": record.name, "created_at": record.created_at}


@blueprint.post("/players")
@operation(
    "createPlayer",
    tags=["players"],
    summary="Make a player; returns its secret key once.",
    description=(
        "A player holds one key for all of its seats: bind a seat to it when creating a game "
        "(a seat `{type: player, player: <id>}`) or by claiming an open seat with its key. "
        "The key acts in every seat bound to it and in no other. Only the key's SHA-256 hash "
        "is stored. Who may make players is a setting (`TIGRIS_PLAYER_SIGNUP`): anyone "
        "(`open`, the default; limited per client address as every request is) or the admin "
        "token only (`admin`: 401 without a token, 403 with another one)."
    ),
    request_body=body(PlayerCreateSchema, example={"name": "Ann"}),
    responses={201: ok("Made.", "PlayerCreated", headers={"Location": "Location"})},
    problems=[
        "RateLimited",
        "BadRequest",
        "Unauthorized",
        "Forbidden",
        "TooLarge",
        "UnsupportedMediaType",
        "Unprocessable",
        "Unavailable",
    ],
)
def create_player() -> Response:
    """A new player and its key (shown once; only its hash is kept). Who may: anyone
    (``TIGRIS_PLAYER_SIGNUP=open``, the default; limited per client address as every
    request is) or the admin token only (``admin``)."""
    caller = caller_for(None)
    found = services()
    if found.settings.player_signup == "admin" and not caller.admin:
        if caller.is_spectator and caller.player is None:
            raise unauthorized("only the admin token may make players here")
        raise forbidden("only the admin token may make players here")
    body = load_body(PlayerCreateSchema())
    record, key = found.games.players.create(body["name"])
    answer = player_json(record) | {"key": key, "authorization": f"Bearer {key}"}
    response = json_response(answer, 201)
    response.headers["Location"] = "/players/me"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secret
    return response


def _player(caller: Caller) -> PlayerRecord:
    if caller.player is None:
        raise unauthorized("a player key is required")
    record = services().games.players.get(caller.player)
    if record is None:  # the key was checked a moment ago
        raise unauthorized("unknown player key")
    return record


@blueprint.get("/players/me")
@operation(
    "getMe",
    tags=["players"],
    summary="The player whose key is sent.",
    responses={200: ok("The player.", "Player")},
    problems=["RateLimited", "BadRequest", "Unauthorized", "Unavailable"],
)
def get_me() -> Response:
    return json_response(player_json(_player(caller_for(None))))


@blueprint.get("/players/me/games")
@operation(
    "listMyGames",
    tags=["players"],
    summary="The calling player's games, newest first, with filters and cursor pagination.",
    description=(
        "Every game with a seat bound to the player (`filter` unset), or one list: `open` "
        "(seats still to claim), `active`, `over`, or `awaiting` (active, and a seat of the "
        "player is awaited). A page costs O(page), not O(games): each list is kept per "
        "player, and an entry is added before the write that makes it true and removed after "
        "the one that makes it false, so an acknowledged change is never missing. An entry "
        "whose game has left the list is skipped when listed, so a page may hold fewer than "
        "`limit` games; follow `next_cursor` until it is null."
    ),
    parameters=[query(PlayerGamesQuerySchema)],
    responses={200: ok("One page.", "PlayerGamePage")},
    problems=["RateLimited", "BadRequest", "Unauthorized", "Unavailable"],
)
def list_my_games() -> Response:
    """The player's games, newest first: all, or one list (``filter``: ``open``,
    ``active``, ``over``, ``awaiting``), a page at a time (O(page): each list is a sorted
    set of the player's). An entry the list holds but the game no longer belongs in (the
    game moved on while its removal was lost) is skipped, so a page may hold fewer than
    ``limit`` games; ``next_cursor`` is then still the way on."""
    caller = caller_for(None)
    record = _player(caller)
    query = load_query(PlayerGamesQuerySchema())
    games = services().games
    which = query["filter"]
    try:
        page, next_cursor = games.player_games.store.list_games(
            record.player_id, which, query["cursor"], query["limit"]
        )
    except ValueError:
        raise bad_request("unknown or expired cursor", "cursor") from None
    items = []
    for _, game_id in page:
        try:
            game = games.repository.get(game_id)
        except GameNotFound:  # indexed before its creation was stored, or never stored
            continue
        entry = player_game_json(game, record.player_id)
        if which is not None and which not in entry["lists"]:
            continue  # the game left this list (see the docstring)
        if game.info.clock is not None and entry["status"] == "active":
            entry["clock"] = clock_json(clock_reading(games, game))
        del entry["lists"]
        items.append(entry)
    return json_response({"items": items, "next_cursor": next_cursor})
