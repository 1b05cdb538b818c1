"""The fast path from an append to its background work: enqueue what the game now needs (a
bot seat's move, webhook deliveries). A failure to enqueue never fails the request (the
append is done; the periodic sweep enqueues the work later)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

import redis
from redis.exceptions import RedisClusterException
from rq import Queue

from service.application.game_service import GameService
from service.application.repository import LoadedGame
from service.jobs.enqueue import (
    awaited_bots,
    enqueue_bot_moves,
    enqueue_deadlines,
    enqueue_deliveries,
)
from service.jobs.queues import job_queue
from service.jobs.settings import JobSettings
from service.store.port import WebhookStore

log = logging.getLogger("tigris.jobs")


class JobTriggers:
    def __init__(self, settings: JobSettings, hooks: WebhookStore, queue: Queue | None = None):
        self.settings = settings
        self.hooks = hooks
        self._queue = queue
        self._lock = threading.Lock()

    @property
    def queue(self) -> Queue:
        with self._lock:
            if self._queue is None:
                self._queue = job_queue(self.settings)
            return self._queue

    def after_change(
        self,
        game: LoadedGame,
        games: GameService,
        *,
        webhooks: int | None = None,
        answering: Sequence[int] = (),
    ) -> None:
        """Enqueue the moves of the bot seats ``game`` awaits, the deadlines of its clock
        and the deliveries of its webhooks. ``webhooks``: the subscription count the append
        returned (0: no read of the subscription set at all; None: read it). ``answering``:
        the bot seats whose answer an undo request made by this change awaits."""
        try:
            if awaited_bots(game) or answering:
                enqueue_bot_moves(self.queue, self.settings, game, answering)
            if game.info.clock is not None:
                enqueue_deadlines(self.queue, self.settings, games, game)
            enqueue_deliveries(self.queue, self.settings, self.hooks, game, known=webhooks)
        except (redis.RedisError, RedisClusterException, OSError) as exc:
            log.warning("jobs of game %s not enqueued (the sweep will): %s", game.game_id, exc)
