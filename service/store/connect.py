"""Wiring: settings → a Redis (given by ``REDIS_URL`` or embedded) → store adapters."""

from __future__ import annotations

from dataclasses import dataclass

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.config import StoreSettings
from service.embedded_redis import EmbeddedRedis
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore


@dataclass
class StoreConnection:
    """The open storage of one process. ``close()`` stops an embedded server it started."""

    url: str
    client: redis.Redis
    events: RedisEventStore
    snapshots: RedisSnapshotStore
    server: EmbeddedRedis | None = None

    def close(self) -> None:
        self.client.close()
        if self.server is not None:
            self.server.stop()
            self.server = None


def no_retries() -> Retry:
    """redis-py retries a command after a connection error by default. For an append
    that is wrong: if the first attempt ran but its answer was lost, the retry meets
    its own events and reports a stale version. So the error surfaces instead, as
    StoreUnavailable, and the caller retries with the same idempotency key."""
    return Retry(NoBackoff(), 0)


def connect(
    settings: StoreSettings | None = None, *, max_connections: int | None = None
) -> StoreConnection:
    """Connect to ``settings.redis_url``, or start (or attach to) the embedded Redis
    on ``settings.redis_dir`` with AOF and the configured fsync policy.
    ``max_connections`` sizes the pool (redis-py's default caps it at 100; a server
    whose threads each block in a stream read needs one per thread)."""
    settings = StoreSettings.from_env() if settings is None else settings
    server: EmbeddedRedis | None = None
    if settings.redis_url:
        url = settings.redis_url
    else:
        server = EmbeddedRedis(
            settings.redis_dir, binary=settings.redis_server, appendfsync=settings.appendfsync
        ).start()
        url = server.url
    pool: dict[str, int] = {} if max_connections is None else {"max_connections": max_connections}
    client = redis.Redis.from_url(
        url, decode_responses=True, health_check_interval=30, retry=no_retries(), **pool
    )
    return StoreConnection(
        url=url,
        client=client,
        events=RedisEventStore(client, prefix=settings.key_prefix),
        snapshots=RedisSnapshotStore(client, prefix=settings.key_prefix),
        server=server,
    )
