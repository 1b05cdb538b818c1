"""``GET /ops/audit``: what the periodic audit (``service.jobs.audit``) found (admin only)."""

from __future__ import annotations

from flask import Blueprint, Response

from service.api.background import audit_log
from service.api.context import caller_for
from service.api.http import json_response
from service.api.problems import ApiProblem, forbidden, unauthorized

blueprint = Blueprint("audit", __name__)


@blueprint.get("/ops/audit")
def get_audit() -> Response:
    caller = caller_for(None)
    if not caller.admin:
        if caller.is_spectator:
            raise unauthorized("the admin token is required")
        raise forbidden("only the admin token may read the audit")
    found = audit_log()
    if found is None:
        raise ApiProblem(
            503,
            "jobs-unavailable",
            "Background jobs unavailable",
            "the audit needs a queue Redis (RQ_REDIS_URL)",
        )
    return json_response(found.read())
