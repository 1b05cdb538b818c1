"""Creating, listing and reading games; tokens; the errors of these endpoints."""

from __future__ import annotations

import hashlib

import pytest
import redis
from flask.testing import FlaskClient

from tests.service.api.conftest import (
    KINDS,
    Api,
    admin,
    admin_events,
    auth,
    domain_state,
    problem,
)


@pytest.mark.parametrize("kind", KINDS)
def test_create_returns_one_long_secret_token_per_seat(
    api: Api, client: FlaskClient, kind: str
) -> None:
    response = client.post("/games", json={"kind": kind, "seats": ["Ann", "Bob", "Cy"]})

    assert response.status_code == 201
    body = response.get_json()
    game = body["game"]
    assert game["kind"] == kind and game["status"] == "active"
    assert [s["name"] for s in game["seats"]] == ["Ann", "Bob", "Cy"]
    assert response.headers["ETag"] == f'"{game["version"]}-spectator"'
    assert response.headers["Location"] == f"/games/{game['game_id']}"
    tokens = [s["token"] for s in body["seats"]]
    assert len(set(tokens)) == 3 and all(len(t) >= 40 for t in tokens)
    assert [s["authorization"] for s in body["seats"]] == [f"Bearer {t}" for t in tokens]


def test_a_creation_retried_with_its_idempotency_key_answers_the_same_game_and_tokens(
    client: FlaskClient,
) -> None:
    body = {"kind": "cards", "seats": ["Ann", "Bob"]}
    key = {"Idempotency-Key": "create-7b1e2f9c4d5a6e8f"}
    first = client.post("/games", json=body, headers=key)
    # when the client retries (say its first answer was lost), then nothing new is made
    again = client.post("/games", json=body, headers=key)
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.headers["Idempotent-Replayed"] == "false"
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["seats"] == first.get_json()["seats"]
    game_id = first.get_json()["game"]["game_id"]
    assert again.get_json()["game"]["game_id"] == game_id
    listed = [g["game_id"] for g in client.get("/games").get_json()["items"]]
    assert listed.count(game_id) == 1
    token = first.get_json()["seats"][1]["token"]
    state = client.get(f"/games/{game_id}/state", headers=auth(token)).get_json()
    assert state["viewer"] == "seat:1"
    # the same key with another body is refused and creates nothing
    other = client.post("/games", json={**body, "seats": ["Ann", "Cy"]}, headers=key)
    problem(other, 422)
    assert [g["game_id"] for g in client.get("/games").get_json()["items"]] == listed


def test_tokens_are_stored_only_as_hashes(
    api: Api, redis_client: redis.Redis, key_prefix: str
) -> None:
    game = api.create("board", 2)

    stored = redis_client.hgetall(f"{key_prefix}:{{{game.game_id}}}:tokens")
    assert stored == {
        hashlib.sha256(t.encode()).hexdigest(): str(n) for n, t in enumerate(game.tokens)
    }
    for key in redis_client.scan_iter(match=f"{key_prefix}:*"):
        dump = str(redis_client.dump(key))
        assert not any(token in dump for token in game.tokens)


def test_a_seed_needs_the_admin_token(client: FlaskClient) -> None:
    body = {"kind": "board", "seats": ["A", "B"], "seed": 42}

    problem(client.post("/games", json=body), 403)
    first = client.post("/games", json=body, headers=admin())
    second = client.post("/games", json=body, headers=admin())

    assert first.status_code == second.status_code == 201
    states = [
        client.get(f"/games/{r.get_json()['game']['game_id']}/state", headers=admin()).get_json()
        for r in (first, second)
    ]
    assert states[0]["state"] == states[1]["state"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": ["A", "B"]}, "kind"),
        ({"kind": "chess", "seats": ["A", "B"]}, "kind"),
        ({"kind": "board", "seats": ["A"]}, "seats"),
        ({"kind": "board", "seats": ["A", "B", "C", "D", "E"]}, "seats"),
        ({"kind": "board", "seats": ["A", ""]}, "seats[1]"),
        ({"kind": "board", "seats": ["A", "B"], "colour": "red"}, "colour"),
        ({"kind": "board", "seats": ["A", "B"], "seed": -1}, "seed"),
        ({"kind": "board", "seats": ["A", "B"], "seed": True}, "seed"),
        ({"kind": "board", "seats": ["A", "B"], "options": {"no-such-option": 1}}, None),
        (["kind", "board"], None),
    ],
)
def test_invalid_creation_is_a_422_naming_the_field(
    client: FlaskClient,
    body: object,
    field: str | None,
    redis_client: redis.Redis,
    key_prefix: str,
) -> None:
    before = client.get("/games").get_json()["items"]

    found = problem(client.post("/games", json=body, headers=admin()), 422)

    if field is not None:
        assert found["field"] == field
    assert client.get("/games").get_json()["items"] == before
    # nothing is left behind, not even the tokens issued before the game was refused
    assert list(redis_client.scan_iter(match=f"{key_prefix}:*")) == []


