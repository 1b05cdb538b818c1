"""The archive tier's jobs: each sweep enqueues one ``archive_game`` job per game past
retention (``service.application.archive_tier``); the job moves it. A job that finds the
archive storage unreachable fails (and is retried: RQ's retries, then the next sweep's
job), and the game stays in Redis, served as before, until a job gets through.
"""

from __future__ import annotations

import logging
import time

from rq import Queue

from service.application.game_service import GameService
from service.jobs.context import JobContext
from service.jobs.queues import enqueue_once
from service.jobs.settings import JobSettings

log = logging.getLogger("tigris.jobs.archive")

ARCHIVE_GAME = "service.jobs.tasks.archive_game"


def archive(context: JobContext, game_id: str) -> str:
    """Archive ``game_id`` if it is due; the outcome (``archived``, ``already``,
    ``not-due``, ``moved``, ``missing``, ``off``)."""
    archiver = context.games.archiver
    if archiver is None:
        return "off"
    outcome = archiver.archive(game_id)
    log.info("archive %s: %s", game_id, outcome.outcome, extra={"game_id": game_id})
    return outcome.outcome


def enqueue_archiving(
    queue: Queue, settings: JobSettings, games: GameService, limit: int, now: float | None = None
) -> int:
    """An ``archive_game`` job for each game due (at most ``limit``), one per game and
    sweep interval (a failed one is tried again by a later sweep)."""
    archiver = games.archiver
    if archiver is None:
        return 0
    slot = int((time.time() if now is None else now) // settings.sweep_s)
    enqueued = 0
    for game_id in archiver.due(limit):
        job = enqueue_once(
            queue, settings, ARCHIVE_GAME, f"archive-{game_id}-{slot}", game_id, timeout_s=600
        )
        enqueued += job is not None
    return enqueued
