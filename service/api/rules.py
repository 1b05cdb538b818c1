"""``/rules/board`` and ``/rules/cards``: the rules the engine follows, one anchor per rule id
(``service.rules``)."""

from __future__ import annotations

from flask import Blueprint, Response

from service import rules

blueprint = Blueprint("rules", __name__)


def _page(kind: str) -> Response:
    response = Response(rules.page(kind), mimetype="text/html")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@blueprint.get("/rules/board")
def board_rules() -> Response:
    return _page("board")


@blueprint.get("/rules/cards")
def cards_rules() -> Response:
    return _page("cards")
