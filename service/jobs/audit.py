"""The periodic audit as a job: every ``TIGRIS_AUDIT_S`` seconds one job audits every active
game (``service.application.audit``: its fold against its snapshots and its stored info),
and records what it found in the ``AuditLog`` (shown by ``GET /ops/audit``).

The audits form a chain like the sweeps (job id ``audit-<queue>-<slot>``, scheduled once
per slot by whoever gets there first, again at every worker start).
"""

from __future__ import annotations

from service.application.audit import Audit
from service.jobs.context import JobContext, job_context
from service.jobs.enqueue import schedule_audit

__all__ = ["audit", "audit_games", "run", "schedule_audit"]


def audit() -> dict[str, int]:
    """The old dotted name of the job ``service.jobs.tasks.audit``: jobs queued under it
    before the job bodies moved there still run."""
    return run(job_context())


def run(context: JobContext) -> dict[str, int]:
    """The audit job: schedule the next audit, then audit every active game."""
    schedule_audit(context.queue, context.settings)
    return audit_games(context)


def audit_games(context: JobContext | None = None) -> dict[str, int]:
    context = job_context() if context is None else context
    return Audit(context.games, context.audit).run()
