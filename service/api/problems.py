"""One error body for everything: RFC 9457 problem details (``application/problem+json``).

Views raise :class:`ApiProblem`; the handlers here also translate the domain's and the
application service's typed errors, so no view needs a try/except and no stack trace
ever reaches a client.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Flask, Response, json, request
from marshmallow import ValidationError
from redis.exceptions import RedisClusterException
from werkzeug.exceptions import HTTPException

from domain.common.errors import FormatError, GameOver, NotAwaited, RulesError
from service.errors import (
    ConcurrencyError,
    GameNotFound,
    GameNotStarted,
    IdempotencyConflict,
    NotAllowedToAnswer,
    RevertNotAllowed,
    SeatNotFound,
    SeatNotOpen,
    StoreUnavailable,
    UndoConflict,
    UndoNotFound,
    VersionNotFound,
)
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


def _from_rules_error(exc: RulesError) -> ApiProblem:
    if isinstance(exc, GameOver):
        slug, title = "game-over", "Game over"
    elif isinstance(exc, NotAwaited):
        slug, title = "not-awaited", "Not awaited"
    else:
        slug, title = "illegal-command", "Illegal command"
    # rule_url: the rule's text in the rules served as documentation (service.rules)
    return conflict(slug, title, exc.message, rule=exc.rule, rule_url=rule_url(exc.rule))


def install(app: Flask) -> None:
    """Register the error handlers on ``app``."""

    @app.errorhandler(ApiProblem)
    def _problem(exc: ApiProblem) -> Response:
        return problem_response(exc)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        problem = _from_http_error(exc, app)
        response = problem_response(problem)
        for name, value in exc.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
        return response

    @app.errorhandler(ValidationError)
    def _invalid(exc: ValidationError) -> Response:
        errors = exc.messages if isinstance(exc.messages, dict) else {"_schema": exc.messages}
        field = _first_field(errors) or "body"
        return problem_response(
            ApiProblem(
                422,
                "invalid-request",
                "Invalid request",
                f"invalid field {field!r}" if field != "body" else "invalid body",
                field=field,
                errors=errors,
            )
        )

    @app.errorhandler(FormatError)
    def _format(exc: FormatError) -> Response:
        # The same fields as a body's invalid field: the path and, under it, the message.
        field = exc.field or "body"
        return problem_response(
            ApiProblem(
                422,
                "invalid-request",
                "Invalid request",
                exc.message,
                field=field,
                errors={field: [exc.message]},
            )
        )

    @app.errorhandler(RevertNotAllowed)
    def _revert(exc: RevertNotAllowed) -> Response:
        # A well-formed request whose target the game's history refuses: a conflict.
        return problem_response(conflict("undo-not-allowed", "Undo not allowed", exc.message))

    @app.errorhandler(UndoConflict)
    def _undo_conflict(exc: UndoConflict) -> Response:
        title = UNDO_CONFLICT_TITLES[exc.reason]
        return problem_response(conflict(exc.reason, title, exc.message))

    @app.errorhandler(UndoNotFound)
    def _no_undo(exc: UndoNotFound) -> Response:
        return problem_response(not_found(str(exc)))

    @app.errorhandler(NotAllowedToAnswer)
    def _own_request(exc: NotAllowedToAnswer) -> Response:
        return problem_response(forbidden(str(exc)))

    @app.errorhandler(RulesError)
    def _rules(exc: RulesError) -> Response:
        return problem_response(_from_rules_error(exc))

    @app.errorhandler(GameNotStarted)
    def _not_started(exc: GameNotStarted) -> Response:
        return problem_response(
            conflict(
                "game-not-started",
                "Game not started",
                str(exc),
                open_seats=list(exc.open_seats),
            )
        )

    @app.errorhandler(SeatNotOpen)
    def _seat_taken(exc: SeatNotOpen) -> Response:
        return problem_response(conflict("seat-not-open", "Seat not open", str(exc)))

    @app.errorhandler(SeatNotFound)
    def _no_seat(exc: SeatNotFound) -> Response:
        return problem_response(not_found(str(exc)))

    @app.errorhandler(GameNotFound)
    def _no_game(exc: GameNotFound) -> Response:
        return problem_response(not_found(f"no game {exc.game_id!r}"))

    @app.errorhandler(VersionNotFound)
    def _no_version(exc: VersionNotFound) -> Response:
        return problem_response(
            ApiProblem(404, "not-found", "Not found", str(exc), current_version=exc.current)
        )

    @app.errorhandler(ConcurrencyError)
    def _stale(exc: ConcurrencyError) -> Response:
        return problem_response(
            ApiProblem(
                412,
                "stale-version",
                "Precondition failed",
                f"the game is at version {exc.actual}, not {exc.expected}",
                current_version=exc.actual,
            )
        )

    @app.errorhandler(IdempotencyConflict)
    def _idem(exc: IdempotencyConflict) -> Response:
        return problem_response(
            ApiProblem(
                422,
                "idempotency-conflict",
                "Idempotency key reused",
                str(exc),
                field="Idempotency-Key",
            )
        )

    @app.errorhandler(StoreUnavailable)
    @app.errorhandler(redis.RedisError)
    def _down(exc: Exception) -> Response:
        log.warning("storage unavailable: %s", exc)
        return problem_response(
            ApiProblem(503, "unavailable", "Service unavailable", "the event store is unreachable")
        )

    @app.errorhandler(RedisClusterException)
    def _cluster_down(exc: RedisClusterException) -> Response:
        # Not a RedisError: the cluster client could not build a slot map (no node answers).
        if is_unavailable(exc):
            return _down(exc)
        return _bug(exc)

    @app.errorhandler(Exception)
    def _bug(exc: Exception) -> Response:
        # Logged in full for the operator; the client learns nothing of the internals.
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem_response(
            ApiProblem(500, "internal", "Internal server error", "an unexpected error occurred")
        )
