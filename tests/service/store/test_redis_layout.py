"""What only the Redis adapter has: its key layout, expiry, script cache and outages."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from redis.crc import key_slot

from service.application.game_service import GameService
from service.errors import StoreUnavailable
from service.store.connect import no_retries
from service.store.port import Idempotency, NewEvent
from service.store.redis_audit import RedisAuditLog
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from service.store.redis_webhooks import RedisWebhookStore
from tests.service.store.conftest import meta
from tests.service.store.pile_game import PILE


@pytest.fixture
def redis_service(redis_client: redis.Redis, key_prefix: str) -> GameService:
    return GameService(
        RedisEventStore(redis_client, prefix=key_prefix),
        RedisSnapshotStore(redis_client, prefix=key_prefix),
        {"pile": PILE},
        snapshot_every=2,
        idempotency_ttl_s=25 * 3600,
    )


def test_every_key_of_a_game_lies_in_one_cluster_slot(
    redis_service: GameService, redis_client: redis.Redis, key_prefix: str
) -> None:
    game = redis_service.commands.create_game(
        "pile", ["a", "b"], {}, 3, meta(None, "admin"), game_id="g7"
    )
    for seat in (0, 1, 0):
        redis_service.commands.handle(
            "g7", {"type": "TakeCounters", "count": 1}, meta=meta(seat), idempotency_key=f"k{seat}"
        )
    keys = sorted(str(k) for k in redis_client.scan_iter(match=f"{key_prefix}:*"))
    indexes = [k for k in keys if k.startswith(f"{key_prefix}:games")]
    per_game = [k for k in keys if k not in indexes]
    assert {k.split(":")[2] for k in per_game} == {"events", "info", "snap", "idem"}
    assert all(k.startswith(f"{key_prefix}:{{{game.game_id}}}:") for k in per_game)
    assert len({key_slot(k.encode()) for k in per_game}) == 1
    # The game indexes (every game, by kind, by status, by both) are the keys outside it.
    assert sorted(indexes) == sorted(
        f"{key_prefix}:games{suffix}"
        for suffix in ("", ":kind:pile", ":status:active", ":kind:pile:status:active")
    )


def test_idempotency_records_are_kept_at_least_a_day(
    redis_service: GameService, redis_client: redis.Redis, key_prefix: str
) -> None:
    redis_service.commands.create_game("pile", ["a", "b"], {}, 3, meta(None, "admin"), game_id="g8")
    redis_service.commands.handle(
        "g8", {"type": "TakeCounters", "count": 1}, meta=meta(0), idempotency_key="day"
    )
    (key,) = redis_client.scan_iter(match=f"{key_prefix}:{{g8}}:idem:*")
    ttl_ms = int(redis_client.pttl(key))
    assert 24 * 3600 * 1000 < ttl_ms <= 25 * 3600 * 1000


def test_the_append_script_is_reloaded_after_a_script_flush(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    store = RedisEventStore(redis_client, prefix=key_prefix)
    event = NewEvent("t.E", 1, {}, {})
    store.append("g9", [event], 0)
    redis_client.script_flush()
    assert store.append("g9", [event], 1, idempotency=Idempotency("k", "h")).last == 2


def test_an_append_counts_the_games_webhook_subscriptions(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    # Given a game without subscriptions, then with two (the set service.jobs.webhooks writes)
    store = RedisEventStore(redis_client, prefix=key_prefix)
    event = NewEvent("t.E", 1, {}, {})
    assert store.append("g10", [event], 0).webhooks == 0
    redis_client.sadd(store.keys.hooks("g10"), "sub-a", "sub-b")
    # When events are appended, or an idempotent append is replayed
    first = store.append("g10", [event], 1, idempotency=Idempotency("k", "h"))
    again = store.append("g10", [event], 1, idempotency=Idempotency("k", "h"))
    # Then each answer carries the count, read by the same script (no second round trip)
    assert (first.webhooks, again.replayed, again.webhooks) == (2, True, 2)


def test_an_unreachable_redis_is_store_unavailable(tmp_path: Path) -> None:
    client = redis.Redis(unix_socket_path=str(tmp_path / "none.sock"), retry=no_retries())
    store = RedisEventStore(client)
    with pytest.raises(StoreUnavailable):
        store.append("g", [NewEvent("t.E", 1, {}, {})], 0)
    with pytest.raises(StoreUnavailable):
        store.read("g")
    with pytest.raises(StoreUnavailable):
        RedisSnapshotStore(client).latest("g")


def test_the_game_index_can_be_rebuilt_from_the_games(
    redis_service: GameService, redis_client: redis.Redis, key_prefix: str
) -> None:
    for n in range(3):
        redis_service.commands.create_game(
            "pile", ["a", "b"], {}, n, meta(None, "admin"), game_id=f"r{n}"
        )
    listed = redis_service.queries.list_games()
    redis_client.delete(f"{key_prefix}:games")  # lost, e.g. written after a crash
    assert redis_service.queries.list_games() == ([], None)
    store = redis_service.store
    assert isinstance(store, RedisEventStore)
    assert store.rebuild_index() == 3
    assert redis_service.queries.list_games() == listed


def test_webhooks_and_audit_stored_before_the_ports_read_back(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    """The webhook and audit adapters keep the key layout the jobs wrote before they were
    ports: a subscription, its log and the audit's counters written that way read back."""
    # given a subscription, its log and an audit run as the earlier code stored them
    game = f"{key_prefix}:{{g9}}"
    redis_client.sadd(f"{game}:hooks", "abc")
    redis_client.hset(
        f"{game}:hook:abc",
        mapping={
            "url": "https://example.com/h",
            "events": '["board.TilePlaced"]',
            "seat": "1",
            "secret": "whsec_x",
            "status": "active",
            "failures": "2",
            "cursor": "7",
            "created_at": "2026-01-01T00:00:00+00:00",
            "owner": "admin",
            "batch_first": "8",
            "batch_last": "9",
            "next_attempt_at": "1767225600.5",
        },
    )
    redis_client.lpush(f"{game}:hook:abc:log", '{"webhook_id": "msg_abc_8_9", "ok": false}')
    redis_client.hset(
        f"{key_prefix}:ops:audit",
        mapping={
            "runs": "3",
            "games_checked": "12",
            "mismatches": "1",
            "last_run_at": "2026-01-01T00:00:00+00:00",
            "last_run_games": "4",
            "last_run_mismatches": "0",
            "last_run_ms": "8.5",
        },
    )
    redis_client.lpush(f"{key_prefix}:ops:audit:mismatches", '{"game_id": "g1", "version": 2}')
    # when the adapters read them
    hooks = RedisWebhookStore(redis_client, prefix=key_prefix)
    (sub,) = hooks.of_game("g9")
    summary = RedisAuditLog(redis_client, prefix=key_prefix).read()
    # then everything is there
    assert (sub.sub_id, sub.seat, sub.events, sub.owner) == (
        "abc",
        1,
        ("board.TilePlaced",),
        "admin",
    )
    assert (sub.failures, sub.cursor, sub.batch, sub.next_attempt_at) == (
        2,
        7,
        (8, 9),
        1767225600.5,
    )
    assert sub.batch_id == "msg_abc_8_9"
    assert hooks.deliveries("g9", "abc") == [{"webhook_id": "msg_abc_8_9", "ok": False}]
    assert (summary.runs, summary.games_checked, summary.mismatches) == (3, 12, 1)
    assert summary.last_run is not None and summary.last_run.duration_ms == 8.5
    assert summary.recent == ({"game_id": "g1", "version": 2},)
