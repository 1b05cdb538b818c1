"""``GET /ops/audit``: what the periodic audit (``service.application.audit``) found (admin
only)."""

from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, Response

from service.api.background import audit_log
from service.api.context import caller_for, services
from service.api.http import json_response
from service.api.problems import ApiProblem, forbidden, unauthorized
from service.application.audit import Audit, AuditForbidden, AuditUnavailable

blueprint = Blueprint("audit", __name__)


@blueprint.get("/ops/audit")
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
