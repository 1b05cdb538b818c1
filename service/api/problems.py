"""One error body for everything: RFC 9457 problem details (``application/problem+json``).

Views raise :class:`ApiProblem`; the handlers here also translate the domain's and the
application service's typed errors, so no view needs a try/except and no stack trace
ever reaches a client.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

import redis
from flask import Flask, Response, current_app, json, request
from marshmallow import ValidationError
from redis.exceptions import RedisClusterException
from werkzeug.exceptions import HTTPException

from domain.common.errors import FormatError, GameOver, NotAwaited, RulesError
from service.api.language import problem_words
from service.errors import (
    ConcurrencyError,
    GameAlreadyStarted,
    GameArchived,
    GameNotFound,
    GameNotOver,
    GameNotStarted,
    IdempotencyConflict,
    InvitationNotFound,
    NotAllowedToAnswer,
    NotInvited,
    NotInviter,
    RevertNotAllowed,
    SeatHasResigned,
    SeatNotFound,
    SeatNotOpen,
    SeatNotTaken,
    SeatReservedForAnother,
    StoreUnavailable,
    UndoConflict,
    UndoNotFound,
    VersionNotFound,
)
from service.i18n.describe import refusal
from service.rules import rule_url
from service.store.redis_streams import is_unavailable

PROBLEM_MEDIA_TYPE = "application/problem+json"
# The title of each problem type of a refused undo request or answer (``UndoConflict``).
UNDO_CONFLICT_TITLES = {
    "game-over": "Game over",
    "undo-pending": "Undo pending",
    "undo-closed": "Undo request closed",
    "undo-answered": "Already answered",
}
log = logging.getLogger(__name__)


class ApiProblem(Exception):
    """An error answer: HTTP status, a problem-type slug, a title and details."""

    def __init__(
        self,
        status: int,
        slug: str,
        title: str,
        detail: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail or title)
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


def unauthorized(detail: str) -> ApiProblem:
    return ApiProblem(
        401,
        "unauthorized",
        "Unauthorized",
        detail,
        headers={"WWW-Authenticate": 'Bearer realm="tigris"'},
    )


def forbidden(detail: str) -> ApiProblem:
    return ApiProblem(403, "forbidden", "Forbidden", detail)


def not_found(detail: str) -> ApiProblem:
    return ApiProblem(404, "not-found", "Not found", detail)


def bad_request(detail: str, field: str | None = None) -> ApiProblem:
    return ApiProblem(400, "bad-request", "Bad request", detail, field=field)


def conflict(slug: str, title: str, detail: str, **extra: Any) -> ApiProblem:
    return ApiProblem(409, slug, title, detail, **extra)


def problem_response(problem: ApiProblem) -> Response:
    body: dict[str, Any] = {
        "type": f"/problems/{problem.slug}",
        "title": problem.title,
        "status": problem.status,
    }
    body["detail"] = problem.detail or problem.title
    body["instance"] = request.path
    body.update({k: v for k, v in problem.extra.items() if v is not None})
    response = Response(json.dumps(body), status=problem.status, mimetype=PROBLEM_MEDIA_TYPE)
    for name, value in problem.headers.items():
        response.headers[name] = value
    return response


def _first_field(errors: Any, prefix: str = "") -> str | None:
    """The path of the first offending field in marshmallow's error dict, written as the
    domain's codec writes it: ``options.x``, ``seats[1]``."""
    if isinstance(errors, dict) and errors:
        key = next(iter(errors))
        if isinstance(key, int):
            path = f"{prefix}[{key}]"
        else:
            path = f"{prefix}.{key}" if prefix else str(key)
        if key == "_schema":
            return prefix or None
        return _first_field(errors[key], path) or path
    return None


