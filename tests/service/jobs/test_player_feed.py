"""A player's feed: one player key learns every turn of several games of both kinds through
one feed, derived from the games' events by the projection job on a real RQ worker
(in-process ``SimpleWorker``) on real Redis; resumable with ``Last-Event-ID``; never more
than the player's seats may see; delivered by per-player webhooks to a real receiver on
loopback that verifies every signature (``standardwebhooks``); kept to its bound."""

from __future__ import annotations

import json
import random
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from flask.testing import FlaskClient

from service.api.shapes import SCHEMAS
from service.application.game_service import GameService
from tests.service.api.conftest import auth, start_live_server
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.receiver import Receiver

ENTRY_KEYS = set(SCHEMAS["FeedEntry"]["properties"])


def make_player(client: FlaskClient, name: str) -> dict[str, Any]:
    response = client.post("/players", json={"name": name})
    assert response.status_code == 201, response.get_json()
    made: dict[str, Any] = response.get_json()
    return made


def create_game(
    client: FlaskClient, kind: str, seats: list[Any], key: str | None = None
) -> tuple[str, list[str | None]]:
    """A two-seat game; a player seat's token is None (its player's key acts in it)."""
    response = client.post("/games", json={"kind": kind, "seats": seats}, headers=auth(key))
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    return body["game"]["game_id"], [s.get("token") for s in body["seats"]]


def awaited(client: FlaskClient, game_id: str) -> tuple[list[int], int]:
    pending = client.get(f"/games/{game_id}/pending").get_json()
    version = client.get(f"/games/{game_id}").get_json()["version"]
    return pending["awaited"], version


def move(client: FlaskClient, game_id: str, seat: int, key: str, rng: random.Random) -> None:
    """One legal command of ``seat`` (``key``: its token, or its player's key)."""
    legal = client.get(f"/games/{game_id}/legal-commands?seat={seat}", headers=auth(key))
    assert legal.status_code == 200, legal.get_json()
    command = rng.choice(legal.get_json()["commands"])
    response = client.post(
        f"/games/{game_id}/commands?seat={seat}",
        json=command,
        headers={**auth(key), "If-Match": "*"},
    )
    assert response.status_code == 200, response.get_json()


def play_until(
    client: FlaskClient, game_id: str, keys: dict[int, str], stop: set[int], rng: random.Random
) -> None:
    """Play the awaited seats (``keys``) until a seat of ``stop`` is awaited or the game
    ends (at most 60 commands)."""
    for _ in range(60):
        seats, _ = awaited(client, game_id)
        if not seats or set(seats) & stop:
            return
        move(client, game_id, seats[0], keys[seats[0]], rng)
    raise AssertionError("the game never came back to the stopping seats")


def feed(client: FlaskClient, key: str, after: int = 0, limit: int = 100) -> dict[str, Any]:
    response = client.get(
        f"/players/me/feed/entries?after={after}&limit={limit}", headers=auth(key)
    )
    assert response.status_code == 200, response.get_json()
    page: dict[str, Any] = response.get_json()
    return page


def all_entries(client: FlaskClient, key: str, after: int = 0, limit: int = 100) -> list[Any]:
    entries: list[Any] = []
    for _ in range(1000):
        page = feed(client, key, after, limit)
        if not page["items"]:
            return entries
        entries += page["items"]
        after = page["next_after"]
    raise AssertionError("the feed never ended")


def sse(client: FlaskClient, key: str, headers: dict[str, str] | None = None) -> list[Any]:
    """The feed's stream with ``wait=0``: every entry after the point asked, then the end."""
    response = client.get("/players/me/feed?wait=0", headers={**auth(key), **(headers or {})})
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    messages = []
    for block in response.get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in fields:
            data = json.loads(fields["data"])
            assert fields["id"] == str(data["id"]) and fields["event"] == data["type"]
            messages.append(data)
    return messages


