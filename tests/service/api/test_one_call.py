"""One call per move: the answer of a write says what comes next (the pending decision) and,
when the caller is awaited, its legal commands; a client plays a whole game without a read
between its own moves, and never learns another seat's legal commands. Every answer here is
checked against openapi.yaml (the contract test client). Whole games played this way, with
every call counted: tests/clients/test_python_client.py."""

from __future__ import annotations

import random
import threading
import uuid
from typing import Any

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient

from service.api import create_app
from tests.service.api.conftest import ADMIN_TOKEN, KINDS, Api, LiveServer, admin, problem
from tests.service.api.contract import ContractClient


def _pending_without_clock(client: FlaskClient, game_id: str) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/games/{game_id}/pending").get_json()
    body.pop("clock", None)
    return body


@pytest.mark.parametrize("kind", KINDS)
def test_a_seat_not_awaited_gets_no_legal_commands_and_never_another_seats(
    api: Api, client: FlaskClient, kind: str
) -> None:
    """Given a game, when a seat's command hands the turn over (or it stays awaited), then
    its answer lists its own legal commands only while it is awaited, else ``null``; and the
    answer's ETag, as If-None-Match, makes legal-commands a 304 at that version."""
    game = api.create(kind, 2, seed=24_003)
    seen_null = seen_own = False
    for _ in range(40):
        (seat,) = api.awaited(game)
        sent = api.command(game, seat, api.legal(game, seat)[0])
        reply = sent.get_json()
        if seat in reply["next"]["awaited"]:
            assert reply["legal"]["seat"] == seat
            # its ETag is the seat's own at that version: legal-commands has nothing newer
            held = {**game.seat(seat), "If-None-Match": sent.headers["ETag"]}
            assert api.get(f"/games/{game.game_id}/legal-commands", held).status_code == 304
            seen_own = True
        else:
            assert reply["legal"] is None
            other = reply["next"]["awaited"][0]
            # the awaited seat's commands are not in the body in any form
            assert api.legal(game, other) and "commands" not in str(reply["next"])
            seen_null = True
        if seen_null and seen_own:
            return
    pytest.fail("forty moves without both a handover and a second action")


@pytest.mark.parametrize("kind", KINDS)
def test_a_replay_answers_with_the_first_body_even_after_the_game_moved_on(
    api: Api, client: FlaskClient, kind: str
) -> None:
    """Given a command sent with an Idempotency-Key, when it is sent again (after another
    command), then the answer is the first body byte for byte, its ETag the same."""
    game = api.create(kind, 2, seed=24_004)
    (seat,) = api.awaited(game)
    command = api.legal(game, seat)[0]
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = api.command(game, seat, command, headers=key)
    assert first.headers["Idempotent-Replayed"] == "false"
    (after,) = first.get_json()["next"]["awaited"]
    assert api.command(game, after, api.legal(game, after)[0]).status_code == 200

    again = api.command(game, seat, command, if_match="*", headers=key)

    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == first.get_data()
    assert again.headers["ETag"] == first.headers["ETag"]


@pytest.mark.parametrize("kind", KINDS)
def test_prefer_return_minimal_leaves_out_what_comes_next(api: Api, kind: str) -> None:
    """Given ``Prefer: return=minimal``, when a command is sent, then its answer is only the
    version and the events (for a client that follows the stream instead)."""
    game = api.create(kind, 2, seed=24_005)
    (seat,) = api.awaited(game)

    sent = api.command(game, seat, api.legal(game, seat)[0], headers={"Prefer": "return=minimal"})

    assert sent.status_code == 200
    assert set(sent.get_json()) == {"version", "events"}


