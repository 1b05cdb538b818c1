"""Invitations: an open seat reserved for one invited player (``POST`` and ``DELETE
/games/{id}/seats/{seat}/invitation``, ``POST /invitations/{code}``). Only that player's key
claims the seat; anyone else gets a 409 ``seat-reserved`` (a claim) or a 403 ``not-invited``
(a redemption); its inviter or the admin revokes it. Every response is checked against
openapi.yaml."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from domain.games import all_games
from service.application import record
from tests.service.api.conftest import admin, auth, problem
from tests.service.api.test_lobby import claim, create_open


def player(client: FlaskClient, name: str) -> dict[str, Any]:
    made = client.post("/players", json={"name": name})
    assert made.status_code == 201, made.get_json()
    body: dict[str, Any] = made.get_json()
    return body


def invite(client: FlaskClient, game_id: str, seat: int, who: str, key: str | None) -> Any:
    return client.post(
        f"/games/{game_id}/seats/{seat}/invitation", json={"player": who}, headers=auth(key)
    )


def test_only_the_invited_player_claims_the_reserved_seat(client: FlaskClient) -> None:
    # Given an open game of Ann's (seat 0) and two players, Bea and Cy
    created = create_open(client)
    game_id, ann = created["game"]["game_id"], created["seats"][0]["token"]
    bea, cy = player(client, "Bea"), player(client, "Cy")
    # When Ann invites Bea to seat 1
    invited = invite(client, game_id, 1, bea["player_id"], ann)
    # Then she gets the invitation's code and link, once
    assert invited.status_code == 201, invited.get_json()
    code = invited.get_json()["code"]
    assert invited.get_json()["link"] == f"/invitations/{code}"
    assert invited.get_json()["player"] == bea["player_id"]
    # and nobody else claims the seat: not by name, not with Cy's key, not with Cy's
    # redemption of Bea's code
    assert problem(claim(client, game_id, 1, "Eve"), 409)["type"] == "/problems/seat-reserved"
    refused = claim(client, game_id, 1, "Cy", headers=auth(cy["key"]))
    assert problem(refused, 409)["seat"] == 1
    stolen = client.post(f"/invitations/{code}", json={}, headers=auth(cy["key"]))
    assert problem(stolen, 403)["type"] == "/problems/not-invited"
    problem(client.post(f"/invitations/{code}", json={}), 401)
    wrong = client.post(f"/invitations/{code[:-2]}xx", json={}, headers=auth(bea["key"]))
    assert problem(wrong, 404)["type"] == "/problems/invitation-not-found"
    # while the other open seat is anyone's
    assert claim(client, game_id, 2, "Di").status_code == 201
    # When Bea redeems the code with her key
    redeemed = client.post(f"/invitations/{code}", json={}, headers=auth(bea["key"]))
    # Then the seat is hers, named after her, and the game starts
    assert redeemed.status_code == 201, redeemed.get_json()
    assert redeemed.get_json()["seat"]["player"] == bea["player_id"]
    game = client.get(f"/games/{game_id}").get_json()
    assert game["status"] == "active" and game["seats"][1]["name"] == "Bea"
    # and the code is used up; the game's record verifies with the invitation in it
    again = client.post(f"/invitations/{code}", json={}, headers=auth(bea["key"]))
    problem(again, 404)
    exported = client.get(f"/games/{game_id}/record", headers=admin())
    verified = record.verify(exported.data, all_games())  # raises where it disagrees
    assert verified.header["seats"] == ["Ann", "Bea", "Di"]


def test_the_invited_player_may_also_claim_with_its_key(client: FlaskClient) -> None:
    created = create_open(client)
    game_id, ann = created["game"]["game_id"], created["seats"][0]["token"]
    bea = player(client, "Bea")
    assert invite(client, game_id, 2, bea["player_id"], ann).status_code == 201
    claimed = claim(client, game_id, 2, "Bea", headers=auth(bea["key"]))
    assert claimed.status_code == 201, claimed.get_json()
    mine = client.get("/players/me/games", headers=auth(bea["key"])).get_json()["items"]
    assert [g["game_id"] for g in mine] == [game_id]


def test_the_inviter_or_the_admin_revokes_an_invitation_and_nobody_else(
    client: FlaskClient,
) -> None:
    # Given Ann's invitation of Bea to seat 1, and Di at seat 2
    created = create_open(client)
    game_id, ann = created["game"]["game_id"], created["seats"][0]["token"]
    bea = player(client, "Bea")
    code = invite(client, game_id, 1, bea["player_id"], ann).get_json()["code"]
    di = claim(client, game_id, 2, "Di").get_json()["seat"]["token"]
    where = f"/games/{game_id}/seats/1/invitation"
    # When Di tries to revoke it, then it is a 403 not-inviter and it stands
    assert problem(client.delete(where, headers=auth(di)), 403)["type"] == "/problems/not-inviter"
    problem(client.delete(where), 401)
    # and a second invitation to the same seat is a 409 seat-reserved
    assert problem(invite(client, game_id, 1, bea["player_id"], ann), 409)["seat"] == 1
    # When Ann revokes it
    assert client.delete(where, headers=auth(ann)).status_code == 204
    # Then the code no longer works, and anyone may claim the seat
    problem(client.post(f"/invitations/{code}", json={}, headers=auth(bea["key"])), 404)
    problem(client.delete(where, headers=auth(ann)), 404)
    assert claim(client, game_id, 1, "Eve").status_code == 201


def test_an_invitation_needs_an_open_seat_of_a_waiting_game_and_a_known_player(
    client: FlaskClient,
) -> None:
    created = create_open(client)
    game_id, ann = created["game"]["game_id"], created["seats"][0]["token"]
    bea = player(client, "Bea")
    version = client.get(f"/games/{game_id}").get_json()["version"]
    # a taken seat, an unknown player, a spectator: refused, and nothing changed
    taken = invite(client, game_id, 0, bea["player_id"], ann)
    assert problem(taken, 409)["type"] == "/problems/seat-not-open"
    problem(invite(client, game_id, 1, "0" * 32, ann), 422)
    problem(invite(client, game_id, 1, bea["player_id"], None), 401)
    assert client.get(f"/games/{game_id}").get_json()["version"] == version
    # the admin may invite too
    made = client.post(
        f"/games/{game_id}/seats/1/invitation", json={"player": bea["player_id"]}, headers=admin()
    )
    assert made.status_code == 201, made.get_json()
