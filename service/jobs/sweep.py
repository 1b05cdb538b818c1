"""The periodic sweep: every ``TIGRIS_JOB_SWEEP_S`` seconds, one job looks at every active
game and enqueues the work that is due (a bot seat awaited, a clock's deadline, a webhook
behind, the players' feeds behind), in case a process died between an append and the
enqueue that should follow it; and it enqueues the archiving of the games past retention
(``service.jobs.archiving``) and the count of the rated games that are over and were not
counted (``service.jobs.ratings``: their job was lost).
Enqueueing is keyed (``enqueue_once``), so work already pending is not queued twice.

The sweeps form a chain: a sweep first schedules the next one (job id
``sweep-<queue>-<slot>``, the slot being the time divided by the interval; ``unique``, so
the workers that all start the chain, and a sweep that runs twice, schedule it once), then
works. ``python -m service worker`` starts the chain (again) when it starts.
"""

from __future__ import annotations

import logging
import time

from service.config import ArchiveSettings
from service.jobs.context import JobContext, job_context
from service.jobs.enqueue import (
    enqueue_archiving,
    enqueue_bot_moves,
    enqueue_deadlines,
    enqueue_deliveries,
    enqueue_projection,
    enqueue_rating,
    schedule_sweep,
)
from service.store.port import STATUSES

__all__ = ["run", "schedule_sweep", "sweep", "sweep_games"]

log = logging.getLogger("tigris.jobs.sweep")

PAGE = 100


def sweep() -> dict[str, int]:
    """The old dotted name of the job ``service.jobs.tasks.sweep``: jobs queued under it
    before the job bodies moved there still run."""
    return run(job_context())


def run(context: JobContext) -> dict[str, int]:
    """The sweep job: schedule the next sweep, then enqueue what is due in every active
    game."""
    schedule_sweep(context.queue, context.settings)
    counts = sweep_games(context)
    counts["archiving"] = enqueue_archiving(
        context.queue,
        context.settings,
        context.games,
        ArchiveSettings.from_env().archive_sweep_batch,
    )
    counts["ratings"] = sweep_ratings(context)
    return counts


def sweep_ratings(context: JobContext, limit: int = PAGE) -> int:
    """Enqueue the count of every rated game noted (``RatingStore.expect``, at its creation)
    that is over and not counted (its job was lost); forget those never stored. Up to
    ``limit`` per kind and sweep, a sample: the next sweeps get to the others."""
    games = context.games
    store = games.ratings.store
    again = f"sweep-{int(time.time() // context.settings.sweep_s)}"  # a failed job's id stays
    enqueued = 0
    for kind in sorted(games.repository.kinds()):
        noted = store.expected(kind, limit)
        for game_id, record in zip(noted, games.store.infos(noted), strict=True):
            if record is None:
                store.forget(kind, game_id)
            elif record.fields.get("status") == STATUSES[2]:
                if store.counted(kind, game_id):
                    store.forget(kind, game_id)
                else:
                    game = games.repository.get(game_id)
                    enqueued += enqueue_rating(context.queue, context.settings, game, again=again)
    return enqueued


def sweep_games(context: JobContext | None = None) -> dict[str, int]:
    context = job_context() if context is None else context
    games = context.games
    counts = {"games": 0, "bot_moves": 0, "deliveries": 0, "deadlines": 0, "projections": 0}
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
            if info.players and games.feeds.store.projected(info.game_id) < info.version:
                game = games.repository.get(info.game_id)
                counts["projections"] += enqueue_projection(context.queue, context.settings, game)
        if cursor is None:
            return counts
