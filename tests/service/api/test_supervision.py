"""The embedded Redis heals itself: ``python -m service`` (real gunicorn, two workers, its
own embedded Redis with ``appendfsync always``) keeps playing while its redis-server is
killed with SIGKILL. The supervisor starts it again on the same data directory and
address; meanwhile ``/readyz`` answers 503, then 200 again; commands resume in every worker
without a restart of the service, and no acknowledged command is lost or doubled."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import redis
import requests

from tests.service.api.conftest import start_live_server
from tests.service.players import Audit, Player, Retrying, audit, create_game

GAMES = ("board", "cards", "board", "cards")
COMMANDS_PER_GAME = 30


def readiness_becomes(url: str, status: int, timeout_s: float) -> float:
    """Asks ``/readyz`` until it answers ``status``; returns when (monotonic)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{url}/readyz", timeout=2).status_code == status:
                return time.monotonic()
        except requests.RequestException:
            pass
        time.sleep(0.01)
    raise AssertionError(f"/readyz never answered {status}")


@contextlib.contextmanager
def start_held_back(data: Path) -> Iterator[None]:
    """Holds the embedded Redis's start lock (``EmbeddedRedis`` takes it to start a server on
    its directory), so that the supervisor's restart waits until the block ends: the
    window in which Redis is down is then long enough to observe, whatever the timing."""
    with open(data / "redis.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def redis_pid(url: str) -> int:
    with redis.Redis.from_url(url, socket_timeout=5) as client:
        return int(client.info("server")["process_id"])


def test_a_killed_embedded_redis_is_restarted_and_nothing_acknowledged_is_lost(
    tmp_path: Path,
) -> None:
    data = tmp_path / "redis"
    with start_live_server(None, tmp_path, {"TIGRIS_REDIS_DIR": str(data)}) as live:
        redis_url = (data / "redis.url").read_text().strip()
        first_pid = redis_pid(redis_url)
        deadline = time.monotonic() + 60
        creator = Retrying([live.url], deadline)
        games = [create_game(creator, kind, 9100 + n) for n, kind in enumerate(GAMES)]
        players = [
            Player([live.url], game, n, deadline, COMMANDS_PER_GAME) for n, game in enumerate(games)
        ]
        for player in players:
            player.start()

        def done() -> int:
            return sum(len(p.acknowledged) for p in players)

        while done() < COMMANDS_PER_GAME * len(GAMES) // 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        acknowledged_before = done()
        with start_held_back(data):
            os.kill(first_pid, signal.SIGKILL)  # in the middle of the commands
            killed_at = time.monotonic()
            # /readyz says "not ready" while Redis is down ...
            down_at = readiness_becomes(live.url, 503, timeout_s=10)
            time.sleep(0.5)  # the players' commands meet a Redis that is down
        released_at = time.monotonic()
        # ... and "ready" again once the supervisor has restarted it.
        back_at = readiness_becomes(live.url, 200, timeout_s=20)
        for player in players:
            player.join(timeout=max(1.0, deadline - time.monotonic()))
            assert not player.is_alive()
            assert player.error is None, player.error
        print(
            f"\nembedded Redis killed: /readyz 503 {down_at - killed_at:.2f} s after the kill, "
            f"200 again {back_at - released_at:.2f} s after the restart was let go; "
            f"{sum(p.retries for p in players)} retries"
        )
        # A new redis-server, on the same data and address, serves the same service.
        assert (data / "redis.url").read_text().strip() == redis_url
        second_pid = redis_pid(redis_url)
        assert second_pid != first_pid
        # Commands resumed (no restart of the service) ...
        assert done() > acknowledged_before
        assert live.process.poll() is None
        # ... in every worker: once ready, no request fails (no worker kept a dead pool).
        session = requests.Session()
        for _ in range(40):
            session.close()  # a new connection each time, so both workers get some
            response = session.get(f"{live.url}/games/{games[0]['game']['game_id']}", timeout=10)
            assert response.status_code == 200, response.text
        # Nothing acknowledged was lost, nothing applied twice; the states are the folds.
        for player in players:
            found = audit(live.url, player)
            assert found == Audit(len(player.acknowledged), 0, 0, 0, True, True), found
    # The restarted server stops with the service.
    for _ in range(100):
        if not Path(f"/proc/{second_pid}").exists():
            break
        time.sleep(0.1)
    assert not Path(f"/proc/{second_pid}").exists()
