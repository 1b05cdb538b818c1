"""Webhooks: subscriptions through the API, deliveries as jobs on a real RQ worker
(in-process ``SimpleWorker``) to a real HTTP receiver on loopback that verifies every
signature with the ``standardwebhooks`` package; redaction per subscriber; retries, then
disabling; the delivery log; server-side request forgery refused."""

from __future__ import annotations

import itertools
import random
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.jobs.settings import JobSettings
from service.jobs.webhooks import retry_after, retry_delay
from tests.service.api.conftest import ADMIN_TOKEN, admin, auth
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
    spectator = subscribe(client, game_id, {"url": receiver.url("/spectator")}, ADMIN_TOKEN)
    seat = subscribe(client, game_id, {"url": receiver.url("/seat0")}, tokens[0])
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
    body = {"url": receiver.url("/f"), "events": [wanted]}
    created = subscribe(client, game_id, body, ADMIN_TOKEN)
    assert created.status_code == 201
    receiver.secrets["/f"] = created.get_json()["secret"]
    play(client, game_id, tokens, 4)
    jobs.run()
    types = {event["type"] for event in events_of(receiver.of("/f"))}
    assert types <= {wanted}
    body = {"url": receiver.url("/f"), "events": ["board.Nope"]}
    unknown = subscribe(client, game_id, body, ADMIN_TOKEN)
    assert unknown.status_code == 422 and unknown.get_json()["field"] == "events[0]"


