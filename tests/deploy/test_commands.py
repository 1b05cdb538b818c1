"""The commands the containers run: ``python -m service api`` (the image's default role),
``python -m service rebuild-index`` (after losing the listing indexes), and the health checks
of both roles (deploy/healthcheck.py) against a real server, a real Redis and a real RQ worker."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
import requests

from service.application.game_service import GameService
from service.application.mapper import CommandMeta, GameInfo
from service.embedded_redis import EmbeddedRedis
from service.store.port import PLAYER_LISTS, STATUSES
from service.store.redis_players import RedisPlayerStore
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.autoplay import choose_command
from tests.deploy.files import HEALTHCHECK, ROOT

ADMIN = CommandMeta(command_id="deploy-test", actor="admin", seat=None)
ANN = "a" * 32  # a player id
# Settings a developer may have exported that would send a subprocess elsewhere.
_OWN_SETTINGS = ("REDIS_URL", "RQ_REDIS_URL", "TIGRIS_REDIS_DIR", "TIGRIS_KEY_PREFIX")


def clean_env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _OWN_SETTINGS}
    return {**env, **settings}


def run_service(args: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        env=dict(env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def healthcheck(role: str, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(HEALTHCHECK), role],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def listings(service: GameService) -> dict[tuple[str | None, str | None], list[GameInfo]]:
    """Every listing a client can ask for (each filter), whole."""
    found = {}
    for kind in (None, "board", "cards"):
        for status in (None, *sorted(STATUSES)):
            games, cursor = service.queries.list_games(kind=kind, status=status, limit=200)
            assert cursor is None
            found[(kind, status)] = games
    return found


def create_games(service: GameService) -> None:
    """Two games of each kind, one board game played to its end (so ``status=over`` lists
    something); Ann (a player) holds seat 0 of each."""
    ids = [
        service.commands.create_game(kind, ["Ann", "Bob"], {}, n, ADMIN, players={0: ANN}).game_id
        for n, kind in enumerate(("board", "cards", "board", "cards"))
    ]
    rng = random.Random(12)
    game = service.repository.get(ids[0])
    while not game.rules.is_over(game.state):
        command = choose_command(game.rules, game.state, rng)
        meta = CommandMeta(
            command_id="deploy-test", actor=f"seat:{command.seat}", seat=command.seat
        )
        game = service.commands.handle(ids[0], command, meta=meta).game


def player_lists(service: GameService) -> dict[str | None, list[tuple[int, str]]]:
    """Ann's game lists, whole."""
    store = service.player_games.store
    return {which: store.list_games(ANN, which, None, 200)[0] for which in (None, *PLAYER_LISTS)}


def delete_indexes(client: redis.Redis, prefix: str) -> int:
    keys = list(client.scan_iter(match=f"{prefix}:games*"))
    players = list(client.scan_iter(match=f"{prefix}:{{player:*"))
    if players:
        client.delete(*players)
    assert keys, "the games were indexed"
    deleted: int = client.delete(*keys)
    return deleted


