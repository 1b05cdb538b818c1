"""A game's record (``GET /games/{id}/record``, JSON Lines) and games created from records
(``POST /games/import``, the admin's). The format: ``service.application.record``."""

from __future__ import annotations

import uuid

from flask import Blueprint, Response, request

from service.api.background import after_change
from service.api.context import caller_for, services
from service.api.games import created_seat_json
from service.api.http import json_response, viewer_etag
from service.api.presenters import game_json
from service.api.problems import ApiProblem, forbidden
from service.application.mapper import CommandMeta
from service.application.record import Disagreement, Incomplete

blueprint = Blueprint("records", __name__)

RECORD_MEDIA_TYPE = "application/jsonl"
# A record is far larger than a command: its own body limit (a 4,500-event game is ~2 MB).
IMPORT_MAX_BODY = 32 * 1024 * 1024


@blueprint.get("/games/<gid:game_id>/record")
def get_record(game_id: str) -> Response:
    caller = caller_for(game_id)
    exported = services().games.export_record(game_id, viewer=caller.seat, admin=caller.admin)
    response = Response(exported.body, mimetype=RECORD_MEDIA_TYPE)
    response.headers["ETag"] = f'"{viewer_etag(exported.game.version)}"'
    response.headers["Content-Disposition"] = f'attachment; filename="{game_id}.jsonl"'
    if not exported.complete:
        response.headers["Cache-Control"] = "private, no-store"
    return response


@blueprint.post("/games/import")
def import_game() -> Response:
    caller = caller_for(None)
    if not caller.admin:
        raise forbidden("only the admin token may import a game record")
    request.max_content_length = IMPORT_MAX_BODY
    data = request.get_data(cache=False)
    meta = CommandMeta(command_id=uuid.uuid4().hex, actor="admin", seat=None)
    try:
        created = services().games.import_record(data, meta)
    except Disagreement as exc:
        raise ApiProblem(
            422,
            "record-disagrees",
            "The record does not verify",
            exc.reason,
            version=exc.version,
        ) from None
    except Incomplete as exc:
        raise ApiProblem(422, "record-incomplete", "The record is redacted", str(exc)) from None
    game, tokens = created.game, created.tokens
    seats = [  # a bot's seat (no token), one still to claim as the record ends, or a token
        created_seat_json(seat, name, token, game.info.bots.get(seat))
        for seat, (name, token) in enumerate(zip(game.info.seat_names, tokens, strict=True))
    ]
    after_change(game)  # the bot seats it awaits move, as in any game
    response = json_response({"game": game_json(game), "seats": seats}, 201, version=game.version)
    response.headers["Location"] = f"/games/{game.game_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secrets
    return response
