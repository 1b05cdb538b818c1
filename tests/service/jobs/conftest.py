"""Fixtures of the job tests: a queue of its own per test on the session's Redis, the
environment a job reads its settings from, and a real RQ worker to run the jobs."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue, SimpleWorker

from service.api import create_app
from service.application.game_service import GameService, build_service
from service.config import StoreSettings
from service.jobs.queues import job_queue, queue_connection
from service.jobs.settings import JobSettings
from tests.service.api.conftest import ADMIN_TOKEN
from tests.service.jobs.receiver import Receiver, start_receiver


@dataclass
class Jobs:
    settings: JobSettings
    queue: Queue
    connection: redis.Redis

    def run(self) -> bool:
        """Runs every job that is due now, in this process (RQ's ``SimpleWorker``, burst
        mode, with the scheduler: scheduled jobs due by now are enqueued first)."""
        worker = SimpleWorker([self.queue], connection=self.connection)
        return bool(worker.work(burst=True, with_scheduler=True, logging_level="WARNING"))


@pytest.fixture
def job_env(redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of this test's jobs (and of any worker process it starts)."""
    env = {
        "REDIS_URL": redis_url,
        "TIGRIS_KEY_PREFIX": key_prefix,
        "TIGRIS_RQ_QUEUE": f"q-{uuid.uuid4().hex[:10]}",
        "TIGRIS_JOB_RETRIES": "1,2",
        "TIGRIS_JOB_SWEEP_S": "3600",
        "TIGRIS_RQ_ABANDONED_S": "2",
        "TIGRIS_RQ_MAINTENANCE_S": "1",
    }
    monkeypatch.delenv("RQ_REDIS_URL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return {**os.environ, **env}


@pytest.fixture
def jobs(job_env: dict[str, str]) -> Iterator[Jobs]:
    settings = JobSettings.from_env(job_env)
    connection = queue_connection(settings)
    yield Jobs(settings, job_queue(settings, connection), connection)
    connection.close()


@pytest.fixture
def games(job_env: dict[str, str]) -> Iterator[GameService]:
    """The application service on this test's keys (as the jobs build it)."""
    service, connection = build_service(StoreSettings.from_env(job_env))
    yield service
    connection.close()


@pytest.fixture
def client(job_env: dict[str, str]) -> Iterator[FlaskClient]:
    """The HTTP API on this test's keys and queue (Flask's test client)."""
    app = create_app({"REDIS_URL": job_env["REDIS_URL"], "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN})
    with app.test_client() as test_client:
        yield test_client


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A real webhook receiver on loopback (``tests.service.jobs.receiver``)."""
    found, server = start_receiver()
    yield found
    found.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def loopback_allowed(monkeypatch: pytest.MonkeyPatch, job_env: dict[str, str]) -> dict[str, str]:
    """Webhooks to loopback allowed (for the receiver), in the API and in the jobs."""
    monkeypatch.setenv("TIGRIS_WEBHOOK_ALLOW_PRIVATE", "1")
    return {**job_env, "TIGRIS_WEBHOOK_ALLOW_PRIVATE": "1"}
