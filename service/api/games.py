"""``/games``: create, list and read games."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, Response

from service.api.background import after_change
from service.api.context import caller_for, services
from service.api.http import idempotency_key, json_response, load_body, load_query
from service.api.presenters import game_json, info_json
from service.api.problems import bad_request, forbidden
from service.api.schemas import GameCreateSchema, GameListQuerySchema
from service.application.bots import BotSeat
from service.application.clocks import ClockSpec
from service.application.mapper import CommandMeta

blueprint = Blueprint("games", __name__)


@blueprint.post("/games")
def create_game() -> Response:
    caller = caller_for(None)
    body = load_body(GameCreateSchema())
    if body["seed"] is not None and not caller.admin:
        raise forbidden("only the admin token may choose a game's seed")
    found = services()
    meta = CommandMeta(
        command_id=uuid.uuid4().hex, actor="admin" if caller.admin else "system", seat=None
    )
    # One atomic write stores the game with its seats' token hashes (and the index entry
    # goes first): see CommandHandler.create_game. With an Idempotency-Key a retry after a
    # lost answer gets the same game and the same tokens back.
    names, bots = seats_and_bots(body["seats"])
    clock = None if body["clock"] is None else ClockSpec(**body["clock"])
    created = found.games.create_seated_game(
        body["kind"], names, body["options"], body["seed"], meta, idempotency_key(), bots, clock
    )
    game, tokens = created.game, created.tokens
    seats = [
        {"seat": seat, "name": name, "token": token, "authorization": f"Bearer {token}"}
        | ({"bot": bots[seat].to_json()} if seat in bots else {})
        for seat, (name, token) in enumerate(zip(names, tokens, strict=True))
    ]
    after_change(game)
    response = json_response({"game": game_json(game), "seats": seats}, 201, version=game.version)
    response.headers["Location"] = f"/games/{game.game_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secrets
    response.headers["Idempotent-Replayed"] = "true" if created.replayed else "false"
    return response


def seats_and_bots(entries: list[Any]) -> tuple[list[str], dict[int, BotSeat]]:
    """Seat names, and the bot seats among them, of a creation body's ``seats``."""
    names: list[str] = []
    bots: dict[int, BotSeat] = {}
    for seat, entry in enumerate(entries):
        if isinstance(entry, str):
            names.append(entry)
            continue
        bots[seat] = BotSeat(entry["bot"], entry["think_ms"])
        names.append(entry["name"] or f"{entry['bot']} bot")
    return names, bots


@blueprint.get("/games")
def list_games() -> Response:
    caller_for(None)
    query = load_query(GameListQuerySchema())
    found = services()
    try:
        infos, next_cursor = found.games.list_games(
            kind=query["kind"],
            status=query["status"],
            cursor=query["cursor"],
            limit=query["limit"],
        )
    except ValueError:
        raise bad_request("unknown or expired cursor", "cursor") from None
    items = [info_json(info) for info in infos]
    return json_response({"items": items, "next_cursor": next_cursor})


@blueprint.get("/games/<gid:game_id>")
def get_game(game_id: str) -> Response:
    caller_for(game_id)
    game = services().games.load(game_id)
    return json_response(game_json(game), version=game.version)