def test_rebuild_index_restores_every_listing_on_the_configured_redis(
    redis_client: redis.Redis, redis_url: str, key_prefix: str
) -> None:
    service = GameService(
        RedisEventStore(redis_client, prefix=key_prefix),
        RedisSnapshotStore(redis_client, prefix=key_prefix),
        players=RedisPlayerStore(redis_client, prefix=key_prefix),
    )
    create_games(service)
    before = listings(service)
    mine = player_lists(service)
    assert len(mine[None]) == 4 and len(mine["over"]) == 1 and len(mine["active"]) == 3
    assert len(before[(None, "over")]) == 1 and len(before[(None, None)]) == 4
    # Every game; 2 kinds; 2 statuses; board+active, board+over, cards+active.
    assert delete_indexes(redis_client, key_prefix) == 8
    assert all(games == [] for games in listings(service).values())

    done = run_service(
        ["rebuild-index"], clean_env(REDIS_URL=redis_url, TIGRIS_KEY_PREFIX=key_prefix)
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "indexed 4 games (4 player entries)"
    assert listings(service) == before
    assert player_lists(service) == mine


def test_rebuild_index_on_the_embedded_redis_of_a_single_box(tmp_path: Path) -> None:
    # The single-box layout: no REDIS_URL, data in TIGRIS_REDIS_DIR. The command starts the
    # embedded Redis on that AOF, rebuilds, and stops it again.
    data = tmp_path / "redis"
    with EmbeddedRedis(data, appendfsync="always") as server:
        client = server.client(decode_responses=True)
        service = GameService(RedisEventStore(client), RedisSnapshotStore(client))
        create_games(service)
        before = listings(service)
        delete_indexes(client, "tigris")
        client.close()

    done = run_service(["rebuild-index"], clean_env(TIGRIS_REDIS_DIR=str(data)))

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "indexed 4 games (4 player entries)"
    assert not (data / "redis.url").exists()  # the server it started is stopped again
    with EmbeddedRedis(data, appendfsync="always") as server:
        client = server.client(decode_responses=True)
        service = GameService(RedisEventStore(client), RedisSnapshotStore(client))
        assert listings(service) == before
        client.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def api_role(redis_url: str, log: Path) -> Iterator[dict[str, str]]:
    """``python -m service api`` as the image runs it (on loopback here); yields the
    environment a health check inside its container would have."""
    env = clean_env(
        REDIS_URL=redis_url,
        TIGRIS_KEY_PREFIX=f"deploy-{uuid.uuid4().hex[:8]}",
        TIGRIS_HOST="127.0.0.1",
        TIGRIS_PORT=str(_free_port()),
        TIGRIS_WORKERS="1",
    )
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "service", "api"], env=env, cwd=ROOT, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + 30
        url = f"http://127.0.0.1:{env['TIGRIS_PORT']}/readyz"
        while True:
            try:
                if requests.get(url, timeout=1).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):  # still booting
                pass
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield env
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_api_role_serves_and_its_health_check_follows_it(
    redis_url: str, tmp_path: Path
) -> None:
    with api_role(redis_url, tmp_path / "api.log") as env:
        assert healthcheck("api", env).returncode == 0
        # Inside a container the server listens on 0.0.0.0; the check asks loopback then.
        assert healthcheck("api", {**env, "TIGRIS_HOST": "0.0.0.0"}).returncode == 0
        wrong_port = healthcheck("api", {**env, "TIGRIS_PORT": str(_free_port())})
        assert wrong_port.returncode == 1 and "unhealthy" in wrong_port.stderr
    stopped = healthcheck("api", env)
    assert stopped.returncode == 1, stopped.stderr


def test_the_worker_health_check_sees_a_registered_rq_worker_of_its_host(
    tmp_path: Path,
) -> None:
    # A Redis of its own: no other test's workers may be registered on it.
    with EmbeddedRedis(tmp_path / "queues", appendfsync="everysec") as server:
        env = clean_env(RQ_REDIS_URL=server.url)
        assert healthcheck("worker", env).returncode == 1  # nothing registered yet
        rq = Path(sys.executable).with_name("rq")
        worker = subprocess.Popen(
            [
                str(rq),
                "worker",
                "--url",
                server.url,
                "--name",
                f"deploy-{uuid.uuid4().hex[:8]}",
                f"deploy-test-{uuid.uuid4().hex[:8]}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while (checked := healthcheck("worker", env)).returncode != 0:
                assert worker.poll() is None, "the RQ worker exited"
                assert time.monotonic() < deadline, checked.stderr
                time.sleep(0.5)
            # RQ_REDIS_URL falls back to REDIS_URL.
            assert healthcheck("worker", clean_env(REDIS_URL=server.url)).returncode == 0
        finally:
            worker.send_signal(signal.SIGTERM)  # RQ's warm shutdown unregisters the worker
            worker.wait(timeout=30)
        gone = healthcheck("worker", env)
        assert gone.returncode == 1 and "no RQ worker" in gone.stderr
    assert healthcheck("worker", clean_env()).returncode == 1  # no queue Redis configured


@pytest.mark.parametrize("args", [[], ["bogus"], ["api", "worker"]])
def test_the_health_check_refuses_a_wrong_role(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, str(HEALTHCHECK), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "usage" in done.stderr