def test_the_claim_that_starts_a_game_hands_the_claimer_its_commands(
    client: FlaskClient,
) -> None:
    """Given a board game with two open seats, when both are claimed, then the first claim's
    answer has no legal commands (the game has not started) and the last one's has the
    claimer's when it is awaited (else null), with the first decision."""
    created = client.post("/games", json={"kind": "board", "seats": [{"type": "open"}] * 2})
    body = created.get_json()
    game_id = body["game"]["game_id"]
    assert body["legal"] == []  # no token, and nobody may move yet
    first = client.post(f"/games/{game_id}/seats/0/claim", json={"name": "Ann"}).get_json()
    assert first["legal"] is None

    last = client.post(f"/games/{game_id}/seats/1/claim", json={"name": "Bob"}).get_json()

    assert last["next"] == _pending_without_clock(client, game_id)
    token = last["seat"]["authorization"]
    listed = client.get(f"/games/{game_id}/legal-commands", headers={"Authorization": token})
    if 1 in last["next"]["awaited"]:
        assert last["legal"] == listed.get_json()
    else:
        assert last["legal"] is None and listed.get_json()["commands"] == []


def test_an_undo_answer_says_what_comes_next(api: Api, client: FlaskClient) -> None:
    """Given an undo request after a handover, when the other seat approves, then the answer
    holds the pending decision after the revert and the answering seat's legal commands
    (or null), as the reads answer them."""
    game = api.create("board", 2, seed=24_006)
    (seat,) = api.awaited(game)
    start = api.version(game)
    while api.awaited(game) == [seat]:
        assert api.command(game, seat, api.legal(game, seat)[0]).status_code == 200
    (other,) = api.awaited(game)
    asked = client.post(
        f"/games/{game.game_id}/undo-requests",
        json={"to_version": start, "reason": "misclick"},
        headers={**game.seat(seat), "If-Match": "*"},
    )
    assert asked.status_code == 201, asked.get_json()
    request = asked.get_json()
    assert request["legal"] is None  # the asker is not awaited

    answered = client.post(
        f"/games/{game.game_id}/undo-requests/{request['request_id']}/answers",
        json={"approve": True},
        headers={**game.seat(other), "If-Match": "*"},
    )

    reply = answered.get_json()
    assert reply["status"] == "applied"
    assert reply["next"] == _pending_without_clock(client, game.game_id)
    assert reply["next"]["awaited"] == [seat]
    assert reply["legal"] is None  # the answering seat is not awaited after the revert
    assert answered.headers["ETag"] == f'"{reply["next"]["version"]}-seat{other}"'


# ------------------------------------------------------------- one call per move, every client
MAX_MOVES = 3000  # a bound on each loop: a random game of either kind ends well before


def _player(client: FlaskClient, name: str) -> dict[str, Any]:
    made = client.post("/players", json={"name": name})
    assert made.status_code == 201, made.get_json()
    body: dict[str, Any] = made.get_json()
    return body


