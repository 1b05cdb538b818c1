"""One call per move: the answer of a write says what comes next (the pending decision) and,
when the caller is awaited, its legal commands; a client plays a whole game without a read
between its own moves, and never learns another seat's legal commands. Every answer here is
checked against openapi.yaml (the contract test client)."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.service.api.conftest import KINDS, Api, admin, auth

GAMES = [("board", 2, 24_001), ("cards", 3, 24_002)]
MAX_COMMANDS = 3000


class CountingClient:
    """The requests one player makes, counted by method and path's last segment."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.calls: Counter[tuple[str, str]] = Counter()

    def get(self, path: str, headers: dict[str, str]) -> TestResponse:
        self.calls["GET", path.rsplit("/", 1)[-1]] += 1
        return self.client.get(path, headers=headers)

    def post(self, path: str, body: Any, headers: dict[str, str]) -> TestResponse:
        self.calls["POST", path.rsplit("/", 1)[-1]] += 1
        return self.client.post(path, json=body, headers=headers)


def _pending_without_clock(client: FlaskClient, game_id: str) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/games/{game_id}/pending").get_json()
    body.pop("clock", None)
    return body


@pytest.mark.parametrize(("kind", "seats", "seed"), GAMES)
def test_a_whole_game_needs_one_call_per_move_and_a_read_only_when_another_seat_hands_over(
    client: FlaskClient, kind: str, seats: int, seed: int
) -> None:
    """Given a seeded game created with every seat's token, when a client plays it to the end
    with random legal commands, serving the awaited seats in ``next.awaited`` order, then
    every move is one POST; the only reads are one ``legal-commands`` when the awaited seat
    is not the one that moved last (no ``pending`` ever); and every answer's ``legal`` is the
    caller's own, exactly what ``GET legal-commands`` answers at that version."""
    player = CountingClient(client)
    created = player.post(
        "/games", {"kind": kind, "seats": [f"P{n}" for n in range(seats)], "seed": seed}, admin()
    )
    assert created.status_code == 201
    body = created.get_json()
    game_id, tokens = body["game"]["game_id"], [s["token"] for s in body["seats"]]
    base = f"/games/{game_id}"
    # the creation answer: the first decision, and its awaited seat's legal commands
    assert body["next"] == _pending_without_clock(client, game_id)
    assert [legal["seat"] for legal in body["legal"]] == body["next"]["awaited"]
    held = {legal["seat"]: legal for legal in body["legal"]}
    etag = created.headers["ETag"]
    nxt = body["next"]
    rng = random.Random(seed)
    moves: Counter[int] = Counter()
    handovers = 0
    last_seat: int | None = None
    while not nxt["over"]:
        seat = nxt["awaited"][0]  # the serving order: ascending seat number
        legal = held.get(seat)
        if legal is None or legal["version"] != nxt["version"]:
            # another seat moved last: this one learns its commands with one read
            handovers += 1
            read = player.get(f"{base}/legal-commands", auth(tokens[seat]))
            legal, etag = read.get_json(), read.headers["ETag"]
        command = rng.choice(legal["commands"])
        sent = player.post(
            f"{base}/commands",
            command,
            {**auth(tokens[seat]), "If-Match": etag, "Idempotency-Key": str(uuid.uuid4())},
        )
        assert sent.status_code == 200, sent.get_json()
        reply = sent.get_json()
        moves[seat] += 1
        last_seat = seat
        etag, nxt = sent.headers["ETag"], reply["next"]
        assert etag == f'"{reply["version"]}-seat{seat}"'
        assert nxt["version"] == reply["version"] == reply["events"][-1]["version"]
        mine = reply["legal"]
        if seat in nxt["awaited"]:
            # the caller's own commands, as legal-commands lists them (an uncounted check)
            assert mine == client.get(f"{base}/legal-commands", headers=auth(tokens[seat])).json
            held = {seat: mine}
        else:
            assert mine is None  # never another seat's
            held = {}
        assert sum(moves.values()) < MAX_COMMANDS

    # then: one POST per move, a legal-commands read per handover only, no pending read
    commands = sum(moves.values())
    assert player.calls["POST", "commands"] == commands
    assert player.calls["GET", "legal-commands"] == handovers
    assert player.calls["GET", "pending"] == 0
    assert sum(player.calls.values()) == 1 + commands + handovers
    assert handovers < commands
    assert last_seat is not None and client.get(f"{base}/result").status_code == 200


@pytest.mark.parametrize("kind", KINDS)
def test_a_seat_not_awaited_gets_no_legal_commands_and_never_another_seats(
    api: Api, client: FlaskClient, kind: str
) -> None:
    """Given a game, when a seat's command hands the turn over (or it stays awaited), then
    its answer lists its own legal commands only while it is awaited, else ``null``."""
    game = api.create(kind, 2, seed=24_003)
    seen_null = seen_own = False
    for _ in range(40):
        (seat,) = api.awaited(game)
        sent = api.command(game, seat, api.legal(game, seat)[0])
        reply = sent.get_json()
        if seat in reply["next"]["awaited"]:
            assert reply["legal"]["seat"] == seat
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

    sent = api.command(
        game, seat, api.legal(game, seat)[0], headers={"Prefer": "return=minimal"}
    )

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
