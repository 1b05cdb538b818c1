"""A game's record (``GET /games/{id}/record``, JSON Lines) and games created from records
(``POST /games/import``, the admin's). The format: ``service.application.record``."""

from __future__ import annotations

from flask import Blueprint, Response, request

from service.api.context import caller_for, services
from service.api.declare import ok, operation, ref
from service.api.games import created_seat_json
from service.api.http import command_meta, json_response, viewer_etag
from service.api.presenters import game_json
from service.api.problems import ApiProblem, forbidden
from service.application.record import Disagreement, Incomplete

blueprint = Blueprint("records", __name__)

RECORD_MEDIA_TYPE = "application/jsonl"
# A record is far larger than a command: its own body limit (a 4,500-event game is ~2 MB).
IMPORT_MAX_BODY = 32 * 1024 * 1024


@blueprint.get("/games/<gid:game_id>/record")
@operation(
    "getRecord",
    tags=["records"],
    summary=("The game's record (JSON Lines), every event with its hash in the game's chain."),
    description=(
        "Line 1 is a `RecordHeader`, then one `RecordEvent` per event "
        "(versions 1, 2, ...),\n"
        "each line canonical JSON (sorted keys, no whitespace, UTF-8). "
        "Each event's `hash` is\n"
        "SHA-256 over the canonical form of `{prev, version, type, "
        "schema, data, meta, command}`\n"
        "(`prev`: the previous event's hash, or the header's `genesis` "
        "for the first), stored\n"
        'with the event when it was appended. Complete (`"complete": '
        "true`) for the admin and,\n"
        "once the game is over, for anyone; while it runs, as the "
        "caller may see the game (the\n"
        "seed and other seats' commands left out), with the stored "
        "hashes. Check a complete\n"
        "record offline with `python -m service verify RECORD`.\n"
    ),
    parameters=["PlayerSeat"],
    responses={
        200: ok(
            "The record.",
            {
                "type": "string",
                "format": "binary",
                "description": (
                    "JSON Lines: a `RecordHeader`, then `RecordEvent`s "
                    "(`contentSchema`: the lines as a sequence, the header first)."
                ),
                "contentSchema": {
                    "type": "array",
                    "items": {"anyOf": [ref("RecordHeader"), ref("RecordEvent")]},
                },
            },
            media="application/jsonl",
            headers={"ETag": "ETag"},
        )
    },
    problems=["RateLimited", "Unauthorized", "NotFound", "Unavailable", "BadRequest", "Forbidden"],
)
def get_record(game_id: str) -> Response:
    caller = caller_for(game_id)
    exported = services().games.archive.export(game_id, viewer=caller.seat, admin=caller.admin)
    response = Response(exported.body, mimetype=RECORD_MEDIA_TYPE)
    response.headers["ETag"] = f'"{viewer_etag(exported.game.version)}"'
    response.headers["Content-Disposition"] = f'attachment; filename="{game_id}.jsonl"'
    if not exported.complete:
        response.headers["Cache-Control"] = "private, no-store"
    return response


@blueprint.post("/games/import")
@operation(
    "importGame",
    tags=["records"],
    summary="Create a game from a complete record (admin token only).",
    description=(
        "The record is verified first (every hash, every event "
        "re-derived from its command);\n"
        "one that does not verify is a 422 whose `version` names the "
        "first version where it\n"
        "and the rules disagree (0: the header). The new game has a "
        "new id, its own hash chain\n"
        "and new seat tokens (shown once; none for a bot seat, which "
        "the record's header names\n"
        "and the new game keeps); it continues where the record ends.\n"
    ),
    request_body={
        "required": True,
        "content": {
            "application/jsonl": {
                "schema": {
                    "type": "string",
                    "format": "binary",
                    "description": (
                        "A record as `GET /games/{game_id}/record` gives it (JSON Lines)."
                    ),
                }
            }
        },
    },
    responses={
        201: ok("Created.", "GameCreated", headers={"ETag": "ETag", "Location": "Location"}),
        422: ok(
            ("The record does not verify (`version` names where) or is redacted."),
            "RecordProblem",
            media="application/problem+json",
        ),
    },
    problems=["RateLimited", "Unauthorized", "Forbidden", "TooLarge", "Unavailable"],
)
def import_game() -> Response:
    caller = caller_for(None)
    if not caller.admin:
        raise forbidden("only the admin token may import a game record")
    request.max_content_length = IMPORT_MAX_BODY
    data = request.get_data(cache=False)
    meta = command_meta("admin", None)
    try:
        created = services().games.archive.import_record(data, meta)
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
    response = json_response({"game": game_json(game), "seats": seats}, 201, version=game.version)
    response.headers["Location"] = f"/games/{game.game_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secrets
    return response
