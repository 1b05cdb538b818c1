"""Wiring: settings → a Redis (given by ``REDIS_URL`` or embedded) → store adapters.

``REDIS_URL`` names a single server (``redis://``, ``rediss://``, ``unix://``) or a Redis
Cluster (``redis+cluster://host:port[,host:port…]``, see ``service.config``); the client
and the event store adapter follow. ``check_store`` tells a wrong URL apart from a Redis
that is merely down, so that the service refuses to start with a clear message instead of
answering 503 "unreachable" to every request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry

from service.config import (
    SettingsError,
    StoreConfigError,
    StoreSettings,
    is_cluster_url,
    redact_url,
)
from service.embedded_redis import EmbeddedRedis
from service.store.redis_cluster import RedisClusterEventStore
from service.store.redis_streams import (
    BLOCK_MARGIN_S,
    MAX_WAIT_S,
    RedisEventStore,
    RedisSnapshotStore,
)

# Seconds a start-up probe may take to connect and to answer.
PROBE_CONNECT_TIMEOUT_S = 3.0
PROBE_TIMEOUT_S = 5.0
DEFAULT_PORT = 6379

RedisClient = redis.Redis | RedisCluster


@dataclass
class StoreConnection:
    """The open storage of one process. ``close()`` stops an embedded server it started."""

    url: str
    client: RedisClient
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


# -- URLs ----------------------------------------------------------------------------
def cluster_nodes(url: str) -> list[tuple[str, int]]:
    """The startup nodes of a ``redis+cluster://`` URL, in order."""
    hosts = urlsplit(url).netloc.rpartition("@")[2]
    nodes: list[tuple[str, int]] = []
    for address in hosts.split(","):
        host, colon, port = address.strip().rpartition(":")
        if not colon:
            host, port = port, str(DEFAULT_PORT)
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise SettingsError(f"REDIS_URL {redact_url(url)}: {address!r} is not host:port")
        nodes.append((host, int(port)))
    return nodes