def _from_http_error(exc: HTTPException, app: Flask) -> ApiProblem:
    """Our own problem (type, title, detail) for an error the framework met before a view
    (no route, wrong method, a body over the limit, ...): never the framework's text."""
    code = exc.code or 500
    if code == 404:
        return not_found(f"no resource at {request.path}")
    if code == 405:
        return ApiProblem(
            405,
            "method-not-allowed",
            "Method not allowed",
            f"{request.method} is not allowed on {request.path}",
        )
    if code == 413:
        limit = app.config.get("MAX_CONTENT_LENGTH")
        return ApiProblem(
            413,
            "too-large",
            "Request body too large",
            f"the body exceeds the limit of {limit} bytes" if limit else "the body is too large",
        )
    if code == 400:
        return bad_request("the request is malformed", "body")
    slug = exc.name.lower().replace(" ", "-").replace("'", "")
    return ApiProblem(code, slug, exc.name, f"{exc.name} ({code})")


@dataclass(frozen=True)
class Problem:
    """How an exception type is answered: its status, problem-type slug and title, the
    detail (from the exception) and any extra members. ``by_reason``: slug -> title when
    the exception's ``reason`` is the slug (``UndoConflict``)."""

    status: int
    slug: str
    title: str
    detail: Callable[[Any], str] = str
    extra: Callable[[Any], dict[str, Any]] = lambda exc: {}
    by_reason: Mapping[str, str] | None = None


def _rule(exc: RulesError) -> dict[str, Any]:
    # rule_url: the rule's text in the rules served as documentation (service.rules);
    # description: the rule in one sentence, in the language the client asked for
    return {
        "rule": exc.rule,
        "rule_url": rule_url(exc.rule),
        "description": refusal(exc.rule, problem_words()),
    }


def _invalid_field(exc: ValidationError) -> dict[str, Any]:
    errors = exc.messages if isinstance(exc.messages, dict) else {"_schema": exc.messages}
    return {"field": _first_field(errors) or "body", "errors": errors}


def _invalid_detail(exc: ValidationError) -> str:
    field = _invalid_field(exc)["field"]
    return f"invalid field {field!r}" if field != "body" else "invalid body"


def _format_field(exc: FormatError) -> dict[str, Any]:
    # The same fields as a body's invalid field: the path and, under it, the message.
    field = exc.field or "body"
    return {"field": field, "errors": {field: [exc.message]}}


_UNAVAILABLE = Problem(
    503, "unavailable", "Service unavailable", lambda exc: "the event store is unreachable"
)

# Every exception a view may let through, by type, and its problem (the most specific type
# in an exception's MRO wins, as in Flask). ``ApiProblem`` carries its own; a framework
# error (``HTTPException``) becomes one by ``_from_http_error``; anything else is a 500.
PROBLEMS: dict[type[Exception], Problem] = {
    ValidationError: Problem(
        422, "invalid-request", "Invalid request", _invalid_detail, _invalid_field
    ),
    FormatError: Problem(
        422, "invalid-request", "Invalid request", lambda exc: exc.message, _format_field
    ),
    # A well-formed request whose target the game's history refuses: a conflict.
    RevertNotAllowed: Problem(409, "undo-not-allowed", "Undo not allowed", lambda e: e.message),
    UndoConflict: Problem(
        409,
        "undo-conflict",
        "Undo conflict",
        lambda exc: exc.message,
        by_reason=UNDO_CONFLICT_TITLES,
    ),
    UndoNotFound: Problem(404, "not-found", "Not found"),
    NotAllowedToAnswer: Problem(403, "forbidden", "Forbidden"),
    GameOver: Problem(409, "game-over", "Game over", lambda exc: exc.message, _rule),
    NotAwaited: Problem(409, "not-awaited", "Not awaited", lambda exc: exc.message, _rule),
    RulesError: Problem(409, "illegal-command", "Illegal command", lambda e: e.message, _rule),
    GameNotStarted: Problem(
        409,
        "game-not-started",
        "Game not started",
        extra=lambda exc: {"open_seats": list(exc.open_seats)},
    ),
    SeatNotOpen: Problem(409, "seat-not-open", "Seat not open"),
    GameAlreadyStarted: Problem(
        409, "game-started", "Game started", extra=lambda exc: {"seat": exc.seat}
    ),
    SeatNotTaken: Problem(409, "seat-not-taken", "Seat not taken"),
    GameNotOver: Problem(409, "game-not-over", "Game not over"),
    SeatReservedForAnother: Problem(
        409, "seat-reserved", "Seat reserved", extra=lambda exc: {"seat": exc.seat}
    ),
    InvitationNotFound: Problem(404, "invitation-not-found", "Invitation not found"),
    NotInvited: Problem(403, "not-invited", "Not invited"),
    NotInviter: Problem(403, "not-inviter", "Not the inviter"),
    SeatHasResigned: Problem(
        409, "seat-resigned", "Seat resigned", extra=lambda exc: {"seat": exc.seat}
    ),
    GameArchived: Problem(
        409,
        "game-archived",
        "Game archived",
        lambda exc: f"{exc}; its reads answer as before (an admin may bring it back)",
    ),
    SeatNotFound: Problem(404, "not-found", "Not found"),
    GameNotFound: Problem(404, "not-found", "Not found", lambda exc: f"no game {exc.game_id!r}"),
    VersionNotFound: Problem(
        404, "not-found", "Not found", extra=lambda exc: {"current_version": exc.current}
    ),
    ConcurrencyError: Problem(
        412,
        "stale-version",
        "Precondition failed",
        lambda exc: f"the game is at version {exc.actual}, not {exc.expected}",
        lambda exc: {"current_version": exc.actual},
    ),
    IdempotencyConflict: Problem(
        422,
        "idempotency-conflict",
        "Idempotency key reused",
        extra=lambda exc: {"field": "Idempotency-Key"},
    ),
    StoreUnavailable: _UNAVAILABLE,
    redis.RedisError: _UNAVAILABLE,
    Exception: Problem(
        500, "internal", "Internal server error", lambda exc: "an unexpected error occurred"
    ),
}


