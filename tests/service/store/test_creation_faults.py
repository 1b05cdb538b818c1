"""Creating games while the Redis server is killed (SIGKILL) again and again.

Every creation carries an idempotency key and is retried with it until acknowledged, as
the API asks clients to do. Afterwards the games that exist are exactly the acknowledged
ones: each listed once (in every index it belongs to), with working tokens for every
seat, and no game answers without being listed.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import redis

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.application.tokens import hash_token
from service.embedded_redis import EmbeddedRedis
from service.errors import StoreUnavailable
from service.store.connect import no_retries
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from service.store.redis_tokens import RedisTokenStore

KILLS = 4
CREATIONS = 60  # bounded: the loop stops after this many acknowledged games


def _service(url: str) -> tuple[redis.Redis, GameService]:
    client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, retry=no_retries())
    store = RedisEventStore(client, prefix="faults")
    return client, GameService(store, RedisSnapshotStore(client, prefix="faults"))


def test_kills_during_creations_leave_only_acknowledged_listed_games_with_tokens(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    server = EmbeddedRedis(data, appendfsync="always").start()
    url = server.url
    client, service = _service(url)
    acknowledged: dict[str, tuple[str, tuple[str | None, ...]]] = {}  # game id -> (kind, tokens)
    failures = 0
    done = threading.Event()

    def creator() -> None:
        nonlocal failures
        deadline = time.monotonic() + 60
        n = 0
        while len(acknowledged) < CREATIONS and time.monotonic() < deadline:
            kind = ("board", "cards")[n % 2]
            key = f"creation-{n}"
            while time.monotonic() < deadline:  # retry with the same key until it lands
                meta = CommandMeta(command_id=f"c{n}", actor="system", seat=None)
                try:
                    created = service.commands.create_seated_game(
                        kind, ["Ann", "Bob", "Cy"][: 2 + n % 2], {}, None, meta, key
                    )
                except StoreUnavailable:
                    failures += 1
                    time.sleep(0.02)
                    continue
                acknowledged[created.game.game_id] = (kind, created.tokens)
                break
            n += 1
        done.set()

    thread = threading.Thread(target=creator)
    thread.start()
    try:
        for kill in range(KILLS):
            target = (kill + 1) * CREATIONS // (KILLS + 1)
            limit = time.monotonic() + 30
            while len(acknowledged) < target and time.monotonic() < limit:
                time.sleep(0.002)
            server.kill()  # SIGKILL while creations are in flight
            time.sleep(0.05)
            server = EmbeddedRedis(data, appendfsync="always").start()
            assert server.url == url  # the same socket: clients reconnect by themselves
        assert done.wait(60)
        thread.join(timeout=10)
        assert len(acknowledged) == CREATIONS
        assert failures >= KILLS  # every kill was felt by the creator

        # Every game that exists was acknowledged, and every acknowledged game exists.
        existing = {
            key.split("{", 1)[1].split("}", 1)[0]
            for key in client.scan_iter(match="faults:{*}:info", count=1000)
        }
        assert existing == set(acknowledged)
        # Each is listed exactly once, under its kind and status too; tokens work.
        listed, _ = service.queries.list_games(limit=200)
        assert sorted(g.game_id for g in listed) == sorted(acknowledged)
        for kind in ("board", "cards"):
            by_kind, _ = service.queries.list_games(kind=kind, status="active", limit=200)
            assert sorted(g.game_id for g in by_kind) == sorted(
                g for g, (k, _) in acknowledged.items() if k == kind
            )
        seat_tokens = RedisTokenStore(client, prefix="faults")
        for game_id, (_, tokens) in acknowledged.items():
            for seat, token in enumerate(tokens):
                assert token is not None  # every seat is named
                assert seat_tokens.seat_of(game_id, hash_token(token)) == seat
        # No index entry is left without its game once the creation grace has passed.
        assert {g for _, g in service.store.list_index(None, 500)[0]} == set(acknowledged)
    finally:
        client.close()
        server.stop()
