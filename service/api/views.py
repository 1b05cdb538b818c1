"""Read views of one game: state (now and at a version), pending decision, legal
commands, result. Each carries the game's version as its ETag."""

from __future__ import annotations

from flask import Blueprint, Response

from service.api.context import caller_for, services
from service.api.declare import GAME_READ_PROBLEMS, ok, operation, query
from service.api.http import json_response, load_query, not_modified
from service.api.moves import legal_json, pending_json
from service.api.presenters import clock_json, state_json
from service.api.problems import conflict, not_found
from service.api.schemas import WaitQuerySchema
from service.api.waits import granted, waited
from service.jobs.clocks import clock_reading

blueprint = Blueprint("views", __name__)


@blueprint.get("/games/<gid:game_id>/state")
@operation(
    "getState",
    tags=["views"],
    summary="The current state as the caller may see it.",
    description=(
        "A seat token sees its own hand and points, no token is a "
        "spectator, the admin token sees\n"
        "everything. After the game has ended everything is public. "
        "The shape is the same for\n"
        "every caller and version (`GameView`, by `kind`): what the "
        "caller may not see is `null`,\n"
        "and `complete` tells when nothing is hidden.\n"
    ),
    parameters=["PlayerSeat", "IfNoneMatch"],
    responses={200: ok("The state view.", "StateView", headers={"ETag": "ETag"})},
    problems=GAME_READ_PROBLEMS,
)
def get_state(game_id: str) -> Response:
    caller = caller_for(game_id)
    game = services().games.repository.get(game_id)
    return json_response(state_json(game, caller), version=game.version)


@blueprint.get("/games/<gid:game_id>/states/<version:version>")
@operation(
    "getStateAt",
    tags=["views"],
    summary=("Time travel; the state at a version, redacted for the caller."),
    description=(
        "While the game runs, the state is redacted as the current "
        "state is; once it has ended, all history is public (the "
        "complete view, in the same shape as `GET "
        "/games/{game_id}/state`)."
    ),
    parameters=["PlayerSeat", "IfNoneMatch"],
    path_parameters=[
        {
            "name": "version",
            "in": "path",
            "required": True,
            "description": (
                "A version of the game, from 1 to its current version, written "
                "canonically (ASCII digits, no leading zero; `007` names no "
                "resource)."
            ),
            "schema": {"type": "integer", "minimum": 1, "maximum": 1000000000000},
        }
    ],
    responses={200: ok("The state view at that version.", "StateView", headers={"ETag": "ETag"})},
    problems=[
        "NotModified",
        "RateLimited",
        "BadRequest",
        "Unauthorized",
        "NotFound",
        "Unavailable",
        "Forbidden",
    ],
)
def get_state_at(game_id: str, version: int) -> Response:
    caller = caller_for(game_id)
    games = services().games
    current = games.repository.get(game_id)
    if not 1 <= version <= current.version:
        raise not_found(f"game {game_id!r} has versions 1..{current.version}, not {version}")
    past = games.repository.past(current, version)
    # Once the game has ended, its whole history is public (audits of disputed moves).
    public = current.rules.is_over(current.state)
    return json_response(state_json(past, caller, public=public), version=current.version)


@blueprint.get("/games/<gid:game_id>/pending")
@operation(
    "getPending",
    tags=["views"],
    summary="The pending decision; who must act and on what.",
    description=(
        "With `wait`, the answer is held until one of the caller's seats is awaited (a seat "
        "token's, a player key's), the game is over, or `wait` seconds passed: a client "
        "waits so for its first turn without polling. A caller holding no seat waits for a "
        "version past `after`."
    ),
    parameters=["PlayerSeat", "IfNoneMatch", query(WaitQuerySchema)],
    responses={
        200: ok(
            (
                "The pending decision. While a turn clock runs, the time left "
                "changes without the version: that response carries no ETag "
                "and is never answered 304."
            ),
            "PendingView",
            headers={"ETag": "ETag"},
        )
    },
    problems=GAME_READ_PROBLEMS,
)
def get_pending(game_id: str) -> Response:
    caller = caller_for(game_id)
    asked = load_query(WaitQuerySchema())
    game = services().games.repository.get(game_id)
    game, _ = waited(game, caller.held, granted(asked["wait"]), asked["after"])
    body = pending_json(game)
    if game.info.clock is not None:
        body["clock"] = clock_json(clock_reading(services().games, game))
        if not body["over"]:
            # The time left runs down while the version stands still: no ETag, never a 304.
            return json_response(body)
    return json_response(body, version=game.version)


@blueprint.get("/games/<gid:game_id>/legal-commands")
@operation(
    "getLegalCommands",
    tags=["views"],
    summary="Every command the caller's seat may send now, and no other.",
    description=(
        "With `wait`, the answer is held until the caller's seat is awaited (past `after`, "
        "if given), the game is over, or `wait` seconds passed: a seat's first turn costs "
        "one call. Its later turns come in the answers of its commands (`Prefer: wait`)."
    ),
    security=[{"bearerAuth": []}],
    parameters=["PlayerSeat", "IfNoneMatch", query(WaitQuerySchema)],
    responses={
        200: ok(
            "The legal commands (empty when this seat is not awaited).",
            "LegalCommands",
            headers={"ETag": "ETag"},
        )
    },
    problems=[
        "NotModified",
        "RateLimited",
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "Unavailable",
        "BadRequest",
    ],
)
def get_legal_commands(game_id: str) -> Response:
    caller = caller_for(game_id)
    seat = caller.require_seat("list its legal commands")
    asked = load_query(WaitQuerySchema())
    game = services().games.repository.get(game_id)
    game, _ = waited(game, (seat,), granted(asked["wait"]), asked["after"])
    unchanged = not_modified(game.version)  # spare the enumeration, not only the bytes
    if unchanged is not None:
        return unchanged
    return json_response(legal_json(game, seat), version=game.version)


@blueprint.get("/games/<gid:game_id>/result")
@operation(
    "getResult",
    tags=["views"],
    summary="Final scoring and places, once the game is over.",
    parameters=["PlayerSeat", "IfNoneMatch"],
    responses={200: ok("The result.", "ResultView", headers={"ETag": "ETag"})},
    problems=[
        "NotModified",
        "RateLimited",
        "Unauthorized",
        "NotFound",
        "Conflict",
        "Unavailable",
        "BadRequest",
        "Forbidden",
    ],
)
def get_result(game_id: str) -> Response:
    caller_for(game_id)
    game = services().games.repository.get(game_id)
    result = game.rules.result(game.state)
    if result is None:
        raise conflict("game-not-over", "Game not over", "the game has no result yet")
    return json_response({"version": game.version, "result": result}, version=game.version)
