"""Webhook deliveries on real worker processes (``python -m service worker``) to a real
HTTP receiver on loopback: a work horse killed (SIGKILL, with its worker) in the middle of a
delivery leaves every event arriving under exactly one ``webhook-id``, however many events
were appended before the retry (issue 21, point 3)."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path

from flask.testing import FlaskClient

from tests.service.api.conftest import ADMIN_TOKEN, admin
from tests.service.jobs.receiver import Receiver
from tests.service.jobs.test_bot_workers import kill_family, worker_process
from tests.service.jobs.test_webhooks import api_events, create_game, play, subscribe


def _wait(condition: object, timeout_s: float, what: str, log: Path) -> None:
    assert callable(condition)
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}:\n{log.read_text()}"
        time.sleep(0.1)


def test_a_batch_retried_after_its_work_horse_was_killed_keeps_its_webhook_id(
    loopback_allowed: dict[str, str],  # first: the client below allows loopback too
    client: FlaskClient,
    receiver: Receiver,
    tmp_path: Path,
) -> None:
    """Point 3: the same webhook-id for the same event, whatever dies. The first batch's
    bounds are fixed before its first attempt, so its retry resends exactly it under the
    same id, and the events appended meanwhile go out in the next batch."""
    env = loopback_allowed
    log = tmp_path / "workers.log"
    # given a spectator's subscription, and a receiver that keeps the first request waiting
    game_id, tokens = create_game(client, "board")
    start = client.get(f"/games/{game_id}").get_json()["version"]
    created = subscribe(client, game_id, {"url": receiver.url("/h")}, ADMIN_TOKEN).get_json()
    receiver.secrets["/h"] = created["secret"]
    receiver.hold.set()
    play(client, game_id, tokens, 1)
    # when a worker posts the first batch and is killed, with its work horse, mid-request
    with worker_process(env, log, workers=1) as first:
        assert receiver.arrived.wait(60), log.read_text()
        kill_family(first.pid)
        first.wait()
    first_id = receiver.of("/h")[0].headers["webhook-id"]
    # and more events are appended before any retry
    play(client, game_id, tokens, 6)
    receiver.hold.clear()
    receiver.release.set()
    version = client.get(f"/games/{game_id}").get_json()["version"]
    hook = f"/games/{game_id}/webhooks/{created['id']}"
    # and another worker comes
    with worker_process(env, log, workers=1):
        _wait(
            lambda: client.get(hook, headers=admin()).get_json()["delivered_version"] == version,
            120,
            "every event delivered",
            log,
        )
    # then the first batch came again under its first id
    deliveries = receiver.of("/h")
    assert [d.headers["webhook-id"] for d in deliveries].count(first_id) >= 2
    # and every event arrived under exactly one webhook-id (repeats dropped by id: each once)
    ids_of: dict[int, set[str]] = defaultdict(set)
    unique: dict[str, list[dict[str, object]]] = {}
    for delivery in deliveries:
        assert delivery.error is None, delivery.error
        msg_id = delivery.headers["webhook-id"]
        for event in delivery.payload["data"]["events"]:
            ids_of[int(event["version"])].add(msg_id)
        unique.setdefault(msg_id, delivery.payload["data"]["events"])
    assert {v: ids for v, ids in ids_of.items() if len(ids) > 1} == {}
    received = [event for events in unique.values() for event in events]
    assert received == api_events(client, game_id, start, None)
