"""Webhooks: subscriptions through the API, deliveries as jobs on a real RQ worker
(in-process ``SimpleWorker``) to a real HTTP receiver on loopback that verifies every
signature with the ``standardwebhooks`` package; redaction per subscriber; retries, then
disabling; the delivery log; server-side request forgery refused."""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.service.api.conftest import admin, auth
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.receiver import Receiver, events_of


def create_game(client: FlaskClient, kind: str = "cards") -> tuple[str, list[str]]:
    response = client.post("/games", json={"kind": kind, "seats": ["Ann", "Bob"]})
    assert response.status_code == 201
    body = response.get_json()
    return body["game"]["game_id"], [s["token"] for s in body["seats"]]


def subscribe(
    client: FlaskClient, game_id: str, body: dict[str, Any], token: str | None = None
) -> Any:
    return client.post(f"/games/{game_id}/webhooks", json=body, headers=auth(token))


def play(client: FlaskClient, game_id: str, tokens: list[str], commands: int) -> None:
    """``commands`` legal commands of whichever seat is awaited (seeded random choices)."""
    rng = random.Random(commands)
    for _ in range(commands):
        awaited = client.get(f"/games/{game_id}/pending").get_json()["awaited"]
        seat = awaited[0]
        legal = client.get(f"/games/{game_id}/legal-commands", headers=auth(tokens[seat]))
        command = rng.choice(legal.get_json()["commands"])
        response = client.post(
            f"/games/{game_id}/commands",
            json=command,
            headers={**auth(tokens[seat]), "If-Match": "*"},
        )
        assert response.status_code == 200, response.get_json()


def api_events(client: FlaskClient, game_id: str, after: int, token: str | None) -> list[Any]:
    response = client.get(f"/games/{game_id}/events?after={after}&limit=500", headers=auth(token))
    assert response.status_code == 200
    events: list[Any] = response.get_json()["items"]
    return events


@pytest.mark.usefixtures("loopback_allowed")
def test_deliveries_arrive_signed_and_redacted_per_subscriber(
    client: FlaskClient, jobs: Jobs, receiver: Receiver
) -> None:
    # given a board game (hidden tiles) with a spectator's and seat 0's subscriptions
    game_id, tokens = create_game(client, "board")
    start = client.get(f"/games/{game_id}").get_json()["version"]
    spectator = subscribe(client, game_id, {"url": receiver.url("/spectator")})
    seat = subscribe(client, game_id, {"url": receiver.url("/seat0"), "seat": 0}, tokens[0])
    assert spectator.status_code == seat.status_code == 201
    receiver.secrets["/spectator"] = spectator.get_json()["secret"]
    receiver.secrets["/seat0"] = seat.get_json()["secret"]
    # when commands are played (turns end: tiles are drawn) and the workers run
    play(client, game_id, tokens, 16)
    jobs.run()
    # then every delivery verified, and carried the events exactly as the API shows them
    # to that subscriber
    assert receiver.of("/spectator") and receiver.of("/seat0")
    assert events_of(receiver.of("/spectator")) == api_events(client, game_id, start, None)
    assert events_of(receiver.of("/seat0")) == api_events(client, game_id, start, tokens[0])
    # (the spectator's events hide what seat 0 sees: the tiles it drew)
    assert events_of(receiver.of("/spectator")) != events_of(receiver.of("/seat0"))
    # and the log and the subscription say so
    sub_id = seat.get_json()["id"]
    log = client.get(f"/games/{game_id}/webhooks/{sub_id}/deliveries", headers=auth(tokens[0]))
    assert log.status_code == 200 and all(item["ok"] for item in log.get_json()["items"])
    state = client.get(f"/games/{game_id}/webhooks/{sub_id}", headers=auth(tokens[0])).get_json()
    assert state["status"] == "active" and "secret" not in state
    assert state["delivered_version"] == client.get(f"/games/{game_id}").get_json()["version"]


@pytest.mark.usefixtures("loopback_allowed")
def test_an_event_filter_sends_only_those_events(
    client: FlaskClient, jobs: Jobs, receiver: Receiver
) -> None:
    game_id, tokens = create_game(client, "board")
    wanted = "board.TilePlaced"
    created = subscribe(client, game_id, {"url": receiver.url("/f"), "events": [wanted]})
    assert created.status_code == 201
    receiver.secrets["/f"] = created.get_json()["secret"]
    play(client, game_id, tokens, 4)
    jobs.run()
    types = {event["type"] for event in events_of(receiver.of("/f"))}
    assert types <= {wanted}
    unknown = subscribe(client, game_id, {"url": receiver.url("/f"), "events": ["board.Nope"]})
    assert unknown.status_code == 422 and unknown.get_json()["field"] == "events[0]"


