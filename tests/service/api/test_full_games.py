"""Whole seeded random games played only through HTTP, one client per seat, each driven
solely by its legal-commands endpoint; and what every seat's responses may contain."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.service.api.conftest import (
    Game,
    admin,
    admin_events,
    auth,
    domain_events,
    domain_state,
)

GAMES = [("board", 2, 101), ("board", 4, 102), ("cards", 2, 103), ("cards", 3, 104)]
SECRET_KEYS = frozenset({"bag", "seed", "hands", "deck", "draw_pile", "pile"})
CHECKPOINTS = frozenset({1, 5, 20, 60, 150, 300, 600})
SEED_BASE = 7_391_045_283_117  # long enough that finding it in a body is no accident


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every object in ``value`` with its keys that hold something (a ``null`` shows nothing:
    every view has the same keys, and what the caller may not see is ``null``)."""
    if isinstance(value, dict):
        yield {key: item for key, item in value.items() if item is not None}
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _keys(value: Any) -> set[str]:
    return {key for found in _walk(value) for key in found}


class Secrets:
    """What one seat must never receive while the game runs, learnt from the domain's own
    views: keys only the full position has (the bag, the seed, all hands), keys only a seat's
    own view has (its hand, its points) when they sit in another seat's entry, and the seed."""

    def __init__(self, game: Game, state: Any, seed: int) -> None:
        rules = game.rules
        seats = len(game.tokens)
        views = [rules.view(state, seat) for seat in range(seats)]
        public = _keys(rules.view(state, None))
        self.private = set().union(*(_keys(v) for v in views)) - public
        assert self.private, "the seats see nothing of their own: the check would be vacuous"
        # The complete view's secret parts by name: all of them must be shown there.
        self.hidden = SECRET_KEYS & _keys(rules.view(state, None, complete=True))
        assert "seed" in self.hidden and self.hidden & {"bag", "pile", "deck", "draw_pile"}
        self.seed = str(seed)

    def check(self, body: Any, seat: int) -> None:
        text = json.dumps(body)
        assert self.seed not in text, f"seat {seat} received the seed"
        for found in _walk(body):
            leaked = self.hidden & set(found)
            assert not leaked, f"seat {seat} received hidden {leaked}"
            owner = found.get("seat")
            if isinstance(owner, int) and owner != seat:
                mine = self.private & set(found)
                assert not mine, f"seat {seat} received seat {owner}'s {mine}"
            # a conflict's outcome: the points the winner scored are the winner's secret
            winner = found.get("winner")
            if "points" in found and type(winner) is int and winner != seat:
                raise AssertionError(f"seat {seat} received seat {winner}'s conflict points")


def _log(client: FlaskClient, game: Game, headers: dict[str, str]) -> list[Any]:
    items: list[Any] = []
    after: int | None = 0
    while after is not None:
        page = client.get(f"/games/{game.game_id}/events?after={after}&limit=500", headers=headers)
        items.extend(page.get_json()["items"])
        after = page.get_json()["next_after"]
    return items


def _stream(client: FlaskClient, game: Game, seat: int) -> list[Any]:
    response = client.get(f"/games/{game.game_id}/events/stream?wait=0", headers=game.seat(seat))
    assert response.status_code == 200
    return [
        json.loads(line[len("data: ") :])
        for line in response.get_data(as_text=True).splitlines()
        if line.startswith("data: ")
    ]


@pytest.mark.parametrize(("kind", "seats", "seed"), GAMES)
def test_a_random_game_through_http_only(app: Flask, kind: str, seats: int, seed: int) -> None:
    setup = app.test_client()
    created = setup.post(
        "/games",
        json={"kind": kind, "seats": [f"P{n}" for n in range(seats)], "seed": SEED_BASE + seed},
        headers=admin(),
    )
    assert created.status_code == 201
    body = created.get_json()
    game = Game(body["game"]["game_id"], kind, [s["token"] for s in body["seats"]], 0)
    clients = [app.test_client() for _ in range(seats)]
    rng = random.Random(seed)
    secrets = Secrets(game, domain_state(setup, game), SEED_BASE + seed)
    base = f"/games/{game.game_id}"
    commands = 0

    while True:
        moved = False
        for seat, client in enumerate(clients):
            headers = auth(game.tokens[seat])
            legal = client.get(f"{base}/legal-commands", headers=headers)
            assert legal.status_code == 200
            options = legal.get_json()["commands"]
            if not options:
                continue
            posted = client.post(
                f"{base}/commands",
                json=rng.choice(options),
                headers={**headers, "If-Match": legal.headers["ETag"]},
            )
            assert posted.status_code == 200, posted.get_json()
            moved = True
            commands += 1
            if not posted.get_json()["version"] or _over(client, base):
                break
            secrets.check(posted.get_json(), seat)
            if commands in CHECKPOINTS:
                _check_views(game, clients, secrets)
        if not moved or _over(setup, base):
            break

    assert _over(setup, base), "nobody could move but the game is not over"
    events = domain_events(game, admin_events(setup, game))
    state = game.rules.fold(events)
    result = setup.get(f"{base}/result")
    assert result.status_code == 200
    assert result.get_json()["result"] == game.rules.result(state)
    # After the end, history is public: any seat sees the complete view of the past, in the
    # same shape as every other state.
    half = len(events) // 2
    past = clients[0].get(f"{base}/states/{half}", headers=auth(game.tokens[0])).get_json()
    assert past["state"] == game.rules.view(game.rules.fold(events[:half]), 0, complete=True)
    # One shape for every caller and version: the final state by time travel is the state,
    # and it has the keys a running game's state had.
    running = set(game.rules.view(game.rules.fold(events[:half]), None))
    final = len(events)
    for headers in (auth(game.tokens[0]), {}, admin()):
        now = setup.get(f"{base}/state", headers=headers).get_json()
        then = setup.get(f"{base}/states/{final}", headers=headers).get_json()
        assert now["version"] == final and then["state"] == now["state"]
        assert now["state"]["complete"] and set(now["state"]) == running
    listed = setup.get(f"/games?status=over&kind={kind}").get_json()["items"]
    assert game.game_id in {g["game_id"] for g in listed}


def _over(client: FlaskClient, base: str) -> bool:
    return bool(client.get(f"{base}/pending").get_json()["over"])


def _check_views(game: Game, clients: list[FlaskClient], secrets: Secrets) -> None:
    """Every seat's state, log and stream: exactly the domain's views, and no secrets."""
    state = domain_state(clients[0], game)
    events = domain_events(game, admin_events(clients[0], game))
    for seat, client in enumerate(clients):
        headers = auth(game.tokens[seat])
        view = client.get(f"/games/{game.game_id}/state", headers=headers).get_json()
        assert view["state"] == game.rules.view(state, seat)
        secrets.check(view, seat)
        log = _log(client, game, headers)
        secrets.check(log, seat)
        expected = [game.rules.event_view(e, seat, state) for e in events]
        assert [e["data"] for e in log if not e["type"].startswith("service.")] == expected
        streamed = _stream(client, game, seat)
        secrets.check(streamed, seat)
        assert streamed == log
        past = client.get(f"/games/{game.game_id}/states/{len(events) // 2 or 1}", headers=headers)
        secrets.check(past.get_json(), seat)
