"""What a job reaches: the application service on the store, and the queue, built from the
environment once per process (a worker's work horses are forks: redis-py's pools notice the
new process id and reconnect)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from rq import Queue

from service.application.game_service import GameService, build_service
from service.config import ArchiveSettings, StoreSettings
from service.jobs.queues import job_queue
from service.jobs.settings import JobSettings
from service.jobs.triggers import JobTriggers
from service.store.connect import StoreConnection
from service.store.port import AuditLog, WebhookStore
from service.store.redis_archive_stats import RedisArchiveStats
from service.store.redis_audit import RedisAuditLog
from service.store.redis_webhooks import RedisWebhookStore, player_webhook_store


@dataclass
class JobContext:
    games: GameService
    store: StoreConnection
    settings: JobSettings
    queue: Queue
    hooks: WebhookStore
    triggers: JobTriggers
    audit: AuditLog
    player_hooks: WebhookStore


_lock = threading.Lock()
_contexts: dict[tuple[StoreSettings, JobSettings, ArchiveSettings], JobContext] = {}


def job_context() -> JobContext:
    """The context for the current environment's settings (built on first use)."""
    store_settings = StoreSettings.from_env()
    settings = JobSettings.from_env()
    archive = ArchiveSettings.from_env()
    key = (store_settings, settings, archive)
    with _lock:
        found = _contexts.get(key)
        if found is None:
            if store_settings.redis_url is None:
                raise RuntimeError("a job needs REDIS_URL (the worker sets it if embedded)")
            stats = RedisArchiveStats(None, prefix=store_settings.key_prefix)
            games, connection = build_service(
                store_settings, archive=archive, archive_observer=stats
            )
            stats.client = connection.client
            queue = job_queue(settings)
            hooks = RedisWebhookStore(connection.client, prefix=store_settings.key_prefix)
            player_hooks = player_webhook_store(connection.client, store_settings.key_prefix)
            triggers = JobTriggers(settings, hooks, games, queue, player_hooks=player_hooks)
            games.writes.add(triggers)  # the jobs' own writes (bot moves) enqueue the next
            games.feeds.listeners.append(triggers.feed_written)  # players' webhooks follow
            audit = RedisAuditLog(connection.client, prefix=store_settings.key_prefix)
            found = JobContext(
                games, connection, settings, queue, hooks, triggers, audit, player_hooks
            )
            _contexts[key] = found
        return found
