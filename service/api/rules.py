"""``/rules/<kind>``: the rules the engine follows, one anchor per rule id (``service.rules``),
for every game on offer (the registry, ``domain.games``)."""

from __future__ import annotations

from flask import Blueprint, Response

from service import rules
from service.api.problems import not_found

blueprint = Blueprint("rules", __name__)


@blueprint.get("/rules/<kind>")
def rules_page(kind: str) -> Response:
    if kind not in rules.kinds():
        raise not_found(f"no game of kind {kind!r}")
    response = Response(rules.page(kind), mimetype="text/html")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response
