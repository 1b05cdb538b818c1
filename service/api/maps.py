"""A game's map: what a game begins with and never changes (the board game's size, rivers,
starting temples and treasures; the card game's columns and bridges), as the game's
registration describes it (``GameRules.setup_map``, the contract's ``GameMap``).

- ``GET /rules/<kind>/map``: for a kind and options (each option a query parameter,
  ``?open_scoring=true``; those left out take their defaults);
- ``GET /games/<id>/map``: for a game, with the options it was created with.

Both are the same for every caller (no token is read) and static for a kind and its
options: public, cacheable for a day, with an ETag that is a digest of the body (the same
map has the same ETag at either address) and answered 304 on ``If-None-Match``.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from flask import Blueprint, Response, request

from domain.common.codec import JSON
from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from domain.games import all_games
from service.api.context import services
from service.api.declare import ok, operation, ref
from service.api.http import CODINGS
from service.api.problems import bad_request, not_found

blueprint = Blueprint("maps", __name__)

MAX_AGE_S = 86_400  # a map never changes for its kind and options
_INTEGER = re.compile(r"-?(0|[1-9][0-9]{0,15})")


def query_options() -> dict[str, Any]:
    """The query string as game options: ``true``/``false`` a boolean, a canonical integer
    an integer, anything else the text itself (which the game's options then refuse). A
    parameter given twice is a 400."""
    options: dict[str, Any] = {}
    for name, values in request.args.lists():
        if len(values) > 1:
            raise bad_request(f"query parameter {name!r} is repeated", name)
        value = values[0]
        if value in ("true", "false"):
            options[name] = value == "true"
        elif _INTEGER.fullmatch(value):
            options[name] = int(value)
        else:
            options[name] = value
    return options


def _map_of(rules: GameRules[Any, Any, Any], options: dict[str, Any]) -> JSON:
    """The game's map for ``options``; bad options are the request's fault: a 400 naming
    the option."""
    try:
        return rules.setup_map(options)
    except FormatError as exc:
        raise bad_request(exc.message, exc.field or "options") from None


def _static(body: JSON) -> Response:
    """``body`` as a public, cacheable JSON answer whose ETag is a digest of it; a 304 when
    ``If-None-Match`` names that ETag (plain, or with the coding flask-compress appends)."""
    data = json.dumps(body, separators=(",", ":")).encode("utf-8")
    etag = "map-" + hashlib.sha256(data).hexdigest()[:20]
    held = request.if_none_match
    matched = next(
        (tag for tag in (etag, *(f"{etag}:{c}" for c in CODINGS)) if held.contains_weak(tag)),
        None,
    )
    if matched is not None:
        response = Response(status=304)
        response.headers["ETag"] = f'"{matched}"'
    else:
        response = Response(data, mimetype="application/json")
        response.headers["ETag"] = f'"{etag}"'
    response.headers["Cache-Control"] = f"public, max-age={MAX_AGE_S}"
    return response


_JSON_TYPES = {bool: "boolean", int: "integer", str: "string"}


def option_parameters() -> list[JSON]:
    """One query parameter per option of every game on offer (a generated client sends each
    as its own), typed as its default is, and saying which game's option it is."""
    out: list[JSON] = []
    for kind, rules in all_games().items():
        title = kind[:1].upper() + kind[1:]
        for name, default in rules.normalize_options({}).items():
            shown = json.dumps(default)
            out.append(
                {
                    "name": name,
                    "in": "query",
                    "description": f"A {kind} game option (`{title}Options`); {shown} if left out.",
                    "schema": {"type": _JSON_TYPES[type(default)]},
                }
            )
    return out


def _answers() -> dict[int, JSON]:
    headers = {"ETag": "MapETag", "Cache-Control": "PublicCache"}
    return {
        200: ok("The map.", "GameMap", headers=headers),
        304: ok("The map is the one `If-None-Match` names; no body.", headers=headers),
    }


_KIND_DESCRIPTION = """\
What a game of this kind and these options begins with and never changes (`GameMap`, by
`kind`): the board game's size (`rows`, `columns`), `rivers`, starting `temples`,
`treasures` and `border_treasures` (the special ones, taken first), and `monuments` with
their colours; the card game's `columns`, the `treasures` on top of them and the `bridges`
between them. Every square is `[row, col]`. A client draws the board from it rather than
keeping a copy. Needs no token; public and cacheable (its ETag is a digest of the body, the
same for the same map at `GET /games/{game_id}/map`).

The options are the game's options (`GameOptions`, by kind), each its own query parameter
(`?open_scoring=true`, `?trader_takes_one=true&allow_withdraw=true`): `true`/`false` for a
yes-or-no option, those left out take their defaults. An option of another kind's, an
unknown one, a value of the wrong type or a parameter given twice is a 400 naming it.
"""

_GAME_DESCRIPTION = """\
What the game began with and never changes (`GameMap`, by `kind`): the board's size,
rivers, starting temples and treasures (the border temples' special treasures among them)
and monuments; the card game's columns, their treasures and the bridge slots between them.
The same as `GET /rules/{kind}/map` with the game's `options`, ETag included. Needs no
token (none is read); public and cacheable.
"""


@blueprint.get("/rules/<kind>/map")
@operation(
    "getMap",
    tags=["rules"],
    summary="A game's map for a kind and options.",
    description=_KIND_DESCRIPTION,
    security=[],
    path_parameters=[
        {
            "name": "kind",
            "in": "path",
            "required": True,
            "description": "The game's kind.",
            "schema": ref("Kind"),
        }
    ],
    parameters=lambda: [*option_parameters(), "IfNoneMatchMap"],
    responses=_answers(),
    problems=["RateLimited", "BadRequest", "NotFound"],
)
def kind_map(kind: str) -> Response:
    try:
        rules = services().games.repository.rules(kind)
    except FormatError:
        raise not_found(f"no game of kind {kind!r}") from None
    return _static(_map_of(rules, query_options()))


@blueprint.get("/games/<gid:game_id>/map")
@operation(
    "getGameMap",
    tags=["views"],
    summary="The game's map, for the options it was created with.",
    description=_GAME_DESCRIPTION,
    security=[],
    parameters=["IfNoneMatchMap"],
    responses=_answers(),
    problems=["RateLimited", "NotFound", "Unavailable"],
)
def game_map(game_id: str) -> Response:
    games = services().games
    info = games.queries.game_info(game_id)  # a 404 for an unknown game
    rules = games.repository.rules(info.kind)
    return _static(rules.setup_map(info.options))
