"""One call per move: the answer of a write says what comes next (the pending decision) and,
when the caller is awaited, its legal commands; a client plays a whole game without a read
between its own moves, and never learns another seat's legal commands. Every answer here is
checked against openapi.yaml (the contract test client). Whole games played this way, with
every call counted: tests/clients/test_python_client.py."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.service.api.conftest import KINDS, Api


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
