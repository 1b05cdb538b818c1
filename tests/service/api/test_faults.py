"""The fault test at the HTTP level: clients with idempotency keys play games through the
real server (gunicorn, two workers) while its Redis is killed with SIGKILL and restarted
on the same data, and one gunicorn worker is killed with SIGKILL (gunicorn forks a new
one). Clients retry every failed request with the same Idempotency-Key, as the API asks
(``tests/service/players.py``).

Afterwards, for every game: versions run 1..n without a gap, every acknowledged command's
events are in the log exactly once, at the versions its answer named, no command is in
the log twice (one command id per acknowledged command, no other), and the state the
server shows is the domain's fold of the log.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from service.embedded_redis import EmbeddedRedis
from tests.service.api.conftest import start_live_server
from tests.service.players import Audit, Player, Retrying, audit, create_game

COMMANDS_PER_GAME = 24
GAMES = ("board", "cards", "board", "cards")


def _worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


def test_acknowledged_commands_survive_redis_and_worker_kills_exactly_once(
    tmp_path: Path,
) -> None:
    data = tmp_path / "redis"
    redis_server = EmbeddedRedis(data, appendfsync="always").start()
    try:
        with start_live_server(redis_server.url, tmp_path) as live:
            deadline = time.monotonic() + 90
            creator = Retrying([live.url], deadline)
            created = [create_game(creator, kind, 7000 + n) for n, kind in enumerate(GAMES)]
            players = [
                Player([live.url], game, n, deadline, COMMANDS_PER_GAME)
                for n, game in enumerate(created)
            ]
            for player in players:
                player.start()

            def done() -> int:
                return sum(len(p.acknowledged) for p in players)

            total = COMMANDS_PER_GAME * len(GAMES)
            for step, kill in enumerate(("redis", "worker", "redis")):
                while done() < (step + 1) * total // 4 and time.monotonic() < deadline:
                    time.sleep(0.01)
                if kill == "redis":
                    redis_server.kill()  # SIGKILL while commands are in flight
                    time.sleep(0.3)
                    redis_server = EmbeddedRedis(data, appendfsync="always").start()
                else:
                    os.kill(_worker_pids(live.process.pid)[0], signal.SIGKILL)
            for player in players:
                player.join(timeout=max(1.0, deadline - time.monotonic()))
                assert not player.is_alive()
                assert player.error is None, player.error
            assert sum(p.retries for p in players) > 0  # the kills were felt

            for player in players:
                found = audit(live.url, player)
                assert found == Audit(
                    acknowledged=len(player.acknowledged),
                    lost=0,
                    doubled=0,
                    unacknowledged=0,
                    contiguous=True,
                    folds=True,
                )
                assert found.acknowledged > 0
    finally:
        redis_server.stop()