def _admin_log(client: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = client.get(f"/games/{game_id}/events?after={after}&limit=500", headers=admin())
        assert page.status_code == 200
        items += page.get_json()["items"]
        after = page.get_json()["next_after"]
    return items


@pytest.mark.parametrize("kind", KINDS)
def test_a_player_key_holding_every_seat_plays_a_whole_game_with_one_call_per_move(
    client: FlaskClient, kind: str
) -> None:
    """Given a player whose key holds both seats of a game it created, when it plays the
    whole game sending, each time, one of the ``legal`` commands of the previous answer
    (for the seat that answer names), then every move is exactly one call: each answer
    holds the legal commands of the next awaited seat (both are the player's), until the
    game is over."""
    ann = _player(client, "Ann")
    key = {"Authorization": f"Bearer {ann['key']}"}
    mine = {"type": "player", "player": ann["player_id"]}
    created = client.post("/games", json={"kind": kind, "seats": [mine, mine]}, headers=key)
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game"]["game_id"]
    (legal,) = created.get_json()["legal"]  # the creator's key holds the awaited seat
    etag, rng, calls = created.headers["ETag"], random.Random(24_100), 0
    while legal is not None:
        command = {**rng.choice(legal["commands"]), "seat": legal["seat"]}
        sent = client.post(
            f"/games/{game_id}/commands", json=command, headers={**key, "If-Match": etag}
        )
        calls += 1
        assert sent.status_code == 200, sent.get_json()
        reply, etag = sent.get_json(), sent.headers["ETag"]
        legal = reply["legal"]
        if legal is not None:  # the next awaited seat, whichever of the two it is
            assert [legal["seat"]] == reply["next"]["awaited"]
            assert legal["version"] == reply["version"]
        else:
            assert reply["next"]["over"], reply["next"]
        assert calls < MAX_MOVES
    assert client.get(f"/games/{game_id}/result").status_code == 200
    # one call per command: every command event of the log came from one of these calls
    commands = {
        event["command_id"]
        for event in _admin_log(client, game_id)
        if event["actor"].startswith("seat:")
    }
    assert len(commands) == calls


@pytest.mark.parametrize("kind", KINDS)
def test_a_player_key_never_gets_the_legal_commands_of_a_seat_it_does_not_hold(
    client: FlaskClient, kind: str
) -> None:
    """Given a three-seat game whose seats 0 and 1 are a player's and seat 2 a seat token's,
    when they play (the key naming its seat), then the key's answers carry the legal
    commands of its next awaited seat, also when that is its other seat, never seat 2's
    (``null`` while seat 2 is awaited), and seat 2's answers never carry the key's seats'."""
    ann = _player(client, "Ann")
    key = {"Authorization": f"Bearer {ann['key']}"}
    mine = {"type": "player", "player": ann["player_id"]}
    body = {"kind": kind, "seats": [mine, mine, "Cy"], "seed": 24_101}
    created = client.post("/games", json=body, headers=admin())
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game"]["game_id"]
    cy = {"Authorization": f"Bearer {created.get_json()['seats'][2]['token']}"}
    rng, seen = random.Random(24_101), set[str]()
    for _ in range(MAX_MOVES):
        pending = client.get(f"/games/{game_id}/pending").get_json()
        if pending["over"] or {"handover to own", "handover to other"} <= seen:
            break
        (seat,) = pending["awaited"]
        who = cy if seat == 2 else key
        query = "" if seat == 2 else f"?seat={seat}"
        listed = client.get(f"/games/{game_id}/legal-commands{query}", headers=who)
        command = {**rng.choice(listed.get_json()["commands"]), "seat": seat}
        sent = client.post(
            f"/games/{game_id}/commands",
            json=command,
            headers={**who, "If-Match": listed.headers["ETag"]},
        )
        assert sent.status_code == 200, sent.get_json()
        reply = sent.get_json()
        (awaited,) = reply["next"]["awaited"] or [None]
        holds = {2} if seat == 2 else {0, 1}
        if awaited in holds:
            assert reply["legal"]["seat"] == awaited
            if awaited != seat:
                seen.add("handover to own")
        else:
            assert reply["legal"] is None, (seat, awaited, reply["legal"])
            if awaited is not None:
                seen.add("handover to other")
    assert {"handover to own", "handover to other"} <= seen, seen


def test_a_wait_that_times_out_answers_with_the_current_state(
    api: Api, client: FlaskClient
) -> None:
    """Given a board game, when the awaited seat hands over with ``Prefer: wait=1`` and
    nobody moves, then after the wait the answer is the game as it stands: its own events,
    ``next`` awaiting the other seat, ``legal`` null, ``Preference-Applied: wait=1``; and
    the other seat's read with ``?wait=1`` (already awaited) answers at once."""
    game = api.create("board", 2, seed=24_102)
    (seat,) = api.awaited(game)
    other = 1 - seat
    while api.awaited(game) == [seat]:
        before = api.version(game)
        sent = api.command(game, seat, api.legal(game, seat)[0], headers={"Prefer": "wait=1"})
        assert sent.status_code == 200, sent.get_json()
        assert sent.headers["Preference-Applied"] == "wait=1"
    reply = sent.get_json()
    assert reply["next"]["awaited"] == [other] and reply["legal"] is None
    assert reply["version"] == api.version(game)
    assert [event["version"] for event in reply["events"]] == list(
        range(before + 1, reply["version"] + 1)
    )
    # the seat not awaited waits in vain for its turn: the answer says so after the wait
    waited = client.get(f"/games/{game.game_id}/legal-commands?wait=1", headers=game.seat(seat))
    assert waited.status_code == 200 and waited.get_json()["commands"] == []
    mine = client.get(f"/games/{game.game_id}/legal-commands?wait=1", headers=game.seat(other))
    assert mine.get_json()["commands"] == api.legal(game, other)
    pending = client.get(f"/games/{game.game_id}/pending?wait=1&after={reply['version']}")
    assert pending.get_json()["version"] == reply["version"]


def test_a_longer_wait_than_the_setting_is_cut_to_it(redis_url: str, key_prefix: str) -> None:
    """Given a server whose ``TIGRIS_MAX_WAIT`` is 0, when a command asks ``Prefer: wait=600``,
    then it is answered at once, ``Preference-Applied: wait=0``."""
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TIGRIS_KEY_PREFIX": key_prefix,
            "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
            "TIGRIS_MAX_WAIT": "0",
        }
    )
    app.test_client_class = ContractClient
    with app.test_client() as client:
        api = Api(client)
        game = api.create("cards", 2, seed=24_103)
        (seat,) = api.awaited(game)
        sent = api.command(
            game,
            seat,
            api.legal(game, seat)[0],
            headers={"Prefer": "return=representation, wait=600"},
        )
    assert sent.status_code == 200 and sent.headers["Preference-Applied"] == "wait=0"


