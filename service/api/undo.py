"""``/games/{id}/undo-requests``: ask to revert, answer, and read requests (the workflow
and its policy: ``service.application.undo``)."""

from __future__ import annotations

from flask import Blueprint, Response

from service.api.auth import Caller
from service.api.context import caller_for, services
from service.api.declare import (
    ETAG_AS_IF_MATCH,
    GAME_READ_PROBLEMS,
    GAME_WRITE_PROBLEMS,
    body,
    links,
    ok,
    operation,
    ref,
)
from service.api.http import command_meta, expected_version, json_response, load_body
from service.api.moves import next_move
from service.api.presenters import undo_json
from service.api.problems import unauthorized
from service.api.schemas import UndoAnswerSchema, UndoRequestCreateSchema
from service.application.mapper import CommandMeta

blueprint = Blueprint("undo", __name__)


def _meta(caller: Caller) -> CommandMeta:
    return command_meta(caller.actor, caller.seat)


@blueprint.get("/games/<gid:game_id>/undo-requests")
@operation(
    "listUndoRequests",
    tags=["undo"],
    summary="Every undo request of the game with its status.",
    parameters=["PlayerSeat", "IfNoneMatch"],
    responses={
        200: ok(
            "The undo requests, oldest first.",
            {
                "type": "object",
                "required": ["version", "items"],
                "additionalProperties": False,
                "properties": {
                    "version": {"type": "integer", "minimum": 0},
                    "items": {"type": "array", "items": ref("UndoRequest")},
                },
            },
            headers={"ETag": "ETag"},
        )
    },
    problems=GAME_READ_PROBLEMS,
)
def list_undo_requests(game_id: str) -> Response:
    caller_for(game_id)
    game, records = services().games.undo.requests(game_id)
    items = [undo_json(record, game) for record in records]
    return json_response({"version": game.version, "items": items}, version=game.version)


@blueprint.get("/games/<gid:game_id>/undo-requests/<rid:request_id>")
@operation(
    "getUndoRequest",
    tags=["undo"],
    summary="One undo request.",
    parameters=["PlayerSeat", "IfNoneMatch"],
    responses={200: ok("The request.", "UndoRequest", headers={"ETag": "ETag"})},
    problems=GAME_READ_PROBLEMS,
)
def get_undo_request(game_id: str, request_id: str) -> Response:
    caller_for(game_id)
    found = services().games.undo.request(game_id, request_id)
    return json_response(undo_json(found.record, found.game), version=found.game.version)


@blueprint.post("/games/<gid:game_id>/undo-requests")
@operation(
    "requestUndo",
    tags=["undo"],
    summary="Ask to revert the game to an earlier version.",
    description=(
        "`to_version` must lie on a command boundary after the game's "
        "setup. When everything since\n"
        "that version is the caller's own action in the current turn "
        "with no draw and no other seat\n"
        "acting, the revert is applied at once (`status: applied`); "
        "otherwise the request waits for\n"
        "the other seats (`status: open`). At most one request is open "
        "at a time.\n"
    ),
    security=[{"bearerAuth": []}],
    parameters=["PlayerSeat", "IfMatch", "XRequestId", "PreferMinimal"],
    request_body=body(
        UndoRequestCreateSchema, example={"to_version": 12, "reason": "I misplaced my farmer"}
    ),
    responses={
        201: ok(
            "The request (open, or already applied).",
            "UndoRequest",
            headers={"ETag": "ETag", "Location": "Location"},
            links=links(
                "$request.path.game_id",
                ("getUndoRequest", {"request_id": "$response.body#/request_id"}),
                ("answerUndo", {"request_id": "$response.body#/request_id", **ETAG_AS_IF_MATCH}),
            ),
        )
    },
    problems=GAME_WRITE_PROBLEMS,
)
def request_undo(game_id: str) -> Response:
    caller = caller_for(game_id)
    caller.require_seat("ask for an undo")
    expected = expected_version()
    body = load_body(UndoRequestCreateSchema())
    outcome = services().games.undo.request_undo(
        game_id,
        body["to_version"],
        body["reason"],
        meta=_meta(caller),
        expected_version=expected,
    )
    game, record = outcome.game, outcome.record
    body = undo_json(record, game) | next_move(game, caller.held)
    response = json_response(body, 201, version=game.version)
    response.headers["Location"] = f"/games/{game_id}/undo-requests/{record.request_id}"
    return response


@blueprint.post("/games/<gid:game_id>/undo-requests/<rid:request_id>/answers")
@operation(
    "answerUndo",
    tags=["undo"],
    summary=("Approve or reject an open undo request (another seat, or the admin token)."),
    description=("The last approval appends the revert event; one rejection closes the request."),
    security=[{"bearerAuth": []}],
    parameters=["PlayerSeat", "IfMatch", "XRequestId", "PreferMinimal"],
    request_body=body(UndoAnswerSchema, example={"approve": True}),
    responses={200: ok("The request after the answer.", "UndoRequest", headers={"ETag": "ETag"})},
    problems=GAME_WRITE_PROBLEMS,
)
def answer_undo(game_id: str, request_id: str) -> Response:
    caller = caller_for(game_id)
    if caller.is_spectator:
        raise unauthorized("a seat token or the admin token is required to answer")
    expected = expected_version()
    body = load_body(UndoAnswerSchema())
    outcome = services().games.undo.answer_undo(
        game_id, request_id, body["approve"], meta=_meta(caller), expected_version=expected
    )
    game = outcome.game
    body = undo_json(outcome.record, game) | next_move(game, caller.held)
    return json_response(body, version=game.version)
