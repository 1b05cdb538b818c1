"""``/rules/<kind>``: the rules the engine follows, one anchor per rule id (``service.rules``),
for every game on offer (the registry, ``domain.games``)."""

from __future__ import annotations

from flask import Blueprint, Response

from service import rules
from service.api.declare import ok, operation, ref
from service.api.problems import not_found

blueprint = Blueprint("rules", __name__)


@blueprint.get("/rules/<kind>")
@operation(
    "getRules",
    tags=["rules"],
    summary=("A game's rules as the engine follows them (HTML, one anchor per rule id)."),
    security=[],
    path_parameters=[
        {
            "name": "kind",
            "in": "path",
            "required": True,
            "description": "The game's kind; every game on offer has its rules page.",
            "schema": ref("Kind"),
        }
    ],
    responses={
        200: ok(
            (
                "The rules page; `#<rule id>` (e.g. `#B-WAR-4` on "
                "`/rules/board`, `#C-WAR-3` on `/rules/cards`) is the rule's "
                "heading."
            ),
            {"type": "string"},
            media="text/html",
        )
    },
    problems=["RateLimited", "NotFound"],
)
def rules_page(kind: str) -> Response:
    if kind not in rules.kinds():
        raise not_found(f"no game of kind {kind!r}")
    response = Response(rules.page(kind), mimetype="text/html")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response