def test_unreadable_or_non_json_or_huge_bodies(client: FlaskClient) -> None:
    problem(client.post("/games", data="{", content_type="application/json"), 400)
    problem(client.post("/games", data="kind=board", content_type="text/plain"), 415)
    huge = '{"kind": "board", "seats": ["' + "x" * 100_000 + '"]}'
    problem(client.post("/games", data=huge, content_type="application/json"), 413)


def test_deeply_nested_json_is_a_400_not_a_500(client: FlaskClient) -> None:
    # Small enough for the size limit, deep enough to exhaust the JSON parser's recursion.
    nested = "[" * 5000 + "]" * 5000
    body = problem(client.post("/games", data=nested, content_type="application/json"), 400)
    assert body["field"] == "body"


def test_an_unknown_or_malformed_token_is_401(client: FlaskClient) -> None:
    body = {"kind": "board", "seats": ["A", "B"]}
    found = problem(client.post("/games", json=body, headers=auth("nope")), 401)
    assert (
        "Bearer"
        in client.post("/games", json=body, headers=auth("nope")).headers["WWW-Authenticate"]
    )
    assert found["type"] == "/problems/unauthorized"
    problem(client.post("/games", json=body, headers={"Authorization": "Basic abc"}), 401)


def test_list_filters_and_pages_with_a_capped_size(api: Api, client: FlaskClient) -> None:
    created = [api.create("board").game_id for _ in range(3)] + [api.create("cards").game_id]

    boards = client.get("/games?kind=board").get_json()["items"]
    assert {g["game_id"] for g in boards} == set(created[:3])
    pages: list[str] = []
    url = "/games?limit=2"
    while True:
        page = client.get(url).get_json()
        pages.extend(g["game_id"] for g in page["items"])
        if page["next_cursor"] is None:
            break
        url = f"/games?limit=2&cursor={page['next_cursor']}"
    assert pages == list(reversed(created))  # newest first
    assert client.get("/games?status=over").get_json()["items"] == []
    assert problem(client.get("/games?limit=101"), 400)["field"] == "limit"
    assert problem(client.get("/games?limit=0"), 400)["field"] == "limit"
    assert problem(client.get("/games?kind=chess"), 400)["field"] == "kind"
    assert problem(client.get("/games?limit=2&limit=3"), 400)["field"] == "limit"


def test_get_game_and_unknown_games(api: Api, client: FlaskClient) -> None:
    game = api.create("board", 4)

    response = client.get(f"/games/{game.game_id}")

    assert response.status_code == 200
    assert response.get_json() == game.body["game"]
    assert response.headers["ETag"] == f'"{game.version}-spectator"'
    assert problem(client.get("/games/nosuchgame"), 404)["type"] == "/problems/not-found"
    problem(client.get("/games/bad%20id"), 404)
    problem(client.get(f"/games/{game.game_id}", headers=auth(game.tokens[0] + "x")), 401)


def test_unsupported_methods_are_405_with_allow(api: Api, client: FlaskClient) -> None:
    game = api.create("board")
    response = client.delete(f"/games/{game.game_id}")
    problem(response, 405)
    assert "GET" in response.headers["Allow"]


# issue 21, point 16: the trader's variant of the Hungarian and Italian texts
@pytest.mark.parametrize("takes_one", [None, False, True])
def test_a_card_game_is_created_with_the_trader_variant_recorded_in_its_setup_event(
    api: Api, client: FlaskClient, takes_one: bool | None
) -> None:
    # given a card game created with trader_takes_one on, off or not named (default: off)
    options = {} if takes_one is None else {"trader_takes_one": takes_one}
    game = api.create("cards", 2, options=options)

    # when its metadata, its state and its setup event are read
    metadata = client.get(f"/games/{game.game_id}").get_json()
    state = client.get(f"/games/{game.game_id}/state", headers=game.seat(0)).get_json()
    started = admin_events(client, game)[0]

    # then each names the variant, the German reading (false) unless it was asked for
    expected = takes_one is True
    assert metadata["options"]["trader_takes_one"] is expected
    assert state["state"]["options"]["trader_takes_one"] is expected
    assert started["type"] == "cards.GameStarted"
    assert started["data"]["options"]["trader_takes_one"] is expected
    assert domain_state(client, game).options.trader_takes_one is expected


def test_the_trader_variant_must_be_a_boolean(client: FlaskClient) -> None:
    body = {"kind": "cards", "seats": ["A", "B"], "options": {"trader_takes_one": "yes"}}
    assert problem(client.post("/games", json=body), 422)["field"] == "trader_takes_one"
