"""``/games``: create (with named or open seats), list and read games; claim open seats."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, Response

from service.api.background import after_change
from service.api.context import caller_for, services
from service.api.http import idempotency_key, json_response, load_body, load_query, request_id
from service.api.presenters import events_json, game_json, info_json
from service.api.problems import bad_request, forbidden
from service.api.schemas import GameCreateSchema, GameListQuerySchema, SeatClaimSchema
from service.application.bots import BotSeat
from service.application.clocks import ClockSpec
from service.application.commands import open_seat_name
from service.application.lobby import claim_meta
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
        command_id=uuid.uuid4().hex,
        actor="admin" if caller.admin else "system",
        seat=None,
        correlation_id=request_id(),
    )
    # One atomic write stores the game with its seats' token hashes (and the index entry
    # goes first): see CommandHandler.create_game. With an Idempotency-Key a retry after a
    # lost answer gets the same game and the same tokens back.
    names, bots, open_seats = seats_of(body["seats"])
    clock = None if body["clock"] is None else ClockSpec(**body["clock"])
    created = found.games.create_seated_game(
        body["kind"],
        names,
        body["options"],
        body["seed"],
        meta,
        idempotency_key(),
        bots,
        clock,
        open_seats=open_seats,
    )
    game, tokens = created.game, created.tokens
    seats = [
        created_seat_json(seat, name, token, bots.get(seat))
        for seat, (name, token) in enumerate(zip(names, tokens, strict=True))
    ]
    after_change(game)
    response = json_response({"game": game_json(game), "seats": seats}, 201, version=game.version)
    response.headers["Location"] = f"/games/{game.game_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secrets
    response.headers["Idempotent-Replayed"] = "true" if created.replayed else "false"
    return response


def seats_of(specs: list[dict[str, Any]]) -> tuple[list[str], dict[int, BotSeat], list[int]]:
    """Seat names, the bot seats and the open seats of a creation body's ``seats``
    (as ``SeatSpec`` loads them)."""
    names: list[str] = []
    bots: dict[int, BotSeat] = {}
    open_seats: list[int] = []
    for seat, spec in enumerate(specs):
        if spec["type"] == "bot":
            bots[seat] = BotSeat(spec["bot"], spec["think_ms"])
            names.append(spec["name"] or f"{spec['bot']} bot")
        elif spec["type"] == "open":
            open_seats.append(seat)
            names.append(spec["name"] or open_seat_name(seat))
        else:
            names.append(spec["name"])
    return names, bots, open_seats


@blueprint.get("/games")
def list_games() -> Response:
    caller_for(None)
    query = load_query(GameListQuerySchema())
    status = query["status"]
    if query["open"]:  # open=true: games with a seat to claim
        if status not in (None, "open"):  # no game is open and active (or over)
            return json_response({"items": [], "next_cursor": None})
        status = "open"
    found = services()
    try:
        infos, next_cursor = found.games.list_games(
            kind=query["kind"],
            status=status,
            cursor=query["cursor"],
            limit=query["limit"],
        )
    except ValueError:
        raise bad_request("unknown or expired cursor", "cursor") from None
    items = [info_json(info) for info in infos]
    return json_response({"items": items, "next_cursor": next_cursor})


@blueprint.post("/games/<gid:game_id>/seats/<int:seat>/claim")
def claim_seat(game_id: str, seat: int) -> Response:
    """Claim an open seat for a player: its token comes back once (only its hash is kept).
    Anyone may claim (no token needed); a seat is claimed once, whoever races for it."""
    caller_for(game_id)
    key = idempotency_key()
    correlation_id = request_id()
    body = load_body(SeatClaimSchema())
    claimed = services().games.claim_seat(
        game_id, seat, body["name"], claim_meta(correlation_id, seat), key
    )
    game = claimed.game
    after_change(game)  # the last claim starts the game: bots, clocks and webhooks follow
    answer = {
        "game": game_json(game),
        "seat": seat_token_json(seat, game.info.seat_names[seat], claimed.token),
        "events": events_json(claimed.events, caller_for(game_id), game),
    }
    response = json_response(answer, 201, version=game.version)
    response.headers["Location"] = f"/games/{game_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secret
    response.headers["Idempotent-Replayed"] = "true" if claimed.replayed else "false"
    return response


def created_seat_json(
    seat: int, name: str, token: str | None, bot: BotSeat | None
) -> dict[str, object]:
    """A seat of a new game: a bot's (no token: only its bot plays it), an open one (its
    token comes with its claim), or a named one with its token."""
    if bot is not None:
        return {"seat": seat, "name": name, "bot": bot.to_json()}
    if token is None:
        return {"seat": seat, "name": name, "open": True}
    return seat_token_json(seat, name, token)


def seat_token_json(seat: int, name: str, token: str) -> dict[str, object]:
    return {"seat": seat, "name": name, "token": token, "authorization": f"Bearer {token}"}


@blueprint.get("/games/<gid:game_id>")
def get_game(game_id: str) -> Response:
    caller_for(game_id)
    game = services().games.load(game_id)
    return json_response(game_json(game), version=game.version)
