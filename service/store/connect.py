"""Wiring: settings → a Redis (given by ``REDIS_URL`` or embedded) → store adapters."""

from __future__ import annotations

from dataclasses import dataclass

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.config import StoreSettings
from service.embedded_redis import EmbeddedRedis
from service.store.redis_streams import (
    MAX_WAIT_S,
    RedisEventStore,
    RedisSnapshotStore,
    blocking_client,
)


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
        if self.events.blocking_client is not self.client:
            self.events.blocking_client.close()
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
    settings: StoreSettings | None = None,
    *,
    max_connections: int | None = None,
    max_wait_s: float = MAX_WAIT_S,
    max_waiting: int | None = None,
) -> StoreConnection:
    """Connect to ``settings.redis_url``, or start (or attach to) the embedded Redis
    on ``settings.redis_dir`` with AOF and the configured fsync policy.
    ``max_connections`` sizes the pool (redis-py's default caps it at 100; a server
    serving many clients at once needs more).

    Blocking reads (``events.wait``) get their own client and pool: socket timeout
    ``max_wait_s`` plus a margin, at most ``max_waiting`` connections (default: as many
    as ``max_connections``), so open streams never take the connections commands need."""
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
    waiting = max_waiting if max_waiting is not None else max_connections
    blocking = blocking_client(
        url,
        max_wait_s=max_wait_s,
        retry=no_retries(),
        **({} if waiting is None else {"max_connections": waiting}),
    )
    return StoreConnection(
        url=url,
        client=client,
        events=RedisEventStore(
            client, prefix=settings.key_prefix, blocking_client=blocking, max_wait_s=max_wait_s
        ),
        snapshots=RedisSnapshotStore(client, prefix=settings.key_prefix),
        server=server,
    )
