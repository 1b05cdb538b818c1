"""``GET /metrics``: scraped from the real server (gunicorn, two gevent workers, metrics in
multiprocess mode), and the RQ queue gauges read from real RQ registries."""

from __future__ import annotations

import os
import signal
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import requests
from flask import Flask
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue, SimpleWorker

from service.api import create_app
from tests.service.api.conftest import ADMIN_TOKEN, LiveServer, start_live_server

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(text: str) -> Samples:
    """Every sample of a scrape, by name and sorted labels."""
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over the samples of ``name`` whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= set(ls))


def metrics_of(server: LiveServer, session: requests.Session) -> Samples:
    # Several scrapes over fresh connections, so that both workers answer some: each
    # must show every process's counts.
    response = session.get(f"{server.url}/metrics", timeout=10)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    return scrape(response.text)


@pytest.fixture(scope="module")
def metrics_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("metrics")


@pytest.fixture(scope="module")
def server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory, metrics_dir: Path
) -> Iterator[LiveServer]:
    # A file left by an earlier run in the given directory: cleaned away at start.
    (metrics_dir / "counter_999999.db").write_bytes(b"\0" * 16)
    with start_live_server(
        redis_url,
        tmp_path_factory.mktemp("server"),
        {"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)},
    ) as live:
        yield live


def test_commands_replays_conflicts_and_loads_are_counted_across_workers(
    server: LiveServer, metrics_dir: Path
) -> None:
    # Given: the real server, a stale metrics file of another run removed at start
    assert not (metrics_dir / "counter_999999.db").exists()
    before = metrics_of(server, requests.Session())
    session = requests.Session()
    created = session.post(
        f"{server.url}/games",
        json={"kind": "board", "seats": ["Ann", "Bob"], "seed": 11},
        headers=ADMIN,
        timeout=10,
    ).json()
    game_id = created["game"]["game_id"]
    tokens = [seat["token"] for seat in created["seats"]]

    # When: a seat sends a legal command twice with one idempotency key (a replay), a
    # command with a stale If-Match (a conflict) and one the rules refuse
    seat = session.get(f"{server.url}/games/{game_id}/pending", timeout=10).json()["awaited"][0]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    legal = session.get(f"{server.url}/games/{game_id}/legal-commands", headers=auth, timeout=10)
    command = legal.json()["commands"][0]
    headers = {**auth, "If-Match": legal.headers["ETag"], "Idempotency-Key": uuid.uuid4().hex}
    url = f"{server.url}/games/{game_id}/commands"
    first = session.post(url, json=command, headers=headers, timeout=10)
    again = requests.post(url, json=command, headers=headers, timeout=10)  # a new connection
    stale = session.post(url, json=command, headers={**auth, "If-Match": '"1"'}, timeout=10)
    refused = session.post(
        url,
        json={"type": "PlaceTile", "colour": "red", "at": [0, 0]},
        headers={**auth, "If-Match": "*"},
        timeout=10,
    )
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert stale.status_code == 412
    assert refused.status_code in (409, 422)

    # Then: whichever worker answers the scrape counts what both did
    kind, ctype = "board", command["type"]
    for _ in range(4):
        after = metrics_of(server, requests.Session())
        name = "tigris_commands_total"
        assert value(after, name, kind=kind, type=ctype, outcome="accepted") >= 1 + value(
            before, name, kind=kind, type=ctype, outcome="accepted"
        )
        assert value(after, name, kind=kind, type=ctype, outcome="replayed") >= 1
        assert total(after, name, kind=kind, outcome="conflict") >= 1
        assert (
            total(after, name, kind=kind, outcome="refused")
            + total(after, name, kind=kind, outcome="invalid")
            >= 1
        )
        assert value(after, "tigris_idempotent_replays_total", kind=kind) >= 1
        assert total(after, "tigris_command_duration_seconds_count", kind=kind) >= 4
        assert total(after, "tigris_game_loads_total") >= 1
        assert total(after, "tigris_command_paths_total") >= 4
    assert value(after, "tigris_event_streams_open") == 0


def test_open_event_streams_are_a_live_gauge(server: LiveServer) -> None:
    # Given: a game
    created = requests.post(
        f"{server.url}/games", json={"kind": "cards", "seats": ["Ann", "Bob"]}, timeout=10
    ).json()
    game_id = created["game"]["game_id"]
    stream_url = f"{server.url}/games/{game_id}/events/stream"
    # When: two clients follow its stream
    streams = [requests.get(stream_url, stream=True, timeout=10) for _ in range(2)]
    try:
        assert all(s.status_code == 200 for s in streams)
        # Then: the gauge counts them (summed over the live workers)
        assert value(metrics_of(server, requests.Session()), "tigris_event_streams_open") == 2
    finally:
        for stream in streams:
            stream.close()


def test_the_queue_gauges_read_rq_registries(redis_url: str, key_prefix: str) -> None:
    # Given: an app, and an RQ queue with a job waiting and a job that failed in a real
    # (burst) RQ worker
    app = create_app(
        {"REDIS_URL": redis_url, "TIGRIS_KEY_PREFIX": key_prefix, "RQ_REDIS_URL": redis_url}
    )
    connection = redis.Redis.from_url(redis_url)
    name = f"test-{uuid.uuid4().hex[:8]}"
    queue = Queue(name, connection=connection)
    queue.enqueue("json.loads", "not json")  # raises in the worker: a failed job
    SimpleWorker([queue], connection=connection).work(burst=True)
    queue.enqueue("json.loads", "7")
    try:
        # When: the metrics are scraped
        samples = scrape(app.test_client().get("/metrics").get_data(as_text=True))
        # Then: the queue's depth and its failed job are there
        assert value(samples, "tigris_queue_jobs", queue=name, state="queued") == 1
        assert value(samples, "tigris_queue_jobs", queue=name, state="failed") == 1
        assert value(samples, "tigris_queue_jobs", queue=name, state="started") == 0
    finally:
        queue.delete(delete_jobs=True)
        connection.close()


def test_no_queues_or_an_unreachable_queue_redis_leave_the_scrape_working(
    redis_url: str, key_prefix: str
) -> None:
    # Given: RQ's Redis named at a port where nothing listens
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"redis://127.0.0.1:{sock.getsockname()[1]}/0"
    app: Flask = create_app(
        {"REDIS_URL": redis_url, "TIGRIS_KEY_PREFIX": key_prefix, "RQ_REDIS_URL": dead}
    )
    # When: scraped
    response = app.test_client().get("/metrics")
    # Then: the scrape answers, without queue figures
    assert response.status_code == 200
    samples = scrape(response.get_data(as_text=True))
    assert not [key for key in samples if key[0] == "tigris_queue_jobs"]
    assert "tigris_event_streams_open" in {key[0] for key in samples}


def test_a_killed_workers_live_gauge_leaves_the_sum(server: LiveServer) -> None:
    # Given: an open event stream, counted by the worker that serves it
    created = requests.post(
        f"{server.url}/games", json={"kind": "board", "seats": ["Ann", "Bob"]}, timeout=10
    ).json()
    stream = requests.get(
        f"{server.url}/games/{created['game']['game_id']}/events/stream", stream=True, timeout=10
    )
    try:
        assert stream.status_code == 200
        # (streams of earlier tests may still be open until the server writes to them)
        assert value(metrics_of(server, requests.Session()), "tigris_event_streams_open") >= 1
        # When: every worker is killed with SIGKILL (gunicorn forks new ones)
        workers = [
            int(p)
            for p in Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children")
            .read_text()
            .split()
        ]
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        # Then: once the new workers answer, the dead ones' gauges no longer count
        deadline = time.monotonic() + 30
        while True:
            try:
                samples = metrics_of(server, requests.Session())
                break
            except (requests.RequestException, AssertionError):
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert value(samples, "tigris_event_streams_open") == 0
    finally:
        stream.close()
