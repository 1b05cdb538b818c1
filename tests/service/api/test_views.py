"""State, time travel, pending decision, legal commands and result, per caller."""

from __future__ import annotations

import random

import pytest
from flask.testing import FlaskClient

from tests.service.api.conftest import (
    KINDS,
    Api,
    Game,
    admin,
    admin_events,
    domain_events,
    domain_state,
    problem,
)


def _play(api: Api, game: Game, commands: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for _ in range(commands):
        seat = rng.choice(api.awaited(game))
        response = api.command(game, seat, rng.choice(api.legal(game, seat)), if_match="*")
        assert response.status_code == 200, response.get_json()


@pytest.mark.parametrize("kind", KINDS)
def test_state_is_the_domain_view_of_the_caller(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind, 3)
    _play(api, game, 4)
    state = domain_state(client, game)
    rules = game.rules

    for seat in range(3):
        response = client.get(f"/games/{game.game_id}/state", headers=game.seat(seat))
        assert response.status_code == 200
        body = response.get_json()
        assert body["viewer"] == f"seat:{seat}" and body["over"] is False
        assert body["state"] == rules.view(state, seat)
        assert response.headers["ETag"] == f'"{body["version"]}-seat{seat}"'
    spectator = client.get(f"/games/{game.game_id}/state").get_json()
    assert spectator["viewer"] == "spectator" and spectator["state"] == rules.view(state, None)
    everything = client.get(f"/games/{game.game_id}/state", headers=admin()).get_json()
    assert everything["viewer"] == "admin"
    assert everything["state"] == rules.view(state, None, complete=True)
    assert rules.view(state, 0) != rules.view(state, 1)  # the views do differ


@pytest.mark.parametrize("kind", KINDS)
def test_time_travel_is_redacted_and_bounded(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind)
    _play(api, game, 3)
    now = api.version(game)
    start = client.get(f"/games/{game.game_id}/states/{game.version}", headers=game.seat(0))

    assert start.status_code == 200
    assert start.get_json()["version"] == game.version
    assert start.headers["ETag"] == f'"{now}-seat0"'
    rules = game.rules
    setup = domain_events(game, admin_events(client, game))[: game.version]
    assert start.get_json()["state"] == rules.view(rules.fold(setup), 0)
    spectator = client.get(f"/games/{game.game_id}/states/{game.version}").get_json()["state"]
    assert spectator != start.get_json()["state"]
    problem(client.get(f"/games/{game.game_id}/states/{now + 1}"), 404)
    problem(client.get(f"/games/{game.game_id}/states/0"), 404)
    problem(client.get("/games/nosuch/states/1"), 404)


@pytest.mark.parametrize("kind", KINDS)
def test_pending_and_legal_commands(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind, 3)
    state = domain_state(client, game)
    rules = game.rules

    pending = client.get(f"/games/{game.game_id}/pending").get_json()

    assert pending["awaited"] == sorted(rules.awaited(state))
    assert pending["pending"] == rules.pending(state)
    number, seat = rules.turn(state)
    assert pending["turn"] == {"number": number, "seat": seat}
    for seat in range(3):
        expected = [
            {k: v for k, v in rules.commands.to_json(c).items() if k != "seat"}
            for c in rules.legal_commands(state, seat)
        ]
        assert api.legal(game, seat) == expected
        assert bool(expected) == (seat in pending["awaited"])
    problem(client.get(f"/games/{game.game_id}/legal-commands"), 401)
    problem(client.get(f"/games/{game.game_id}/legal-commands", headers=admin()), 403)


@pytest.mark.parametrize("kind", KINDS)
def test_result_only_once_over(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind)

    found = problem(client.get(f"/games/{game.game_id}/result"), 409)

    assert found["type"] == "/problems/game-not-over"
    problem(client.get("/games/nosuch/result"), 404)


def test_open_scoring_shows_every_seats_points_to_seats_and_spectators(
    api: Api, client: FlaskClient
) -> None:
    # Given a board game created with open scoring and one without,
    opened = api.create("board", 3, options={"open_scoring": True})
    closed = api.create("board", 3)
    assert client.get(f"/games/{opened.game_id}").get_json()["options"] == {"open_scoring": True}
    assert client.get(f"/games/{closed.game_id}").get_json()["options"] == {"open_scoring": False}
    for headers in (opened.seat(0), {}):
        # when seat 0 or a spectator reads the state,
        seen = client.get(f"/games/{opened.game_id}/state", headers=headers).get_json()["state"]
        # then every seat's points are shown with open scoring, and hands are not.
        assert all(s["points"] is not None and s["treasures"] == 0 for s in seen["seats"])
        assert [s["hand"] is not None for s in seen["seats"]][1:] == [False, False]
    seen = client.get(f"/games/{closed.game_id}/state", headers=closed.seat(0)).get_json()
    assert [s["points"] is not None for s in seen["state"]["seats"]] == [True, False, False]