def problem_of(exc: Exception) -> ApiProblem:
    """The problem answering ``exc``: its own (``ApiProblem``), a framework error's, or the
    first row of :data:`PROBLEMS` along its type's MRO."""
    if isinstance(exc, ApiProblem):
        return exc
    if isinstance(exc, HTTPException):
        return _from_http_error(exc, current_app)
    if isinstance(exc, RedisClusterException) and is_unavailable(exc):
        # Not a RedisError: the cluster client could not build a slot map (no node answers).
        row = _UNAVAILABLE
    else:
        row = next(PROBLEMS[t] for t in type(exc).__mro__ if t in PROBLEMS)
    if row is _UNAVAILABLE:
        log.warning("storage unavailable: %s", exc)
    elif row.status == 500:
        # Logged in full for the operator; the client learns nothing of the internals.
        log.exception("unhandled error on %s %s", request.method, request.path)
    slug, title = row.slug, row.title
    if row.by_reason is not None:
        slug = exc.reason  # type: ignore[attr-defined]
        title = row.by_reason[slug]
    return ApiProblem(row.status, slug, title, row.detail(exc), **row.extra(exc))


def _answer(exc: Exception) -> Response:
    problem = problem_of(exc)
    response = problem_response(problem)
    if isinstance(exc, HTTPException):
        for name, value in exc.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
    return response


def install(app: Flask) -> None:
    """One error handler, for every exception type the table and ``problem_of`` answer."""
    for exc_type in (ApiProblem, HTTPException, RedisClusterException, *PROBLEMS):
        app.register_error_handler(exc_type, _answer)


@dataclass(frozen=True)
class ProblemResponse:
    """A problem response of the contract: its status, description, headers, an example
    body; ``body=False``: no body (``NotModified``)."""

    status: int
    description: str
    headers: dict[str, Any] = dataclass_field(default_factory=dict)
    example: dict[str, Any] | None = None
    body: bool = True


