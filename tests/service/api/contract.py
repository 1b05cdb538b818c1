"""The contract: every response the tests receive from the service is checked against
openapi.yaml (the operation exists, the status code is documented, headers, content type
and body match the documented schema), by schemathesis' response-conformance checks, the
same that the fuzzing run (test_schemathesis.py) applies.

It is wired where the tests make their clients (``install`` runs for the whole session,
from ``tests/conftest.py``):

- Flask's test client: every app's ``test_client()`` is a :class:`ContractClient`;
- ``requests`` (a ``response`` hook in every session): answers of the services the tests
  start (``service_env`` registers each one's base URL with :func:`serve`);
- ``httpx`` (an ``event_hooks`` response hook, :func:`httpx_hooks`): the generated client.

A test that means to get an answer the contract does not describe says so around the
request: ``with off_contract("why"):`` (and fails if nothing off-contract came back).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import requests
import requests.hooks
import requests.sessions
import schemathesis
from flask import Flask
from flask.testing import FlaskClient
from schemathesis.core.transport import Response as SchemathesisResponse
from werkzeug.test import TestResponse

SPEC_PATH = Path(__file__).resolve().parents[3] / "openapi.yaml"
# The Swagger UI page, the web client: their assets (``/play`` itself, or under ``/play/``:
# ``/players`` is an API resource like any other).
UNDOCUMENTED_PREFIXES = ("/docs", "/play/")
UNDOCUMENTED_PATHS = frozenset({"/docs", "/play"})


def undocumented(path: str) -> bool:
    return path in UNDOCUMENTED_PATHS or path.startswith(UNDOCUMENTED_PREFIXES)


_SERVICES: set[str] = set()  # base URLs (scheme://host:port) of the services tests started
_SERVICES_LOCK = threading.Lock()
_ALLOWED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "off_contract", default=None
)


class OffContract(AssertionError):
    """A response the contract does not describe."""


@cache
def spec() -> Any:
    return schemathesis.openapi.from_path(str(SPEC_PATH))


def _check(method: str, path: str, status: int, response: Any, schema: Any = None) -> None:
    if schema is None:
        schema = spec()
    operation = schema.find_operation_by_path(method, path)
    if operation is None:
        # An undocumented route must not exist: only 404 (no such path) or 405 (no such method).
        if status not in {404, 405}:
            raise OffContract(f"{method} {path} is not in openapi.yaml (answered {status})")
        return
    if operation.responses.find_by_status_code(status) is None:
        raise OffContract(f"{method} {path} answered {status}, undocumented in openapi.yaml")
    if response is None:  # a stream: its status and route only
        return
    try:
        schema.validate_response(operation, SchemathesisResponse.from_any(response))
    except AssertionError:  # schemathesis' Failure
        raise
    except BaseExceptionGroup as group:  # schemathesis' FailureGroup: several failures
        details = "; ".join(str(error) for error in group.exceptions)
        raise OffContract(f"{method} {path} ({status}): {details}") from group


def check_response(
    method: str, path: str, response: Any, *, stream: bool = False, schema: Any = None
) -> None:
    """Check one answer of the service (a Flask, requests or httpx response) against the
    contract (``schema``: a loaded spec; default: ``openapi.yaml``); inside
    :func:`off_contract`, a mismatch is noted instead of raised."""
    method = method.upper()
    if undocumented(path) or method in {"HEAD", "OPTIONS"}:
        return
    status = int(response.status_code)
    try:
        _check(method, path, status, None if stream else response, schema)
    except AssertionError as error:
        allowed = _ALLOWED.get()
        if allowed is None:
            raise
        allowed.append(str(error))


@contextmanager
def off_contract(reason: str) -> Iterator[list[str]]:
    """Within the block, answers the contract does not describe are expected (``reason``
    says why): noted, not raised. The block must receive at least one."""
    assert reason.strip(), "say why the answer is off-contract"
    noted: list[str] = []
    token = _ALLOWED.set(noted)
    try:
        yield noted
    finally:
        _ALLOWED.reset(token)
    assert noted, f"off_contract({reason!r}) got no off-contract answer: drop the marker"


def _is_stream(content_type: str | None) -> bool:
    return (content_type or "").split(";")[0].strip() == "text/event-stream"


class ContractClient(FlaskClient):
    """A Flask test client that checks every response against the contract (``contract``:
    a loaded spec; default: ``openapi.yaml``)."""

    contract: Any = None

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        request = response.request
        streamed = response.is_streamed and _is_stream(response.mimetype)
        check_response(
            request.method, request.path, response, stream=streamed, schema=self.contract
        )
        return response


def serve(base_url: str) -> None:
    """Check the answers of the service at ``base_url`` from now on."""
    with _SERVICES_LOCK:
        _SERVICES.add(base_url.rstrip("/"))


def _service_path(url: str) -> str | None:
    """The path of ``url`` if it is on a service the tests started, else None."""
    parts = urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}"
    with _SERVICES_LOCK:
        known = base in _SERVICES
    return (parts.path or "/") if known else None


def requests_hook(response: requests.Response, *args: Any, **kwargs: Any) -> None:
    """A ``requests`` response hook (streams: status and route only, their body unread)."""
    path = _service_path(response.url)
    if path is None or response.request.method is None:
        return
    stream = _is_stream(response.headers.get("Content-Type"))
    check_response(response.request.method, path, response, stream=stream)


def httpx_hook(response: httpx.Response) -> None:
    """An ``httpx`` response hook (the body is read first, as httpx's hooks require)."""
    path = _service_path(str(response.request.url))
    if path is None:
        return
    stream = _is_stream(response.headers.get("Content-Type"))
    if not stream:
        response.read()
    check_response(response.request.method, path, response, stream=stream)


def httpx_hooks() -> dict[str, list[Callable[[httpx.Response], None]]]:
    """``event_hooks`` for an httpx client of the service (``httpx_args`` of the generated
    client)."""
    return {"response": [httpx_hook]}


def _default_hooks() -> dict[str, list[Any]]:
    hooks: dict[str, list[Any]] = requests.hooks.default_hooks()
    hooks["response"].append(requests_hook)
    return hooks


@contextmanager
def install() -> Iterator[None]:
    """For the block: every Flask test client is a :class:`ContractClient` and every
    ``requests`` session (``requests.get`` too) checks the answers of started services."""
    flask_before = Flask.test_client_class
    # Session() takes its hooks from requests.sessions.default_hooks (requests' hooks API)
    sessions = vars(requests.sessions)
    hooks_before = sessions["default_hooks"]
    Flask.test_client_class = ContractClient
    sessions["default_hooks"] = _default_hooks
    try:
        yield
    finally:
        Flask.test_client_class = flask_before
        sessions["default_hooks"] = hooks_before
