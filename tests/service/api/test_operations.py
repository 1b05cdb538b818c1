"""Health, readiness, unavailable storage and unexpected errors: always a problem
document, never a stack trace."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient

from service.api import create_app
from service.embedded_redis import EmbeddedRedis
from tests.service.api.conftest import ADMIN_TOKEN, problem
from tests.service.api.contract import SPEC_PATH, ContractClient


def test_health_and_readiness(client: FlaskClient) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready"}


@pytest.fixture(scope="module")
def app_without_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """An app whose Redis went away after it started (one that is missing at start is
    refused by ``create_app``, see ``tests/service/test_misconfiguration.py``)."""
    with EmbeddedRedis(tmp_path_factory.mktemp("gone")) as server:
        app = create_app({"REDIS_URL": server.url, "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN})
    yield app


def test_without_redis_the_service_is_unready_and_answers_503(app_without_redis: Flask) -> None:
    app_without_redis.test_client_class = FlaskClient
    client = app_without_redis.test_client()

    assert client.get("/healthz").status_code == 200
    assert problem(client.get("/readyz"), 503)["type"] == "/problems/unavailable"
    problem(client.get("/games"), 503)
    problem(client.post("/games", json={"kind": "board", "seats": ["A", "B"]}), 503)


def test_an_unexpected_error_is_a_500_problem_without_internals(app: Flask) -> None:
    def explode() -> str:
        raise RuntimeError("secret internal detail /work/main/service")

    app.add_url_rule("/explode", "explode", explode)
    app.test_client_class = FlaskClient  # this route is deliberately not in the contract
    response = app.test_client().get("/explode")

    body = problem(response, 500)
    assert body["type"] == "/problems/internal"
    assert "secret" not in response.get_data(as_text=True)
    assert "service" not in body["detail"]


def _store_operations() -> list[tuple[str, str, str]]:
    """``(operationId, method, path)`` of every operation that reads or writes Redis."""
    paths = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["paths"]
    return [
        (operation["operationId"], method.upper(), path)
        for path, operations in paths.items()
        if path.startswith("/games") or path == "/readyz"
        for method, operation in operations.items()
        if method != "parameters"
    ]


BODIES: dict[str, dict[str, Any]] = {
    "createGame": {"kind": "board", "seats": ["A", "B"]},
    "postCommand": {"type": "Pass"},
    "requestUndo": {"to_version": 1, "reason": "x"},
    "answerUndo": {"approve": True},
    "claimSeat": {"name": "Cy"},
}


def a_record(client: FlaskClient) -> bytes:
    """A genuine record (an import is verified offline before anything is stored), from a
    service whose Redis answers."""
    created = client.post(
        "/games", json={"kind": "board", "seats": ["A", "B"]}, headers=auth_admin()
    )
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game"]["game_id"]
    answer = client.get(f"/games/{game_id}/record", headers=auth_admin())
    assert answer.status_code == 200
    data: bytes = answer.data
    return data


def auth_admin() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.mark.parametrize(("operation_id", "method", "path"), _store_operations())
def test_every_operation_on_the_store_documents_its_503(
    app_without_redis: Flask, client: FlaskClient, operation_id: str, method: str, path: str
) -> None:
    app = app_without_redis
    app.test_client_class = ContractClient  # the 503 must be documented for this operation
    url = path.format(game_id="a" * 32, version=1, request_id="b" * 32, seat=1, webhook_id="c" * 32)
    # Within a game, looking up a seat's token needs Redis already; outside, the admin's
    # token is known without it (and may do everything there).
    token = "seat-" + "x" * 40 if "{game_id}" in path else ADMIN_TOKEN
    headers = {"Authorization": f"Bearer {token}", "If-Match": "*"}
    body: dict[str, Any] = {"json": BODIES.get(operation_id)}
    if operation_id == "importGame":  # a JSON Lines body, checked before the store is asked
        body = {"data": a_record(client)}
        headers["Content-Type"] = "application/jsonl"

    response = app.test_client().open(url, method=method, headers=headers, **body)

    assert problem(response, 503)["type"] == "/problems/unavailable"
