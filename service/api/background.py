"""The API's side of background jobs: the jobs' write observer (``service.jobs.triggers``)
joins the application's, so that every write a request makes enqueues what the game now
needs; without a queue Redis (a cluster ``REDIS_URL`` and no ``RQ_REDIS_URL``) nothing is
enqueued."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app

from service.application.game_service import GameService
from service.config import StoreSettings
from service.jobs.settings import JobSettings
from service.jobs.triggers import JobTriggers
from service.store.connect import redis_client
from service.store.port import AuditLog
from service.store.redis_audit import RedisAuditLog
from service.store.redis_webhooks import RedisWebhookStore, player_webhook_store

EXTENSION = "tigris.jobs"
AUDIT_EXTENSION = "tigris.audit"


def install(app: Flask, config: Mapping[str, Any], games: GameService) -> None:
    settings = JobSettings.from_config(config)
    store = StoreSettings.from_config(config)
    if not settings.configured or store.redis_url is None:
        app.extensions[EXTENSION] = None
        app.extensions[AUDIT_EXTENSION] = None
        return
    client = redis_client(store.redis_url, decode_responses=True)
    hooks = RedisWebhookStore(client, prefix=store.key_prefix)
    player_hooks = player_webhook_store(client, store.key_prefix)
    found = JobTriggers(settings, hooks, games, player_hooks=player_hooks)
    games.writes.add(found)
    games.feeds.listeners.append(found.feed_written)  # e.g. an invitation's entry
    app.extensions[EXTENSION] = found
    app.extensions[AUDIT_EXTENSION] = RedisAuditLog(client, prefix=store.key_prefix)


def triggers() -> JobTriggers | None:
    """The app's job triggers (None without a queue Redis)."""
    found: JobTriggers | None = current_app.extensions.get(EXTENSION)
    return found


def audit_log() -> AuditLog | None:
    """The periodic audit's counters (None without a queue Redis: no audit runs)."""
    found: AuditLog | None = current_app.extensions.get(AUDIT_EXTENSION)
    return found
