"""Contract of the webhook store port, run against every adapter.

Each test runs on the in-memory adapter, Redis 6.2, Redis 7 and a Redis Cluster (see
conftest): the same subscriptions, limits, cursor moves, failures, logs and locks.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import replace

import pytest

from service.store.memory import InMemoryWebhookStore
from service.store.port import Subscription, TooManyWebhooks, WebhookStore
from service.store.redis_webhooks import RedisWebhookStore
from tests.service.store.conftest import Backend, new_game_id


@pytest.fixture
def hooks(backend: Backend, key_prefix: str) -> WebhookStore:
    if backend.client is None:
        return InMemoryWebhookStore()
    return RedisWebhookStore(backend.client, prefix=key_prefix)


def subscription(game_id: str, *, owner: str = "token:a", cursor: int = 3) -> Subscription:
    return Subscription(
        sub_id=uuid.uuid4().hex,
        game_id=game_id,
        url="https://example.com/hook",
        events=("board.TilePlaced",),
        seat=1,
        secret="whsec_test",
        status="active",
        failures=0,
        cursor=cursor,
        created_at="2026-01-01T00:00:00+00:00",
        owner=owner,
    )


def test_a_created_subscription_reads_back_as_made(hooks: WebhookStore) -> None:
    game_id = new_game_id()
    # given a subscription created in a game
    sub = subscription(game_id)
    hooks.create(sub, per_game=20, per_owner=5)
    # then it reads back field for field, and is the game's only one
    assert hooks.get(game_id, sub.sub_id) == sub
    assert hooks.of_game(game_id) == [sub]
    # and it belongs to that game only
    assert hooks.get(new_game_id(), sub.sub_id) is None
    assert hooks.of_game(new_game_id()) == []
    # a spectator's view (no seat) and an empty filter read back too
    spectator = replace(subscription(game_id), seat=None, events=())
    hooks.create(spectator, per_game=20, per_owner=5)
    assert hooks.get(game_id, spectator.sub_id) == spectator
    assert [s.sub_id for s in hooks.of_game(game_id)] == sorted([sub.sub_id, spectator.sub_id])


def test_the_limits_per_game_and_per_owner_hold(hooks: WebhookStore) -> None:
    game_id = new_game_id()
    # given an owner with 2 subscriptions, the most it may have
    for _ in range(2):
        hooks.create(subscription(game_id, owner="token:a"), per_game=3, per_owner=2)
    # then a third of its own is refused (scope token), another owner's is not
    with pytest.raises(TooManyWebhooks) as refused:
        hooks.create(subscription(game_id, owner="token:a"), per_game=3, per_owner=2)
    assert (refused.value.scope, refused.value.limit) == ("token", 2)
    hooks.create(subscription(game_id, owner="admin"), per_game=3, per_owner=2)
    # and a fourth in the game is refused (scope game), whoever asks
    with pytest.raises(TooManyWebhooks) as full:
        hooks.create(subscription(game_id, owner="token:b"), per_game=3, per_owner=2)
    assert (full.value.scope, full.value.limit) == ("game", 3)
    assert len(hooks.of_game(game_id)) == 3


def test_racing_creations_never_exceed_the_game_limit(hooks: WebhookStore) -> None:
    game_id = new_game_id()
    # given 8 threads creating at once in a game that takes 3
    barrier = threading.Barrier(8)
    refused: list[str] = []

    def create(n: int) -> None:
        barrier.wait(timeout=10)
        try:
            hooks.create(subscription(game_id, owner=f"token:{n}"), per_game=3, per_owner=5)
        except TooManyWebhooks as exc:
            refused.append(exc.scope)

    threads = [threading.Thread(target=create, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # then exactly 3 exist and the 5 others were refused for the game's limit
    assert len(hooks.of_game(game_id)) == 3
    assert refused == ["game"] * 5


def test_the_cursor_moves_forward_only_and_clears_the_batch(hooks: WebhookStore) -> None:
    sub = subscription(new_game_id(), cursor=3)
    hooks.create(sub, per_game=20, per_owner=5)
    # given a batch under way after a failure
    assert hooks.start_batch(sub, 4, 6)
    assert hooks.fail(sub, "boom", max_failures=5, next_at=1234.5) == 1
    pending = hooks.get(sub.game_id, sub.sub_id)
    assert pending is not None
    assert (pending.batch, pending.batch_id, pending.failures, pending.next_attempt_at) == (
        (4, 6),
        f"msg_{sub.sub_id}_4_6",
        1,
        1234.5,
    )
    # when the cursor advances past it
    assert hooks.advance(sub, 6)
    # then the batch, the failures and the retry due are gone
    moved = hooks.get(sub.game_id, sub.sub_id)
    assert moved is not None
    assert (moved.cursor, moved.batch, moved.failures, moved.next_attempt_at) == (6, None, 0, None)
    # and it never moves back
    assert not hooks.advance(sub, 5)
    assert not hooks.advance(sub, 6)
    assert hooks.get(sub.game_id, sub.sub_id) == moved


def test_too_many_failures_disable_and_enable_resumes(hooks: WebhookStore) -> None:
    sub = subscription(new_game_id())
    hooks.create(sub, per_game=20, per_owner=5)
    # given two failures in a row of at most three
    assert [hooks.fail(sub, "500", 3, 10.0), hooks.fail(sub, "500", 3, 20.0)] == [1, 2]
    # when the third fails
    assert hooks.fail(sub, "timeout", 3, 30.0) == 3
    # then it is disabled, saying why, with no retry due
    off = hooks.get(sub.game_id, sub.sub_id)
    assert off is not None
    assert (off.status, off.next_attempt_at) == ("disabled", None)
    assert off.disabled_reason == "disabled after 3 failed deliveries in a row; last: timeout"
    # when it is enabled again: active, failures forgotten, cursor kept
    assert hooks.enable(sub)
    on = hooks.get(sub.game_id, sub.sub_id)
    assert on is not None
    assert (on.status, on.failures, on.disabled_reason, on.cursor) == ("active", 0, None, 3)
    # enabling an active one leaves its pending retry as it was
    hooks.fail(sub, "500", 3, 99.0)
    assert hooks.enable(sub)
    again = hooks.get(sub.game_id, sub.sub_id)
    assert again is not None and (again.failures, again.next_attempt_at) == (1, 99.0)
    # disable says why
    assert hooks.disable(sub, "the receiver answered 410 Gone")
    gone = hooks.get(sub.game_id, sub.sub_id)
    assert gone is not None
    assert (gone.status, gone.disabled_reason) == ("disabled", "the receiver answered 410 Gone")


def test_the_log_keeps_the_last_entries_newest_first(hooks: WebhookStore) -> None:
    sub = subscription(new_game_id())
    hooks.create(sub, per_game=20, per_owner=5)
    # given more entries than the log keeps
    for n in range(hooks.LOG_LENGTH + 3):
        hooks.log(sub, {"n": n, "ok": n % 2 == 0})
    # then the last LOG_LENGTH are kept, newest first
    entries = hooks.deliveries(sub.game_id, sub.sub_id)
    assert [e["n"] for e in entries] == list(range(hooks.LOG_LENGTH + 2, 2, -1))
    assert entries[0] == {"n": hooks.LOG_LENGTH + 2, "ok": True}


def test_a_deleted_subscription_stays_deleted(hooks: WebhookStore) -> None:
    sub = subscription(new_game_id())
    hooks.create(sub, per_game=1, per_owner=1)
    hooks.log(sub, {"n": 1})
    # when it is deleted
    assert hooks.delete(sub.game_id, sub.sub_id)
    assert not hooks.delete(sub.game_id, sub.sub_id)
    # then it and its log are gone, and a delivery that outlived it writes nothing
    assert hooks.get(sub.game_id, sub.sub_id) is None
    assert hooks.deliveries(sub.game_id, sub.sub_id) == []
    assert not hooks.start_batch(sub, 4, 5)
    assert not hooks.advance(sub, 9)
    assert hooks.fail(sub, "x", 3, 1.0) == -1
    assert not hooks.disable(sub, "x")
    assert not hooks.enable(sub)
    hooks.log(sub, {"n": 2})
    assert hooks.get(sub.game_id, sub.sub_id) is None
    assert hooks.deliveries(sub.game_id, sub.sub_id) == []
    # and its place in the game's limit is free again
    hooks.create(subscription(sub.game_id), per_game=1, per_owner=1)


def test_the_delivery_lock_has_one_holder(hooks: WebhookStore) -> None:
    sub = subscription(new_game_id())
    hooks.create(sub, per_game=20, per_owner=5)
    # given the lock taken by one delivery
    assert hooks.lock(sub, "first", ttl_s=30)
    # then another cannot take it, nor release it
    assert not hooks.lock(sub, "second", ttl_s=30)
    hooks.unlock(sub, "second")
    assert not hooks.lock(sub, "second", ttl_s=30)
    # once its holder releases it, the other takes it
    hooks.unlock(sub, "first")
    assert hooks.lock(sub, "second", ttl_s=30)
