"""Undo: self-undo within one's own turn, consented reverts, lapses, rejections."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.service.api.conftest import KINDS, Api, Game, admin, admin_events, domain_events, problem


def _ask(
    client: FlaskClient, game: Game, seat: int, to_version: int, *, if_match: str = "*"
) -> TestResponse:
    return client.post(
        f"/games/{game.game_id}/undo-requests",
        json={"to_version": to_version, "reason": "misclick"},
        headers={**game.seat(seat), "If-Match": if_match},
    )


def _answer(
    client: FlaskClient, game: Game, request_id: str, headers: dict[str, str], approve: bool
) -> TestResponse:
    return client.post(
        f"/games/{game.game_id}/undo-requests/{request_id}/answers",
        json={"approve": approve},
        headers={**headers, "If-Match": "*"},
    )


def _spectator_state(client: FlaskClient, game: Game) -> Any:
    return client.get(f"/games/{game.game_id}/state").get_json()["state"]


def _act_until_draw(api: Api, game: Game) -> int:
    """Play random legal commands until one of them drew; returns the first actor."""
    rng = random.Random(5)
    first: int | None = None
    for _ in range(100):
        seat = api.awaited(game)[0]
        first = seat if first is None else first
        response = api.command(game, seat, rng.choice(api.legal(game, seat)), if_match="*")
        assert response.status_code == 200
        versions = {event["version"] for event in response.get_json()["events"]}
        mine = [e for e in admin_events(api.client, game) if e["version"] in versions]
        if any(game.rules.is_draw(event) for event in domain_events(game, mine)):
            return first
    raise AssertionError("no draw within 100 commands")


def test_a_board_leader_placement_is_undone_without_consent(api: Api, client: FlaskClient) -> None:
    game = api.create("board", 3)
    before = _spectator_state(client, game)
    seat = api.awaited(game)[0]
    place = next(c for c in api.legal(game, seat) if c["type"] == "PlaceLeader")
    assert api.command(game, seat, place, if_match="*").status_code == 200

    response = _ask(client, game, seat, game.version)

    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["status"] == "applied" and body["self_undo"] is True
    assert body["requested_by"] == f"seat:{seat}" and body["approved_by"] == []
    assert _spectator_state(client, game) == before
    assert response.headers["Location"].endswith(body["request_id"])
    log = admin_events(client, game)[-2:]
    assert [e["type"] for e in log] == ["service.UndoRequested", "service.GameReverted"]
    assert log[1]["data"]["requested_by"] == f"seat:{seat}"


@pytest.mark.parametrize("kind", KINDS)
def test_after_a_draw_every_other_seat_must_approve(
    api: Api, client: FlaskClient, kind: str
) -> None:
    game = api.create(kind, 3)
    before = _spectator_state(client, game)
    asker = _act_until_draw(api, game)
    others = [s for s in range(3) if s != asker]

    request = _ask(client, game, asker, game.version).get_json()
    assert request["status"] == "open" and request["self_undo"] is False
    assert request["awaiting"] == [f"seat:{s}" for s in others]
    problem(_answer(client, game, request["request_id"], game.seat(asker), True), 403)
    problem(_answer(client, game, request["request_id"], {}, True), 401)
    problem(_ask(client, game, others[0], game.version), 409)  # one open request at a time

    half = _answer(client, game, request["request_id"], game.seat(others[0]), True).get_json()
    assert half["status"] == "open" and half["awaiting"] == [f"seat:{others[1]}"]
    problem(_answer(client, game, request["request_id"], game.seat(others[0]), True), 409)
    done = _answer(client, game, request["request_id"], game.seat(others[1]), True).get_json()

    assert done["status"] == "applied" and done["approved_by"] == [f"seat:{s}" for s in others]
    assert _spectator_state(client, game) == before
    reverted = admin_events(client, game)[-1]
    assert reverted["type"] == "service.GameReverted" and reverted["actor"] == f"seat:{others[1]}"
    assert reverted["data"]["approved_by"] == [f"seat:{s}" for s in others]
    listed = client.get(f"/games/{game.game_id}/undo-requests").get_json()["items"]
    assert [r["status"] for r in listed] == ["applied"]
    one = client.get(f"/games/{game.game_id}/undo-requests/{request['request_id']}")
    # (the answer also said what comes next: the request itself is the same)
    assert one.get_json() == {k: v for k, v in done.items() if k not in {"next", "legal"}}


@pytest.mark.parametrize("kind", KINDS)
def test_rejection_admin_approval_and_lapse(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind, 2)
    asker = _act_until_draw(api, game)
    other = 1 - asker

    rejected = _ask(client, game, asker, game.version).get_json()
    closed = _answer(client, game, rejected["request_id"], game.seat(other), False).get_json()
    assert closed["status"] == "rejected" and closed["rejected_by"] == [f"seat:{other}"]
    problem(_answer(client, game, rejected["request_id"], admin(), True), 409)

    lapsing = _ask(client, game, asker, game.version).get_json()
    seat = api.awaited(game)[0]
    assert api.command(game, seat, api.legal(game, seat)[0], if_match="*").status_code == 200
    stale = client.get(f"/games/{game.game_id}/undo-requests/{lapsing['request_id']}").get_json()
    assert stale["status"] == "lapsed"
    assert (
        problem(_answer(client, game, lapsing["request_id"], game.seat(other), True), 409)["type"]
        == "/problems/undo-closed"
    )

    before = client.get(f"/games/{game.game_id}/states/{game.version}").get_json()["state"]
    by_admin = _ask(client, game, asker, game.version).get_json()
    applied = _answer(client, game, by_admin["request_id"], admin(), True).get_json()
    assert applied["status"] == "applied" and applied["approved_by"] == ["admin"]
    assert _spectator_state(client, game) == before


@pytest.mark.parametrize("kind", KINDS)
def test_bad_undo_requests_change_nothing(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind, 2)
    seat = api.awaited(game)[0]
    assert api.command(game, seat, api.legal(game, seat)[0], if_match="*").status_code == 200
    now = api.version(game)
    url = f"/games/{game.game_id}/undo-requests"

    problem(_ask(client, game, seat, game.version - 1), 409)  # inside the setup
    problem(_ask(client, game, seat, now), 409)  # nothing to undo
    problem(_ask(client, game, seat, game.version, if_match='"1"'), 412)
    problem(
        client.post(url, json={"to_version": game.version, "reason": "x"}, headers=game.seat(seat)),
        428,
    )
    problem(
        client.post(
            url, json={"to_version": game.version, "reason": "x"}, headers={"If-Match": "*"}
        ),
        401,
    )
    problem(
        client.post(
            url, json={"to_version": 1, "reason": "x"}, headers={**admin(), "If-Match": "*"}
        ),
        403,
    )
    assert (
        problem(
            client.post(
                url,
                json={"to_version": "1", "reason": "x"},
                headers={**game.seat(seat), "If-Match": "*"},
            ),
            422,
        )["field"]
        == "to_version"
    )
    assert (
        problem(
            client.post(
                url,
                json={"to_version": 1, "reason": ""},
                headers={**game.seat(seat), "If-Match": "*"},
            ),
            422,
        )["field"]
        == "reason"
    )
    problem(client.get(f"{url}/{'0' * 32}"), 404)
    assert api.version(game) == now
    assert client.get(url).get_json()["items"] == []


def test_a_face_down_card_taken_back_stays_hidden_in_the_log(api: Api, client: FlaskClient) -> None:
    # Seed 2: seat 0 soon joins two kingdoms with a card face down on a bridge (C-JOIN-1)
    # and must still act itself, so it may take the card back without consent.
    game = api.create("cards", 2, seed=2)
    rules, rng = game.rules, random.Random(2)
    state = rules.fold(domain_events(game, admin_events(client, game)))
    while True:
        seat = min(rules.awaited(state))
        legal = list(rules.legal_commands(state, seat))
        joins = [c for c in legal if type(c).__name__ == "PlayCard" and c.bridge is not None]
        command = joins[0] if joins else rng.choice(legal)
        before = api.version(game)
        response = api.command(game, seat, rules.commands.to_json(command), if_match="*")
        assert response.status_code == 200, response.get_json()
        for event in rules.decide(state, command):
            state = rules.evolve(state, event)
        if joins:
            break
    joined = [e for e in response.get_json()["events"] if e["type"] == "cards.CardPlayed"]
    assert (
        joined
        and "colour"
        not in api.get(
            f"/games/{game.game_id}/events?after={before}", headers=game.seat(1 - seat)
        ).get_json()["items"][0]["data"]
    )

    undone = _ask(client, game, seat, before)

    assert undone.status_code == 201 and undone.get_json()["status"] == "applied"
    # The card is back in seat 0's hand: its colour must not show in anybody else's log.
    for headers in (game.seat(1 - seat), {}):
        items = api.get(f"/games/{game.game_id}/events?after={before}", headers=headers)
        played = items.get_json()["items"][0]
        assert played["type"] == "cards.CardPlayed" and "colour" not in played["data"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_undo_into_the_middle_of_a_command_is_refused(
    api: Api, client: FlaskClient, kind: str
) -> None:
    game = api.create(kind, 2)
    rng = random.Random(3)
    for _ in range(100):  # until one command is decided into several events
        seat = api.awaited(game)[0]
        response = api.command(game, seat, rng.choice(api.legal(game, seat)), if_match="*")
        assert response.status_code == 200
        versions = sorted(event["version"] for event in response.get_json()["events"])
        if len(versions) > 1:
            break
    else:
        raise AssertionError("no command with several events within 100 commands")
    now = api.version(game)

    refused = problem(_ask(client, game, seat, versions[0]), 409)

    assert refused["type"] == "/problems/undo-not-allowed"
    assert "inside" in refused["detail"]
    assert api.version(game) == now
    assert client.get(f"/games/{game.game_id}/undo-requests").get_json()["items"] == []
