"""Rematches (``POST /games/{id}/rematch``): a seat of a finished game gets one new game of the
same kind, options and players, linked both ways; every later request, from any seat,
answers that same game. Every response is checked against openapi.yaml."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.games import all_games
from service.application import record
from tests.service.api.conftest import KINDS, admin, auth, problem
from tests.service.api.test_lobby import claim


def create(client: FlaskClient, body: dict[str, Any], key: str | None = None) -> dict[str, Any]:
    response = client.post("/games", json=body, headers=auth(key))
    assert response.status_code == 201, response.get_json()
    created: dict[str, Any] = response.get_json()
    return created


def resign(client: FlaskClient, game_id: str, key: str, seat: int | None = None) -> None:
    body: dict[str, Any] = {"type": "Resign"} | ({} if seat is None else {"seat": seat})
    headers = {**auth(key), "If-Match": "*"}
    answer = client.post(f"/games/{game_id}/commands", json=body, headers=headers)
    assert answer.status_code == 200, answer.get_json()


def rematch(client: FlaskClient, game_id: str, key: str | None, seat: int | None = None) -> Any:
    query = "" if seat is None else f"?seat={seat}"
    return client.post(f"/games/{game_id}/rematch{query}", headers=auth(key))


@pytest.mark.parametrize("kind", KINDS)
def test_a_finished_game_gets_one_rematch_linked_both_ways(client: FlaskClient, kind: str) -> None:
    # Given a two-seat game that ended (Bob resigned)
    created = create(client, {"kind": kind, "seats": ["Ann", "Bob"]})
    old_id = created["game"]["game_id"]
    ann, bob = (seat["token"] for seat in created["seats"])
    resign(client, old_id, bob)
    # When Ann asks for a rematch
    first = rematch(client, old_id, ann)
    # Then a new game of the same kind and names is made, linked both ways; Ann gets her
    # new seat's token, Bob's seat waits open under his name for him to claim
    assert first.status_code == 201, first.get_json()
    new = first.get_json()["game"]
    assert first.headers["Location"] == f"/games/{new['game_id']}"
    assert new["kind"] == kind and new["rematch_of"] == old_id and new["status"] == "open"
    assert [(s["name"], s["open"]) for s in new["seats"]] == [("Ann", False), ("Bob", True)]
    token = first.get_json()["seat"]["token"]
    assert first.get_json()["seat"]["seat"] == 0
    assert client.get(f"/games/{new['game_id']}/state", headers=auth(token)).status_code == 200
    assert client.get(f"/games/{old_id}").get_json()["rematch"] == new["game_id"]
    # When Bob, then Ann again, ask for a rematch
    again = [rematch(client, old_id, bob), rematch(client, old_id, ann)]
    # Then both get that same game, and no token
    assert [a.status_code for a in again] == [200, 200]
    assert {a.get_json()["game"]["game_id"] for a in again} == {new["game_id"]}
    assert [a.get_json()["seat"] for a in again] == [None, None]
    # When Bob claims his seat, the rematch starts; the old game's record still verifies
    assert claim(client, new["game_id"], 1, "Bob").status_code == 201
    assert client.get(f"/games/{new['game_id']}").get_json()["status"] == "active"
    exported = client.get(f"/games/{old_id}/record", headers=admin())
    verified = record.verify(exported.data, all_games())  # raises where it disagrees
    assert verified.header["seats"] == ["Ann", "Bob"]


def test_only_a_seat_of_a_finished_game_asks_for_a_rematch(client: FlaskClient) -> None:
    # Given a game under way
    created = create(client, {"kind": "board", "seats": ["Ann", "Bob"]})
    game_id, ann = created["game"]["game_id"], created["seats"][0]["token"]
    version = created["game"]["version"]
    # When Ann asks for a rematch, then it is a 409 game-not-over and nothing changed
    assert problem(rematch(client, game_id, ann), 409)["type"] == "/problems/game-not-over"
    assert client.get(f"/games/{game_id}").get_json()["version"] == version
    assert "rematch" not in client.get(f"/games/{game_id}").get_json()
    # and a spectator or the admin may not ask at all, even once it is over
    resign(client, game_id, ann)
    problem(rematch(client, game_id, None), 401)
    problem(client.post(f"/games/{game_id}/rematch", headers=admin()), 403)


def test_a_rematch_keeps_options_bots_clock_and_players(client: FlaskClient) -> None:
    # Given a finished three-seat board game of a player, a bot and a named seat, with an
    # option and a clock
    pat = client.post("/players", json={"name": "Pat"}).get_json()
    body = {
        "kind": "board",
        "seats": [
            {"type": "player", "player": pat["player_id"]},
            {"bot": "random", "think_ms": 0},
            "Cy",
        ],
        "options": {"open_scoring": True},
        "clock": {"per_decision_s": 3600},
    }
    created = create(client, body, pat["key"])
    old_id, cy = created["game"]["game_id"], created["seats"][2]["token"]
    resign(client, old_id, cy)
    resign(client, old_id, pat["key"])  # two of three resigned: it is over
    old = client.get(f"/games/{old_id}").get_json()
    assert old["status"] == "over"
    # When the player asks for the rematch with its key
    made = rematch(client, old_id, pat["key"])
    # Then it keeps the kind, options, clock, the bot and the player's binding (no token:
    # its key plays it), and Cy's seat is open for Cy to claim
    assert made.status_code == 201, made.get_json()
    new = made.get_json()["game"]
    assert made.get_json()["seat"] is None
    assert new["options"] == old["options"] and new["clock"] == old["clock"]
    assert [s["name"] for s in new["seats"]] == [s["name"] for s in old["seats"]]
    assert new["seats"][1]["bot"] == old["seats"][1]["bot"]
    assert [s["open"] for s in new["seats"]] == [False, False, True]
    mine = client.get("/players/me/games", headers=auth(pat["key"])).get_json()["items"]
    assert new["game_id"] in [g["game_id"] for g in mine]