@pytest.mark.parametrize(
    ("prefer", "query"),
    [
        ("wait=-1", "-1"),
        ("wait=abc", "abc"),
        ("wait=1.5", "1.5"),
        ("wait=3601", "3601"),
        ("wait", ""),
        ("wait=1, wait=2", "1&wait=2"),
    ],
)
def test_a_bad_wait_is_a_clear_problem_and_changes_nothing(
    api: Api, client: FlaskClient, prefer: str, query: str
) -> None:
    """Given a game, when a command says a ``Prefer: wait`` that is no whole number of
    seconds from 0 to 3600, then it is a 400 naming ``Prefer`` and the game is unchanged;
    a bad ``?wait=`` of a read is a 400 naming ``wait``."""
    game = api.create("board", 2, seed=24_104)
    (seat,) = api.awaited(game)
    before = api.version(game)

    sent = api.command(game, seat, api.legal(game, seat)[0], headers={"Prefer": prefer})

    body = problem(sent, 400)
    assert body["field"] == "Prefer" and "wait" in body["detail"]
    assert api.version(game) == before
    read = client.get(f"/games/{game.game_id}/pending?wait={query}")
    assert problem(read, 400)["field"] == "wait"


def test_a_held_answer_shows_the_other_seats_moves_as_the_caller_may_see_them(
    app: Flask, api: Api, client: FlaskClient
) -> None:
    """Given a board game, when the awaited seat hands over with ``Prefer: wait=60`` and the
    other seat plays its turn meanwhile (from another thread), then the held answer ends
    when the caller is awaited again and holds every event since its command exactly as
    its own event log shows them (the other seat's drawn tiles hidden, as the admin's log
    shows they were drawn), with its legal commands at that version."""
    game = api.create("board", 2, seed=24_105)
    (seat,) = api.awaited(game)
    other = 1 - seat
    answers: list[Any] = []

    def play_until_held() -> None:
        """The seat's own client: its commands with Prefer: wait, until an answer was held
        over the other seat's moves (at most ten commands)."""
        with app.test_client() as own:
            for _ in range(10):
                listed = own.get(f"/games/{game.game_id}/legal-commands", headers=game.seat(seat))
                sent = own.post(
                    f"/games/{game.game_id}/commands",
                    json=listed.get_json()["commands"][0],
                    headers={
                        **game.seat(seat),
                        "Prefer": "wait=60",
                        "If-Match": listed.headers["ETag"],
                    },
                )
                answers.append((sent.status_code, sent.get_json(), dict(sent.headers)))
                if sent.status_code != 200 or any(
                    event["seat"] == other for event in sent.get_json()["events"]
                ):
                    return

    mover = threading.Thread(target=play_until_held)
    mover.start()
    try:
        # the other seat, once awaited, plays its whole turn (a draw ends it); its first
        # read waits for its turn in the same way
        turn = client.get(f"/games/{game.game_id}/legal-commands?wait=60", headers=game.seat(other))
        assert turn.get_json()["commands"], "the other seat's turn never came"
        handed = turn.get_json()["version"]
        while api.awaited(game) == [other]:
            assert api.command(game, other, api.legal(game, other)[0]).status_code == 200
    finally:
        mover.join(timeout=120)
    assert not mover.is_alive()
    status, reply, headers = answers[-1]
    assert status == 200 and headers["Preference-Applied"] == "wait=60"
    assert reply["next"]["awaited"] == [seat] and reply["version"] == api.version(game)
    assert reply["legal"]["seat"] == seat and reply["legal"]["commands"] == api.legal(game, seat)
    # every event since the command, as this seat's own log shows it
    log = client.get(
        f"/games/{game.game_id}/events?after={reply['events'][0]['version'] - 1}&limit=500",
        headers=game.seat(seat),
    ).get_json()["items"]
    assert reply["events"] == log
    assert reply["events"][-1]["version"] == reply["version"] > handed
    # and something of the other seat's was hidden from it there (its draw)
    full = {e["version"]: e for e in _admin_log(client, game.game_id)}
    assert any(full[event["version"]] != event for event in reply["events"])


