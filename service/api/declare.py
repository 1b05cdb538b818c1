"""The HTTP contract, declared at the views: ``python -m service.contract`` writes
``openapi.yaml`` from these declarations (and the domain's generated components).

Every view of a blueprint in ``service.api.routes.BLUEPRINTS`` carries one
:func:`operation` decorator, placed between the route decorator and the function::

    @blueprint.get("/games/<gid:game_id>")
    @operation(
        "getGame",
        tags=["games"],
        summary="A game's metadata.",
        parameters=["IfNoneMatch"],
        responses={200: ok("The game.", "Game", headers={"ETag": "ETag"})},
        problems=["NotModified", "RateLimited", "Unauthorized", "NotFound", "Unavailable"],
    )
    def get_game(game_id: str) -> Response: ...

Names stand for components, as apispec resolves them: a string where a parameter, a
response, a header or a media type's ``schema`` goes names ``#/components/...`` of that
kind (:data:`PARAMETERS`, :data:`HEADERS`, ``service.api.shapes.SCHEMAS``, the generated
domain components); a marshmallow schema class as a request body's schema becomes a
component of its own (apispec's MarshmallowPlugin). ``problems`` names problem responses
(``service.api.problems.RESPONSES``),
each under its own status. The path and its path parameters come from the route: a
parameter named in :data:`PATH_PARAMETERS` is that component; any other is declared with
``path_parameters``. Everything else is the OpenAPI operation object's own keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from marshmallow import Schema

from domain.games import seat_range

JSON = dict[str, Any]


def seat_number(**more: Any) -> JSON:
    """A seat number's schema, bounded by the registered game with the most seats (a new
    dict each time: the document repeats it rather than sharing one YAML anchor)."""
    return {"type": "integer", "minimum": 0, "maximum": seat_range()[1] - 1, **more}


def seat_path(description: str) -> JSON:
    """The ``{seat}`` path parameter of a route, described for its operation."""
    return {
        "name": "seat",
        "in": "path",
        "required": True,
        "description": description,
        "schema": seat_number(),
    }


F = TypeVar("F", bound=Callable[..., Any])
ATTRIBUTE = "__openapi__"
# Request bodies' examples that name a game (no service module names one), by operationId:
# ``python -m service.contract`` adds them to the declared JSON request body.
EXAMPLES_PATH = Path(__file__).resolve().parent / "examples.json"

# Path parameters by the name the routes give them: the component each one is.
PATH_PARAMETERS = {"game_id": "GameId", "webhook_id": "WebhookId", "request_id": "RequestId"}

PARAMETERS: dict[str, JSON] = {
    "GameId": {
        "name": "game_id",
        "in": "path",
        "required": True,
        "schema": {"$ref": "#/components/schemas/GameId"},
    },
    "RequestId": {
        "name": "request_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
    },
    "WebhookId": {
        "name": "webhook_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
    },
    "IfMatch": {
        "name": "If-Match",
        "in": "header",
        "required": True,
        "description": "The game's current ETag exactly as sent (any viewer's, any coding, e.g. "
        '`"3-seat0"` or `"3-seat0:gzip"`), or the bare version (`"3"`, a quoted decimal '
        "without leading zeros), or `*`. Any other value matches no version (412), among "
        'them a weak `W/"3"`, an unquoted `3`, `"03"` and a list of ETags.',
        "schema": {"type": "string"},
    },
    "IdempotencyKey": {
        "name": "Idempotency-Key",
        "in": "header",
        "description": "A client-chosen key (1 to 100 printable ASCII characters) making a "
        "retry safe.",
        "schema": {"type": "string", "pattern": "^[!-~]{1,100}$"},
    },
    "XRequestId": {
        "name": "X-Request-ID",
        "in": "header",
        "description": "A client's request id (1 to 100 printable ASCII characters), the "
        "`correlation_id` of every event the request causes (a game's creation, a command, a "
        "claim, an undo request or answer).",
        "schema": {"type": "string", "pattern": "^[!-~]{1,100}$"},
    },
    "PlayerSeat": {
        "name": "seat",
        "in": "query",
        "required": False,
        "description": "With a player key holding several seats of this game: the seat to act "
        "or read as (one of the player's, else 403). Without it, a read of such a key sees "
        "what a spectator sees (never the union of its seats' views) and a write is a 400. "
        "With one seat the key acts as that seat. Ignored with any other token (but a value "
        "that is no seat number is a 400).",
        "schema": seat_number(),
    },
    "PreferMinimal": {
        "name": "Prefer",
        "in": "header",
        "required": False,
        "description": "`return=minimal` (RFC 7240): leave `next` and `legal` out of the "
        "answer (and spare the server their enumeration), for a client that learns what comes "
        "next another way (the event stream, webhooks). Without it, the answer of every write "
        "says what comes next.",
        "schema": {"type": "string", "example": "return=minimal"},
    },
    "PreferWrite": {
        "name": "Prefer",
        "in": "header",
        "required": False,
        "description": "RFC 7240 preferences, comma-separated. `return=minimal`: leave `next` "
        "and `legal` out of the answer (and spare the server their enumeration). `wait=N` "
        "(whole seconds): after the command is appended, hold the answer until one of the "
        "caller's seats is awaited again, the game is over, or N seconds passed (cut to the "
        "server's `TIGRIS_MAX_WAIT`, 60 by default); the answer then has the version, the "
        "events appended meanwhile as the caller may see them, and `next` and `legal` at that "
        "version, with `Preference-Applied: wait=N`. Without `Preference-Applied` the answer "
        "was not held (the server's wait slots were taken, or it is a replay). A `wait` that "
        "is no whole number from 0 to 3600 is a 400, and nothing is written.",
        "schema": {"type": "string", "example": "return=minimal"},
    },
    "AcceptLanguage": {
        "name": "Accept-Language",
        "in": "header",
        "required": False,
        "description": "The languages the client reads (RFC 9110 12.5.4), e.g. "
        "`de-AT, de;q=0.9, en;q=0.5`. The words of the answer (event descriptions, a refused "
        "move's rule, rule sentences) come in the best of `en`, `de`, `hu` and `it` it accepts "
        "(a range's primary language counts, `de-AT` is `de`), in English when it accepts none "
        "of them; `Content-Language` says which.",
        "schema": {"type": "string"},
    },
    "IfNoneMatch": {
        "name": "If-None-Match",
        "in": "header",
        "required": False,
        "description": 'The ETag (`"<version>-<viewer>"`, with `:<coding>` if it came '
        "compressed) the client holds, or a list of them, or `*`; when one is the ETag of the "
        "caller's own view at the game's version, plain or in any coding (weak comparison, so "
        '`W/"3-seat0"` matches too), the answer is 304 with no body. Another viewer\'s ETag, '
        'or a bare `"3"`, never matches.',
        "schema": {"type": "string"},
    },
    "IfNoneMatchMap": {
        "name": "If-None-Match",
        "in": "header",
        "required": False,
        "description": "The map's ETag the client holds (with `:<coding>` if it came "
        "compressed), or a list of them; when one matches (weak comparison), the answer is 304 "
        "with no body.",
        "schema": {"type": "string"},
    },
}

HEADERS: dict[str, JSON] = {
    "ETag": {
        "description": "The game's version and the viewer whose view the body is, quoted "
        '(`"12-seat0"`, `"12-spectator"`, `"12-admin"`), then the language of a body with '
        'words when it is not English (`"12-seat0-de"`), with the content-coding appended '
        'when the body is compressed (`"12-seat0:gzip"`).',
        "schema": {
            "type": "string",
            "pattern": '^"[0-9]+-(spectator|admin|seat[0-9]+)(-(de|hu|it))?'
            '(:(gzip|br|zstd|deflate))?"$',
        },
    },
    "MapETag": {
        "description": 'A digest of the map, quoted (`"map-…"`), with the content-coding '
        'appended when the body is compressed (`"map-…:gzip"`); the same map has the same ETag '
        "at either of its addresses.",
        "schema": {"type": "string", "pattern": '^"map-[0-9a-f]+(:(gzip|br|zstd|deflate))?"$'},
    },
    "PublicCache": {
        "description": "The same for every caller and never changing for its kind and options.",
        "schema": {"type": "string", "const": "public, max-age=86400"},
    },
    "ContentLanguage": {
        "description": "The language of the answer's words (`en`, `de`, `hu` or `it`), "
        "negotiated from `Accept-Language`; such answers also send `Vary` with "
        "`Accept-Language`.",
        "schema": {"type": "string", "enum": ["en", "de", "hu", "it"]},
    },
    "Location": {"description": "The URL of the created resource.", "schema": {"type": "string"}},
    "PrivateNoStore": {
        "description": "A caller's own resource, for no shared cache and no store.",
        "schema": {"type": "string", "const": "private, no-store"},
    },
}


def ref(name: str) -> JSON:
    """A ``$ref`` to the schema component ``name`` (where apispec takes no bare name)."""
    return {"$ref": f"#/components/schemas/{name}"}


def ok(
    description: str,
    schema: str | JSON | None = None,
    *,
    media: str = "application/json",
    headers: Mapping[str, str | JSON] | None = None,
    **more: Any,
) -> JSON:
    """A success response: its description, its body's schema (a component's name or a
    schema) in ``media``, its headers (by component name or in full), any other key
    (``links``…)."""
    out: JSON = {"description": description}
    if headers:
        out["headers"] = dict(headers)
    if schema is not None:
        out["content"] = {media: {"schema": schema}}
    out.update(more)
    return out


def body(schema: str | JSON | type[Schema], *, required: bool = True, **media: Any) -> JSON:
    """A JSON request body of ``schema`` (``examples``/``example`` beside it): a component's
    name, a JSON Schema, or the marshmallow schema the view loads it with (its component is
    then written from it, named after the class without ``Schema``)."""
    return {"required": required, "content": {"application/json": {"schema": schema, **media}}}


def query(schema: type[Schema]) -> JSON:
    """The query parameters that the marshmallow ``schema`` loads, one per field (apispec's
    MarshmallowPlugin writes them: type, bounds and default from the field, anything else
    from its ``metadata``)."""
    return {"in": "query", "schema": schema}


def operation(
    operation_id: str,
    *,
    tags: Sequence[str],
    summary: str,
    responses: Mapping[int, JSON],
    problems: Sequence[str] = (),
    description: str | None = None,
    parameters: Sequence[str | JSON] | Callable[[], Sequence[str | JSON]] = (),
    path_parameters: Sequence[str | JSON] = (),
    request_body: JSON | None = None,
    security: list[JSON] | None = None,
) -> Callable[[F], F]:
    """Declare the view's operation in the contract (see the module's doc). ``parameters``
    may be a function, called when the contract is rendered: for parameters that follow
    the games on offer then, not those of when the view was imported."""
    declared: JSON = {"tags": list(tags), "operationId": operation_id, "summary": summary}
    if description is not None:
        declared["description"] = description
    if security is not None:
        declared["security"] = security
    if callable(parameters):
        declared["parameters"] = parameters
    elif parameters:
        declared["parameters"] = list(parameters)
    if request_body is not None:
        declared["requestBody"] = request_body
    declared["responses"] = {str(status): reply for status, reply in responses.items()}

    def attach(view: F) -> F:
        setattr(
            view,
            ATTRIBUTE,
            {"operation": declared, "problems": tuple(problems), "path": list(path_parameters)},
        )
        return view

    return attach


def declared(view: Callable[..., Any]) -> JSON | None:
    """What :func:`operation` attached to ``view``, if anything (parameters given as a
    function are asked for now)."""
    found: JSON | None = getattr(view, ATTRIBUTE, None)
    if found is not None and callable(parameters := found["operation"].get("parameters")):
        found = {**found, "operation": {**found["operation"], "parameters": list(parameters())}}
    return found


# The problems of a view's declaration that several views share, named once.

# A read of one game as the caller's seat may see it, answered 304 to a matching ETag.
GAME_READ_PROBLEMS: tuple[str, ...] = (
    "NotModified",
    "RateLimited",
    "Unauthorized",
    "NotFound",
    "Unavailable",
    "BadRequest",
    "Forbidden",
)

# A write with a JSON body and no If-Match (a webhook, an invitation, a claim by code).
BODY_WRITE_PROBLEMS: tuple[str, ...] = (
    "RateLimited",
    "BadRequest",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Conflict",
    "TooLarge",
    "UnsupportedMediaType",
    "Unprocessable",
    "Unavailable",
)

# A seat's write to one game with neither a body nor If-Match (leave a seat, ask a rematch).
BODILESS_WRITE_PROBLEMS: tuple[str, ...] = (
    "RateLimited",
    "BadRequest",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Conflict",
    "Unavailable",
)

# A seat's write to one game, with If-Match (required) and a JSON body.
GAME_WRITE_PROBLEMS: tuple[str, ...] = (
    "RateLimited",
    "BadRequest",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Conflict",
    "PreconditionFailed",
    "TooLarge",
    "UnsupportedMediaType",
    "Unprocessable",
    "PreconditionRequired",
    "Unavailable",
)


# OpenAPI links: an answer's value a later operation takes, e.g. the new ETag as If-Match.
ETAG_AS_IF_MATCH = {"header.If-Match": "$response.header.ETag"}


def links(game_id: str, *operations: str | tuple[str, dict[str, str]]) -> JSON:
    """Links from an answer to the operations named (``operationId``, or one with more
    parameters), each given the game's id from ``game_id`` (a runtime expression)."""
    found: JSON = {}
    for operation in operations:
        operation_id, more = (operation, {}) if isinstance(operation, str) else operation
        found[operation_id[:1].upper() + operation_id[1:]] = {
            "operationId": operation_id,
            "parameters": {"game_id": game_id, **more},
        }
    return found
