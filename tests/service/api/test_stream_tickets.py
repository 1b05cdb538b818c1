"""Browsers can stream: a seat trades its token (in a header) for a short-lived stream
ticket of one game, which the event stream accepts in its URL; CORS only for the
configured origins."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.api import create_app
from service.api.server import gunicorn_options
from service.api.settings import ApiSettings
from tests.service.api.conftest import ADMIN_TOKEN, Api, Game, admin, auth, problem
from tests.service.api.contract import ContractClient


def _stream_items(client: FlaskClient, path: str, **headers: str) -> list[dict[str, Any]]:
    response = client.get(path, headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/event-stream"
    return [
        json.loads(line[len("data: ") :])
        for line in response.get_data(as_text=True).splitlines()
        if line.startswith("data: ")
    ]


def _ticket(client: FlaskClient, game: Game, headers: dict[str, str]) -> dict[str, Any]:
    response = client.post(f"/games/{game.game_id}/stream-tickets", headers=headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    assert response.headers["Cache-Control"] == "no-store"
    body: dict[str, Any] = response.get_json()
    return body


def test_a_ticket_streams_the_seats_private_view(api: Api, client: FlaskClient) -> None:
    # Given a card game (hands are private) and a ticket obtained with seat 1's token
    game = api.create("cards", 2)
    ticket = _ticket(client, game, game.seat(1))
    token = game.tokens[1]
    assert token not in json.dumps(ticket)
    assert ticket["ticket"] != token
    assert ticket["expires_in"] == 60  # the default lifetime
    # When the stream is opened with the ticket alone (no Authorization header)
    path = f"/games/{game.game_id}/events/stream?ticket={ticket['ticket']}&wait=0"
    assert token not in path
    items = _stream_items(client, path)
    # Then it shows exactly what seat 1 sees through its token, not the spectator's view
    seat_view = client.get(f"/games/{game.game_id}/events", headers=game.seat(1)).get_json()
    spectator = client.get(f"/games/{game.game_id}/events").get_json()
    assert items == seat_view["items"]
    assert items != spectator["items"]
    # And the ticket may be used again while it lives (EventSource reconnects)
    assert _stream_items(client, path) == items


def test_the_admin_may_get_a_ticket_and_sees_everything(api: Api, client: FlaskClient) -> None:
    game = api.create("cards", 2)
    ticket = _ticket(client, game, admin())
    items = _stream_items(
        client, f"/games/{game.game_id}/events/stream?ticket={ticket['ticket']}&wait=0"
    )
    assert items == client.get(f"/games/{game.game_id}/events", headers=admin()).get_json()["items"]


def test_a_ticket_is_stored_hashed_with_its_lifetime_under_the_games_hash_tag(
    api: Api, client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    game = api.create("board", 2)
    ticket = _ticket(client, game, game.seat(0))["ticket"]
    digest = hashlib.sha256(ticket.encode()).hexdigest()
    store = redis.Redis.from_url(redis_url, decode_responses=True)
    key = f"{key_prefix}:{{{game.game_id}}}:ticket:{digest}"
    assert store.get(key) == "0"
    assert 50 <= int(store.ttl(key)) <= 60
    assert not any(ticket in k for k in store.scan_iter(f"{key_prefix}:*"))


def test_wrong_unknown_and_missing_credentials_are_refused(api: Api, client: FlaskClient) -> None:
    game = api.create("board", 2)
    other = api.create("board", 2)
    ticket = _ticket(client, game, game.seat(0))["ticket"]
    stream = f"/games/{game.game_id}/events/stream?wait=0"
    # another game's ticket, an unknown one, a malformed one: 401
    for path in (
        f"/games/{other.game_id}/events/stream?wait=0&ticket={ticket}",
        f"{stream}&ticket={'A' * 43}",
        f"{stream}&ticket=short",
    ):
        problem(client.get(path), 401)
    # a ticket together with a header: 400 naming it
    both = client.get(f"{stream}&ticket={ticket}", headers=game.seat(0))
    assert problem(both, 400)["field"] == "ticket"
    # a spectator needs no ticket and gets none; an unknown token is refused
    problem(client.post(f"/games/{game.game_id}/stream-tickets"), 401)
    problem(client.post(f"/games/{game.game_id}/stream-tickets", headers=auth("nope" * 8)), 401)
    # an unknown game: 404, with or without a ticket
    problem(client.post("/games/nosuchgame/stream-tickets", headers=admin()), 404)
    problem(client.get(f"/games/nosuchgame/events/stream?wait=0&ticket={ticket}"), 404)


def test_an_expired_ticket_is_refused(redis_url: str, key_prefix: str) -> None:
    # A 1 s lifetime stands in for the default 60 s (checked above) to keep this quick.
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TIGRIS_KEY_PREFIX": key_prefix,
            "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
            "TIGRIS_STREAM_TICKET_TTL": "1",
        }
    )
    app.test_client_class = ContractClient
    with app.test_client() as client:
        game = Api(client).create("board", 2)
        ticket = _ticket(client, game, game.seat(0))
        assert ticket["expires_in"] == 1
        path = f"/games/{game.game_id}/events/stream?wait=0&ticket={ticket['ticket']}"
        assert client.get(path).status_code == 200
        time.sleep(1.5)
        problem(client.get(path), 401)


ORIGIN = "https://play.example.org"


def _cors_client(redis_url: str, key_prefix: str, origins: str | None) -> FlaskClient:
    config = {"REDIS_URL": redis_url, "TIGRIS_KEY_PREFIX": key_prefix}
    if origins is not None:
        config["TIGRIS_CORS_ORIGINS"] = origins
    app = create_app(config)
    app.test_client_class = ContractClient
    return app.test_client()


def _preflight(client: FlaskClient, origin: str) -> Any:
    return client.options(
        "/games/somegame/commands",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": (
                "authorization, content-type, if-match, idempotency-key"
            ),
        },
    )


def test_cors_answers_a_configured_origin(redis_url: str, key_prefix: str) -> None:
    client = _cors_client(redis_url, key_prefix, f"{ORIGIN}, https://other.example.org")
    preflight = _preflight(client, ORIGIN)
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == ORIGIN
    allowed = preflight.headers["Access-Control-Allow-Headers"].lower()
    for header in ("authorization", "content-type", "if-match", "idempotency-key"):
        assert header in allowed
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    created = client.post(
        "/games", json={"kind": "board", "seats": ["A", "B"]}, headers={"Origin": ORIGIN}
    )
    assert created.status_code == 201
    assert created.headers["Access-Control-Allow-Origin"] == ORIGIN
    exposed = created.headers["Access-Control-Expose-Headers"].lower()
    for header in ("etag", "idempotent-replayed", "location"):
        assert header in exposed


def test_cors_ignores_an_origin_not_configured(redis_url: str, key_prefix: str) -> None:
    client = _cors_client(redis_url, key_prefix, ORIGIN)
    preflight = _preflight(client, "https://evil.example.com")
    assert "Access-Control-Allow-Origin" not in preflight.headers
    got = client.get("/healthz", headers={"Origin": "https://evil.example.com"})
    assert "Access-Control-Allow-Origin" not in got.headers


def test_no_cors_by_default(redis_url: str, key_prefix: str) -> None:
    client = _cors_client(redis_url, key_prefix, None)
    preflight = _preflight(client, ORIGIN)
    assert "Access-Control-Allow-Origin" not in preflight.headers
    got = client.get("/healthz", headers={"Origin": ORIGIN})
    assert "Access-Control-Allow-Origin" not in got.headers


def test_stream_and_cors_settings_are_checked() -> None:
    defaults = ApiSettings.load({}, env={})
    assert (defaults.max_streams, defaults.streams_per_client, defaults.streams_per_game) == (
        2000,
        64,
        500,
    )
    assert defaults.stream_ticket_ttl_s == 60
    assert defaults.cors_origins == ()
    assert defaults.sse_heartbeat_s == 15.0
    loaded = ApiSettings.load({}, env={"TIGRIS_CORS_ORIGINS": " https://a.example , http://b:8080"})
    assert loaded.cors_origins == ("https://a.example", "http://b:8080")
    for bad in (
        {"TIGRIS_CORS_ORIGINS": "a.example"},
        {"TIGRIS_CORS_ORIGINS": "https://a.example/path"},
        {"TIGRIS_STREAMS_PER_CLIENT": "0"},
        {"TIGRIS_STREAM_TICKET_TTL": "0"},
        {"TIGRIS_SSE_HEARTBEAT": "301"},
    ):
        with pytest.raises(ValueError, match="TIGRIS_"):
            ApiSettings.load({}, env=bad)


def test_the_server_runs_the_gevent_worker_with_header_timeouts() -> None:
    options = gunicorn_options({})
    assert options["worker_class"] == "service.api.worker.TigrisWorker"
    assert options["keepalive"] == 5
    assert options["worker_connections"] == 10000
    assert gunicorn_options({"TIGRIS_HEADER_TIMEOUT": "3"})["keepalive"] == 3
