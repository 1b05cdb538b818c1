"""What follows a write, as jobs: the ``WriteObserver`` that enqueues what a game needs after
each append (a bot seat's move or answer, its clock's deadlines, its webhooks' deliveries).
Wired once per process: by the API (``service.api.background``) and by the worker
(``service.jobs.context``), onto the application's ``GameService.writes``. A failure to
enqueue never fails the write (the append is done; the periodic sweep enqueues the work
later)."""

from __future__ import annotations

import logging
import threading
import uuid

import redis
from redis.exceptions import RedisClusterException
from rq import Queue

from service.application.game_service import GameService
from service.application.repository import LoadedGame
from service.application.writes import Write
from service.jobs.enqueue import (
    bots_to_answer,
    enqueue_bot_moves,
    enqueue_deadlines,
    enqueue_deliveries,
    enqueue_player_deliveries,
    enqueue_projection,
    enqueue_rating,
)
from service.jobs.queues import job_queue
from service.jobs.settings import JobSettings
from service.store.port import WebhookStore

log = logging.getLogger("tigris.jobs")


class JobTriggers:
    """The jobs' ``WriteObserver``: ``games`` is the application the jobs read (a clock's
    deadlines come from its events)."""

    def __init__(
        self,
        settings: JobSettings,
        hooks: WebhookStore,
        games: GameService,
        queue: Queue | None = None,
        *,
        player_hooks: WebhookStore | None = None,
    ):
        self.settings = settings
        self.hooks = hooks
        self.player_hooks = player_hooks
        self.games = games
        self._queue = queue
        self._lock = threading.Lock()

    @property
    def queue(self) -> Queue:
        with self._lock:
            if self._queue is None:
                self._queue = job_queue(self.settings)
            return self._queue

    def appended(self, write: Write) -> None:
        """Enqueue the moves of the bot seats the game now awaits (and the answers of the
        bot seats an undo request left open awaits), the deadlines of its clock and the
        deliveries of its webhooks (``write.webhooks``: the subscription count the append
        returned; 0: no read of the subscription set at all; None: read it), and, for a
        rated game this write ended, the count of its ratings."""
        game = write.game
        try:
            answering = bots_to_answer(game, write.awaiting)
            enqueue_bot_moves(self.queue, self.settings, game, answering)  # each checks
            enqueue_deadlines(self.queue, self.settings, self.games, game)  # what is due
            enqueue_deliveries(self.queue, self.settings, self.hooks, game, known=write.webhooks)
            enqueue_rating(self.queue, self.settings, game)  # a rated game that ended
            enqueue_projection(self.queue, self.settings, game)  # the players' feeds
        except (redis.RedisError, RedisClusterException, OSError) as exc:
            log.warning("jobs of game %s not enqueued (the sweep will): %s", game.game_id, exc)

    def deliver(self, game: LoadedGame) -> None:
        """Enqueue the deliveries ``game``'s webhooks are behind on (a subscription enabled
        again: no write, only deliveries to resume)."""
        try:
            enqueue_deliveries(self.queue, self.settings, self.hooks, game)
        except (redis.RedisError, RedisClusterException, OSError) as exc:
            log.warning("webhooks of game %s not enqueued (the sweep will): %s", game.game_id, exc)

    def feed_written(self, player_id: str) -> None:
        """Enqueue the deliveries of ``player_id``'s webhooks after new entries in its
        feed (the next entry written enqueues them again, should this fail)."""
        self._player_deliveries(player_id)

    def player_enabled(self, player_id: str) -> None:
        """Enqueue the deliveries of ``player_id``'s webhooks after one was enabled again
        (its earlier job at the same point has run: a job id of its own)."""
        self._player_deliveries(player_id, f"-enabled-{uuid.uuid4().hex}")

    def _player_deliveries(self, player_id: str, again: str = "") -> None:
        if self.player_hooks is None:
            return
        try:
            _, last = self.games.feeds.store.bounds(player_id)
            hooks = self.player_hooks
            enqueue_player_deliveries(self.queue, self.settings, hooks, player_id, last, again)
        except (redis.RedisError, RedisClusterException, OSError) as exc:
            log.warning("webhooks of player %s not enqueued: %s", player_id, exc)