# The problem responses of the contract, by name (operations list them by name, in
# ``service.api.declare.operation``'s ``problems``): ``python -m service.contract`` writes
# them as ``components.responses``, each an ``application/problem+json`` body of the
# ``Problem`` schema, its description naming the problem types of its status that
# :data:`PROBLEMS` answers exceptions with.
RESPONSES: dict[str, ProblemResponse] = {
    "NotModified": ProblemResponse(
        304,
        (
            "The game is still at the version `If-None-Match` names, and "
            "the ETag is the caller's own view's; no body. The ETag is the "
            "one that matched."
        ),
        headers={"ETag": "ETag"},
        body=False,
    ),
    "BadRequest": ProblemResponse(
        400,
        (
            "Malformed request (unreadable JSON, a key repeated in one "
            "object, bad query or header); `field` names it."
        ),
    ),
    "Unauthorized": ProblemResponse(
        401,
        "Missing or unknown token where one is required.",
        headers={"WWW-Authenticate": {"schema": {"type": "string"}}},
    ),
    "Forbidden": ProblemResponse(
        403,
        (
            "The token may not do this (another seat, a spectator, a seed without admin "
            "token, a seat the player key does not hold)."
        ),
    ),
    "NotFound": ProblemResponse(
        404,
        "Unknown game, version or undo request.",
    ),
    "Conflict": ProblemResponse(
        409,
        (
            "The rules refuse the command (`rule` names the rule id and `description` states "
            "the\n"
            "rule in one sentence in the negotiated language, given by `Content-Language`; "
            "types\n"
            "`illegal-command`, `not-awaited`, `game-over`), or the resource is not in a "
            "state that allows it\n"
            "(`game-not-over`, `undo-not-allowed`, `undo-closed`, "
            "`game-not-started` with\n"
            "`open_seats` while seats wait to be claimed, `seat-not-open` "
            "for a claim of a seat\n"
            "that is named or claimed already, `seat-resigned` for a command from a seat that\n"
            "resigned: the service plays it now, `game-started` or `seat-not-taken` for a seat\n"
            "leaving a game that started, or a seat nobody holds, `seat-reserved` for a claim\n"
            "of a seat reserved for an invited player), or a limit is reached "
            "(`too-many-webhooks`, with\n"
            "`scope` `game` or `token` and its `limit`).\n"
        ),
        example={
            "type": "/problems/illegal-command",
            "title": "Illegal command",
            "status": 409,
            "detail": "a farmer must be placed next to a temple",
            "rule": "B-LEADER-2",
            "description": "A leader must be placed next to a temple.",
        },
        headers={"Content-Language": "ContentLanguage"},
    ),
    "PreconditionFailed": ProblemResponse(
        412,
        ("`If-Match` does not match the current version (stale); `current_version` tells it."),
    ),
    "PreconditionRequired": ProblemResponse(
        428,
        "`If-Match` is required.",
    ),
    "TooLarge": ProblemResponse(
        413,
        "The request body exceeds the size limit.",
    ),
    "UnsupportedMediaType": ProblemResponse(
        415,
        "The body must be `application/json`.",
    ),
    "Unprocessable": ProblemResponse(
        422,
        (
            "Well-formed JSON that is not a valid request (bad field or "
            "value); `field` and `errors` name it."
        ),
    ),
    "Unavailable": ProblemResponse(
        503,
        (
            "The event store (Redis) is unreachable or did not answer; "
            "retry later. A command in\n"
            "flight may or may not have been stored: retry it with the "
            "same `Idempotency-Key`.\n"
        ),
    ),
    "RateLimited": ProblemResponse(
        429,
        (
            "The caller is over a rate limit: its token's "
            "(`TIGRIS_RATE_LIMIT_TOKEN`) or its client\n"
            "address's (`TIGRIS_RATE_LIMIT_CLIENT`); `limit` gives it. "
            "Nothing was done; retry after\n"
            "`Retry-After` seconds. Any operation but `/healthz`, "
            "`/readyz` and `/metrics` may\n"
            "answer so.\n"
        ),
        headers={"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
    ),
    "TooManyStreams": ProblemResponse(
        429,
        (
            "This client address (or this game) has as many open event "
            "streams on this server process\n"
            "as allowed (`TIGRIS_STREAMS_PER_CLIENT`, "
            "`TIGRIS_STREAMS_PER_GAME`); `limit` gives the\n"
            "limit. Close a stream or retry after `Retry-After` seconds. "
            "Or the caller is over a\n"
            "rate limit (type `/problems/rate-limited`, see "
            "`RateLimited`).\n"
        ),
        headers={"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
    ),
    "StreamsUnavailable": ProblemResponse(
        503,
        (
            "The server process holds as many open event streams as it "
            "serves (`TIGRIS_STREAMS_MAX`,\n"
            "with `Retry-After`), or the event store is unreachable; retry "
            "later.\n"
        ),
        headers={"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
    ),
}