@pytest.mark.usefixtures("loopback_allowed")
def test_a_failing_receiver_gets_retries_then_the_subscription_is_disabled(
    client: FlaskClient, jobs: Jobs, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a receiver that answers 500, and a subscription disabled after 3 failures
    monkeypatch.setenv("TIGRIS_WEBHOOK_MAX_FAILURES", "3")
    receiver.status = 500
    game_id, tokens = create_game(client)
    created = subscribe(client, game_id, {"url": receiver.url("/down")}).get_json()
    receiver.secrets["/down"] = created["secret"]
    play(client, game_id, tokens, 1)
    # when the workers try, and retry after 1 s, then 2 s (TIGRIS_JOB_RETRIES)
    for _ in range(3):
        jobs.run()
        time.sleep(2.1)
    jobs.run()
    # then the receiver saw three attempts at the same signed message
    attempts = receiver.of("/down")
    assert len(attempts) == 3
    assert len({a.headers["webhook-id"] for a in attempts}) == 1
    assert all(a.error is None for a in attempts)
    gaps = [b.arrived - a.arrived for a, b in itertools.pairwise(attempts)]
    assert gaps[0] >= 0.9 and gaps[1] >= 1.9  # exponential backoff
    # and the subscription is disabled, saying why; the log shows every attempt
    sub = client.get(f"/games/{game_id}/webhooks/{created['id']}").get_json()
    assert sub["status"] == "disabled"
    assert "3 failed deliveries" in sub["disabled_reason"] and "500" in sub["disabled_reason"]
    log = client.get(f"/games/{game_id}/webhooks/{created['id']}/deliveries").get_json()
    assert [item["status"] for item in log["items"]] == [500, 500, 500]
    # and a later event is not sent to it
    play(client, game_id, tokens, 1)
    jobs.run()
    assert len(receiver.of("/down")) == 3


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://[::1]/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook",
        "ftp://example.org/hook",
        "http://user:pw@example.org/hook",
    ],
)
def test_a_webhook_to_a_private_address_is_refused(client: FlaskClient, url: str) -> None:
    game_id, _ = create_game(client)
    response = subscribe(client, game_id, {"url": url})
    assert response.status_code == 422, response.get_json()
    assert response.get_json()["field"] == "url"


def test_a_url_allowed_at_subscription_is_checked_again_at_delivery(
    client: FlaskClient, jobs: Jobs, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a loopback subscription made while the setting allowed it
    monkeypatch.setenv("TIGRIS_WEBHOOK_ALLOW_PRIVATE", "1")
    game_id, tokens = create_game(client)
    from service.api import create_app

    allowed = create_app({"REDIS_URL": jobs.settings.rq_redis_url}).test_client()
    created = subscribe(allowed, game_id, {"url": receiver.url("/x")}).get_json()
    # when the workers run without it
    monkeypatch.setenv("TIGRIS_WEBHOOK_ALLOW_PRIVATE", "0")
    play(client, game_id, tokens, 1)
    jobs.run()
    # then nothing was sent, and the log says why
    assert receiver.of("/x") == []
    log = client.get(f"/games/{game_id}/webhooks/{created['id']}/deliveries").get_json()
    assert log["items"] and "URL refused" in log["items"][0]["error"]


def test_a_seat_subscription_needs_that_seats_token(client: FlaskClient) -> None:
    game_id, tokens = create_game(client)
    body = {"url": "https://93.184.215.14/hook", "seat": 0}  # a public address
    assert subscribe(client, game_id, body).status_code == 403
    assert subscribe(client, game_id, body, tokens[1]).status_code == 403
    assert subscribe(client, game_id, {**body, "seat": 2}, tokens[0]).status_code == 422
    made = client.post(f"/games/{game_id}/webhooks", json=body, headers=admin())
    assert made.status_code == 201
    sub_id = made.get_json()["id"]
    assert client.get(f"/games/{game_id}/webhooks/{sub_id}").status_code == 403
    assert (
        client.get(f"/games/{game_id}/webhooks/{sub_id}", headers=auth(tokens[0])).status_code
        == 200
    )
    assert client.get(f"/games/{game_id}/webhooks/{'0' * 32}").status_code == 404
