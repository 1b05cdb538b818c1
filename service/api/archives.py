"""The archive tier for the admin (``service.application.archive_tier``):
``POST /ops/games/{game_id}/archive`` moves a game into the archive now (whatever its
retention; the sweep does it for games past retention), ``POST
/ops/games/{game_id}/rehydrate`` brings an archived game back into Redis (writable again:
a dispute that needs an undo), kept in the game's info (``rehydrations``: when, by which
request, from which object) and logged."""

from __future__ import annotations

import logging

from flask import Blueprint, Response, request

from service.api.context import caller_for, services
from service.api.declare import ok, operation
from service.api.http import json_response
from service.api.logs import REQUEST_ID_KEY
from service.api.problems import ApiProblem, forbidden, unauthorized
from service.application.archive_tier import Archiver

blueprint = Blueprint("archives", __name__)

log = logging.getLogger("tigris.archive")


def _archiver() -> Archiver:
    """The archiver, for the admin only: asked before the game is looked up, so that no
    caller but the admin learns whether a game exists (401 without a token, else 403)."""
    try:
        caller = caller_for(None)
    except ApiProblem as problem:
        if problem.status != 401:
            raise
        caller = None  # a token, and not the admin's
    if caller is not None and caller.is_spectator:
        raise unauthorized("the admin token is required to move games between the tiers")
    if caller is None or not caller.admin:
        raise forbidden("only the admin token may move games between the tiers")
    archiver = services().games.archiver
    if archiver is None:
        raise ApiProblem(
            409, "archive-off", "No archive tier", "the archive tier is off on this service"
        )
    return archiver


@blueprint.post("/ops/games/<gid:game_id>/archive")
@operation(
    "archiveGame",
    tags=["operations"],
    summary="Move a game into the archive tier now (admin token only).",
    description=(
        "The periodic sweep moves finished games past `TIGRIS_ARCHIVE_RETENTION_S` (and\n"
        "abandoned ones) into the archive tier; this moves one now, whatever its age. The\n"
        "game's events are written as one immutable, compressed object, read back and\n"
        "verified (it must refold to the very events stored) before anything leaves Redis.\n"
        "An archived game answers every read as before; commands to it are refused (409\n"
        "`game-archived`). `outcome`: `archived`, `already` (it was), `moved` (it changed\n"
        "meanwhile: try again).\n"
    ),
    security=[{"bearerAuth": []}],
    responses={200: ok("What was done.", "ArchiveOutcome")},
    problems=["RateLimited", "Unauthorized", "Forbidden", "NotFound", "Conflict", "Unavailable"],
)
def archive_game(game_id: str) -> Response:
    outcome = _archiver().archive(game_id, force=True)
    log.warning("admin archived game %s: %s", game_id, outcome.outcome)
    return json_response(
        {
            "game_id": game_id,
            "outcome": outcome.outcome,
            "object": outcome.key,
            "bytes": outcome.size,
            "events": outcome.events,
        }
    )


@blueprint.post("/ops/games/<gid:game_id>/rehydrate")
@operation(
    "rehydrateGame",
    tags=["operations"],
    summary="Bring an archived game back into Redis, writable again (admin token only).",
    description=(
        "For a dispute that needs an undo: the game's events are stored in Redis again as\n"
        "they were, and it accepts commands. Audited: the game's info keeps when, by which\n"
        "request and from which archive object (the object itself stays). `outcome`:\n"
        "`rehydrated`, or `not-archived` (nothing done).\n"
    ),
    security=[{"bearerAuth": []}],
    responses={200: ok("What was done.", "Rehydration")},
    problems=["RateLimited", "Unauthorized", "Forbidden", "NotFound", "Conflict", "Unavailable"],
)
def rehydrate_game(game_id: str) -> Response:
    request_id = str(request.environ.get(REQUEST_ID_KEY) or "")
    done, record = _archiver().rehydrate(game_id, by=f"admin request {request_id}")
    log.warning("admin rehydrated game %s (request %s): %s", game_id, request_id, done)
    return json_response(
        {
            "game_id": game_id,
            "outcome": "rehydrated" if done else "not-archived",
            "version": record.version,
        }
    )
