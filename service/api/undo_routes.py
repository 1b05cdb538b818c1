"""``/games/{id}/undo-requests``: ask to revert, answer, and read requests."""

from __future__ import annotations

import uuid

from flask import Blueprint, Response

from service.api.auth import Caller
from service.api.context import caller_for, services
from service.api.http import expected_version, json_response, load_body
from service.api.problems import conflict, forbidden, not_found, unauthorized
from service.api.schemas import UndoAnswerSchema, UndoRequestCreateSchema
from service.api.undo import (
    ADMIN,
    UndoRecord,
    is_fully_approved,
    is_self_undo,
    open_request,
    undo_records,
)
from service.application.mapper import CommandMeta
from service.application.repository import LoadedGame
from service.errors import ConcurrencyError
from service.events import GameReverted, UndoAnswered, UndoRequested

blueprint = Blueprint("undo", __name__)


def _meta(caller: Caller) -> CommandMeta:
    return CommandMeta(command_id=uuid.uuid4().hex, actor=caller.actor, seat=caller.seat)


def _check_version(game: LoadedGame, expected: int | None) -> int:
    """The version the append must find: the current one, if If-Match names it."""
    if expected is not None and expected != game.version:
        raise ConcurrencyError(expected, game.version, game.game_id)
    return game.version


def _find(records: list[UndoRecord], request_id: str) -> UndoRecord:
    for record in records:
        if record.request_id == request_id:
            return record
    raise not_found(f"no undo request {request_id!r}")


@blueprint.get("/games/<gid:game_id>/undo-requests")
def list_undo_requests(game_id: str) -> Response:
    caller_for(game_id)
    games = services().games
    game = games.load(game_id)
    seats = len(game.info.seat_names)
    items = [record.to_json(seats) for record in undo_records(games.events(game_id))]
    return json_response({"version": game.version, "items": items}, version=game.version)


@blueprint.get("/games/<gid:game_id>/undo-requests/<rid:request_id>")
def get_undo_request(game_id: str, request_id: str) -> Response:
    caller_for(game_id)
    games = services().games
    game = games.load(game_id)
    record = _find(undo_records(games.events(game_id)), request_id)
    return json_response(record.to_json(len(game.info.seat_names)), version=game.version)


@blueprint.post("/games/<gid:game_id>/undo-requests")
def request_undo(game_id: str) -> Response:
    caller = caller_for(game_id)
    seat = caller.require_seat("ask for an undo")
    expected = expected_version()
    body = load_body(UndoRequestCreateSchema())
    games = services().games
    game = games.load(game_id)
    version = _check_version(game, expected)
    target = body["to_version"]
    if game.rules.is_over(game.state):
        raise conflict("game-over", "Game over", "a finished game cannot be undone")
    games.check_revert_target(game, target)  # 409 undo-not-allowed (see problems.py)
    events = games.events(game_id)
    records = undo_records(events)
    if open_request(records) is not None:
        raise conflict("undo-pending", "Undo pending", "another undo request is still open")
    request_id = uuid.uuid4().hex
    requested = UndoRequested(request_id, target, body["reason"], caller.actor)
    then = games.load_at(game_id, target)
    since = [event for event in events if event.version > target]
    appended: list[UndoRequested | GameReverted] = [requested]
    if is_self_undo(since, seat, then, game):
        appended.append(GameReverted(target, body["reason"], caller.actor, ()))
    outcome = games.append_service_events(
        game_id, appended, meta=_meta(caller), expected_version=version
    )
    record = _find(undo_records(games.events(game_id)), request_id)
    response = json_response(
        record.to_json(len(game.info.seat_names)), 201, version=outcome.game.version
    )
    response.headers["Location"] = f"/games/{game_id}/undo-requests/{request_id}"
    return response


@blueprint.post("/games/<gid:game_id>/undo-requests/<rid:request_id>/answers")
def answer_undo(game_id: str, request_id: str) -> Response:
    caller = caller_for(game_id)
    if caller.is_spectator:
        raise unauthorized("a seat token or the admin token is required to answer")
    expected = expected_version()
    body = load_body(UndoAnswerSchema())
    games = services().games
    game = games.load(game_id)
    version = _check_version(game, expected)
    seats = len(game.info.seat_names)
    record = _find(undo_records(games.events(game_id)), request_id)
    if record.requested_by == caller.actor:
        raise forbidden("the asking seat cannot answer its own request")
    if record.status != "open":
        raise conflict("undo-closed", "Undo request closed", f"the request is {record.status}")
    if caller.actor in record.approved_by:
        raise conflict("undo-answered", "Already answered", "this seat has already approved")
    answer = UndoAnswered(request_id, caller.actor, body["approve"])
    appended: list[UndoAnswered | GameReverted] = [answer]
    if body["approve"]:
        record.approved_by.append(caller.actor)
        if caller.actor == ADMIN or is_fully_approved(record, seats):
            appended.append(
                GameReverted(
                    record.to_version,
                    record.reason,
                    record.requested_by,
                    tuple(record.approved_by),
                )
            )
    outcome = games.append_service_events(
        game_id, appended, meta=_meta(caller), expected_version=version
    )
    settled = _find(undo_records(games.events(game_id)), request_id)
    return json_response(settled.to_json(seats), version=outcome.game.version)
