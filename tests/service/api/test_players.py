"""Players over real HTTP (``python -m service`` on real Redis): a key for all of a person's
seats, bound at creation or by a claim; what a player key may do and see (never more than
its seats may: the leak checks of ``test_full_games`` applied to a player holding two seats
of one game, and to spectators of a player's games); the player's games, a page at a time.
Every response is checked against openapi.yaml."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import redis
import requests
from flask import Flask

from service.api import create_app
from tests.service.api.conftest import (
    ADMIN_TOKEN,
    Game,
    LiveServer,
    admin,
    auth,
    domain_events,
)
from tests.service.api.contract import ContractClient
from tests.service.api.test_full_games import SEED_BASE, Secrets

NOBODY = -1  # a viewer owning no seat: every seat's own keys are secret to it


class Http:
    def __init__(self, url: str) -> None:
        self.url = url
        self.session = requests.Session()

    def get(self, path: str, key: str | None = None) -> requests.Response:
        return self.session.get(self.url + path, headers=auth(key), timeout=10)

    def post(
        self, path: str, body: Any, key: str | None = None, **headers: str
    ) -> requests.Response:
        return self.session.post(
            self.url + path, json=body, headers={**auth(key), **headers}, timeout=10
        )

    def player(self, name: str) -> dict[str, Any]:
        response = self.post("/players", {"name": name})
        assert response.status_code == 201, response.text
        made: dict[str, Any] = response.json()
        return made

    def create(self, body: dict[str, Any], key: str | None) -> dict[str, Any]:
        response = self.post("/games", body, key)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    def my_games(self, key: str, query: str = "") -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor = None
        while True:
            more = f"&cursor={cursor}" if cursor else ""
            page = self.get(f"/players/me/games?limit=2{query}{more}", key)
            assert page.status_code == 200, page.text
            items += page.json()["items"]
            cursor = page.json()["next_cursor"]
            if cursor is None:
                return items

    def state(self, game_id: str, seed: int, kind: str) -> Any:
        """The domain's own state, folded from the admin's log."""
        events: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            page = self.get(f"/games/{game_id}/events?after={after}&limit=500", ADMIN_TOKEN)
            events += page.json()["items"]
            after = page.json()["next_after"]
        game = Game(game_id, kind, [], 0)
        return game.rules.fold(domain_events(game, events))


def sse(text: str) -> list[Any]:
    """The events of an SSE body."""
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


@pytest.fixture(scope="module")
def http(live_server: LiveServer) -> Http:
    return Http(live_server.url)


def test_a_player_key_is_shown_once_and_only_its_hash_is_kept(http: Http, redis_url: str) -> None:
    # when a player is made
    made = http.player("Ann")
    key = made["key"]
    # then its key reads the player back, and a key with a wrong secret reads nothing
    me = http.get("/players/me", key)
    assert me.json() == {k: made[k] for k in ("player_id", "name", "created_at")}
    forged = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    assert http.get("/players/me", forged).status_code == 401
    assert http.get("/players/me").status_code == 401
    # and Redis holds its hash, never the key
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    stored = [
        client.hgetall(name)
        for name in client.scan_iter(match=f"*{{player:{made['player_id']}}}", count=1000)
    ]
    assert len(stored) == 1 and key not in str(stored) and key.split("_")[-1] not in str(stored)


def test_seats_bound_at_creation_and_by_claim_are_played_with_the_players_keys(
    http: Http,
) -> None:
    ann, bob = http.player("Ann"), http.player("Bob")
    # given Ann creates a card game with her seat and an open one, with her key
    body = {
        "kind": "cards",
        "seats": [{"type": "player", "player": ann["player_id"]}, {"type": "open"}],
    }
    created = http.create(body, ann["key"])
    game_id = created["game"]["game_id"]
    # then her seat comes back with no token, named after her
    assert created["seats"][0] == {"seat": 0, "name": "Ann", "player": ann["player_id"]}
    # when Bob claims the open seat with his key (no name: his own)
    claimed = http.post(f"/games/{game_id}/seats/1/claim", {}, bob["key"])
    assert claimed.status_code == 201, claimed.text
    assert claimed.json()["seat"]["player"] == bob["player_id"]
    assert claimed.json()["game"]["seats"][1]["name"] == "Bob"
    # then each key acts as its own seat and no other
    awaited = http.get(f"/games/{game_id}/pending").json()["awaited"]
    keys = {0: ann["key"], 1: bob["key"]}
    seat = awaited[0]
    legal = http.get(f"/games/{game_id}/legal-commands", keys[seat])
    assert legal.json()["seat"] == seat and legal.json()["commands"]
    other = keys[1 - seat]
    stolen = http.post(
        f"/games/{game_id}/commands",
        {**legal.json()["commands"][0], "seat": seat},
        other,
        **{"If-Match": legal.headers["ETag"]},
    )
    assert stolen.status_code == 403
    assert http.get(f"/games/{game_id}/state?seat={seat}", other).status_code == 403
    played = http.post(
        f"/games/{game_id}/commands",
        legal.json()["commands"][0],
        keys[seat],
        **{"If-Match": legal.headers["ETag"]},
    )
    assert played.status_code == 200, played.text
    # and the seat token a claim hands out keeps working beside the key
    token = claimed.json()["seat"]["token"]
    assert http.get(f"/games/{game_id}/legal-commands", token).json()["seat"] == 1


def test_only_a_player_or_the_admin_binds_a_seat_to_that_player(http: Http) -> None:
    ann, eve = http.player("Ann"), http.player("Eve")
    body = {"kind": "board", "seats": [{"type": "player", "player": ann["player_id"]}, "Cy"]}
    # when Eve (or a caller with no token) names Ann's player for a seat: refused
    assert http.post("/games", body, eve["key"]).status_code == 403
    assert http.post("/games", body).status_code == 403
    # an unknown player is an unprocessable body (422 naming `seats`), even for the admin
    unknown = {"kind": "board", "seats": [{"type": "player", "player": "0" * 32}, "Cy"]}
    refused = http.post("/games", unknown, ADMIN_TOKEN)
    assert refused.status_code == 422 and refused.json()["field"] == "seats"
    # the admin may bind anyone's seat; the named seat still gets its token
    created = http.create(body, ADMIN_TOKEN)
    assert created["seats"][0]["player"] == ann["player_id"] and "token" in created["seats"][1]


def test_a_player_holding_two_seats_sees_one_seat_at_a_time_and_never_more(http: Http) -> None:
    ann = http.player("Ann")
    seed = SEED_BASE + 25
    kind = "cards"
    mine = {"type": "player", "player": ann["player_id"]}
    created = http.create({"kind": kind, "seats": [mine, mine, "Cy"], "seed": seed}, ADMIN_TOKEN)
    game_id = created["game"]["game_id"]
    cy = created["seats"][2]["token"]
    key = ann["key"]
    game = Game(game_id, kind, ["", "", cy], 0)
    rng = random.Random(25)
    for _ in range(12):  # a few moves, each by the seat awaited, naming it
        for seat in http.get(f"/games/{game_id}/pending").json()["awaited"]:
            who = cy if seat == 2 else key
            query = "" if seat == 2 else f"?seat={seat}"
            legal = http.get(f"/games/{game_id}/legal-commands{query}", who)
            assert legal.status_code == 200 and legal.json()["seat"] == seat
            if not legal.json()["commands"]:
                continue
            command = rng.choice(legal.json()["commands"])
            if seat != 2:
                command = {**command, "seat": seat}
            posted = http.post(
                f"/games/{game_id}/commands", command, who, **{"If-Match": legal.headers["ETag"]}
            )
            assert posted.status_code == 200, posted.text
    state = http.state(game_id, seed, kind)
    secrets = Secrets(game, state, seed)
    rules = game.rules
    # then naming a seat, the key sees exactly that seat's view, log and stream
    for seat in (0, 1):
        view = http.get(f"/games/{game_id}/state?seat={seat}", key)
        assert view.json()["state"] == rules.view(state, seat)
        assert f"-seat{seat}" in view.headers["ETag"]
        secrets.check(view.json(), seat)
        log = http.get(f"/games/{game_id}/events?limit=500&seat={seat}", key).json()
        secrets.check(log, seat)
        stream = http.get(f"/games/{game_id}/events/stream?wait=0&seat={seat}", key)
        assert stream.status_code == 200
        assert sse(stream.text) == log["items"]
        secrets.check(sse(stream.text), seat)
        past = http.get(f"/games/{game_id}/states/2?seat={seat}", key)
        secrets.check(past.json(), seat)
    # naming none, it sees what a spectator sees: never the union of its two seats
    for path in ("/state", "/events?limit=500", "/events/stream?wait=0", "/states/2"):
        answer = http.get(f"/games/{game_id}{path}", key)
        assert answer.status_code == 200
        body = answer.json() if "stream" not in path else sse(answer.text)
        assert body
        secrets.check(body, NOBODY)
    spectated = http.get(f"/games/{game_id}/state", key).json()
    assert spectated["viewer"] == http.get(f"/games/{game_id}/state").json()["viewer"]
    assert spectated["state"] == rules.view(state, None)
    # and a write that names no seat is refused, saying which to name
    refused = http.post(f"/games/{game_id}/commands", {"type": "pass"}, key, **{"If-Match": "*"})
    assert refused.status_code == 400 and refused.json()["field"] == "seat"
    # a spectator of the player's game (no token, or another player's key) sees no seat's
    bob = http.player("Bob")
    for who in (None, bob["key"]):
        for path in ("/state", "/events?limit=500", "/states/2"):
            answer = http.get(f"/games/{game_id}{path}", who)
            assert answer.status_code == 200
            secrets.check(answer.json(), NOBODY)
        assert http.get(f"/games/{game_id}/legal-commands", who).status_code == 401
    # nor does another player's list show the game
    assert game_id not in {g["game_id"] for g in http.my_games(bob["key"])}


def test_my_games_lists_a_players_games_with_filters_a_page_at_a_time(http: Http) -> None:
    ann, bob = http.player("Ann"), http.player("Bob")
    a = {"type": "player", "player": ann["player_id"]}
    # given Ann in three games: one waiting for a player, two running (of both kinds)
    waiting = http.create({"kind": "board", "seats": [a, {"type": "open"}]}, ann["key"])
    board = http.create({"kind": "board", "seats": [a, "Cy"], "seed": 5}, ADMIN_TOKEN)
    cards = http.create({"kind": "cards", "seats": ["Cy", a], "seed": 6}, ADMIN_TOKEN)
    ids = [g["game"]["game_id"] for g in (waiting, board, cards)]
    # then her games come newest first, each with its seats (hers marked), turn and version
    listed = http.my_games(ann["key"])
    assert [g["game_id"] for g in listed] == ids[::-1]
    entry = listed[0]
    assert entry["kind"] == "cards" and entry["my_seats"] == [1]
    assert [s["mine"] for s in entry["seats"]] == [False, True]
    assert entry["version"] == cards["game"]["version"] and entry["clock"] is None
    assert [g["game_id"] for g in http.my_games(ann["key"], "&filter=open")] == [ids[0]]
    active = {g["game_id"] for g in http.my_games(ann["key"], "&filter=active")}
    assert active == set(ids[1:])
    awaiting = {g["game_id"] for g in http.my_games(ann["key"], "&filter=awaiting")}
    assert awaiting == {g["game_id"] for g in listed if g["awaiting_me"]}
    # when Bob claims the open seat with his key, the game starts: in both players' lists
    http.post(f"/games/{ids[0]}/seats/1/claim", {}, bob["key"])
    assert ids[0] in {g["game_id"] for g in http.my_games(ann["key"], "&filter=active")}
    assert [g["game_id"] for g in http.my_games(bob["key"])] == [ids[0]]
    assert http.my_games(ann["key"], "&filter=open") == []
    # and when Ann moves where she is awaited, the game leaves or stays in "awaiting" as
    # the game says
    game_id = next(iter(awaiting))
    legal = http.get(f"/games/{game_id}/legal-commands", ann["key"])
    http.post(
        f"/games/{game_id}/commands",
        legal.json()["commands"][0],
        ann["key"],
        **{"If-Match": legal.headers["ETag"]},
    )
    still = http.get(f"/games/{game_id}/pending").json()["awaited"]
    mine = {g["game_id"]: g for g in http.my_games(ann["key"])}[game_id]["my_seats"]
    now = {g["game_id"] for g in http.my_games(ann["key"], "&filter=awaiting")}
    assert (game_id in now) == bool(set(still) & set(mine))
    assert http.get("/players/me/games?filter=mine", ann["key"]).status_code == 400


def test_making_players_may_be_left_to_the_admin(redis_url: str, key_prefix: str) -> None:
    app: Flask = create_app(
        {
            "REDIS_URL": redis_url,
            "TIGRIS_KEY_PREFIX": key_prefix,
            "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
            "TIGRIS_PLAYER_SIGNUP": "admin",
        }
    )
    app.test_client_class = ContractClient
    client = app.test_client()
    # given players may be made by the admin only: anyone else is refused
    assert client.post("/players", json={"name": "Ann"}).status_code == 401
    made = client.post("/players", json={"name": "Ann"}, headers=admin())
    assert made.status_code == 201
    other = client.post("/players", json={"name": "Eve"}, headers=auth(made.get_json()["key"]))
    assert other.status_code == 403
