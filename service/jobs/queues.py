"""The queue: RQ on the queue Redis (``RQ_REDIS_URL``, else ``REDIS_URL``), and enqueueing.

Every job the service enqueues is idempotent and keyed (``job_id``) by what it is about: a
bot's move by game, version and seat, a sweep by its time slot. Enqueueing is ``unique``
(RQ refuses a second job with an id that exists), so the fast path (enqueue right after an
append) and the periodic sweep (which re-enqueues whatever is due, in case a process died
between an append and its enqueue) never queue the same work twice while it is pending; and
should two jobs for the same thing run anyway, the work they do is idempotent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.job import Job

from service.jobs.settings import JobSettings

log = logging.getLogger("tigris.jobs")

# How long RQ keeps a finished job (and so its id: a later duplicate is refused meanwhile).
RESULT_TTL_S = 600
# How long a failed job stays in the failed registry, with its reason.
FAILURE_TTL_S = 7 * 24 * 3600


def queue_connection(settings: JobSettings) -> redis.Redis:
    """A client on the queue Redis, as RQ needs it (bytes responses)."""
    if settings.rq_redis_url is None:
        raise ValueError("no queue Redis: set RQ_REDIS_URL (or a single-server REDIS_URL)")
    return redis.Redis.from_url(settings.rq_redis_url, socket_connect_timeout=5, socket_timeout=30)


def job_queue(settings: JobSettings, connection: redis.Redis | None = None) -> Queue:
    return Queue(settings.queue, connection=connection or queue_connection(settings))


def retry_of(settings: JobSettings) -> Retry | None:
    """RQ's retry with the configured backoff (``TIGRIS_JOB_RETRIES``), or none."""
    if not settings.retries:
        return None
    return Retry(max=len(settings.retries), interval=list(settings.retries))


def enqueue_once(
    queue: Queue,
    settings: JobSettings,
    func: Callable[..., Any] | str,
    job_id: str,
    *args: Any,
    timeout_s: int = 60,
    at: datetime | None = None,
) -> Job | None:
    """Enqueue ``func(*args)`` (a function, or its dotted name) as job ``job_id`` (at
    ``at``, if given) unless a job with that id exists (pending, running, or finished
    within ``RESULT_TTL_S``): then None."""
    options: dict[str, Any] = {
        "job_id": job_id,
        "unique": True,
        "job_timeout": timeout_s,
        "result_ttl": RESULT_TTL_S,
        "failure_ttl": FAILURE_TTL_S,
        "retry": retry_of(settings),
        "description": job_id,
    }
    target: Any = func  # RQ imports a dotted name when the job runs
    try:
        if at is None:
            return queue.enqueue(target, *args, **options)
        job: Job = queue.enqueue_at(at, target, *args, **options)
        return job
    except DuplicateJobError:
        return None
