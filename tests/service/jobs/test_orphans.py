"""A killed RQ worker leaves no orphan behind (issue 21, point 12): the processes forked
by ``python -m service worker`` (RQ's pool workers, each worker's scheduler and work
horse) die with their parent (``service.lifeline``, Linux's PR_SET_PDEATHSIG).

Real processes throughout: the worker command as the service runs it, jobs on the
test's own queue, SIGKILL, and the process table read from /proc. The waits are bounds
for liveness, not timings: a fixed process is gone within about a second.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.service.jobs.conftest import Jobs
from tests.service.jobs.tasks import hold
from tests.service.jobs.test_bot_workers import (
    children_by_parent,
    family,
    wait_for,
    worker_process,
)

GONE_WITHIN_S = 60  # a bound; an orphan would live on forever (or for the whole job)
JOB_S = 600  # far longer than the bound: a horse that is gone was stopped, not done


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (from /proc)."""
    return children_by_parent().get(pid, [])


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@contextmanager
def reaped(pids: set[int]) -> Iterator[set[int]]:
    """Kills whatever of ``pids`` is still alive at the end (so that a failing test leaves
    no process behind either)."""
    try:
        yield pids
    finally:
        for pid in pids:
            if alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_a_killed_worker_command_takes_its_workers_and_scheduler_with_it(
    jobs: Jobs, job_env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "workers.log"
    # given `python -m service worker` with two workers, one of them running RQ's scheduler
    with worker_process(job_env, log, workers=2) as pool:
        wait_for(
            lambda: len(children(pool.pid)) == 2 and len(family(pool.pid)) >= 4,
            GONE_WITHIN_S,
            "two workers and a scheduler",
            log,
        )
        with reaped(set(family(pool.pid)) - {pool.pid}) as descendants:
            # when the command's process is killed (SIGKILL: it can stop no child itself)
            pool.send_signal(signal.SIGKILL)
            pool.wait()
            # then its workers and the scheduler end too
            wait_for(
                lambda: not any(alive(pid) for pid in descendants),
                GONE_WITHIN_S,
                f"the orphans {sorted(p for p in descendants if alive(p))} to end",
                log,
            )


def test_a_killed_rq_worker_takes_its_scheduler_and_work_horse_with_it(
    jobs: Jobs, job_env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "workers.log"
    keys = [f"{jobs.settings.queue}:horse:{n}" for n in range(2)]
    # given two workers, each with a work horse in the middle of a long job
    for key in keys:
        jobs.queue.enqueue(hold, key, JOB_S, job_timeout=JOB_S + 60)
    with worker_process(job_env, log, workers=2) as pool:
        wait_for(lambda: jobs.connection.exists(*keys) == 2, GONE_WITHIN_S, "the horses", log)
        horses = {int(jobs.connection.get(key) or 0) for key in keys}
        workers = children(pool.pid)
        # and one of the workers running RQ's scheduler (a child that is no work horse)
        wait_for(
            lambda: any(set(children(w)) - horses for w in workers),
            GONE_WITHIN_S,
            "the scheduler",
            log,
        )
        doomed = {pid for worker in workers for pid in family(worker) if pid != worker}
        assert horses <= doomed and len(doomed) == 3, (horses, doomed)
        with reaped(doomed):
            # when both workers are killed (SIGKILL)
            for worker in workers:
                os.kill(worker, signal.SIGKILL)
            # then their work horses and the scheduler end too, long before the job would
            wait_for(
                lambda: not any(alive(pid) for pid in doomed),
                GONE_WITHIN_S,
                f"the orphans {sorted(p for p in doomed if alive(p))} to end",
                log,
            )
