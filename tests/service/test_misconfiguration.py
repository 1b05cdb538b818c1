"""A ``REDIS_URL`` the service cannot use is a clear error at start, never a 503 later that
blames reachability: a cluster named by a single-server URL, a single server named by a
cluster URL, and a server that does not answer. ``python -m service`` exits with status 2
and one line naming the URL and the problem; ``create_app`` raises ``StoreConfigError``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.api import STORE_CHECKED, create_app
from service.config import SettingsError, StoreConfigError, StoreSettings
from service.store.connect import check_store, connect
from tests.redis_cluster import ClusterNode, LocalCluster, free_cluster_port, single_server
from tests.service.api.conftest import problem


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterNode]:
    """A plain (non-cluster) Redis on a loopback port."""
    with single_server(tmp_path_factory.mktemp("single")) as node:
        yield node


def unused_url(scheme: str = "redis") -> str:
    return f"{scheme}://127.0.0.1:{free_cluster_port(set())}"


def cases(single: ClusterNode, cluster: LocalCluster) -> dict[str, tuple[str, str]]:
    """``name -> (REDIS_URL, what the message must say)``."""
    cluster_port = cluster.nodes[0].port
    return {
        "cluster URL, single server": (
            f"redis+cluster://{single.address}",
            f"{single.address} is not a cluster node",
        ),
        "single-server URL, cluster node": (
            f"redis://127.0.0.1:{cluster_port}/0",
            f"is a Redis Cluster node (cluster_enabled:1); name the cluster as "
            f"redis+cluster://127.0.0.1:{cluster_port}",
        ),
    }


def attempt(entry: str, url: str) -> None:
    settings = StoreSettings(redis_url=url)
    if entry == "check_store":
        check_store(settings)
    elif entry == "check_store, reachability not required":
        check_store(settings, require_reachable=False)
    elif entry == "connect":
        connect(settings).close()
    elif entry == "create_app":
        create_app({"REDIS_URL": url})
    else:
        assert entry == "create_app in a worker"
        create_app({"REDIS_URL": url, STORE_CHECKED: True})


@pytest.mark.parametrize(
    "entry",
    [
        "check_store",
        "check_store, reachability not required",
        "connect",
        "create_app",
        "create_app in a worker",
    ],
)
def test_a_url_of_the_wrong_kind_is_refused_by_every_entry_point(
    single: ClusterNode, redis_cluster: LocalCluster, entry: str
) -> None:
    for url, says in cases(single, redis_cluster).values():
        with pytest.raises(StoreConfigError, match="REDIS_URL") as raised:
            attempt(entry, url)
        assert says in str(raised.value)
        assert url.removesuffix("/0") in str(raised.value)


@pytest.mark.parametrize("scheme", ["redis", "redis+cluster"])
def test_a_server_that_does_not_answer_is_refused_by_create_app(scheme: str) -> None:
    url = unused_url(scheme)
    with pytest.raises(StoreConfigError, match="answers") as raised:
        create_app({"REDIS_URL": url})
    assert url in str(raised.value)
    assert "Connection refused" in str(raised.value)


def test_a_worker_whose_redis_is_briefly_down_still_boots_and_answers_503() -> None:
    # ``python -m service`` checked the URL before forking; a worker gunicorn restarts
    # while Redis restarts must boot (else gunicorn stops the whole server).
    app = create_app({"REDIS_URL": unused_url(), STORE_CHECKED: True})
    client = app.test_client()
    assert problem(client.get("/readyz"), 503)["type"] == "/problems/unavailable"
    problem(client.get("/games"), 503)


def test_a_cluster_that_does_not_answer_cannot_be_used_even_after_the_check() -> None:
    # The cluster client must reach one node to learn the slots: say so plainly.
    url = unused_url("redis+cluster")
    with pytest.raises(StoreConfigError, match="REDIS_URL"):
        create_app({"REDIS_URL": url, STORE_CHECKED: True})


def test_passwords_never_reach_the_message() -> None:
    url = f"redis://tigris:s3cret-pass@127.0.0.1:{free_cluster_port(set())}/0"
    with pytest.raises(StoreConfigError) as raised:
        check_store(StoreSettings(redis_url=url))
    assert "s3cret" not in str(raised.value)
    assert "redis://tigris:***@127.0.0.1:" in str(raised.value)


@pytest.mark.parametrize(
    "url", ["redis+cluster://127.0.0.1:notaport", "redis+cluster://:7000", "redis+cluster://h:0"]
)
def test_a_malformed_cluster_url_is_a_settings_error(url: str) -> None:
    with pytest.raises(SettingsError, match="is not host:port"):
        check_store(StoreSettings(redis_url=url))


def test_python_m_service_exits_with_one_line_naming_the_url_and_the_problem(
    single: ClusterNode, redis_cluster: LocalCluster, tmp_path: Path
) -> None:
    named = {**cases(single, redis_cluster), "unreachable": (unused_url(), "no Redis")}
    for url, says in named.values():
        env = {**os.environ, "REDIS_URL": url, "TIGRIS_PORT": str(free_cluster_port(set()))}
        done = subprocess.run(
            [sys.executable, "-m", "service"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith(f"python -m service: REDIS_URL {url}")
        assert says in lines[0]
