"""``X-Request-ID``: the correlation id of every event the request caused (a creation, a
command, an undo request and its answer), as the event log shows it; without the header,
the events' own command id."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.service.api.conftest import Api, admin, problem


def events(client: FlaskClient, game_id: str, after: int = 0) -> list[dict[str, Any]]:
    page = client.get(f"/games/{game_id}/events?after={after}&limit=500", headers=admin())
    items: list[dict[str, Any]] = page.get_json()["items"]
    return items


def test_the_request_id_is_the_correlation_id_of_the_events_it_caused(
    api: Api, client: FlaskClient
) -> None:
    # given a game created with a request id
    created = client.post(
        "/games",
        json={"kind": "board", "seats": ["Ann", "Bob"]},
        headers={"X-Request-ID": "create-1"},
    ).get_json()
    game_id = created["game"]["game_id"]
    assert {e["correlation_id"] for e in events(client, game_id)} == {"create-1"}
    tokens = [s["token"] for s in created["seats"]]
    version = created["game"]["version"]
    # when a command is sent with another one
    pending = client.get(f"/games/{game_id}/pending").get_json()
    seat = pending["awaited"][0]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    legal = client.get(f"/games/{game_id}/legal-commands", headers=auth).get_json()
    sent = client.post(
        f"/games/{game_id}/commands",
        json=legal["commands"][0],
        headers={**auth, "If-Match": "*", "X-Request-ID": "cmd-2"},
    )
    assert sent.status_code == 200
    # then its events, in the answer and in the log, carry it
    assert {e["correlation_id"] for e in sent.get_json()["events"]} == {"cmd-2"}
    assert {e["correlation_id"] for e in events(client, game_id, version)} == {"cmd-2"}
    # and an undo request and its answer carry theirs
    moved = sent.get_json()["version"]
    other = 1 - seat
    asked = client.post(
        f"/games/{game_id}/undo-requests",
        json={"to_version": version, "reason": "misclick"},
        headers={
            "Authorization": f"Bearer {tokens[other]}",
            "If-Match": "*",
            "X-Request-ID": "u-3",
        },
    )
    assert asked.status_code == 201, asked.get_json()
    request_id = asked.get_json()["request_id"]
    answered = client.post(
        f"/games/{game_id}/undo-requests/{request_id}/answers",
        json={"approve": False},
        headers={**auth, "If-Match": "*", "X-Request-ID": "a-4"},
    )
    assert answered.status_code == 200, answered.get_json()
    assert [e["correlation_id"] for e in events(client, game_id, moved)] == ["u-3", "a-4"]


def test_without_a_request_id_the_command_id_correlates(api: Api, client: FlaskClient) -> None:
    game = api.create("cards", 2)
    for event in events(client, game.game_id):
        assert event["correlation_id"] == event["command_id"]


def test_a_malformed_request_id_is_refused_and_changes_nothing(client: FlaskClient) -> None:
    before = client.get("/games").get_json()["items"]
    response = client.post(
        "/games",
        json={"kind": "board", "seats": ["Ann", "Bob"]},
        headers={"X-Request-ID": "has space"},
    )
    assert problem(response, 400)["field"] == "X-Request-ID"
    assert client.get("/games").get_json()["items"] == before