@pytest.mark.usefixtures("loopback_allowed")
def test_a_failing_receiver_gets_retries_then_the_subscription_is_disabled(
    client: FlaskClient, jobs: Jobs, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a receiver that answers 500, a subscription disabled after 3 failures and a
    # retry schedule shrunk to 1 s, then 2 s (each ±10 %)
    monkeypatch.setenv("TIGRIS_WEBHOOK_MAX_FAILURES", "3")
    monkeypatch.setenv("TIGRIS_WEBHOOK_SCHEDULE", "0,1,2")
    receiver.status = 500
    game_id, tokens = create_game(client)
    created = subscribe(client, game_id, {"url": receiver.url("/down")}, ADMIN_TOKEN).get_json()
    receiver.secrets["/down"] = created["secret"]
    play(client, game_id, tokens, 1)
    # when the workers try, and the retries scheduled as RQ jobs come due
    for _ in range(3):
        jobs.run()
        time.sleep(2.5)
    jobs.run()
    # then the receiver saw three attempts at the same signed message
    attempts = receiver.of("/down")
    assert len(attempts) == 3
    assert len({a.headers["webhook-id"] for a in attempts}) == 1
    assert all(a.error is None for a in attempts)
    gaps = [b.arrived - a.arrived for a, b in itertools.pairwise(attempts)]
    assert gaps[0] >= 0.85 and gaps[1] >= 1.75  # the schedule, less at most 10 % jitter
    # and the subscription is disabled, saying why; the log shows every attempt
    sub = client.get(f"/games/{game_id}/webhooks/{created['id']}", headers=admin()).get_json()
    assert sub["status"] == "disabled"
    assert "3 failed deliveries" in sub["disabled_reason"] and "500" in sub["disabled_reason"]
    log = client.get(f"/games/{game_id}/webhooks/{created['id']}/deliveries", headers=admin())
    assert [item["status"] for item in log.get_json()["items"]] == [500, 500, 500]
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
    response = subscribe(client, game_id, {"url": url}, ADMIN_TOKEN)
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
    created = subscribe(allowed, game_id, {"url": receiver.url("/x")}, tokens[0]).get_json()
    # when the workers run without it
    monkeypatch.setenv("TIGRIS_WEBHOOK_ALLOW_PRIVATE", "0")
    play(client, game_id, tokens, 1)
    jobs.run()
    # then nothing was sent, and the log says why
    assert receiver.of("/x") == []
    path = f"/games/{game_id}/webhooks/{created['id']}/deliveries"
    log = client.get(path, headers=auth(tokens[0])).get_json()
    assert log["items"] and "URL refused" in log["items"][0]["error"]


PUBLIC_URL = "https://93.184.215.14/hook"  # a public address (never called: no event)


def test_subscribing_needs_a_seat_token_of_that_game_or_the_admin_token(
    client: FlaskClient,
) -> None:
    """Point 2: no token 401, another game's token 403; a seat token subscribes its own
    view only; the admin any view."""
    game_id, tokens = create_game(client)
    _, other_tokens = create_game(client)
    body = {"url": PUBLIC_URL}
    # no token, and a token of another game
    assert subscribe(client, game_id, body).status_code == 401
    assert subscribe(client, game_id, body, other_tokens[0]).status_code == 403
    # a seat token: its own seat's view, never another's
    own = subscribe(client, game_id, body, tokens[1])
    assert own.status_code == 201 and own.get_json()["seat"] == 1
    assert subscribe(client, game_id, {**body, "seat": 1}, tokens[1]).status_code == 201
    assert subscribe(client, game_id, {**body, "seat": 0}, tokens[1]).status_code == 403
    # the admin: a spectator's view or any seat's
    spectator = subscribe(client, game_id, body, ADMIN_TOKEN)
    assert spectator.status_code == 201 and spectator.get_json()["seat"] is None
    assert subscribe(client, game_id, {**body, "seat": 0}, ADMIN_TOKEN).get_json()["seat"] == 0
    assert subscribe(client, game_id, {**body, "seat": 2}, ADMIN_TOKEN).status_code == 422
    # and an unknown game is a 404 whatever the token
    assert subscribe(client, "f" * 32, body).status_code == 404


@pytest.mark.usefixtures("loopback_allowed")
def test_a_seat_token_lists_reads_and_deletes_only_its_own_subscriptions_the_admin_all(
    client: FlaskClient, jobs: Jobs, receiver: Receiver
) -> None:
    """Point 2: list, read and delete; a deleted subscription gets no more deliveries."""
    # given subscriptions of seat 0, of seat 1 and of the admin
    game_id, tokens = create_game(client)
    made = {
        who: subscribe(client, game_id, {"url": receiver.url(f"/{who}")}, token).get_json()
        for who, token in (("ann", tokens[0]), ("bob", tokens[1]), ("admin", ADMIN_TOKEN))
    }
    ids = {who: sub["id"] for who, sub in made.items()}
    hooks = f"/games/{game_id}/webhooks"

    def listed(token: str) -> list[str]:
        response = client.get(hooks, headers=auth(token))
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "private, no-store"
        return [item["id"] for item in response.get_json()["items"]]

    # then each seat token lists its own, the admin all; no token is a 401
    assert listed(tokens[0]) == [ids["ann"]]
    assert listed(tokens[1]) == [ids["bob"]]
    assert sorted(listed(ADMIN_TOKEN)) == sorted(ids.values())
    assert client.get(hooks).status_code == 401
    # and another seat's subscription is not there for it (read, log, delete, enable)
    ann = f"{hooks}/{ids['ann']}"
    assert client.get(ann, headers=auth(tokens[1])).status_code == 404
    assert client.get(f"{ann}/deliveries", headers=auth(tokens[1])).status_code == 404
    assert client.delete(ann, headers=auth(tokens[1])).status_code == 404
    assert client.post(f"{ann}/enable", headers=auth(tokens[1])).status_code == 404
    assert client.get(ann, headers=auth(tokens[0])).get_json()["url"] == receiver.url("/ann")
    assert client.get(ann).status_code == 401
    # when seat 0 deletes its own, and the admin seat 1's
    assert client.delete(ann, headers=auth(tokens[0])).status_code == 204
    assert client.delete(f"{hooks}/{ids['bob']}", headers=admin()).status_code == 204
    # then they are gone, and only the admin's receives the game's next events
    assert client.get(ann, headers=admin()).status_code == 404
    assert client.delete(ann, headers=auth(tokens[0])).status_code == 404
    assert listed(ADMIN_TOKEN) == [ids["admin"]]
    receiver.secrets["/admin"] = made["admin"]["secret"]
    play(client, game_id, tokens, 2)
    jobs.run()
    assert receiver.of("/ann") == receiver.of("/bob") == []
    assert events_of(receiver.of("/admin"))


def test_a_game_and_a_token_have_a_limited_number_of_subscriptions(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Point 2: TIGRIS_WEBHOOKS_PER_TOKEN and TIGRIS_WEBHOOKS_PER_GAME, 409
    too-many-webhooks; a deletion makes room."""
    monkeypatch.setenv("TIGRIS_WEBHOOKS_PER_GAME", "3")
    monkeypatch.setenv("TIGRIS_WEBHOOKS_PER_TOKEN", "2")
    from service.api import create_app

    app = create_app({"REDIS_URL": jobs.settings.rq_redis_url, "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN})
    client = app.test_client()
    game_id, tokens = create_game(client)
    body = {"url": PUBLIC_URL}
    # seat 0 makes two; its third is refused
    first = subscribe(client, game_id, body, tokens[0]).get_json()
    assert subscribe(client, game_id, body, tokens[0]).status_code == 201
    refused = subscribe(client, game_id, body, tokens[0])
    assert refused.status_code == 409
    problem = refused.get_json()
    assert problem["type"] == "/problems/too-many-webhooks"
    assert (problem["scope"], problem["limit"]) == ("token", 2)
    # seat 1 makes the game's third; the game's fourth is refused, whoever asks
    assert subscribe(client, game_id, body, tokens[1]).status_code == 201
    for token in (tokens[1], ADMIN_TOKEN):
        refused = subscribe(client, game_id, body, token)
        assert refused.status_code == 409
        assert (refused.get_json()["scope"], refused.get_json()["limit"]) == ("game", 3)
    # a deletion makes room; another game has room of its own
    client.delete(f"/games/{game_id}/webhooks/{first['id']}", headers=auth(tokens[0]))
    assert subscribe(client, game_id, body, tokens[0]).status_code == 201
    other_id, _ = create_game(client)
    assert subscribe(client, other_id, body, ADMIN_TOKEN).status_code == 201


@pytest.mark.usefixtures("loopback_allowed")
def test_a_410_gone_disables_the_subscription_and_enabling_resumes_with_the_same_id(
    client: FlaskClient, jobs: Jobs, receiver: Receiver
) -> None:
    """Point 2: a 410 answer disables at once (no retry, no later delivery); re-enabled,
    the failed batch goes again under the same webhook-id, then the events that came since."""
    # given a receiver that answers 410 Gone
    receiver.statuses["/gone"] = 410
    game_id, tokens = create_game(client)
    created = subscribe(client, game_id, {"url": receiver.url("/gone")}, tokens[0]).get_json()
    receiver.secrets["/gone"] = created["secret"]
    hook = f"/games/{game_id}/webhooks/{created['id']}"
    # when an event is sent to it
    play(client, game_id, tokens, 1)
    jobs.run()
    # then one attempt only, and the subscription says it is disabled, in read and list
    assert len(receiver.of("/gone")) == 1
    first_id = receiver.of("/gone")[0].headers["webhook-id"]
    state = client.get(hook, headers=auth(tokens[0])).get_json()
    assert state["status"] == "disabled" and "410" in state["disabled_reason"]
    listed = client.get(f"/games/{game_id}/webhooks", headers=auth(tokens[0])).get_json()
    assert [item["status"] for item in listed["items"]] == ["disabled"]
    # and later events are not sent
    play(client, game_id, tokens, 2)
    jobs.run()
    assert len(receiver.of("/gone")) == 1
    # when the receiver is back and the subscription re-enabled
    receiver.statuses["/gone"] = 204
    enabled = client.post(f"{hook}/enable", headers=auth(tokens[0]))
    assert enabled.status_code == 200 and enabled.get_json()["status"] == "active"
    jobs.run()
    # then the failed batch came again under its id, then the rest; all events, once each
    attempts = receiver.of("/gone")
    assert attempts[1].headers["webhook-id"] == first_id
    delivered = events_of(attempts[1:])
    assert delivered == api_events(client, game_id, created["delivered_version"], tokens[0])
    state = client.get(hook, headers=auth(tokens[0])).get_json()
    assert state["delivered_version"] == client.get(f"/games/{game_id}").get_json()["version"]


@pytest.mark.usefixtures("loopback_allowed")
@pytest.mark.parametrize(
    "case",
    [
        (503, "3", None, 3.0),
        (429, "40", None, 40.0),
        (429, "100000", "60", 60.0),  # capped by TIGRIS_WEBHOOK_RETRY_AFTER_MAX_S
        (503, "http-date+30", None, 30.0),
    ],
)
def test_retry_after_of_a_429_or_503_sets_the_next_attempt(
    client: FlaskClient,
    jobs: Jobs,
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
    case: tuple[int, str, str | None, float],
) -> None:
    """Point 2: the next attempt (an RQ job scheduled for then) waits for Retry-After
    (seconds or an HTTP date, capped by a setting) instead of the schedule's 1 s."""
    status, header, cap, expected = case
    monkeypatch.setenv("TIGRIS_WEBHOOK_SCHEDULE", "0,1")
    if cap is not None:
        monkeypatch.setenv("TIGRIS_WEBHOOK_RETRY_AFTER_MAX_S", cap)
    receiver.status = status
    if header.startswith("http-date+"):
        later = datetime.now(UTC) + timedelta(seconds=int(header.removeprefix("http-date+")))
        header = format_datetime(later, usegmt=True)
    receiver.headers["Retry-After"] = header
    game_id, tokens = create_game(client)
    created = subscribe(client, game_id, {"url": receiver.url("/busy")}, ADMIN_TOKEN).get_json()
    receiver.secrets["/busy"] = created["secret"]
    play(client, game_id, tokens, 1)
    jobs.run()
    hook = f"/games/{game_id}/webhooks/{created['id']}"
    state = client.get(hook, headers=admin()).get_json()
    attempt = client.get(f"{hook}/deliveries", headers=admin()).get_json()["items"][0]
    # the next attempt is due Retry-After after this one (an HTTP date has whole seconds)
    wait = (
        datetime.fromisoformat(state["next_attempt_at"]) - datetime.fromisoformat(attempt["at"])
    ).total_seconds()
    assert state["status"] == "active" and attempt["status"] == status
    assert expected - 1.5 <= wait <= expected + 1.5, wait
    # and it is an RQ job scheduled for then, not a worker sleeping
    scheduled = jobs.queue.scheduled_job_registry
    times = [scheduled.get_scheduled_time(job_id) for job_id in scheduled.get_job_ids()]
    assert len(times) == 1
    assert abs((times[0] - datetime.fromisoformat(state["next_attempt_at"])).total_seconds()) < 1
    # and an event appended meanwhile makes no earlier attempt
    play(client, game_id, tokens, 1)
    jobs.run()
    assert len(receiver.of("/busy")) == 1


def test_the_default_retry_schedule_is_standard_webhooks_with_ten_percent_jitter() -> None:
    """Point 2: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each retry ±10 %."""
    schedule = (0, 5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600)
    assert JobSettings().webhook_schedule == schedule
    assert JobSettings.from_env({}).webhook_schedule == schedule
    assert JobSettings().webhook_max_failures == len(schedule)
    assert JobSettings.from_env({"TIGRIS_WEBHOOK_SCHEDULE": "0,1,2"}).webhook_schedule == (0, 1, 2)
    rng = random.Random(21)
    for failures in range(1, len(schedule) + 2):
        base = schedule[min(failures, len(schedule) - 1)]
        delays = [retry_delay(schedule, failures, rng) for _ in range(400)]
        assert all(0.9 * base <= delay <= 1.1 * base for delay in delays)
        assert min(delays) < 0.95 * base and max(delays) > 1.05 * base  # jitter, both ways


def test_retry_after_reads_seconds_and_http_dates() -> None:
    now = datetime(2026, 11, 27, 12, 0, 0, tzinfo=UTC)
    assert retry_after("120", now) == 120
    assert retry_after("Fri, 27 Nov 2026 12:05:00 GMT", now) == 300
    assert retry_after("Fri, 27 Nov 2026 11:00:00 GMT", now) == 0  # past: now
    assert retry_after("soon", now) is None
    assert retry_after(None, now) is None


@pytest.mark.usefixtures("loopback_allowed")
def test_a_subscription_deleted_mid_delivery_leaves_nothing_behind(
    client: FlaskClient, jobs: Jobs, receiver: Receiver, job_env: dict[str, str]
) -> None:
    """Point 2: a deletion while its delivery is under way: the delivery finishes without
    recreating the subscription or its log, and nothing more is sent."""
    # given a delivery held by the receiver
    game_id, tokens = create_game(client)
    created = subscribe(client, game_id, {"url": receiver.url("/d")}, tokens[0]).get_json()
    receiver.secrets["/d"] = created["secret"]
    receiver.hold.set()
    play(client, game_id, tokens, 1)
    hook = f"/games/{game_id}/webhooks/{created['id']}"
    deleted: list[int] = []

    def delete_meanwhile() -> None:
        if receiver.arrived.wait(60):
            other = client.application.test_client()  # a client of this thread's own
            deleted.append(other.delete(hook, headers=auth(tokens[0])).status_code)
        receiver.hold.clear()
        receiver.release.set()

    # when the subscription is deleted while the receiver holds the delivery
    deleter = threading.Thread(target=delete_meanwhile)
    deleter.start()
    jobs.run()
    deleter.join(60)
    assert deleted == [204]
    # then no key of it is left, and later events go nowhere
    prefix = job_env["TIGRIS_KEY_PREFIX"]
    assert list(jobs.connection.scan_iter(match=f"{prefix}:{{{game_id}}}:hook:*")) == []
    play(client, game_id, tokens, 1)
    jobs.run()
    assert len(receiver.of("/d")) == 1
    assert client.get(hook, headers=admin()).status_code == 404
