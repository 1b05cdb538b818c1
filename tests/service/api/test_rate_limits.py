"""Rate limits per token and per client address (flask-limiter, counted in the real Redis):
the caller over its limit gets a 429 problem with Retry-After, other callers do not."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api import create_app
from service.api.limits import LimitSettings, batch_size, storage_uri
from service.config import SettingsError
from tests.service.api.conftest import ADMIN_TOKEN, problem
from tests.service.api.contract import ContractClient

ANN = {"REMOTE_ADDR": "192.0.2.1"}
BOB = {"REMOTE_ADDR": "192.0.2.2"}


def limited_app(redis_url: str, key_prefix: str, **limits: str) -> Flask:
    """An app whose every answer is checked against openapi.yaml (429s included)."""
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TIGRIS_KEY_PREFIX": key_prefix,
            "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
            **limits,
        }
    )
    app.test_client_class = ContractClient
    return app


def new_game(client: FlaskClient) -> dict[str, Any]:
    response = client.post(
        "/games", json={"kind": "board", "seats": ["Ann", "Bob"]}, environ_base=BOB
    )
    assert response.status_code == 201
    body: dict[str, Any] = response.get_json()
    return body


def test_a_token_over_its_limit_gets_429_with_retry_after_and_other_tokens_pass(
    redis_url: str, key_prefix: str
) -> None:
    # Given: 5 requests a minute per token (addresses are generous), and a game's two seats
    app = limited_app(redis_url, key_prefix, TIGRIS_RATE_LIMIT_TOKEN="5 per minute")
    client = app.test_client()
    game = new_game(client)
    game_id = game["game"]["game_id"]
    first, second = ({"Authorization": f"Bearer {s['token']}"} for s in game["seats"])
    path = f"/games/{game_id}/legal-commands"
    # When: the first seat asks six times
    answers = [client.get(path, headers=first, environ_base=ANN) for _ in range(6)]
    # Then: five pass, the sixth is a 429 problem naming the limit, with Retry-After
    assert [a.status_code for a in answers[:5]] == [200] * 5
    body = problem(answers[5], 429)
    assert body["type"] == "/problems/rate-limited"
    assert "token" in body["detail"]
    assert body["rate_limit"].startswith("5 per 1 minute")
    assert 1 <= int(answers[5].headers["Retry-After"]) <= 60
    # And: the other seat, from the same address, and a spectator are not affected
    assert client.get(path, headers=second, environ_base=ANN).status_code == 200
    assert client.get(f"/games/{game_id}", environ_base=ANN).status_code == 200
    # And: the limited token stays limited, whatever the address
    assert client.get(path, headers=first, environ_base=BOB).status_code == 429


def test_an_address_over_its_limit_gets_429_and_other_addresses_pass(
    redis_url: str, key_prefix: str
) -> None:
    # Given: 4 requests a minute per client address
    app = limited_app(redis_url, key_prefix, TIGRIS_RATE_LIMIT_CLIENT="4/minute")
    client = app.test_client()
    answers = [client.get("/games", environ_base=ANN) for _ in range(5)]
    # Then: the fifth request of that address is refused, with Retry-After
    assert [a.status_code for a in answers[:4]] == [200] * 4
    body = problem(answers[4], 429)
    assert "client address" in body["detail"]
    assert int(answers[4].headers["Retry-After"]) >= 1
    # And: another address is served
    assert client.get("/games", environ_base=BOB).status_code == 200
    # And: probes and the scraper are never limited
    for path in ("/healthz", "/readyz", "/metrics"):
        assert client.get(path, environ_base=ANN).status_code == 200


def test_the_counts_are_shared_by_server_processes_through_redis(
    redis_url: str, key_prefix: str
) -> None:
    # Given: two apps (two server processes) on the same Redis and key prefix
    apps = [limited_app(redis_url, key_prefix, TIGRIS_RATE_LIMIT_CLIENT="3/minute") for _ in "ab"]
    clients = [app.test_client() for app in apps]
    # When: one address spreads its requests over both
    codes = [clients[n % 2].get("/games", environ_base=ANN).status_code for n in range(4)]
    # Then: the limit holds across them
    assert codes == [200, 200, 200, 429]


def test_limits_can_be_turned_off(redis_url: str, key_prefix: str) -> None:
    app = limited_app(
        redis_url, key_prefix, TIGRIS_RATE_LIMITS="off", TIGRIS_RATE_LIMIT_CLIENT="1/minute"
    )
    client = app.test_client()
    assert [client.get("/games", environ_base=ANN).status_code for _ in range(3)] == [200] * 3


def test_settings_are_checked_and_the_storage_follows_the_service_redis() -> None:
    with pytest.raises(SettingsError, match="TIGRIS_RATE_LIMIT_TOKEN"):
        LimitSettings(per_token="lots")
    assert storage_uri("unix:///tmp/r.sock?db=0") == "redis+unix:///tmp/r.sock?db=0"
    assert storage_uri("redis+cluster://a:7000,b:7001") == "redis+cluster://a:7000,b:7001"
    assert storage_uri("redis://h:6379/2") == "redis://h:6379/2"
    loaded = LimitSettings.load({"TIGRIS_RATE_LIMIT_STORAGE": "memory://"}, "redis://h:6379/0", "p")
    assert (loaded.storage_uri, loaded.key_prefix) == ("memory://", "p:rl")


def test_a_generous_limit_is_charged_in_batches_yet_holds(redis_url: str, key_prefix: str) -> None:
    # Given: 100 requests a minute per address: the process charges Redis every 5 requests
    assert batch_size("100 per minute") == 5
    assert batch_size("20/second;600/minute") == 1
    app = limited_app(redis_url, key_prefix, TIGRIS_RATE_LIMIT_CLIENT="100 per minute")
    client = app.test_client()
    # When: one address sends 112 requests
    codes = [client.get("/games", environ_base=ANN).status_code for _ in range(112)]
    # Then: the first 100 pass, fewer than a batch more, and from the first refusal on
    # every request is refused (a key over its limit is charged on every request)
    first_refused = codes.index(429)
    assert 100 <= first_refused < 105
    assert set(codes[first_refused:]) == {429}
    # And: the counts are in Redis, so another process sees the address over its limit
    other = limited_app(redis_url, key_prefix, TIGRIS_RATE_LIMIT_CLIENT="100 per minute")
    other_codes = [
        other.test_client().get("/games", environ_base=ANN).status_code for _ in range(5)
    ]
    assert 429 in other_codes


def test_every_limited_operation_documents_its_429(redis_url: str, key_prefix: str) -> None:
    """Issue 21, point 6: a rate-limited answer keeps the contract on every operation the
    limits cover (the rules pages, a claim, a record, an explanation, the webhooks and the
    audit answered 429 undocumented)."""
    # given one request a minute per client address, and a game made by another address
    app = limited_app(redis_url, key_prefix, TIGRIS_RATE_LIMIT_CLIENT="1/minute")
    client = app.test_client()
    game_id = new_game(client)["game"]["game_id"]
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("GET", "/rules/board", {}),
        ("GET", "/rules/cards", {}),
        ("POST", f"/games/{game_id}/seats/0/claim", {"json": {"name": "Cy"}}),
        ("GET", f"/games/{game_id}/record", {}),
        ("GET", f"/games/{game_id}/versions/1/explanation", {}),
        ("POST", f"/games/{game_id}/webhooks", {"json": {"url": "https://example.com/h"}}),
        ("GET", f"/games/{game_id}/webhooks/{'0' * 32}", {}),
        ("GET", f"/games/{game_id}/webhooks/{'0' * 32}/deliveries", {}),
        ("GET", "/ops/audit", {"headers": admin}),
        ("POST", "/games/import", {"data": b"{}", "content_type": "application/jsonl"}),
    ]
    # when a third address spends its one request, then calls each operation
    third = {"REMOTE_ADDR": "192.0.2.3"}
    assert client.get("/healthz", environ_base=third).status_code == 200  # exempt
    client.get("/games", environ_base=third)
    for method, path, kwargs in calls:
        # then each is a 429 problem, checked against the operation's documented answers
        answer = client.open(path, method=method, environ_base=third, **kwargs)
        assert problem(answer, 429)["type"] == "/problems/rate-limited", path