def _seat_client(url: str, game_id: str, token: str, seed: int, tally: dict[str, Any]) -> None:
    """One seat's bot, as a client holding one seat token plays with ``Prefer: wait``: one
    read for its first turn (``?wait=``), then each answer to its command holds the next
    turn's legal commands. Every call and command is counted in ``tally``."""
    base, rng = f"{url}/games/{game_id}", random.Random(seed)
    with requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {token}"
        first = session.get(f"{base}/legal-commands?wait=60", timeout=90)
        tally["calls"] += 1
        assert first.status_code == 200, first.text
        legal, etag, over = first.json(), first.headers["ETag"], False
        while not over and tally["commands"] < MAX_MOVES:
            if not legal["commands"]:  # a wait that ended without its turn: never expected
                tally["empty"] += 1
                return
            sent = session.post(
                f"{base}/commands",
                json=rng.choice(legal["commands"]),
                headers={"If-Match": etag, "Prefer": "wait=60"},
                timeout=90,
            )
            tally["calls"] += 1
            tally["commands"] += 1
            assert sent.status_code == 200, sent.text
            assert sent.headers["Preference-Applied"] == "wait=60"
            reply, etag = sent.json(), sent.headers["ETag"]
            over = reply["next"]["over"]
            legal = reply["legal"] or {"commands": []}
            tally["last"] = reply["version"]


def test_two_seat_token_clients_play_a_whole_game_with_one_call_per_move(
    live_server: LiveServer,
) -> None:
    """Given a two-seat board game on the real service and one client per seat token, each
    in its own thread, when each waits for its first turn with ``?wait=`` and sends every
    command with ``Prefer: wait=60``, then the game is played to its end with one call per
    command (plus the one first read of each seat): every held answer came back when its
    seat was awaited again, or with the game over."""
    created = requests.post(
        f"{live_server.url}/games",
        json={"kind": "board", "seats": ["Ann", "Bob"], "seed": 24_110},
        headers=admin(),
        timeout=30,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["game"]["game_id"]
    tallies = [{"calls": 0, "commands": 0, "empty": 0, "last": 0} for _ in range(2)]
    threads = [
        threading.Thread(
            target=_seat_client,
            args=(live_server.url, game_id, seat["token"], 24_110 + n, tallies[n]),
        )
        for n, seat in enumerate(created.json()["seats"])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not any(thread.is_alive() for thread in threads)
    pending = requests.get(f"{live_server.url}/games/{game_id}/pending", timeout=30).json()
    assert pending["over"] and all(t["empty"] == 0 for t in tallies), tallies
    # one call per command, plus each seat's first read
    assert sum(t["calls"] for t in tallies) == sum(t["commands"] for t in tallies) + 2
    # both saw the last version: the seat that did not end the game was told so in its wait
    assert [t["last"] for t in tallies] == [pending["version"]] * 2
