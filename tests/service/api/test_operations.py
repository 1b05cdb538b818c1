"""Health, readiness, unavailable storage and unexpected errors: always a problem
document, never a stack trace."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from service.api import create_app
from tests.service.api.conftest import problem


def test_health_and_readiness(client: FlaskClient) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready"}


def test_without_redis_the_service_is_unready_and_answers_503() -> None:
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0"})
    client = app.test_client()

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
