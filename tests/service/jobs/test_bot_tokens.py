"""A bot seat has no seat token (issue 21, point 1): none comes back at creation (with or
without an idempotency key), none with a claim that starts the game, none is stored; and
a token an older version stored for a bot seat stands for no one (401), without any stored
data being rewritten. Only the bot actor (``bot:<seat>``, a job) moves for its seat."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.application import record
from tests.service.api.conftest import admin, auth
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.test_bots import SEAT_0_STARTS, create, plant_token, stored_token_seats


@pytest.mark.parametrize("key", [None, "create-with-a-bot"])
def test_creating_a_game_with_a_bot_seat_gives_that_seat_no_token(
    client: FlaskClient, redis_client: redis.Redis, key_prefix: str, key: str | None
) -> None:
    # given a creation with a player and a bot (with or without an idempotency key)
    body = {"kind": "cards", "seats": ["Ann", {"bot": "random"}]}
    headers = {} if key is None else {"Idempotency-Key": key}
    for attempt in range(1 if key is None else 2):  # a retry with the key: the same answer
        # when the game is created
        response = client.post("/games", json=body, headers=headers)
        assert response.status_code == 201, response.get_json()
        seats = response.get_json()["seats"]
        # then the player's seat has its token, the bot's seat none, only its bot
        assert "token" in seats[0] and "authorization" in seats[0]
        assert seats[1] == {
            "seat": 1,
            "name": "random bot",
            "bot": {"bot": "random", "think_ms": 500},
        }
        assert response.headers["Idempotent-Replayed"] == ("true" if attempt else "false")
        # and the token store holds the player's token only
        game_id = response.get_json()["game"]["game_id"]
        assert stored_token_seats(redis_client, key_prefix, game_id) == [0]


def test_a_claim_that_starts_a_game_gives_its_bot_seat_no_token(
    client: FlaskClient, jobs: Jobs, redis_client: redis.Redis, key_prefix: str
) -> None:
    # given a game with a bot seat, which begins, and an open seat: no token at all yet
    seats: list[Any] = [{"bot": "random"}, {"type": "open"}]
    created = create(client, "board", seats, SEAT_0_STARTS["board"])
    game_id = created["game"]["game_id"]
    assert all("token" not in seat for seat in created["seats"])
    assert stored_token_seats(redis_client, key_prefix, game_id) == []
    # when the open seat is claimed, which starts the game
    claimed = client.post(f"/games/{game_id}/seats/1/claim", json={"name": "Ann"})
    assert claimed.status_code == 201, claimed.get_json()
    # then the claim gives the claimed seat's token only, and only it is stored
    assert claimed.get_json()["seat"]["seat"] == 1
    assert claimed.get_json()["game"]["status"] == "active"
    assert stored_token_seats(redis_client, key_prefix, game_id) == [1]
    # and the bot plays its seat, as itself
    jobs.run()
    events = client.get(f"/games/{game_id}/events", headers=admin()).get_json()["items"]
    assert any(e["actor"] == "bot:0" for e in events)


def test_a_token_stored_for_a_bot_seat_stands_for_no_one(
    client: FlaskClient, redis_client: redis.Redis, key_prefix: str
) -> None:
    # given a card game against a bot awaiting the bot (seat 0), and a token stored for the
    # bot's seat as older versions did (handed to the game's creator)
    created = create(client, "cards", [{"bot": "greedy"}, "Bob"], SEAT_0_STARTS["cards"])
    game_id = created["game"]["game_id"]
    bob = created["seats"][1]["token"]
    old = plant_token(redis_client, key_prefix, game_id, 0)
    # when that token is used to read the bot's view, its legal commands, to move for it,
    # or to get a stream ticket for its view
    state = client.get(f"/games/{game_id}/state", headers=auth(old))
    legal = client.get(f"/games/{game_id}/legal-commands", headers=auth(old))
    ticket = client.post(f"/games/{game_id}/stream-tickets", headers=auth(old))
    some: dict[str, Any] = {"type": "Pass"}
    move = client.post(
        f"/games/{game_id}/commands", json=some, headers={**auth(old), "If-Match": "*"}
    )
    # then each is refused as an unknown token
    for response in (state, legal, ticket, move):
        assert response.status_code == 401, response.get_json()
    # and a player's token still works, and the stored data is as it was
    assert client.get(f"/games/{game_id}/state", headers=auth(bob)).status_code == 200
    assert stored_token_seats(redis_client, key_prefix, game_id) == [0, 1]
    # (and asking again, once the process has seen the token, is still refused)
    assert client.get(f"/games/{game_id}/state", headers=auth(old)).status_code == 401


def test_an_imported_game_keeps_its_bot_seats_without_a_token(
    client: FlaskClient, jobs: Jobs, redis_client: redis.Redis, key_prefix: str
) -> None:
    # given Bob against a bot that begins, the bot's first turn played, and the record
    created = create(client, "board", [{"bot": "random"}, "Bob"], SEAT_0_STARTS["board"])
    jobs.run()
    game_id = created["game"]["game_id"]
    body = client.get(f"/games/{game_id}/record", headers=admin()).data
    header = json.loads(body.split(b"\n", 1)[0])
    assert header["bots"] == {"0": {"bot": "random", "think_ms": 500}}
    # when the admin imports it
    response = client.post(
        "/games/import", data=body, headers={**admin(), "Content-Type": "application/jsonl"}
    )
    assert response.status_code == 201, response.get_json()
    imported = response.get_json()
    new_id = imported["game"]["game_id"]
    # then the bot's seat comes back as the bot's, without a token; Bob's with a new one
    assert imported["seats"][0] == {
        "seat": 0,
        "name": "random bot",
        "bot": {"bot": "random", "think_ms": 500},
    }
    assert "token" in imported["seats"][1]
    assert imported["game"]["seats"][0]["bot"] == {"bot": "random", "think_ms": 500}
    # and only Bob's token is stored
    assert stored_token_seats(redis_client, key_prefix, new_id) == [1]


@pytest.mark.parametrize(
    ("bots", "why"),
    [
        ({"2": {"bot": "random", "think_ms": 500}}, "bot seats of its seats"),
        ({"0": {"bot": "clever", "think_ms": 500}}, "not bots"),
        ({"0": {"bot": "random"}}, "normal form"),
        ({}, "seat numbers"),
        (["random"], "seat numbers"),
    ],
)
def test_a_record_whose_header_names_bad_bots_does_not_verify(
    client: FlaskClient, bots: Any, why: str
) -> None:
    # given a game's record whose header names bot seats that are not
    created = create(client, "cards", ["Ann", "Bob"])
    body = client.get(f"/games/{created['game']['game_id']}/record", headers=admin()).data
    head, rest = body.split(b"\n", 1)
    header = {**json.loads(head), "bots": bots}
    tampered = record.dump([header]) + rest
    # when it is imported, then it is refused at the header (version 0)
    response = client.post("/games/import", data=tampered, headers=admin())
    assert response.status_code == 422, response.get_json()
    assert response.get_json()["version"] == 0 and why in response.get_json()["detail"]
