"""The player feed port's contract, on every adapter (in memory, Redis): entries numbered
1, 2, ... and never reused, a key written once, the newest ``keep`` kept, the projection
cursor never moving back."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from service.store.memory import InMemoryPlayerFeedStore
from service.store.port import PlayerFeedStore
from service.store.redis_feeds import RedisPlayerFeedStore


@pytest.fixture(params=["memory", "redis"])
def feeds(request: pytest.FixtureRequest, redis_url: str) -> Iterator[PlayerFeedStore]:
    if request.param == "memory":
        yield InMemoryPlayerFeedStore()
        return
    client = redis.Redis.from_url(redis_url)
    yield RedisPlayerFeedStore(client, prefix=f"t{uuid.uuid4().hex[:8]}")
    client.close()


def test_a_key_is_written_once_and_the_newest_entries_are_kept(feeds: PlayerFeedStore) -> None:
    player = uuid.uuid4().hex
    # given three entries, one of them twice in the batch and again later
    first = feeds.append(player, [("a", {"n": 1}), ("b", {"n": 2}), ("a", {"n": 9})], keep=3)
    again = feeds.append(player, [("a", {"n": 1}), ("c", {"n": 3})], keep=3)
    # then each key was written once, numbered on
    assert first == [1, 2] and again == [3]
    assert [(e.seq, e.data) for e in feeds.read(player, 0, 10)] == [
        (1, {"n": 1}),
        (2, {"n": 2}),
        (3, {"n": 3}),
    ]
    # when more come than it keeps, the oldest go and the numbers go on
    assert feeds.append(player, [("d", {"n": 4}), ("e", {"n": 5})], keep=3) == [4, 5]
    assert [e.seq for e in feeds.read(player, 0, 10)] == [3, 4, 5]
    assert feeds.bounds(player) == (3, 5)
    assert [e.seq for e in feeds.read(player, 3, 1)] == [4]
    assert feeds.wait(player, 4, 0.01) and not feeds.wait(player, 5, 0.01)
    assert feeds.bounds(uuid.uuid4().hex) == (0, 0)


def test_the_projection_cursor_never_moves_back(feeds: PlayerFeedStore) -> None:
    game = uuid.uuid4().hex
    assert feeds.projected(game) == 0
    feeds.project_to(game, 7)
    feeds.project_to(game, 3)
    assert feeds.projected(game) == 7
