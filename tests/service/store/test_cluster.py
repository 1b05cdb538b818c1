"""The event store on a Redis Cluster, beyond the contract suite (which runs on the cluster
too, see conftest): the key layout by slot, appends acknowledged only once a replica has
them, blocking reads sent to the game's own node, and rebuilding the listing indexes from
games spread over every master."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.cluster import RedisCluster
from redis.crc import key_slot

from service.application.game_service import GameService
from service.config import StoreSettings
from service.errors import StoreUnavailable
from service.store.connect import StoreConnection, connect
from service.store.port import Idempotency, NewEvent
from service.store.redis_cluster import RedisClusterEventStore
from tests.redis_cluster import ClusterNode, LocalCluster
from tests.service.store.conftest import meta
from tests.service.store.pile_game import PILE


def event(n: int) -> NewEvent:
    return NewEvent("test.Happened", 1, {"n": n}, {"command_id": f"c{n}"})


@pytest.fixture
def connection(redis_cluster: LocalCluster, key_prefix: str) -> Iterator[StoreConnection]:
    connection = connect(
        StoreSettings(redis_url=redis_cluster.url, key_prefix=key_prefix, wait_timeout_ms=300)
    )
    yield connection
    connection.close()


def cluster_client(connection: StoreConnection) -> RedisCluster:
    assert isinstance(connection.client, RedisCluster)
    return connection.client


def master_of(cluster: LocalCluster, connection: StoreConnection, key: str) -> ClusterNode:
    port = cluster_client(connection).get_node_from_key(key).port  # type: ignore[no-untyped-call]
    return next(node for node in cluster.nodes if node.port == port)


def test_a_games_keys_share_its_slot_and_games_spread_over_every_master(
    redis_cluster: LocalCluster, connection: StoreConnection, key_prefix: str
) -> None:
    service = GameService(connection.events, connection.snapshots, {"pile": PILE}, snapshot_every=1)
    game_ids = []
    for n in range(24):
        game = service.commands.create_game(
            "pile", ["a", "b"], {}, n, meta(None, "admin"), token_hashes=[f"t{n}a", f"t{n}b"]
        )
        service.commands.handle(
            game.game_id, {"type": "TakeCounters", "count": 1}, meta=meta(0), idempotency_key="k"
        )
        game_ids.append(game.game_id)
    client = cluster_client(connection)
    keys = [str(k) for k in client.scan_iter(match=f"{key_prefix}:*", count=1000)]
    for game_id in game_ids:
        own = [k for k in keys if f"{{{game_id}}}" in k]
        # stream, info, tokens, snapshots, idempotency record: all in the game's slot
        assert {k.rsplit(":", 1)[-1] for k in own} >= {"events", "info", "tokens", "snap"}
        assert any(":idem:" in k for k in own)
        assert {key_slot(k.encode()) for k in own} == {key_slot(game_id.encode())}
    masters = {master_of(redis_cluster, connection, f"{{{g}}}").port for g in game_ids}
    assert len(masters) == 3
    # The listing indexes are keys of their own, outside every game's slot.
    assert f"{key_prefix}:games" in keys
    assert f"{key_prefix}:games:kind:pile:status:active" in keys


def test_an_acknowledged_append_is_already_on_a_replica(
    redis_cluster: LocalCluster, connection: StoreConnection
) -> None:
    store = connection.events
    for n in range(20):
        game_id = uuid.uuid4().hex
        result = store.append(game_id, [event(1), event(2)], 0)
        master = master_of(redis_cluster, connection, store.keys.events(game_id))
        (replica,) = redis_cluster.replicas_of(master)
        with replica.client() as client:
            client.execute_command("READONLY")
            assert client.xlen(store.keys.events(game_id)) == result.last, f"append {n}"


def test_an_append_no_replica_confirms_is_unavailable_and_its_retry_is_a_replay(
    redis_cluster: LocalCluster, connection: StoreConnection
) -> None:
    # Given a game whose master's replica stops answering (SIGSTOP: the link stays up)
    store = connection.events
    game_id = uuid.uuid4().hex
    store.append(game_id, [event(1)], 0)
    master = master_of(redis_cluster, connection, store.keys.events(game_id))
    (replica,) = redis_cluster.replicas_of(master)
    assert replica.process is not None
    os.kill(replica.process.pid, signal.SIGSTOP)
    try:
        # When an append cannot be confirmed by the replica within the wait timeout
        with pytest.raises(StoreUnavailable, match="reached 0 of 1 replicas"):
            store.append(game_id, [event(2)], 1, idempotency=Idempotency("k2", "h2"))
    finally:
        os.kill(replica.process.pid, signal.SIGCONT)
    # Then it was not acknowledged, and the client's retry with the same key answers
    # with that same append (on the master), now that the replica confirms it.
    retried = store.append(game_id, [event(2)], 1, idempotency=Idempotency("k2", "h2"))
    assert (retried.first, retried.last, retried.replayed) == (2, 2, True)
    assert [e.data["n"] for e in store.read(game_id)] == [1, 2]
    redis_cluster.wait_healthy(30)


def test_without_replicas_an_append_waits_for_none(tmp_path: Path) -> None:
    # A master without replicas has no one to fail over to: its own AOF is the record.
    with LocalCluster(tmp_path, masters=3, replicas=0) as bare:
        connection = connect(StoreSettings(redis_url=bare.url, wait_replicas=1))
        try:
            for _ in range(12):
                assert connection.events.append(uuid.uuid4().hex, [event(1)], 0).last == 1
        finally:
            connection.close()
        calls = {}
        for node in bare.nodes:
            with node.client() as client:
                stats = client.info("commandstats")
            calls[node.port] = {k: v["calls"] for k, v in stats.items()}
    assert sum(c.get("cmdstat_evalsha", 0) for c in calls.values()) >= 12
    assert all("cmdstat_wait" not in c for c in calls.values())


def test_a_blocking_read_goes_to_the_games_node_without_asking_for_its_keys(
    redis_cluster: LocalCluster, connection: StoreConnection
) -> None:
    store = connection.events
    assert isinstance(store, RedisClusterEventStore)

    def getkeys_calls() -> int:
        total = 0
        for node in redis_cluster.nodes:
            with node.client() as client:
                stats = client.info("commandstats")
            for name in ("cmdstat_command", "cmdstat_command|getkeys"):
                total += int(stats.get(name, {}).get("calls", 0))
        return total

    game_ids = [uuid.uuid4().hex for _ in range(6)]
    for game_id in game_ids:
        store.append(game_id, [event(1)], 0)
    before = getkeys_calls()
    for game_id in game_ids:
        assert [e.version for e in store.wait(game_id, 0, timeout_s=1)] == [1]
        assert store.wait(game_id, 1, timeout_s=0.05) == []
    # and a watch (a stream follower's read) reads one game per read: one XREAD names
    # keys of one slot, and each game has its own
    watch = store.watch()
    assert not watch.shared
    for game_id in game_ids:
        assert [e.version for e in watch.read({game_id: 0}, 1, limit=5)[game_id]] == [1]
        assert watch.read({game_id: 1}, 0.05, limit=5) == {}
    assert getkeys_calls() == before


def test_the_listing_indexes_are_rebuilt_from_games_on_every_master(
    connection: StoreConnection, key_prefix: str
) -> None:
    service = GameService(connection.events, connection.snapshots, {"pile": PILE})
    for n in range(9):
        service.commands.create_game("pile", ["a", "b"], {}, n, meta(None, "admin"))
    listed = service.queries.list_games(limit=50)
    by_status = service.queries.list_games(kind="pile", status="active", limit=50)
    client = cluster_client(connection)
    for key in list(client.scan_iter(match=f"{key_prefix}:games*")):
        client.delete(key)  # lost
    assert service.queries.list_games() == ([], None)
    assert connection.events.rebuild_index() == 9
    assert service.queries.list_games(limit=50) == listed
    assert service.queries.list_games(kind="pile", status="active", limit=50) == by_status
