"""The fault test at the HTTP level: clients with idempotency keys play games through the
real server (gunicorn, two workers) while its Redis is killed with SIGKILL and restarted
on the same data, and one gunicorn worker is killed with SIGKILL (gunicorn forks a new
one). Clients retry every failed request with the same Idempotency-Key, as the API asks.

Afterwards, for every game: versions run 1..n without a gap, every acknowledged command's
events are in the log exactly once, at the versions its answer named, no command is in
the log twice (one command id per acknowledged command, no other), and the state the
server shows is the domain's fold of the log.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import requests

from domain.games import all_games
from service.embedded_redis import EmbeddedRedis
from tests.service.api.conftest import ADMIN_TOKEN, start_live_server

COMMANDS_PER_GAME = 24
GAMES = ("board", "cards", "board", "cards")
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def _worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


class Player(threading.Thread):
    """Plays one game: each command retried with its key until it is acknowledged."""

    def __init__(self, url: str, game: dict[str, Any], seed: int, deadline: float) -> None:
        super().__init__(daemon=True)
        self.url, self.game, self.deadline = url, game, deadline
        self.rng = random.Random(seed)
        self.session = requests.Session()
        self.acknowledged: list[tuple[str, list[int], str]] = []  # key, versions, command id
        self.retries = 0

    def _call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        while time.monotonic() < self.deadline:  # bounded in time
            try:
                response = self.session.request(method, self.url + path, timeout=10, **kwargs)
            except requests.RequestException:
                response = None
            if response is not None and response.status_code < 500:
                return response
            self.retries += 1
            self.session = requests.Session()  # the old connection may be dead
            time.sleep(0.05)
        raise AssertionError(f"{method} {path} never answered")

    def run(self) -> None:
        game_id = self.game["game"]["game_id"]
        tokens = [s["token"] for s in self.game["seats"]]
        for _ in range(COMMANDS_PER_GAME):
            pending = self._call("GET", f"/games/{game_id}/pending").json()
            if not pending["awaited"]:
                return  # the game is over
            seat = pending["awaited"][0]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = self._call("GET", f"/games/{game_id}/legal-commands", headers=auth)
            version = legal.headers["ETag"]
            command = self.rng.choice(legal.json()["commands"])
            key = uuid.uuid4().hex
            headers = {**auth, "If-Match": version, "Idempotency-Key": key}
            response = self._call(
                "POST", f"/games/{game_id}/commands", json=command, headers=headers
            )
            assert response.status_code == 200, response.text
            events = response.json()["events"]
            self.acknowledged.append((key, [e["version"] for e in events], events[0]["command_id"]))


def test_acknowledged_commands_survive_redis_and_worker_kills_exactly_once(
    tmp_path: Path,
) -> None:
    data = tmp_path / "redis"
    redis_server = EmbeddedRedis(data, appendfsync="always").start()
    try:
        with start_live_server(redis_server.url, tmp_path) as live:
            created = [
                requests.post(
                    f"{live.url}/games",
                    json={"kind": kind, "seats": ["Ann", "Bob"]},
                    headers={"Idempotency-Key": uuid.uuid4().hex},
                    timeout=10,
                ).json()
                for kind in GAMES
            ]
            deadline = time.monotonic() + 90
            players = [Player(live.url, game, n, deadline) for n, game in enumerate(created)]
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
            assert sum(p.retries for p in players) > 0  # the kills were felt

            for player in players:
                game_id = player.game["game"]["game_id"]
                kind = player.game["game"]["kind"]
                log = requests.get(
                    f"{live.url}/games/{game_id}/events?limit=200", headers=ADMIN, timeout=10
                ).json()
                items = log["items"]
                assert log["next_after"] is None
                # Versions 1..n, no gap.
                assert [e["version"] for e in items] == list(range(1, len(items) + 1))
                # Each acknowledged command exactly once, where its answer said.
                by_version = {e["version"]: e for e in items}
                for _key, versions, command_id in player.acknowledged:
                    assert all(by_version[v]["command_id"] == command_id for v in versions)
                seat_commands = {e["command_id"] for e in items if e["actor"].startswith("seat")}
                acknowledged_ids = [c for _, _, c in player.acknowledged]
                assert len(set(acknowledged_ids)) == len(acknowledged_ids)
                assert seat_commands == set(acknowledged_ids)  # nothing applied twice
                # The server's state is the domain's fold of the log.
                rules = all_games()[kind]
                folded = rules.fold(
                    rules.events.from_json({"type": e["type"].split(".", 1)[1], **e["data"]})
                    for e in items
                )
                state = requests.get(
                    f"{live.url}/games/{game_id}/state", headers=ADMIN, timeout=10
                ).json()
                assert state["state"] == rules.dump_position(folded)
    finally:
        redis_server.stop()
