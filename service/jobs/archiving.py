"""The archive tier's job: each sweep enqueues one ``archive_game`` job per game past
retention (``service.jobs.enqueue.enqueue_archiving``); the job moves it
(``service.application.archive_tier``). A job that finds the
archive storage unreachable fails (and is retried: RQ's retries, then the next sweep's
job), and the game stays in Redis, served as before, until a job gets through.
"""

from __future__ import annotations

import logging

from service.jobs.context import JobContext

log = logging.getLogger("tigris.jobs.archive")


def archive(context: JobContext, game_id: str) -> str:
    """Archive ``game_id`` if it is due; the outcome (``archived``, ``already``,
    ``not-due``, ``moved``, ``missing``, ``off``)."""
    archiver = context.games.archiver
    if archiver is None:
        return "off"
    outcome = archiver.archive(game_id)
    log.info("archive %s: %s", game_id, outcome.outcome, extra={"game_id": game_id})
    return outcome.outcome
