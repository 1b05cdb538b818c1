"""HTTP clients that play games through real servers while processes die under them, and the
audit of what they were told against what the event logs hold.

A ``Player`` plays one game: each command carries a fresh ``Idempotency-Key`` and is sent
again with the same key, to the next server of its list, after any connection error or
5xx answer, until it is acknowledged (the API's promise: a retry never doubles an effect).
``audit`` then compares the acknowledged commands with the game's event log.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import requests

from domain.games import all_games
from tests.service.api.conftest import ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


class Retrying:
    """Requests over a rotating list of servers, retried until answered below 500."""

    def __init__(self, urls: Sequence[str], deadline: float) -> None:
        self.urls = list(urls)
        self.deadline = deadline
        self.turn = 0
        self.retries = 0
        self.session = requests.Session()

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        while time.monotonic() < self.deadline:  # bounded in time
            url = self.urls[self.turn % len(self.urls)]
            try:
                response = self.session.request(method, url + path, timeout=10, **kwargs)
            except requests.RequestException:
                response = None
            if response is not None and response.status_code < 500:
                return response
            self.retries += 1
            self.turn += 1  # the next server
            self.session = requests.Session()  # the old connection may be dead
            time.sleep(0.05)
        raise AssertionError(f"{method} {path} never answered")

    def next_server(self) -> None:
        self.turn += 1


def create_game(client: Retrying, kind: str, seed: int) -> dict[str, Any]:
    """A two-seat game with a fixed seed (the admin's right), created idempotently."""
    response = client.call(
        "POST",
        "/games",
        json={"kind": kind, "seats": ["Ann", "Bob"], "seed": seed},
        headers={**ADMIN, "Idempotency-Key": uuid.uuid4().hex},
    )
    assert response.status_code in (200, 201), response.text
    game: dict[str, Any] = response.json()
    return game


class Player(threading.Thread):
    """Plays one game, ``commands`` commands at most, alternating between the servers."""

    def __init__(
        self,
        urls: Sequence[str],
        game: dict[str, Any],
        seed: int,
        deadline: float,
        commands: int,
    ) -> None:
        super().__init__(daemon=True)
        self.game = game
        self.commands = commands
        self.client = Retrying(urls, deadline)
        self.rng = random.Random(seed)
        self.acknowledged: list[tuple[str, list[int], str]] = []  # key, versions, command id
        self.error: BaseException | None = None

    @property
    def game_id(self) -> str:
        game_id: str = self.game["game"]["game_id"]
        return game_id

    @property
    def retries(self) -> int:
        return self.client.retries

    def run(self) -> None:
        try:
            self._play()
        except BaseException as exc:  # reported by the test through ``error``
            self.error = exc

    def _play(self) -> None:
        tokens = [s["token"] for s in self.game["seats"]]
        for _ in range(self.commands):
            pending = self.client.call("GET", f"/games/{self.game_id}/pending").json()
            if not pending["awaited"]:
                return  # the game is over
            seat = pending["awaited"][0]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = self.client.call("GET", f"/games/{self.game_id}/legal-commands", headers=auth)
            version = legal.headers["ETag"]
            command = self.rng.choice(legal.json()["commands"])
            key = uuid.uuid4().hex
            headers = {**auth, "If-Match": version, "Idempotency-Key": key}
            response = self.client.call(
                "POST", f"/games/{self.game_id}/commands", json=command, headers=headers
            )
            assert response.status_code == 200, response.text
            events = response.json()["events"]
            self.acknowledged.append((key, [e["version"] for e in events], events[0]["command_id"]))
            self.client.next_server()  # alternate: the next command goes to the other server


@dataclass(frozen=True)
class Audit:
    """One game's log against its player's acknowledged commands."""

    acknowledged: int  # commands the player was told were applied
    lost: int  # acknowledged, but not in the log where the answer said
    doubled: int  # a command whose events are in the log more than once
    unacknowledged: int  # seat commands in the log that no answer acknowledged
    contiguous: bool  # versions 1..n without a gap
    folds: bool  # the server's state is the domain's fold of the log


def audit(url: str, player: Player) -> Audit:
    game_id = player.game_id
    kind = player.game["game"]["kind"]
    items: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = requests.get(
            f"{url}/games/{game_id}/events?after={after}&limit=500", headers=ADMIN, timeout=10
        ).json()
        items.extend(page["items"])
        after = page["next_after"]
    by_version = {e["version"]: e for e in items}
    lost = sum(
        1
        for _key, versions, command_id in player.acknowledged
        if not all(by_version.get(v, {}).get("command_id") == command_id for v in versions)
    )
    # A command's events are consecutive: the same command id in two runs is a doubled effect.
    runs: dict[str, int] = {}
    previous = None
    for item in items:
        if item["command_id"] != previous:
            runs[item["command_id"]] = runs.get(item["command_id"], 0) + 1
        previous = item["command_id"]
    doubled = sum(1 for count in runs.values() if count > 1)
    acknowledged_ids = {c for _, _, c in player.acknowledged}
    seat_commands = {e["command_id"] for e in items if e["actor"].startswith("seat")}
    rules = all_games()[kind]
    folded = rules.fold(
        rules.events.from_json({"type": e["type"].split(".", 1)[1], **e["data"]}) for e in items
    )
    state = requests.get(f"{url}/games/{game_id}/state", headers=ADMIN, timeout=10).json()
    return Audit(
        acknowledged=len(player.acknowledged),
        lost=lost,
        doubled=doubled + len(player.acknowledged) - len(acknowledged_ids),
        unacknowledged=len(seat_commands - acknowledged_ids),
        contiguous=[e["version"] for e in items] == list(range(1, len(items) + 1)),
        folds=state["state"] == rules.view(folded, None, complete=True),
    )
