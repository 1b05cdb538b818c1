"""The fast path from a request to its background work: after an append, enqueue what the
game now needs (a bot seat's move). A failure to enqueue never fails the request (the
append is done; the periodic sweep enqueues the work later)."""

from __future__ import annotations

import logging
import threading

import redis
from rq import Queue

from service.application.repository import LoadedGame
from service.jobs.bots import awaited_bots, enqueue_bot_moves
from service.jobs.queues import job_queue
from service.jobs.settings import JobSettings

log = logging.getLogger("tigris.jobs")


class JobTriggers:
    def __init__(self, settings: JobSettings) -> None:
        self.settings = settings
        self._queue: Queue | None = None
        self._lock = threading.Lock()

    @property
    def queue(self) -> Queue:
        with self._lock:
            if self._queue is None:
                self._queue = job_queue(self.settings)
            return self._queue

    def after_change(self, game: LoadedGame) -> None:
        """Enqueue the moves of the bot seats ``game`` awaits (nothing for other games)."""
        if not awaited_bots(game):
            return
        try:
            enqueue_bot_moves(self.queue, self.settings, game)
        except (redis.RedisError, OSError) as exc:
            log.warning("bot move of game %s not enqueued (the sweep will): %s", game.game_id, exc)
