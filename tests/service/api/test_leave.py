"""Leaving a game before it starts (``POST /games/{id}/seats/{seat}/leave``; the policy:
domain/RESIGNATION.md): the seat opens again, every token of it is revoked and its player's
binding ends, in one append (``service.SeatLeft``) that the game's record verifies; a game
that has started is resigned, not left. Every response is checked against openapi.yaml."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.games import all_games
from service.application import record
from tests.service.api.conftest import KINDS, admin, auth, problem
from tests.service.api.test_lobby import claim, create_open


def leave(client: FlaskClient, game_id: str, seat: int, token: str | None) -> Any:
    return client.post(f"/games/{game_id}/seats/{seat}/leave", headers=auth(token))


def seats_of(client: FlaskClient, game_id: str) -> list[tuple[str, bool]]:
    game = client.get(f"/games/{game_id}").get_json()
    return [(s["name"], s["open"]) for s in game["seats"]]


@pytest.mark.parametrize("kind", KINDS)
def test_a_seat_leaves_an_open_game_its_seat_opens_again_and_its_token_is_revoked(
    client: FlaskClient, kind: str
) -> None:
    # Given an open game whose seat 1 Bea claimed
    game_id = create_open(client, kind)["game"]["game_id"]
    claimed = claim(client, game_id, 1, "Bea")
    token = claimed.get_json()["seat"]["token"]
    assert client.get(f"/games/{game_id}/state", headers=auth(token)).status_code == 200
    # When Bea leaves
    left = leave(client, game_id, 1, token)
    # Then the seat is open again under its open name, by the event service.SeatLeft
    assert left.status_code == 200, left.get_json()
    assert [e["type"] for e in left.get_json()["events"]] == ["service.SeatLeft"]
    assert left.get_json()["game"]["status"] == "open"
    assert seats_of(client, game_id) == [
        ("Ann", False),
        ("Open seat 1", True),
        ("Open seat 2", True),
    ]
    # and her token stands for no one any more
    problem(client.get(f"/games/{game_id}/state", headers=auth(token)), 401)
    problem(leave(client, game_id, 1, token), 401)
    # When Cy claims the seat, and Di the last one
    assert claim(client, game_id, 1, "Cy").status_code == 201
    assert claim(client, game_id, 2, "Di").status_code == 201
    # Then the game starts with them, Bea's token still revoked, and its record verifies
    assert client.get(f"/games/{game_id}").get_json()["status"] == "active"
    assert seats_of(client, game_id) == [("Ann", False), ("Cy", False), ("Di", False)]
    problem(client.get(f"/games/{game_id}/state", headers=auth(token)), 401)
    exported = client.get(f"/games/{game_id}/record", headers=admin())
    verified = record.verify(exported.data, all_games())  # raises where it disagrees
    assert verified.header["seats"] == ["Ann", "Cy", "Di"]


def test_a_seat_named_at_creation_may_leave_before_the_start(client: FlaskClient) -> None:
    # Given an open game created with Ann at seat 0
    created = create_open(client)
    game_id, token = created["game"]["game_id"], created["seats"][0]["token"]
    # When Ann leaves, then seat 0 is open to claim
    assert leave(client, game_id, 0, token).status_code == 200
    assert seats_of(client, game_id)[0] == ("Open seat 0", True)
    assert claim(client, game_id, 0, "Bo").status_code == 201


def test_a_started_game_is_not_left_but_resigned(client: FlaskClient) -> None:
    # Given a game whose seats are all claimed (it has started)
    created = create_open(client, seats=["Ann", {"type": "open"}])
    game_id, token = created["game"]["game_id"], created["seats"][0]["token"]
    assert claim(client, game_id, 1, "Bea").status_code == 201
    version = client.get(f"/games/{game_id}").get_json()["version"]
    # When Ann tries to leave, then it is a 409 game-started, and nothing changed
    refused = problem(leave(client, game_id, 0, token), 409)
    assert refused["type"] == "/problems/game-started" and refused["seat"] == 0
    assert client.get(f"/games/{game_id}").get_json()["version"] == version
    assert client.get(f"/games/{game_id}/state", headers=auth(token)).status_code == 200


def test_only_the_seat_s_holder_leaves_it(client: FlaskClient) -> None:
    # Given an open game with Ann at seat 0 and Bea at seat 1
    created = create_open(client)
    game_id, ann = created["game"]["game_id"], created["seats"][0]["token"]
    assert claim(client, game_id, 1, "Bea").status_code == 201
    version = client.get(f"/games/{game_id}").get_json()["version"]
    # When Ann, a spectator or the admin asks seat 1 to leave, then each is refused
    assert problem(leave(client, game_id, 1, ann), 403)["type"] == "/problems/forbidden"
    problem(leave(client, game_id, 1, None), 401)
    problem(client.post(f"/games/{game_id}/seats/1/leave", headers=admin()), 403)
    # and nothing changed
    assert client.get(f"/games/{game_id}").get_json()["version"] == version
    assert seats_of(client, game_id)[1] == ("Bea", False)


def test_a_player_who_leaves_loses_the_seat_and_the_game_leaves_its_lists(
    client: FlaskClient,
) -> None:
    # Given a player who claimed seat 1 of an open game with its key
    made = client.post("/players", json={"name": "Pat"}).get_json()
    key = made["key"]
    game_id = create_open(client)["game"]["game_id"]
    claimed = claim(client, game_id, 1, "Pat", headers=auth(key))
    assert claimed.status_code == 201, claimed.get_json()
    seat_token = claimed.get_json()["seat"]["token"]
    mine = client.get("/players/me/games", headers=auth(key)).get_json()["items"]
    assert [g["game_id"] for g in mine] == [game_id]
    # When the player leaves with its key
    assert leave(client, game_id, 1, key).status_code == 200
    # Then the game is no longer the player's, and neither key nor seat token acts in it
    assert client.get("/players/me/games", headers=auth(key)).get_json()["items"] == []
    assert problem(leave(client, game_id, 1, key), 403)["type"] == "/problems/forbidden"
    problem(client.get(f"/games/{game_id}/state", headers=auth(seat_token)), 401)
    assert seats_of(client, game_id)[1] == ("Open seat 1", True)
