"""``python -m service worker``: RQ workers, with RQ's scheduler, for the service's jobs.

``TIGRIS_RQ_WORKERS`` worker processes (RQ's ``WorkerPool``, which restarts one that dies)
take jobs from the queue on the queue Redis; one of them at a time also runs RQ's
scheduler, which enqueues scheduled jobs (retries after their backoff, the periodic sweep)
when they are due. Each job runs in a fork of its worker (a "work horse").

Every process forked here dies with its parent (``service.lifeline``): a pool process
killed with SIGKILL takes its workers with it, a killed worker its scheduler and its work
horse, so no orphan goes on holding the scheduler's lock or running a job that is also
retried as abandoned.

A job whose worker dies (SIGKILL, the OOM killer, a lost machine) stays "started" until
its heartbeats have been missing for ``TIGRIS_RQ_ABANDONED_S``; the next registry cleanup
(every ``TIGRIS_RQ_MAINTENANCE_S`` on some worker) then retries it like a failure (or moves
it to the failed registry when it has no retry left). RQ's own margin for that is a
minute; ``TigrisWorker`` makes it configurable, and beats more often, so that a killed
worker's bot move is made again within seconds.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from rq import Worker
from rq.job import Job
from rq.worker_pool import WorkerPool

from service.config import LogSettings, SettingsError, StoreSettings
from service.jobs.queues import job_queue, queue_connection
from service.jobs.settings import JobSettings
from service.lifeline import forked_children_die_with_parent

log = logging.getLogger("tigris.jobs")


class TigrisWorker(Worker):
    """RQ's forking worker with the service's timings (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        settings = JobSettings.from_env()
        kwargs.setdefault("job_monitoring_interval", max(1, settings.abandoned_s // 3))
        kwargs.setdefault("maintenance_interval", settings.maintenance_s)
        # The idle worker blocks for worker_ttl - 15 s between maintenance checks.
        kwargs.setdefault("worker_ttl", settings.maintenance_s + 15)
        super().__init__(*args, **kwargs)
        self._abandoned_s = settings.abandoned_s
        # Import the job bodies (rules engines, rendering) once here: every job runs in a
        # fork of this process, which would otherwise import them again for each job.
        import service.jobs.tasks  # noqa: F401

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        """How long the job's entry in the started registry lives without a new heartbeat."""
        interval = int(self.job_monitoring_interval)
        if job.timeout and job.timeout > 0:
            interval = int(min(job.timeout - working_time, interval))
        return max(1, interval) + self._abandoned_s


def run_workers(settings: JobSettings | None = None, *, burst: bool = False) -> int:
    """Run the workers in the foreground until SIGTERM/SIGINT (warm shutdown: jobs in
    progress finish). Returns the exit status."""
    try:
        settings = JobSettings.from_env() if settings is None else settings
        store = StoreSettings.from_env()
    except SettingsError as exc:
        print(f"python -m service worker: {exc}", file=sys.stderr, flush=True)
        return 2
    if not settings.configured:
        print(
            "python -m service worker: no queue Redis: set RQ_REDIS_URL (RQ needs a single "
            "server; REDIS_URL is a cluster or unset)",
            file=sys.stderr,
            flush=True,
        )
        return 2
    del store  # checked above; each job connects to the store itself (service.jobs.context)
    connection = queue_connection(settings)
    from service.jobs.enqueue import schedule_audit, schedule_sweep

    queue = job_queue(settings, connection)
    schedule_sweep(queue, settings)
    schedule_audit(queue, settings)
    level = LogSettings().log_level.upper()
    logging.basicConfig(level=level)
    forked_children_die_with_parent()  # workers, their schedulers and work horses
    pool = WorkerPool(
        [settings.queue],
        connection=connection,
        num_workers=settings.workers,
        worker_class=TigrisWorker,
    )
    pool.start(burst=burst, logging_level=level)
    return 0
