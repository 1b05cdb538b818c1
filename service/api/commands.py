"""``POST /games/{id}/commands``: a seat's command, with If-Match and Idempotency-Key."""

from __future__ import annotations

from functools import cache

from flask import Blueprint, Response

from service.api.context import caller_for, services
from service.api.http import (
    command_meta,
    expected_version,
    idempotency_key,
    json_response,
    load_body,
)
from service.api.presenters import events_json
from service.api.problems import forbidden
from service.api.schemas import CommandEnvelopeSchema

blueprint = Blueprint("commands", __name__)


@cache
def _envelope_schema() -> CommandEnvelopeSchema:
    # Built once: a marshmallow schema is reusable, and building one costs more than a load.
    return CommandEnvelopeSchema()


@blueprint.post("/games/<gid:game_id>/commands")
def post_command(game_id: str) -> Response:
    caller = caller_for(game_id)
    seat = caller.require_seat("send commands")
    expected = expected_version()
    key = idempotency_key()
    command = load_body(_envelope_schema())
    if command.pop("seat", seat) != seat:
        raise forbidden(f"this token plays seat {seat} only")
    meta = command_meta(caller.actor, seat)
    outcome = services().games.commands.handle(
        game_id, command, meta=meta, expected_version=expected, idempotency_key=key
    )
    game = outcome.game
    response = json_response(
        {"version": game.version, "events": events_json(outcome.events, caller, game)},
        version=game.version,
    )
    response.headers["Idempotent-Replayed"] = "true" if outcome.replayed else "false"
    return response
