"""The worker infrastructure: retries with backoff, the failed registry and its reason,
one job per id, ``python -m service worker`` (workers with the scheduler) and the run
command's worker beside the API. Real Redis, real RQ workers (in-process ``SimpleWorker``
or ``python -m service`` processes)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
import redis
import requests
from rq import Worker
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry, ScheduledJobRegistry
from rq.worker import BaseWorker

from service.config import SettingsError
from service.jobs.queues import enqueue_once, job_queue, queue_connection
from service.jobs.settings import JobSettings
from tests.service.api.conftest import free_port, launch_service, service_env, stop_service
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.tasks import fail_times, mark
from tests.service.jobs.test_bot_workers import kill_family

ROOT = Path(__file__).resolve().parents[3]


def wait_for(condition: Callable[[], bool], timeout_s: float = 30, what: str = "") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def run_and_check_delay(jobs: Jobs, job: Job, delay: int) -> None:
    """Runs the due jobs; ``job`` fails and is scheduled ``delay`` seconds after it failed
    (RQ keeps whole seconds)."""
    before = time.time()
    jobs.run()
    after = time.time()
    assert job.get_status() == JobStatus.SCHEDULED
    registry = ScheduledJobRegistry(queue=jobs.queue)  # type: ignore[no-untyped-call]
    assert job.id in registry.get_job_ids()
    at = registry.get_scheduled_time(job).timestamp()
    assert before + delay - 1 <= at <= after + delay
    time.sleep(max(0.0, at - time.time()) + 0.1)


def test_a_failing_job_is_retried_with_backoff_then_fails_with_its_reason(jobs: Jobs) -> None:
    # given a job that always fails, and retries after 1 s and then 2 s
    key = f"{jobs.settings.queue}:runs"
    job = enqueue_once(jobs.queue, jobs.settings, fail_times, "always-fails", key, 99)
    assert job is not None
    # when a worker runs it, it fails and is scheduled again after the first delay
    run_and_check_delay(jobs, job, 1)
    # then after the second, longer delay
    run_and_check_delay(jobs, job, 2)
    jobs.run()
    # and with no retry left it ends in the failed registry, saying why
    assert job.get_status() == JobStatus.FAILED
    assert job.id in FailedJobRegistry(queue=jobs.queue).get_job_ids()
    result = job.latest_result()
    assert result is not None and result.exc_string is not None
    assert "PlannedFailure: planned failure 3 of 99" in result.exc_string
    assert int(jobs.connection.get(key) or 0) == 3  # the first run and two retries


def test_a_job_that_fails_once_succeeds_on_its_retry(jobs: Jobs) -> None:
    key = f"{jobs.settings.queue}:runs"
    job = enqueue_once(jobs.queue, jobs.settings, fail_times, "fails-once", key, 1)
    assert job is not None
    run_and_check_delay(jobs, job, 1)
    jobs.run()
    assert job.get_status() == JobStatus.FINISHED
    assert job.return_value() == 2


def test_a_job_id_is_enqueued_once_while_the_job_exists(jobs: Jobs) -> None:
    # given a pending job
    first = enqueue_once(jobs.queue, jobs.settings, mark, "the-job", "k1", "first")
    assert first is not None
    # when the same id is enqueued again (pending, then finished), it is refused
    assert enqueue_once(jobs.queue, jobs.settings, mark, "the-job", "k1", "second") is None
    jobs.run()
    assert enqueue_once(jobs.queue, jobs.settings, mark, "the-job", "k1", "third") is None
    # then the job ran once, with its first arguments
    assert first.get_status() == JobStatus.FINISHED
    assert str(jobs.connection.get("k1")).startswith("b'first:")
    assert jobs.queue.count == 0


def test_settings_default_to_the_store_redis_and_refuse_a_cluster() -> None:
    assert JobSettings.from_env({"REDIS_URL": "redis://a:1/0"}).rq_redis_url == "redis://a:1/0"
    both = {"REDIS_URL": "redis://a:1/0", "RQ_REDIS_URL": "redis://b:2/0"}
    assert JobSettings.from_env(both).rq_redis_url == "redis://b:2/0"
    # a cluster event store without a queue Redis: no jobs at all
    assert not JobSettings.from_env({"REDIS_URL": "redis+cluster://a:1"}).configured
    with pytest.raises(SettingsError, match="single server"):
        JobSettings.from_env({"RQ_REDIS_URL": "redis+cluster://a:1"})
    with pytest.raises(SettingsError, match="TIGRIS_RQ_WORKERS"):
        JobSettings.from_env({"TIGRIS_RQ_WORKERS": "0"})
    with pytest.raises(SettingsError, match="TIGRIS_JOB_RETRIES"):
        JobSettings.from_env({"TIGRIS_JOB_RETRIES": "1,x"})
    assert JobSettings.from_env({"TIGRIS_JOB_RETRIES": "none"}).retries == ()


def test_the_worker_command_refuses_a_cluster_without_a_queue_redis() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "RQ_REDIS_URL"}}
    env["RQ_REDIS_URL"] = "redis+cluster://127.0.0.1:1"
    env["REDIS_URL"] = "redis://127.0.0.1:1/0"  # never reached: the setting stops the start
    done = subprocess.run(
        [sys.executable, "-m", "service", "worker"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "RQ_REDIS_URL" in done.stderr


def _workers_of(connection: redis.Redis, queue: str) -> list[BaseWorker]:
    return [w for w in Worker.all(connection=connection) if queue in w.queue_names()]


def test_the_worker_command_runs_its_workers_with_the_scheduler(
    jobs: Jobs, job_env: dict[str, str], tmp_path: Path
) -> None:
    # given `python -m service worker` with two workers
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "service", "worker"],
            env={**job_env, "TIGRIS_RQ_WORKERS": "2"},
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        name = jobs.settings.queue
        wait_for(lambda: len(_workers_of(jobs.connection, name)) == 2, what="two workers")
        # when a job is enqueued now and another for one second later
        now_key, later_key = f"{name}:now", f"{name}:later"
        enqueue_once(jobs.queue, jobs.settings, mark, "now", now_key, "now")
        jobs.queue.enqueue_in(timedelta(seconds=1), mark, later_key, "later", job_id="later")
        # then the workers run both (the scheduled one through RQ's scheduler)
        wait_for(lambda: jobs.connection.exists(now_key, later_key) == 2, what="both jobs")
        assert process.poll() is None, log.read_text()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    # and a SIGTERM stops them (warm shutdown: they unregister)
    assert process.returncode == 0, log.read_text()
    wait_for(lambda: not _workers_of(jobs.connection, name), 10, "the workers to unregister")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_run_command_runs_a_worker_beside_the_api_and_stops_both(tmp_path: Path) -> None:
    # given the run command on an embedded Redis (no REDIS_URL)
    port = free_port()
    data = tmp_path / "redis"
    queue_name = f"q-{uuid.uuid4().hex[:8]}"
    env = service_env(None, port, {"TIGRIS_REDIS_DIR": str(data), "TIGRIS_RQ_QUEUE": queue_name})
    env.pop("RQ_REDIS_URL", None)
    log = tmp_path / "service.log"
    process = launch_service(env, log, new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for(lambda: _ready(url), 60, "the API")
        redis_url = (data / "redis.url").read_text().strip()
        settings = JobSettings.from_env({"REDIS_URL": redis_url, "TIGRIS_RQ_QUEUE": queue_name})
        connection = queue_connection(settings)
        # then one RQ worker serves the queue on the same Redis
        wait_for(lambda: len(_workers_of(connection, queue_name)) == 1, 60, "the worker")
        worker_pids = [w.pid for w in _workers_of(connection, queue_name) if w.pid is not None]
        enqueue_once(job_queue(settings, connection), settings, mark, "beside", "beside", "ok")
        wait_for(lambda: connection.exists("beside") == 1, 30, "the job")
        # and when that worker dies, the service starts another
        [pool_pid] = re.findall(r"RQ worker started \(pid (\d+)\)", log.read_text())
        kill_family(int(pool_pid))
        wait_for(
            lambda: bool({w.pid for w in _workers_of(connection, queue_name)} - set(worker_pids)),
            60,
            "a new worker",
        )
        worker_pids = [w.pid for w in _workers_of(connection, queue_name) if w.pid is not None]
        connection.close()
    finally:
        # when the service stops
        stop_service(process)
    # then the worker stopped with it, and so did the embedded Redis
    assert process.returncode == 0, log.read_text()[-3000:]
    wait_for(lambda: not any(_alive(pid) for pid in worker_pids), 10, "the worker to exit")
    assert not (data / "redis.url").exists()


def _ready(url: str) -> bool:
    try:
        return requests.get(f"{url}/readyz", timeout=1).status_code == 200
    except requests.RequestException:
        return False
