"""The event store on a Redis Cluster: what differs from a single server.

The key layout is the one of ``redis_streams``: every key of one game carries the hash tag
``{game_id}``, so the append script (stream, info, tokens, idempotency record) and the
snapshot transaction touch one slot and run on that slot's master as on a single server.
The keys shared by all games (the listing indexes, the creation records) are each a slot
of their own and only ever meet single-key commands (batched in non-transactional
pipelines, which the cluster client splits per node). Two things differ:

- **Replication.** A master acknowledges a write before its replicas have it; if it dies
  in that moment, the replica that takes over lacks the write, and an acknowledged event
  would be gone. So the append is followed, on the same connection, by ``WAIT n timeout``
  and is acknowledged only once ``n`` replicas have it (``n`` is the setting, capped by
  the replicas online at the master: with none, no failover can lose the write, and the
  master's own AOF keeps it). A shortfall is ``StoreUnavailable``: the outcome is
  unknown, and the client's retry with the same idempotency key finds the append (a
  replay) or, if it died with the master, makes it again.
- **Blocking reads.** ``XREAD`` names its keys at a variable position, which redis-py's
  cluster client resolves by asking the cluster's default node (``COMMAND GETKEYS``) before
  every call: an extra round trip, and a failure whenever that one node is down. The store
  sends its ``XREAD`` straight to the node that serves the game's slot instead.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import redis
import redis.exceptions as redis_errors
from redis.cluster import ClusterNode, RedisCluster

from service.errors import StoreUnavailable
from service.store.port import EventWatch, OneGameWatch
from service.store.redis_streams import _APPEND_LUA, MAX_WAIT_S, RedisEventStore, _guard, _s

# How long the count of a master's online replicas is trusted before it is asked again.
REPLICA_COUNT_TTL_S = 1.0
# Redirections (MOVED, ASK, NOSCRIPT) followed for one append before giving up.
MAX_REDIRECTS = 5


class RedisClusterEventStore(RedisEventStore):
    """The Redis Streams adapter on a Redis Cluster (see the module docstring)."""

    def __init__(
        self,
        client: RedisCluster,
        *,
        prefix: str = "tigris",
        blocking_client: RedisCluster | None = None,
        max_wait_s: float = MAX_WAIT_S,
        wait_replicas: int = 1,
        wait_timeout_ms: int = 1000,
    ) -> None:
        super().__init__(
            client, prefix=prefix, blocking_client=blocking_client, max_wait_s=max_wait_s
        )
        self.cluster: Any = client  # untyped for the same reason as ``self.client``
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        # node name -> (when counted, replicas online)
        self._online_replicas: dict[str, tuple[float, int]] = {}

    def _evalsha(self, keys: list[str], args: list[str | int]) -> Any:
        """The append script on the master of the game's slot, then ``WAIT`` on the same
        connection (``WAIT`` counts the replicas that have this connection's last write)."""
        node: ClusterNode | None = None
        asking = False
        for _ in range(MAX_REDIRECTS):
            if node is None:
                node = self._master_of(keys[0])
            wanted = self._replicas_to_wait_for(node)
            pipe: Any = self._node_client(node).pipeline(transaction=False)
            if asking:
                pipe.execute_command("ASKING")
            pipe.evalsha(self._append_sha, len(keys), *keys, *args)
            if wanted:
                pipe.execute_command("WAIT", wanted, self.wait_timeout_ms)
            try:
                replies = pipe.execute(raise_on_error=False)
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                self._lost(node)
                raise StoreUnavailable(f"Redis unavailable: {exc}") from exc
            answer = replies[1] if asking else replies[0]
            asking = False
            if isinstance(answer, redis_errors.NoScriptError):
                self._load_script(node)
                continue
            if isinstance(answer, redis_errors.MovedError):  # the slot has a new master
                self._refresh_slots()
                node = None
                continue
            if isinstance(answer, redis_errors.AskError):  # the slot is being migrated
                node, asking = self._node_at(answer.host, answer.port), True
                continue
            if isinstance(answer, Exception):
                with _guard():  # StoreUnavailable if it means "not now", else as it is
                    raise answer
            if wanted:
                acknowledged = replies[-1]
                if isinstance(acknowledged, Exception):  # the append ran; its fate is unknown
                    raise StoreUnavailable(f"WAIT failed after the append: {acknowledged}")
                self._check_replicated(node, wanted, int(acknowledged))
            return answer
        raise StoreUnavailable("the game's slot kept moving; retry")

    def watch(self) -> EventWatch:
        # One XREAD names keys of one slot only, and each game has a slot of its own.
        return OneGameWatch(self)

    def _xread(self, key: str, after_id: str, block_ms: int | None, count: int | None) -> Any:
        client: Any = self.blocking_client
        pieces: list[str | int] = ["XREAD"]
        if count is not None:
            pieces += ["COUNT", count]
        if block_ms is not None:
            pieces += ["BLOCK", block_ms]
        pieces += ["STREAMS", key, after_id]
        return client.execute_command(*pieces, target_nodes=client.get_node_from_key(key))

    # -- replication ---------------------------------------------------------------
    def _replicas_to_wait_for(self, node: ClusterNode) -> int:
        if self.wait_replicas == 0:
            return 0
        counted = self._online_replicas.get(node.name)
        if counted is None or time.monotonic() - counted[0] > REPLICA_COUNT_TTL_S:
            return min(self.wait_replicas, self._count_online_replicas(node))
        return min(self.wait_replicas, counted[1])

    def _check_replicated(self, node: ClusterNode, wanted: int, acknowledged: int) -> None:
        """Refuse to acknowledge an append fewer replicas have than are online to take over."""
        if acknowledged >= wanted:
            return
        # A replica may have gone since it was counted; then fewer acks are all there is.
        online = self._count_online_replicas(node)
        if acknowledged >= min(self.wait_replicas, online):
            return
        raise StoreUnavailable(
            f"the append reached {acknowledged} of {min(self.wait_replicas, online)} replicas "
            f"within {self.wait_timeout_ms} ms; its outcome is unknown: retry with the same "
            "idempotency key"
        )

    def _count_online_replicas(self, node: ClusterNode) -> int:
        try:
            info = self._node_client(node).info("replication")
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            self._lost(node)
            raise StoreUnavailable(f"Redis unavailable: {exc}") from exc
        online = sum(
            1
            for name, value in info.items()
            if name.startswith("slave")
            and isinstance(value, dict)
            and value.get("state") == "online"
        )
        self._online_replicas[node.name] = (time.monotonic(), online)
        return online

    # -- topology --------------------------------------------------------------------
    def _master_of(self, key: str) -> ClusterNode:
        with _guard():
            node: ClusterNode = self.cluster.get_node_from_key(key)
        return node

    def _node_client(self, node: ClusterNode) -> redis.Redis:
        client: redis.Redis = self.cluster.get_redis_connection(node)
        return client

    def _node_at(self, host: str, port: int) -> ClusterNode:
        node = self.cluster.get_node(host=host, port=port)
        if node is None:
            self._refresh_slots()
            node = self.cluster.get_node(host=host, port=port)
        if node is None:
            raise StoreUnavailable(f"the cluster redirected to an unknown node {host}:{port}")
        found: ClusterNode = node
        return found

    def _refresh_slots(self) -> None:
        with _guard():
            self.cluster.nodes_manager.initialize()

    def _lost(self, node: ClusterNode) -> None:
        """What the cluster client does after a connection error to a node: drop its idle
        connections and re-read the slot map (the node may have failed over)."""
        pool = self._node_client(node).connection_pool
        pool.disconnect(inuse_connections=False)
        self._online_replicas.pop(node.name, None)
        with contextlib.suppress(StoreUnavailable):  # no node answers now: the next command
            self._refresh_slots()  # tries again

    def _load_script(self, node: ClusterNode) -> None:
        try:
            self._append_sha = _s(self._node_client(node).script_load(_APPEND_LUA))
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            self._lost(node)
            raise StoreUnavailable(f"Redis unavailable: {exc}") from exc