def test_one_player_key_learns_every_turn_of_two_games_of_both_kinds_through_one_feed(
    client: FlaskClient, jobs: Jobs
) -> None:
    # given Ann, a player, in seat 0 of a board game and of a card game, against seat tokens
    rng = random.Random(25)
    ann = make_player(client, "Ann")
    key = ann["key"]
    games = {}
    for kind in ("board", "cards"):
        seat = {"type": "player", "player": ann["player_id"]}
        game_id, tokens = create_game(client, kind, [seat, f"Rival {kind}"], key)
        games[game_id] = {0: key, 1: tokens[1]}
    for game_id, keys in games.items():  # the rivals move first where they start
        play_until(client, game_id, keys, {0}, rng)
    jobs.run()
    entries = feed(client, key)["items"]
    assert {e["game_id"] for e in entries if e["type"] == "game_started"} == set(games)
    after = 0
    # when Ann acts only on what her one feed tells her, five turns in each game
    for _ in range(5):
        jobs.run()
        page = feed(client, key, after)
        after = page["next_after"]
        turns = [e for e in page["items"] if e["type"] == "your_turn"]
        # then each round tells her of exactly one new turn in each game, at its version
        assert sorted(e["game_id"] for e in turns) == sorted(games), turns
        for entry in turns:
            game_id = entry["game_id"]
            seats, version = awaited(client, game_id)
            assert entry["seat"] == 0 and 0 in seats and entry["version"] == version
            assert entry["kind"] in {"board", "cards"}
            for _ in range(10):  # her turn, to its end
                if 0 not in awaited(client, game_id)[0]:
                    break
                move(client, game_id, 0, key, rng)
            play_until(client, game_id, games[game_id], {0}, rng)
    # and the stream carries the very entries of the pages
    assert sse(client, key) == all_entries(client, key)


