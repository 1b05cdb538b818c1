"""``GET /games/{id}/versions/{v}/explanation``: why version v is what it is, as the caller
may see it (``service.application.explanations``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from service.api.auth import Caller
from service.api.context import caller_for, services
from service.api.declare import ok, operation
from service.api.http import json_response
from service.api.language import language
from service.api.presenters import command_json, state_json
from service.application.explanations import Explanation
from service.application.record import (
    CREATE_GAME,
    SERVICE_COMMANDS,
    sees_all,
    visible_command,
)
from service.application.rendering import event_json
from service.i18n.describe import rule_words
from service.rules import rule_url

blueprint = Blueprint("explanations", __name__)


@blueprint.get("/games/<gid:game_id>/versions/<version:version>/explanation")
@operation(
    "getExplanation",
    tags=["records"],
    summary="Why version `version` is what it is.",
    description=(
        "The command that produced the version (`command_version`: the "
        "first of its events),\n"
        "who sent it and when, the rule trail the domain recorded for "
        "the event (each rule id\n"
        "with a link to its text under `/rules/...`), the game right "
        "before the command and\n"
        "right after the version, and the legal commands the sending "
        "seat had then. Complete\n"
        "for the admin and, once the game is over, for anyone; while "
        "it runs, the states are\n"
        "as the caller may see them and the command and alternatives "
        "are shown to the seat\n"
        "that sent it only. Each rule comes with its sentence in the negotiated language.\n"
    ),
    path_parameters=[
        {
            "name": "version",
            "in": "path",
            "required": True,
            "schema": {"type": "integer", "minimum": 1},
        }
    ],
    parameters=["PlayerSeat", "AcceptLanguage"],
    responses={
        200: ok(
            "The explanation.",
            "Explanation",
            headers={"ETag": "ETag", "Content-Language": "ContentLanguage"},
        )
    },
    problems=["RateLimited", "Unauthorized", "NotFound", "Unavailable", "BadRequest", "Forbidden"],
)
def get_explanation(game_id: str, version: int) -> Response:
    caller = caller_for(game_id)
    found = services().games.explainer.explain(game_id, version)
    body = explanation_json(found, caller, language())
    return json_response(body, version=found.game.version)


def explanation_json(found: Explanation, caller: Caller, language: str) -> dict[str, Any]:
    """Complete for the admin, or for anyone once the game is over; else the states as the
    caller may see them, and the command and alternatives only for the seat that sent it.
    Each rule of the trail comes with its sentence in ``language`` (None if none is
    written)."""
    game = found.game
    complete = sees_all(game.rules, game.state, admin=caller.admin)
    metadata = found.event.metadata
    seat = metadata.get("seat")
    own = caller.seat is not None and caller.seat == seat
    command = found.command
    if command is not None and not complete:
        command = visible_command(command, seat, caller.seat)
    alternatives = None
    if found.alternatives is not None and (complete or own):
        alternatives = [command_json(c) for c in found.alternatives]
    return {
        "game_id": game.game_id,
        "version": found.event.version,
        "type": found.event.type,
        # the event itself as the events endpoint shows it to the caller: for a conflict's
        # outcome (``ConflictResolved``) its sides, strengths, winner, removals and points
        "event": event_json(found.event, caller, game, language=language),
        "command_version": found.command_version,
        "command": None if command is None else _command(command),
        "actor": str(metadata.get("actor", "system")),
        "seat": seat if isinstance(seat, int) else None,
        "recorded_at": metadata.get("recorded_at"),
        "rules": None
        if found.rules is None
        else [
            {
                "id": rule,
                "url": rule_url(rule),
                "description": rule_words(rule, language),
            }
            for rule in found.rules
        ],
        "before": None
        if found.before is None
        else state_json(found.before, caller, public=complete),
        "after": state_json(found.after, caller, public=complete),
        "alternatives": alternatives,
        "complete": complete,
    }


def _command(command: dict[str, Any]) -> dict[str, Any]:
    """A game command as a client sends it (its seat comes from the token); the service's
    own commands as recorded (a claim's ``seat`` is the seat it claims)."""
    if command.get("type") in SERVICE_COMMANDS or command.get("type") == CREATE_GAME:
        return dict(command)
    return command_json(command)
