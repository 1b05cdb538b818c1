"""``/games/{id}/undo-requests``: ask to revert, answer, and read requests (the workflow
and its policy: ``service.application.undo``)."""

from __future__ import annotations

from flask import Blueprint, Response

from service.api.auth import Caller
from service.api.context import caller_for, services
from service.api.http import command_meta, expected_version, json_response, load_body
from service.api.presenters import undo_json
from service.api.problems import unauthorized
from service.api.schemas import UndoAnswerSchema, UndoRequestCreateSchema
from service.application.mapper import CommandMeta

blueprint = Blueprint("undo", __name__)


def _meta(caller: Caller) -> CommandMeta:
    return command_meta(caller.actor, caller.seat)


@blueprint.get("/games/<gid:game_id>/undo-requests")
def list_undo_requests(game_id: str) -> Response:
    caller_for(game_id)
    game, records = services().games.undo.requests(game_id)
    items = [undo_json(record, game) for record in records]
    return json_response({"version": game.version, "items": items}, version=game.version)


@blueprint.get("/games/<gid:game_id>/undo-requests/<rid:request_id>")
def get_undo_request(game_id: str, request_id: str) -> Response:
    caller_for(game_id)
    found = services().games.undo.request(game_id, request_id)
    return json_response(undo_json(found.record, found.game), version=found.game.version)


@blueprint.post("/games/<gid:game_id>/undo-requests")
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
    response = json_response(undo_json(record, game), 201, version=game.version)
    response.headers["Location"] = f"/games/{game_id}/undo-requests/{record.request_id}"
    return response


@blueprint.post("/games/<gid:game_id>/undo-requests/<rid:request_id>/answers")
def answer_undo(game_id: str, request_id: str) -> Response:
    caller = caller_for(game_id)
    if caller.is_spectator:
        raise unauthorized("a seat token or the admin token is required to answer")
    expected = expected_version()
    body = load_body(UndoAnswerSchema())
    outcome = services().games.undo.answer_undo(
        game_id, request_id, body["approve"], meta=_meta(caller), expected_version=expected
    )
    return json_response(undo_json(outcome.record, outcome.game), version=outcome.game.version)
