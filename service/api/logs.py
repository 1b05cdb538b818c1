"""Structured logs: one JSON line per request, and every service log record as JSON.

Each request gets an id: the client's ``X-Request-ID`` when it is 1-100 printable ASCII
characters, else a new random one. It is sent back in the ``X-Request-ID`` response header,
is in the request's log line and in every other record logged while the request is handled
(an unhandled error, a storage outage), so that a client's report, the access line and the
error meet. (A command's events keep the client's ``X-Request-ID`` as their correlation id:
``service.api.http.request_id``.)

The request line (logger ``tigris.requests``, level INFO) holds ``request_id``, ``method``,
``path`` (the route's template, ``/games/{game_id}/commands``, so that lines group by
endpoint and no game id or token in a path is logged), ``status``, ``duration_ms`` (until
the response is handed to the server: for an event stream, until its head) and ``client``.
Records go to standard error through ``python-json-logger``.

Setting: ``TIGRIS_REQUEST_LOG`` (``on``; ``off`` leaves the request lines out, the JSON
format of the other records stays).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import sys
import time
import uuid
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, g, has_request_context, request
from pythonjsonlogger.json import JsonFormatter

REQUEST_LOGGER = "tigris.requests"
# The loggers whose records are written as JSON lines (the service's own).
SERVICE_LOGGERS = ("service", "tigris")
_HANDLER_MARK = "_tigris_json"
_CLIENT_ID = re.compile(r"^[!-~]{1,100}\Z")  # as service.api.http accepts it
_PARAMETER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record logged while a request is handled."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context() and not hasattr(record, "request_id"):
            record.request_id = g.get("request_id")
        return True


def configure_logging() -> None:
    """A JSON handler on standard error for the service's loggers (once per process)."""
    for name in SERVICE_LOGGERS:
        logger = logging.getLogger(name)
        if any(getattr(h, _HANDLER_MARK, False) for h in logger.handlers):
            continue
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(
            JsonFormatter(
                "{asctime}{levelname}{name}{message}",
                style="{",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            )
        )
        handler.addFilter(RequestIdFilter())
        setattr(handler, _HANDLER_MARK, True)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def path_template() -> str:
    """The matched route as an OpenAPI-style template; ``-`` when no route matched."""
    rule = request.url_rule
    if rule is None:
        return "-"
    return _template(rule.rule)


@functools.lru_cache(maxsize=512)
def _template(rule: str) -> str:
    return _PARAMETER.sub(r"{\1}", rule)


def request_lines_enabled(config: Mapping[str, Any]) -> bool:
    """``TIGRIS_REQUEST_LOG`` from the app's config, else the environment: ``off`` (or
    ``0``/``false``/``no``) leaves the request lines out."""
    raw = config.get("TIGRIS_REQUEST_LOG", os.environ.get("TIGRIS_REQUEST_LOG", "on"))
    return str(raw).strip().lower() not in ("off", "0", "false", "no")


def install(app: Flask, *, request_lines: bool = True) -> None:
    configure_logging()
    log = logging.getLogger(REQUEST_LOGGER)

    @app.before_request
    def _start() -> None:
        given = request.headers.get("X-Request-ID")
        g.request_id = given if given and _CLIENT_ID.match(given) else uuid.uuid4().hex
        g.request_started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        request_id = g.get("request_id")
        if request_id is None:  # before_request did not run (an error before it)
            request_id = uuid.uuid4().hex
        response.headers.setdefault("X-Request-ID", request_id)
        if request_lines:
            started = g.get("request_started")
            fields: dict[str, Any] = {
                "request_id": request_id,
                "method": request.method,
                "path": path_template(),
                "status": response.status_code,
                "duration_ms": None
                if started is None
                else round((time.perf_counter() - started) * 1000, 3),
                "client": request.remote_addr,
            }
            log.info("request", extra=fields)
        return response