def test_resuming_with_last_event_id_loses_and_repeats_nothing(
    client: FlaskClient, jobs: Jobs, redis_url: str, key_prefix: str
) -> None:
    # given a player with entries from two games
    rng = random.Random(7)
    ann = make_player(client, "Ann")
    key = ann["key"]
    ids = []
    for kind in ("cards", "board"):
        seat = {"type": "player", "player": ann["player_id"]}
        game_id, tokens = create_game(client, kind, [seat, "Bob"], key)
        ids.append(game_id)
        keys = {0: key, 1: str(tokens[1])}
        for _ in range(6):
            play_until(client, game_id, keys, {0}, rng)
            move(client, game_id, 0, key, rng)
    jobs.run()
    everything = sse(client, key)
    numbers = [e["id"] for e in everything]
    assert len(numbers) >= 6 and numbers == list(range(1, len(numbers) + 1))
    # when a client resumes at each point, by Last-Event-ID and by pages of two
    for last in (0, 1, len(numbers) // 2, len(numbers) - 1, len(numbers)):
        resumed = sse(client, key, {"Last-Event-ID": str(last)})
        # then it gets exactly the entries after it: none lost, none repeated
        assert resumed == everything[last:]
        assert all_entries(client, key, last, limit=2) == everything[last:]
    # and a projection run again (its cursor lost, its jobs retried) writes nothing twice
    connection = redis.Redis.from_url(redis_url)
    for game_id in ids:
        connection.delete(f"{key_prefix}:{{{game_id}}}:feed")
    jobs.queue.enqueue("service.jobs.tasks.project_feed", ids[0])
    jobs.queue.enqueue("service.jobs.tasks.project_feed", ids[1])
    jobs.run()
    assert sse(client, key) == everything
    bad = client.get("/players/me/feed?wait=0", headers={**auth(key), "Last-Event-ID": "x"})
    assert bad.status_code == 400 and bad.get_json()["field"] == "Last-Event-ID"
    assert client.get("/players/me/feed/entries").status_code == 401


def test_a_player_holding_two_seats_of_one_game_gets_no_hidden_information(
    client: FlaskClient, jobs: Jobs
) -> None:
    # given Ann holding both seats of a board game (hidden tiles) and Bob in none
    rng = random.Random(3)
    ann = make_player(client, "Ann")
    bob = make_player(client, "Bob")
    seat = {"type": "player", "player": ann["player_id"]}
    game_id, _ = create_game(client, "board", [seat, seat], ann["key"])
    # when she plays both seats for a while
    for _ in range(30):
        seats, _ = awaited(client, game_id)
        if not seats:
            break
        move(client, game_id, seats[0], ann["key"], rng)
    jobs.run()
    entries = all_entries(client, ann["key"])
    # then her feed names her two seats' turns, one entry per seat becoming awaited...
    turns = [e for e in entries if e["type"] == "your_turn"]
    assert {e["seat"] for e in turns} == {0, 1}
    assert len({(e["version"], e["seat"]) for e in turns}) == len(turns)
    # ... and nothing but the entry's fields: no tile, hand, bag or seed while it runs
    for entry in entries:
        assert set(entry) <= ENTRY_KEYS, entry
        text = json.dumps(entry)
        for secret in ('"tiles"', '"hand"', '"bag"', '"seed"', '"leaders"'):
            assert secret not in text, entry
        assert entry["type"] == "game_over" or "result" not in entry
    # and Bob, in none of its seats, learns nothing of it
    assert feed(client, bob["key"])["items"] == []


@pytest.mark.usefixtures("loopback_allowed")
def test_per_player_webhook_deliveries_carry_the_feed_signed(
    client: FlaskClient, jobs: Jobs, receiver: Receiver
) -> None:
    # given Ann's webhook, made with her key
    rng = random.Random(11)
    ann = make_player(client, "Ann")
    key = ann["key"]
    made = client.post(
        "/players/me/webhooks", json={"url": receiver.url("/ann")}, headers=auth(key)
    )
    assert made.status_code == 201, made.get_json()
    receiver.secrets["/ann"] = made.get_json()["secret"]
    sub_id = made.get_json()["id"]
    # when she plays two games and the workers run
    for kind in ("cards", "board"):
        seat = {"type": "player", "player": ann["player_id"]}
        game_id, tokens = create_game(client, kind, [seat, "Bob"], key)
        keys = {0: key, 1: str(tokens[1])}
        for _ in range(3):
            play_until(client, game_id, keys, {0}, rng)
            move(client, game_id, 0, key, rng)
        jobs.run()
    jobs.run()
    # then every delivery verified by its signature and, together, carried her feed in order
    deliveries = receiver.of("/ann")
    assert deliveries and all(d.payload is not None for d in deliveries), [
        d.error for d in deliveries
    ]
    delivered = [e for d in deliveries for e in d.payload["data"]["entries"]]
    assert all(d.payload["type"] == "player.feed" for d in deliveries)
    assert delivered == all_entries(client, key)
    # and her webhook says so, to her only
    listed = client.get("/players/me/webhooks", headers=auth(key)).get_json()["items"]
    assert [s["id"] for s in listed] == [sub_id] and "secret" not in listed[0]
    assert listed[0]["delivered_version"] == delivered[-1]["id"]
    other = make_player(client, "Cy")["key"]
    assert client.get("/players/me/webhooks", headers=auth(other)).get_json()["items"] == []
    gone = client.delete(f"/players/me/webhooks/{sub_id}", headers=auth(other))
    assert gone.status_code == 404
    assert client.delete(f"/players/me/webhooks/{sub_id}", headers=auth(key)).status_code == 204
    unknown = {"url": receiver.url("/x"), "events": ["nope"]}
    refused = client.post("/players/me/webhooks", json=unknown, headers=auth(key))
    assert refused.status_code == 422 and refused.get_json()["field"] == "events[0]"


def test_a_feed_keeps_its_newest_entries_up_to_its_bound(
    client: FlaskClient, jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given feeds bounded to 10 entries
    monkeypatch.setenv("TIGRIS_PLAYER_FEED_LENGTH", "10")
    rng = random.Random(5)
    ann = make_player(client, "Ann")
    key = ann["key"]
    # when more than 10 entries come (games started, turns), a game at a time
    for _ in range(12):
        seat = {"type": "player", "player": ann["player_id"]}
        game_id, tokens = create_game(client, "cards", [seat, "Bob"], key)
        keys = {0: key, 1: str(tokens[1])}
        play_until(client, game_id, keys, {0}, rng)
        jobs.run()
        if feed(client, key)["last_id"] > 12:
            break
    # then it keeps exactly the newest 10, numbered on without a gap
    page = feed(client, key)
    assert page["last_id"] > 10
    assert [e["id"] for e in page["items"]] == list(range(page["last_id"] - 9, page["last_id"] + 1))
    assert page["oldest_id"] == page["last_id"] - 9


def test_an_invitation_reaches_the_invited_players_feed_once(
    client: FlaskClient, games: GameService
) -> None:
    # given Bob, and a game of Ann's with a seat reserved for him
    ann = make_player(client, "Ann")
    bob = make_player(client, "Bob")
    seat = {"type": "player", "player": ann["player_id"]}
    game_id, _ = create_game(client, "cards", [seat, {"type": "open"}], ann["key"])
    # when the invitations' code tells the feed, twice (a retry)
    told = [
        games.feeds.invitation_received(
            bob["player_id"],
            game_id=game_id,
            kind="cards",
            version=1,
            seat=1,
            invited_by=ann["player_id"],
            at="2026-11-27T21:00:00+00:00",
            invitation={"code": "c0de"},
        )
        for _ in range(2)
    ]
    # then Bob's feed holds it once, and Ann's nothing of it
    assert told == [1, None]
    entries = feed(client, bob["key"])["items"]
    assert [(e["type"], e["game_id"], e["seat"]) for e in entries] == [
        ("invitation_received", game_id, 1)
    ]
    assert entries[0]["invitation"] == {"code": "c0de"} and set(entries[0]) <= ENTRY_KEYS
    assert all(e["type"] != "invitation_received" for e in feed(client, ann["key"])["items"])


def test_an_invitation_made_through_the_api_reaches_only_the_invited_players_feed(
    client: FlaskClient, jobs: Jobs
) -> None:
    # given Ann's card game with an open seat, and Bob and Cy
    ann = make_player(client, "Ann")
    bob = make_player(client, "Bob")
    cy = make_player(client, "Cy")
    seat = {"type": "player", "player": ann["player_id"]}
    game_id, _ = create_game(client, "cards", [seat, {"type": "open"}], ann["key"])
    # when Ann invites Bob to the open seat and the jobs run (twice: a retried projection)
    invited = client.post(
        f"/games/{game_id}/seats/1/invitation",
        json={"player": bob["player_id"]},
        headers=auth(ann["key"]),
    )
    assert invited.status_code == 201, invited.get_json()
    jobs.run()
    jobs.run()
    # then Bob's feed holds one invitation_received naming the game, the seat and Ann
    entries = [e for e in feed(client, bob["key"])["items"] if e["type"] == "invitation_received"]
    assert [(e["game_id"], e["seat"], e["invited_by"]) for e in entries] == [
        (game_id, 1, ann["player_id"])
    ]
    assert set(entries[0]) <= ENTRY_KEYS and "invitation" not in entries[0]
    # and neither Ann's feed nor Cy's has it
    for other in (ann, cy):
        assert all(e["type"] != "invitation_received" for e in feed(client, other["key"])["items"])
    # and when Bob claims the seat with his key, his feed tells the game's start
    claimed = client.post(
        f"/invitations/{invited.get_json()['code']}", json={}, headers=auth(bob["key"])
    )
    assert claimed.status_code in (200, 201), claimed.get_json()
    jobs.run()
    types = [e["type"] for e in feed(client, bob["key"])["items"]]
    assert types[0] == "invitation_received" and "game_started" in types


def test_the_sweep_projects_what_a_lost_projection_job_left(
    client: FlaskClient, jobs: Jobs
) -> None:
    # given a game of Ann's whose projection jobs were lost (the queue emptied)
    ann = make_player(client, "Ann")
    seat = {"type": "player", "player": ann["player_id"]}
    create_game(client, "cards", [seat, "Bob"], ann["key"])
    jobs.queue.empty()  # type: ignore[no-untyped-call]
    assert feed(client, ann["key"])["items"] == []
    # when the sweep runs
    jobs.queue.enqueue("service.jobs.tasks.sweep", job_id=f"sweep-{uuid.uuid4().hex}")
    jobs.run()
    # then her feed has the game's start
    types = [e["type"] for e in feed(client, ann["key"])["items"]]
    assert types[:1] == ["game_started"]


def test_the_feed_streams_live_over_http_to_a_ticket_holder_and_resumes(
    redis_url: str, key_prefix: str, jobs: Jobs, tmp_path: Path
) -> None:
    """The real service (gunicorn, gevent workers) on this test's keys and queue, its jobs
    run by this test's worker."""
    with start_live_server(redis_url, tmp_path, {"TIGRIS_KEY_PREFIX": key_prefix}) as server:
        http = requests.Session()

        def call(method: str, path: str, key: str | None = None, **more: Any) -> Any:
            headers = {**auth(key), **more.pop("headers", {})}
            return http.request(method, server.url + path, headers=headers, timeout=10, **more)

        # given Ann in a card game, her turn come, and her feed's stream opened with a ticket
        rng = random.Random(1)
        ann = call("POST", "/players", json={"name": "Ann"}).json()
        key = ann["key"]
        seat = {"type": "player", "player": ann["player_id"]}
        created = call("POST", "/games", key, json={"kind": "cards", "seats": [seat, "Bob"]})
        assert created.status_code == 201, created.text
        game_id = created.json()["game"]["game_id"]
        keys = {0: key, 1: created.json()["seats"][1]["token"]}
        for _ in range(60):
            awaited = call("GET", f"/games/{game_id}/pending").json()["awaited"]
            if 0 in awaited:
                break
            legal = call("GET", f"/games/{game_id}/legal-commands", keys[1]).json()["commands"]
            moved = call(
                "POST",
                f"/games/{game_id}/commands",
                keys[1],
                json=rng.choice(legal),
                headers={"If-Match": "*"},
            )
            assert moved.status_code == 200, moved.text
        ticket = call("POST", "/players/me/feed/tickets", key)
        assert ticket.status_code == 201 and ticket.headers["Cache-Control"] == "no-store"
        received: list[Any] = []
        opened, two = threading.Event(), threading.Event()

        def listen() -> None:
            url = server.url + ticket.json()["stream"] + "&wait=30"
            with requests.get(url, stream=True, timeout=40) as stream:
                assert stream.status_code == 200
                for line in stream.iter_lines(chunk_size=1, decode_unicode=True):
                    assert isinstance(line, str)
                    opened.set()  # its first line (``retry:``): the stream is open
                    if line.startswith("data: "):
                        received.append(json.loads(line[len("data: ") :]))
                        if len(received) == 2:
                            two.set()
                            return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        assert opened.wait(20)
        assert call("GET", "/players/me/feed/entries", key).json()["items"] == []
        # when the worker then projects the game's versions
        jobs.run()
        # then the open stream gets the game's start and Ann's turn, as the pages show them
        assert two.wait(40), received
        listener.join(10)
        page = call("GET", "/players/me/feed/entries", key).json()
        assert [e["type"] for e in received] == ["game_started", "your_turn"]
        assert received == page["items"]
        # and a client resuming after the first entry gets the second only
        resumed = call("GET", "/players/me/feed?wait=0", key, headers={"Last-Event-ID": "1"})
        assert [
            json.loads(line[6:]) for line in resumed.text.splitlines() if line.startswith("data: ")
        ] == page["items"][1:]
        # and a ticket goes alone, and must be one
        both = call("GET", "/players/me/feed?wait=0&" + ticket.json()["stream"].split("?")[1], key)
        assert both.status_code == 400 and both.json()["field"] == "ticket"
        forged = "ft_" + ann["player_id"] + "_" + "A" * 43
        assert call("GET", f"/players/me/feed?wait=0&ticket={forged}").status_code == 401


@pytest.mark.usefixtures("loopback_allowed")
def test_a_gone_receiver_disables_a_player_webhook_until_it_is_enabled_again(
    client: FlaskClient, jobs: Jobs, receiver: Receiver
) -> None:
    # given Ann's webhook to a receiver that answers 410 Gone
    ann = make_player(client, "Ann")
    key = ann["key"]
    made = client.post("/players/me/webhooks", json={"url": receiver.url("/g")}, headers=auth(key))
    assert made.status_code == 201
    receiver.secrets["/g"] = made.get_json()["secret"]
    sub = f"/players/me/webhooks/{made.get_json()['id']}"
    receiver.statuses["/g"] = 410
    # when a game of hers starts and the workers run
    seat = {"type": "player", "player": ann["player_id"]}
    create_game(client, "cards", [seat, "Bob"], key)
    jobs.run()
    # then the webhook is disabled, nothing delivered, and its log says why
    state = client.get(sub, headers=auth(key)).get_json()
    assert state["status"] == "disabled" and state["delivered_version"] == 0
    log = client.get(f"{sub}/deliveries", headers=auth(key)).get_json()["items"]
    assert [item["status"] for item in log] == [410]
    first = receiver.of("/g")[0].headers["webhook-id"]
    # when the receiver is back and Ann enables it
    receiver.statuses["/g"] = 204
    enabled = client.post(f"{sub}/enable", headers=auth(key))
    assert enabled.status_code == 200 and enabled.get_json()["status"] == "active"
    jobs.run()
    # then the same batch arrives under the same id, verified, and the cursor moves on
    again = receiver.of("/g")[-1]
    assert again.headers["webhook-id"] == first and again.payload is not None
    state = client.get(sub, headers=auth(key)).get_json()
    assert state["delivered_version"] == feed(client, key)["last_id"] > 0
    other = make_player(client, "Cy")["key"]
    assert client.get(sub, headers=auth(other)).status_code == 404
    assert client.post(f"{sub}/enable", headers=auth(other)).status_code == 404
