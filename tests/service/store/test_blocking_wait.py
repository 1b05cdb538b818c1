"""The blocking read of event streams (``RedisEventStore.wait``) has its own Redis client,
whose socket timeout is set from the longest block, not left to the client library's
default (redis-py 8: 5 s, which cut every idle stream)."""

from __future__ import annotations

import time

import redis

from service.config import StoreSettings
from service.store.connect import connect
from service.store.redis_streams import BLOCK_MARGIN_S, MAX_WAIT_S


def test_the_blocking_client_outlasts_the_longest_block(redis_url: str, key_prefix: str) -> None:
    settings = StoreSettings(redis_url=redis_url, key_prefix=key_prefix)
    connection = connect(settings, max_connections=8, max_wait_s=15.0, max_waiting=40)
    try:
        blocking = connection.events.blocking_client
        assert blocking is not connection.client
        pool = blocking.connection_pool
        assert pool.connection_kwargs["socket_timeout"] == 15.0 + BLOCK_MARGIN_S
        assert pool.max_connections == 40
        assert isinstance(connection.client, redis.Redis)
        assert connection.client.connection_pool.max_connections == 8
    finally:
        connection.close()


def test_a_block_longer_than_redis_pys_default_timeout_returns_quietly(
    redis_url: str, key_prefix: str
) -> None:
    # Given the default settings of the adapter and a game with one event
    connection = connect(StoreSettings(redis_url=redis_url, key_prefix=key_prefix))
    try:
        store = connection.events
        assert store.max_wait_s == MAX_WAIT_S
        connection.client.xadd(store.keys.events("g1"), {"type": "x"}, id="1-0")
        # When a wait blocks 6 s (beyond redis-py's 5 s default socket timeout)
        started = time.monotonic()
        assert store.wait("g1", 1, 6.0) == []
        # Then it simply found nothing after its full block, without a timeout error
        assert time.monotonic() - started >= 5.9
    finally:
        connection.close()


def test_a_wait_is_capped_at_the_blocking_clients_limit(redis_url: str, key_prefix: str) -> None:
    settings = StoreSettings(redis_url=redis_url, key_prefix=key_prefix)
    connection = connect(settings, max_wait_s=0.5)
    try:
        connection.client.xadd(connection.events.keys.events("g2"), {"type": "x"}, id="1-0")
        started = time.monotonic()
        assert connection.events.wait("g2", 1, 30.0) == []
        assert time.monotonic() - started < 5
    finally:
        connection.close()