def node_url(url: str, host: str, port: int) -> str:
    """The single-server URL (same credentials, TLS and options) of one cluster node."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower().removesuffix("+cluster")
    credentials, at, _ = parts.netloc.rpartition("@")
    return urlunsplit((scheme, f"{credentials}{at}{host}:{port}", parts.path, parts.query, ""))


def redis_client(url: str, **kwargs: Any) -> RedisClient:
    """A client for ``url``: redis-py's cluster client for a cluster URL (every node of the
    URL a startup node; it connects at once to learn the slot map), else a plain one."""
    if not is_cluster_url(url):
        return redis.Redis.from_url(url, **kwargs)
    nodes = cluster_nodes(url)
    kwargs.pop("health_check_interval", None)  # not a cluster client option
    host, port = nodes[0]
    return RedisCluster(
        url=node_url(url, host, port),
        startup_nodes=[ClusterNode(h, p) for h, p in nodes[1:]],  # type: ignore[no-untyped-call]
        **kwargs,
    )


def blocking_client(url: str, *, max_wait_s: float = MAX_WAIT_S, **kwargs: Any) -> RedisClient:
    """A client for blocking reads of at most ``max_wait_s``: its socket timeout is the
    block time plus a margin, set here explicitly rather than left to the library's
    default (redis-py 8's 5 s default would cut every longer block)."""
    return redis_client(
        url,
        decode_responses=True,
        socket_timeout=max_wait_s + BLOCK_MARGIN_S,
        socket_connect_timeout=5.0,
        **kwargs,
    )


def serving(client: RedisClient) -> bool:
    """Whether the store can serve now (``/readyz``). A single server: it answers PING. A
    cluster: some master the client knows of says ``cluster_state:ok`` (it sits in the
    majority and the slots are served), so the failover of one master, during which the
    other masters' games go on, does not mark every API process unready."""
    if not isinstance(client, RedisCluster):
        return bool(client.ping())
    for node in client.get_primaries():  # type: ignore[no-untyped-call]
        try:
            info = client.cluster_info(target_nodes=node)
        except redis.RedisError:
            continue
        except redis.exceptions.RedisClusterException:  # no node answers at all
            return False
        return info.get("cluster_state") == "ok"
    return False


# -- start-up checks -------------------------------------------------------------------
def check_store(settings: StoreSettings, *, require_reachable: bool = True) -> None:
    """Refuse a ``REDIS_URL`` the service cannot use, with a message naming the URL and
    the problem (StoreConfigError): a cluster named by a single-server URL, a single
    server named by a cluster URL, and (if ``require_reachable``) a server that does not
    answer. No ``REDIS_URL`` (the embedded Redis) has nothing to check."""
    url = settings.redis_url
    if not url:
        return
    if is_cluster_url(url):
        _check_cluster(url, require_reachable)
    else:
        _check_single(url, require_reachable)


def _probe(url: str) -> dict[str, Any]:
    """``INFO cluster`` of the server at ``url`` (redis.RedisError if it does not answer)."""
    with redis.Redis.from_url(
        url,
        socket_connect_timeout=PROBE_CONNECT_TIMEOUT_S,
        socket_timeout=PROBE_TIMEOUT_S,
        retry=no_retries(),
    ) as probe:
        info: dict[str, Any] = probe.info("cluster")
    return info


def _check_single(url: str, require_reachable: bool) -> None:
    try:
        info = _probe(url)
    except redis.RedisError as exc:
        if require_reachable:
            raise StoreConfigError(
                f"REDIS_URL {redact_url(url)}: no Redis answers there ({exc})"
            ) from exc
        return
    if int(info.get("cluster_enabled", 0)) == 1:
        parts = urlsplit(url)
        raise StoreConfigError(
            f"REDIS_URL {redact_url(url)}: that server is a Redis Cluster node "
            f"(cluster_enabled:1); name the cluster as "
            f"{parts.scheme}+cluster://{parts.netloc.rpartition('@')[2]} instead"
        )


def _check_cluster(url: str, require_reachable: bool) -> None:
    answered = False
    errors: list[str] = []
    for host, port in cluster_nodes(url):
        try:
            info = _probe(node_url(url, host, port))
        except redis.RedisError as exc:
            errors.append(f"{host}:{port}: {exc}")
            continue
        answered = True
        if int(info.get("cluster_enabled", 0)) != 1:
            raise StoreConfigError(
                f"REDIS_URL {redact_url(url)}: {host}:{port} is not a cluster node "
                f"(cluster_enabled:0); name a single server as redis://{host}:{port} instead"
            )
    if not answered and require_reachable:
        raise StoreConfigError(
            f"REDIS_URL {redact_url(url)}: no cluster node answers ({'; '.join(errors)})"
        )


# -- the store -------------------------------------------------------------------------
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
    serving many clients at once needs more; on a cluster, per node).

    A URL of the wrong kind for its server is refused (``check_store``); a server that
    is down is not (a process may start while Redis restarts: commands answer 503 until
    it is back), except that the cluster client must reach one node to learn the slots.

    Blocking reads (``events.wait``) get their own client and pool: socket timeout
    ``max_wait_s`` plus a margin, at most ``max_waiting`` connections (default: as many
    as ``max_connections``), so open streams never take the connections commands need."""
    settings = StoreSettings.from_env() if settings is None else settings
    server: EmbeddedRedis | None = None
    if settings.redis_url:
        url = settings.redis_url
        check_store(settings, require_reachable=False)
    else:
        server = EmbeddedRedis(
            settings.redis_dir, binary=settings.redis_server, appendfsync=settings.appendfsync
        ).start()
        url = server.url
    pool: dict[str, int] = {} if max_connections is None else {"max_connections": max_connections}
    waiting = max_waiting if max_waiting is not None else max_connections
    try:
        client = redis_client(
            url, decode_responses=True, health_check_interval=30, retry=no_retries(), **pool
        )
        blocking = blocking_client(
            url,
            max_wait_s=max_wait_s,
            retry=no_retries(),
            **({} if waiting is None else {"max_connections": waiting}),
        )
    except redis.exceptions.RedisClusterException as exc:  # no node gave a slot map
        raise StoreConfigError(f"REDIS_URL {redact_url(url)}: {exc}") from exc
    events: RedisEventStore
    if isinstance(client, RedisCluster):
        assert isinstance(blocking, RedisCluster)
        events = RedisClusterEventStore(
            client,
            prefix=settings.key_prefix,
            blocking_client=blocking,
            max_wait_s=max_wait_s,
            wait_replicas=settings.wait_replicas,
            wait_timeout_ms=settings.wait_timeout_ms,
        )
    else:
        events = RedisEventStore(
            client, prefix=settings.key_prefix, blocking_client=blocking, max_wait_s=max_wait_s
        )
    return StoreConnection(
        url=url,
        client=client,
        events=events,
        snapshots=RedisSnapshotStore(client, prefix=settings.key_prefix),
        server=server,
    )
