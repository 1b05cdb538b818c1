"""``GET /ops/audit``: what the periodic audit (``service.application.audit``) found (admin
only)."""

from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, Response

from service.api.background import audit_log
from service.api.context import caller_for, services
from service.api.declare import ok, operation
from service.api.http import json_response
from service.api.problems import ApiProblem, forbidden, unauthorized
from service.application.audit import Audit, AuditForbidden, AuditUnavailable

blueprint = Blueprint("audit", __name__)


@blueprint.get("/ops/audit")
@operation(
    "getAudit",
    tags=["operations"],
    summary="What the periodic audit found (admin token only).",
    description=(
        "A background job folds every active game from its stream "
        "every `TIGRIS_AUDIT_S`\n"
        "seconds and compares the fold with the game's snapshots, the "
        "state loaded from its\n"
        "latest snapshot, and its stored status and version. Counts "
        "since the start, the last\n"
        "run, and the last 100 mismatches (each with its game and "
        "version).\n"
    ),
    security=[{"bearerAuth": []}],
    responses={200: ok("The audit's counters.", "Audit")},
    problems=["RateLimited", "Unauthorized", "Forbidden", "Unavailable"],
)
def get_audit() -> Response:
    caller = caller_for(None)
    if caller.is_spectator:
        raise unauthorized("the admin token is required")
    try:
        summary = Audit(services().games, audit_log()).report(admin=caller.admin)
    except AuditForbidden as exc:
        raise forbidden(str(exc)) from None
    except AuditUnavailable as exc:
        raise ApiProblem(503, "jobs-unavailable", "Background jobs unavailable", str(exc)) from None
    return json_response({**asdict(summary), "recent": list(summary.recent)})
