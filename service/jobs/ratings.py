"""The ratings' jobs (``service.application.ratings``): ``rate_game``, queued by the
append that ends a rated game (``service.jobs.triggers``), counts it into its players'
ratings; ``rebuild_ratings`` drops a kind's ratings and counts its rated games again.

A game found before the last one counted (two games ending close together, their jobs run
in the other order) queues a rebuild of its kind, which counts every game in the
projection's order; a game whose kind is being rebuilt is tried again later (the rebuild
may have listed its games before this one ended).
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from service.application.ratings import OUT_OF_ORDER, REBUILDING
from service.jobs.context import JobContext
from service.jobs.enqueue import enqueue_rating, enqueue_ratings_rebuild

log = logging.getLogger("tigris.jobs.ratings")

RETRY_AFTER_S = 30


def rate(context: JobContext, game_id: str) -> str:
    """Count ``game_id``; the outcome (``service.application.ratings``)."""
    ratings = context.games.ratings
    outcome = ratings.rate(game_id)
    log.info("ratings of game %s: %s", game_id, outcome, extra={"game_id": game_id})
    if outcome in (OUT_OF_ORDER, REBUILDING):
        game = context.games.repository.get(game_id)
        if outcome == OUT_OF_ORDER:
            enqueue_ratings_rebuild(context.queue, context.settings, game.kind, game_id)
        else:
            at = datetime.fromtimestamp(time.time() + RETRY_AFTER_S, UTC)
            enqueue_rating(context.queue, context.settings, game, at=at)
    return outcome


def rebuild(context: JobContext, kind: str) -> int:
    """Rebuild ``kind``'s ratings; how many games were counted (-1: another rebuild
    holds the kind; that one counts every game)."""
    counted = context.games.ratings.rebuild(kind)
    log.info("ratings of %s rebuilt: %d games", kind, counted)
    return counted
