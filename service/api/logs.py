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

The id and the line are the work of a WSGI middleware around the Flask app
(``RequestLog``), not of request hooks: it reads what it needs from the WSGI environ and
the response's status and headers, so that the line costs a dictionary and one JSON
encoding, not Flask's hook dispatch and a dozen context-local lookups; the formatter
(``JsonFormatter``) writes the request lines' fields as they are, without going through
every attribute of the record.

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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

from flask import Flask, has_request_context, request
from pythonjsonlogger.json import JsonFormatter as _LibraryJsonFormatter

REQUEST_LOGGER = "tigris.requests"
# The loggers whose records are written as JSON lines (the service's own).
SERVICE_LOGGERS = ("service", "tigris")
_HANDLER_MARK = "_tigris_json"
_CLIENT_ID = re.compile(r"^[!-~]{1,100}\Z")  # as service.api.http accepts it
_PARAMETER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


REQUEST_ID_KEY = "tigris.request_id"  # the request's id in its WSGI environ
_RULE_KEY = "tigris.url_rule"
_FIELDS = "tigris_request"  # the request line's fields on its log record


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record logged while a request is handled."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context() and not hasattr(record, "request_id"):
            record.request_id = request.environ.get(REQUEST_ID_KEY)
        return True


class JsonFormatter(_LibraryJsonFormatter):
    """python-json-logger's formatter, with a short way for the request lines: their fields
    come ready in one dictionary, written after time, level, logger and message."""

    def format(self, record: logging.LogRecord) -> str:
        fields = record.__dict__.get(_FIELDS)
        if fields is None or record.exc_info:
            return super().format(record)
        line = {
            "time": self.formatTime(record, self.datefmt),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **fields,
        }
        return self.serialize_log_record(line)


def configure_logging(level: str = "info") -> None:
    """A JSON handler on standard error for the service's loggers (once per process), which
    log from ``level`` (``TIGRIS_LOG_LEVEL``: ``warning`` leaves the request lines out)."""
    for name in SERVICE_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(level.upper())
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
        logger.propagate = False


@functools.lru_cache(maxsize=512)
def _template(rule: str) -> str:
    return _PARAMETER.sub(r"{\1}", rule)


class RequestLog:
    """WSGI middleware: gives every request its id (``X-Request-ID``, sent back) and, with
    ``request_lines``, logs its line once the application has handed over the response."""

    def __init__(self, app: WSGIApplication, *, request_lines: bool = True) -> None:
        self.app = app
        self.request_lines = request_lines
        self.log = logging.getLogger(REQUEST_LOGGER)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Any:
        started = time.perf_counter()
        given = environ.get("HTTP_X_REQUEST_ID")
        request_id = given if given and _CLIENT_ID.match(given) else os.urandom(16).hex()
        environ[REQUEST_ID_KEY] = request_id
        status: list[str] = []  # set once the application starts its response

        def start(code: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            status[:] = [code]
            if not any(name.lower() == "x-request-id" for name, _ in headers):
                headers.append(("X-Request-ID", request_id))
            # Flask's request is still current here (it is gone once the app returns).
            found = environ.get("werkzeug.request")
            rule = getattr(found, "url_rule", None)
            environ[_RULE_KEY] = "-" if rule is None else _template(rule.rule)
            return start_response(code, headers, exc_info)

        try:
            return self.app(environ, start)
        finally:
            # No line for a request the app never answered (its greenlet killed, the
            # worker aborting): there is no status to report.
            if self.request_lines and status:
                self._line(environ, request_id, status[0], started)

    def _line(self, environ: WSGIEnvironment, request_id: str, status: str, started: float) -> None:
        fields = {
            "request_id": request_id,
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get(_RULE_KEY, "-"),
            "status": int(status[:3]),
            "duration_ms": round((time.perf_counter() - started) * 1000, 3),
            "client": environ.get("REMOTE_ADDR"),
        }
        self.log.info("request", extra={_FIELDS: fields})


def install(app: Flask, *, request_lines: bool = True, level: str = "info") -> None:
    configure_logging(level)
    app.wsgi_app = RequestLog(app.wsgi_app, request_lines=request_lines)  # type: ignore[method-assign]
