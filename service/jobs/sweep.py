"""The periodic sweep: every ``TIGRIS_JOB_SWEEP_S`` seconds, one job looks at every active
game and enqueues the work that is due (a bot seat awaited, a clock's deadline, a webhook
behind), in case a process died between an append and the enqueue that should follow it.
Enqueueing is keyed (``enqueue_once``), so work already pending is not queued twice.

The sweeps form a chain: a sweep first schedules the next one (job id
``sweep-<queue>-<slot>``, the slot being the time divided by the interval; ``unique``, so
the workers that all start the chain, and a sweep that runs twice, schedule it once), then
works. ``python -m service
worker`` starts the chain (again) when it starts.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from rq import Queue

from service.jobs.bots import enqueue_bot_moves
from service.jobs.clocks import enqueue_deadlines
from service.jobs.context import job_context
from service.jobs.queues import enqueue_once
from service.jobs.settings import JobSettings
from service.jobs.webhooks import enqueue_deliveries

log = logging.getLogger("tigris.jobs.sweep")

PAGE = 100


def schedule_sweep(queue: Queue, settings: JobSettings, *, after: float | None = None) -> bool:
    """Schedule the sweep of the next slot after ``after`` (default: now); False if it was."""
    now = time.time() if after is None else after
    slot = int(now // settings.sweep_s) + 1
    at = datetime.fromtimestamp(slot * settings.sweep_s, UTC)
    job_id = f"sweep-{settings.queue}-{slot}"  # job ids are global, queues are not
    job = enqueue_once(queue, settings, sweep, job_id, timeout_s=600, at=at)
    return job is not None


def sweep() -> dict[str, int]:
    """The job: schedule the next sweep, then enqueue what is due in every active game."""
    context = job_context()
    schedule_sweep(context.queue, context.settings)
    return sweep_games()


def sweep_games() -> dict[str, int]:
    context = job_context()
    games = context.games
    counts = {"games": 0, "bot_moves": 0, "deliveries": 0, "deadlines": 0}
    cursor: str | None = None
    while True:
        infos, cursor = games.queries.list_games(status="active", cursor=cursor, limit=PAGE)
        for info in infos:
            counts["games"] += 1
            subs = context.hooks.of_game(info.game_id)
            behind = any(s.status == "active" and s.cursor < info.version for s in subs)
            if info.bots or info.clock is not None or behind:
                game = games.repository.get(info.game_id)
                counts["deadlines"] += enqueue_deadlines(
                    context.queue, context.settings, games, game
                )
                counts["bot_moves"] += enqueue_bot_moves(context.queue, context.settings, game)
                counts["deliveries"] += enqueue_deliveries(
                    context.queue, context.settings, context.hooks, game
                )
        if cursor is None:
            return counts
