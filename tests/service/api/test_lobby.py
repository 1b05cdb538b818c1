"""The lobby over HTTP: games created with open seats, ``GET /games?open=true``, claiming a
seat (its token once, a seat claimed once, idempotent retries), and no command before
every seat is claimed. Every response is checked against openapi.yaml."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import requests
from flask.testing import FlaskClient

from domain.games import all_games
from service.application import record
from tests.service.api.conftest import KINDS, LiveServer, admin, auth, problem

RACERS = 8


def create_open(
    client: FlaskClient, kind: str = "board", seats: list[Any] | None = None
) -> dict[str, Any]:
    seats = seats if seats is not None else ["Ann", {"type": "open"}, {"type": "open"}]
    response = client.post("/games", json={"kind": kind, "seats": seats})
    assert response.status_code == 201, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def claim(
    client: FlaskClient, game_id: str, seat: int, name: str, headers: dict[str, str] | None = None
) -> Any:
    return client.post(
        f"/games/{game_id}/seats/{seat}/claim", json={"name": name}, headers=headers or {}
    )


def listed(client: FlaskClient, query: str) -> list[str]:
    response = client.get(f"/games?{query}")
    assert response.status_code == 200, response.get_json()
    return [g["game_id"] for g in response.get_json()["items"]]


@pytest.mark.parametrize("kind", KINDS)
def test_a_game_with_open_seats_is_listed_until_every_seat_is_claimed(
    client: FlaskClient, kind: str
) -> None:
    # given a game with one named and two open seats (one of them named in advance)
    body = create_open(client, kind, ["Ann", {"type": "open"}, {"type": "open", "name": "Bo?"}])
    game = body["game"]
    game_id = game["game_id"]
    # then only the named seat's token comes back; the game waits, listed as open
    assert game["status"] == "open"
    assert [s["open"] for s in game["seats"]] == [False, True, True]
    assert [s["name"] for s in game["seats"]] == ["Ann", "Open seat 1", "Bo?"]
    assert "token" in body["seats"][0]
    assert [("token" in s, s.get("open")) for s in body["seats"][1:]] == [(False, True)] * 2
    assert game_id in listed(client, "open=true")
    assert game_id in listed(client, f"status=open&kind={kind}")
    assert game_id not in listed(client, "status=active")
    # when the first open seat is claimed, the game is still open
    first = claim(client, game_id, 1, "Bea")
    assert first.status_code == 201, first.get_json()
    assert first.get_json()["game"]["status"] == "open"
    assert game_id in listed(client, "open=true")
    # when the last one is claimed, the game starts and leaves the open listing
    last = claim(client, game_id, 2, "Bob")
    assert last.status_code == 201
    started = last.get_json()["game"]
    assert started["status"] == "active"
    assert [s["name"] for s in started["seats"]] == ["Ann", "Bea", "Bob"]
    assert not any(s["open"] for s in started["seats"])
    assert game_id not in listed(client, "open=true")
    assert game_id in listed(client, "status=active")
    assert last.headers["ETag"] == f'"{started["version"]}-spectator"'


def test_a_claim_returns_its_token_once_and_that_token_plays_the_seat(
    client: FlaskClient,
) -> None:
    game_id = create_open(client, seats=["Ann", {"type": "open"}])["game"]["game_id"]
    response = claim(client, game_id, 1, "Bea", {"X-Request-ID": "lobby-req-1"})
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    seat = response.get_json()["seat"]
    assert (seat["seat"], seat["name"]) == (1, "Bea")
    assert seat["authorization"] == f"Bearer {seat['token']}" and len(seat["token"]) >= 40
    # the token is the seat's: it sees seat 1's view, and the state names the new player
    state = client.get(f"/games/{game_id}/state", headers=auth(seat["token"]))
    assert state.status_code == 200 and state.get_json()["viewer"] == "seat:1"
    assert "Bea" in state.get_data(as_text=True)
    # the claim is an event of the game's stream, correlated with the request
    events = client.get(f"/games/{game_id}/events").get_json()["items"]
    claimed = events[-1]
    assert claimed["type"] == "service.SeatClaimed"
    assert claimed["data"] == {"seat": 1, "name": "Bea"}
    assert claimed["actor"] == "seat:1"
    assert claimed["correlation_id"] == "lobby-req-1"
    assert response.get_json()["events"] == [claimed]


def test_a_seat_is_claimed_once_and_named_seats_not_at_all(client: FlaskClient) -> None:
    game_id = create_open(client)["game"]["game_id"]
    assert claim(client, game_id, 1, "Bea").status_code == 201
    version = client.get(f"/games/{game_id}").get_json()["version"]
    assert problem(claim(client, game_id, 1, "Eve"), 409)["type"] == "/problems/seat-not-open"
    assert problem(claim(client, game_id, 0, "Eve"), 409)["type"] == "/problems/seat-not-open"
    assert problem(claim(client, game_id, 3, "Eve"), 404)["type"] == "/problems/not-found"
    assert problem(claim(client, "nosuchgame", 1, "Eve"), 404)["type"] == "/problems/not-found"
    # a bad name changes nothing either
    bad = client.post(f"/games/{game_id}/seats/2/claim", json={"name": "tab\there"})
    assert problem(bad, 422)["field"] == "name"
    assert problem(client.post(f"/games/{game_id}/seats/2/claim", json={}), 422)["field"] == "name"
    assert client.get(f"/games/{game_id}").get_json()["version"] == version


def test_no_command_or_undo_request_is_accepted_before_the_game_starts(
    client: FlaskClient,
) -> None:
    body = create_open(client, seats=["Ann", {"type": "open"}])
    game_id, token = body["game"]["game_id"], body["seats"][0]["token"]
    version = body["game"]["version"]
    headers = {**auth(token), "If-Match": f'"{version}"'}
    refused = client.post(f"/games/{game_id}/commands", json={"type": "Pass"}, headers=headers)
    found = problem(refused, 409)
    assert found["type"] == "/problems/game-not-started" and found["open_seats"] == [1]
    undo = client.post(
        f"/games/{game_id}/undo-requests",
        json={"to_version": 1, "reason": "oops"},
        headers=headers,
    )
    assert problem(undo, 409)["type"] in {
        "/problems/game-not-started",
        "/problems/undo-not-allowed",
    }
    assert client.get(f"/games/{game_id}").get_json()["version"] == version
    # once the seat is claimed, the same command goes through
    claimed = claim(client, game_id, 1, "Bea").get_json()["game"]["version"]
    accepted = client.post(
        f"/games/{game_id}/commands",
        json={"type": "Pass"},
        headers={**auth(token), "If-Match": f'"{claimed}"'},
    )
    assert accepted.status_code in {200, 409}
    if accepted.status_code == 409:  # not seat 0's turn: a rules refusal, not the lobby's
        assert problem(accepted, 409)["type"] != "/problems/game-not-started"


def test_a_claim_retried_with_its_key_gets_the_same_token(client: FlaskClient) -> None:
    game_id = create_open(client)["game"]["game_id"]
    key = {"Idempotency-Key": "claim-5f0c9a1b7e"}
    first = claim(client, game_id, 1, "Bea", key)
    again = claim(client, game_id, 1, "Bea", key)
    assert (first.status_code, again.status_code) == (201, 201)
    assert (first.headers["Idempotent-Replayed"], again.headers["Idempotent-Replayed"]) == (
        "false",
        "true",
    )
    assert again.get_json()["seat"] == first.get_json()["seat"]
    assert again.get_json()["game"]["version"] == first.get_json()["game"]["version"]
    # the same key with another claim is refused
    other = claim(client, game_id, 2, "Cyd", key)
    assert problem(other, 422)["field"] == "Idempotency-Key"
    events = client.get(f"/games/{game_id}/events").get_json()["items"]
    assert [e["type"] for e in events].count("service.SeatClaimed") == 1


def test_seat_objects_and_names_are_checked(client: FlaskClient) -> None:
    for seats, field in [
        (["Ann", {"type": "bot"}], "seats[1].type"),
        (["Ann", {"type": "human"}], "seats[1].name"),
        (["Ann", {"type": "open", "name": ""}], "seats[1].name"),
        (["Ann", {"type": "open", "extra": 1}], "seats[1].extra"),
        (["Ann", 7], "seats[1]"),
        (["Ann", "tab\there"], "seats[1]"),
    ]:
        response = client.post("/games", json={"kind": "board", "seats": seats})
        assert problem(response, 422)["field"] == field, seats
    # an object naming a human seat is the same as its bare name
    body = create_open(client, seats=[{"type": "human", "name": "Ann"}, "Bob"])
    assert body["game"]["status"] == "active" and len(body["seats"]) == 2
    assert all("token" in s for s in body["seats"])


def test_open_true_with_another_status_lists_nothing(client: FlaskClient) -> None:
    create_open(client)
    create_open(client, seats=["Ann", "Bob"])
    assert listed(client, "open=true&status=active") == []
    assert listed(client, "open=true&status=over") == []


def test_open_is_a_boolean_whose_false_filters_nothing(client: FlaskClient) -> None:
    """Issue 21, point 8: ``open`` is a boolean query parameter (``true``/``false``), so a
    generated client sends its ``bool``; ``false`` (the default) filters nothing."""
    # given a game with an open seat and a game with none
    waiting = create_open(client)["game"]["game_id"]
    full = create_open(client, seats=["Ann", "Bob"])["game"]["game_id"]
    # when the lobby is listed with open=false, open=true and without open
    # then false lists both, as no parameter does; true only the one to claim
    assert {waiting, full} <= set(listed(client, "open=false"))
    assert listed(client, "open=false") == listed(client, "")
    assert waiting in listed(client, "open=true") and full not in listed(client, "open=true")
    # and other spellings of a boolean are refused, naming the parameter
    for spelling in ("1", "yes", "True", ""):
        assert problem(client.get(f"/games?open={spelling}"), 400)["field"] == "open"


def test_racing_claims_over_http_leave_one_owner(live_server: LiveServer) -> None:
    """8 clients claim the same seat at once through the real server (gunicorn, gevent
    workers, real Redis): one gets the token, every other a 409, and only that token plays."""
    created = requests.post(
        f"{live_server.url}/games",
        json={"kind": "cards", "seats": ["Ann", {"type": "open"}]},
        timeout=10,
    )
    assert created.status_code == 201
    game_id = created.json()["game"]["game_id"]
    barrier = threading.Barrier(RACERS)
    answers: list[requests.Response] = []
    lock = threading.Lock()

    def racer(n: int) -> None:
        with requests.Session() as session:
            barrier.wait(timeout=10)
            response = session.post(
                f"{live_server.url}/games/{game_id}/seats/1/claim",
                json={"name": f"racer{n}"},
                timeout=30,
            )
        with lock:
            answers.append(response)

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [201] + [409] * (RACERS - 1), [r.text for r in answers]
    won = next(r.json() for r in answers if r.status_code == 201)
    token = won["seat"]["token"]
    state = requests.get(
        f"{live_server.url}/games/{game_id}/state",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert state.json()["viewer"] == "seat:1"
    game = requests.get(f"{live_server.url}/games/{game_id}", timeout=10).json()
    assert game["status"] == "active" and game["seats"][1]["name"] == won["seat"]["name"]
    log = requests.get(f"{live_server.url}/games/{game_id}/events", timeout=10).json()
    assert [e["type"] for e in log["items"]].count("service.SeatClaimed") == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_claimed_game_s_record_verifies_and_its_claim_is_explained(
    client: FlaskClient, kind: str
) -> None:
    # given a game whose open seat was claimed over HTTP, then played a command
    body = create_open(client, kind, ["Ann", {"type": "open"}])
    game_id = body["game"]["game_id"]
    claimed = claim(client, game_id, 1, "Bea")
    assert claimed.status_code == 201
    version = claimed.get_json()["events"][0]["version"]
    tokens = {0: body["seats"][0]["token"], 1: claimed.get_json()["seat"]["token"]}
    pending = client.get(f"/games/{game_id}/pending").get_json()
    seat = pending["awaited"][0]
    legal = client.get(f"/games/{game_id}/legal-commands", headers=auth(tokens[seat]))
    sent = client.post(
        f"/games/{game_id}/commands",
        json=legal.get_json()["commands"][0],
        headers={**auth(tokens[seat]), "If-Match": "*"},
    )
    assert sent.status_code == 200, sent.get_json()
    # then the claim is explained by its recorded command, to anyone
    explained = client.get(f"/games/{game_id}/versions/{version}/explanation")
    assert explained.status_code == 200, explained.get_json()
    assert explained.get_json()["command"] == {"type": "ClaimSeat", "seat": 1, "name": "Bea"}
    # and the admin's record verifies, naming the players as they are now
    exported = client.get(f"/games/{game_id}/record", headers=admin())
    assert exported.status_code == 200
    verified = record.verify(exported.data, all_games())
    assert verified.header["seats"] == ["Ann", "Bea"]
    assert verified.start_version == version
