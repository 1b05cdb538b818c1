"""Posting commands: concurrency, idempotency, authorization and every error class."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.service.api.conftest import KINDS, Api, Game, admin, auth, problem

# A command each game refuses by a rule whoever sends it (rule id expected).
ILLEGAL: dict[str, tuple[dict[str, Any], str]] = {
    "board": ({"type": "PlaceLeader", "leader": "black", "at": [0, 4]}, "B-LEADER-1"),
    "cards": ({"type": "WithdrawLeader", "leader": "red"}, "C-LEADER-2"),  # not in the display
}


def _first_move(api: Api, game: Game) -> tuple[int, dict[str, Any]]:
    seat = api.awaited(game)[0]
    return seat, api.legal(game, seat)[0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_legal_command_appends_events_and_moves_the_version(api: Api, kind: str) -> None:
    game = api.create(kind, 3)
    seat, command = _first_move(api, game)

    response = api.command(game, seat, command, if_match=f'"{game.version}"')

    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["version"] == game.version + len(body["events"]) > game.version
    assert response.headers["ETag"] == f'"{body["version"]}-seat{seat}"'
    assert response.headers["Idempotent-Replayed"] == "false"
    assert all(e["actor"] == f"seat:{seat}" and e["seat"] == seat for e in body["events"])
    assert [e["version"] for e in body["events"]] == list(
        range(game.version + 1, body["version"] + 1)
    )


@pytest.mark.parametrize("kind", KINDS)
def test_if_match_is_required_and_must_be_current(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind)
    seat, command = _first_move(api, game)
    url = f"/games/{game.game_id}/commands"

    problem(client.post(url, json=command, headers=game.seat(seat)), 428)
    stale = problem(api.command(game, seat, command, if_match=f'"{game.version - 1}"'), 412)
    assert stale["current_version"] == game.version
    problem(api.command(game, seat, command, if_match="garbage"), 412)
    assert api.version(game) == game.version
    assert api.command(game, seat, command, if_match="*").status_code == 200


@pytest.mark.parametrize("kind", KINDS)
def test_idempotency_key_replays_the_first_answer(api: Api, kind: str) -> None:
    game = api.create(kind)
    seat, command = _first_move(api, game)
    key = {"Idempotency-Key": "move-1"}

    first = api.command(game, seat, command, if_match=f'"{game.version}"', headers=key)
    again = api.command(game, seat, command, if_match=f'"{game.version}"', headers=key)

    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert api.version(game) == first.get_json()["version"]
    other = {"type": "Pass"} if command["type"] != "Pass" else {"type": "Nope"}
    found = problem(api.command(game, seat, other, if_match="*", headers=key), 422)
    assert found["field"] == "Idempotency-Key"
    problem(api.command(game, seat, command, headers={"Idempotency-Key": "bad key"}), 400)


@pytest.mark.parametrize("kind", KINDS)
def test_an_illegal_command_is_a_409_naming_the_rule(api: Api, kind: str) -> None:
    game = api.create(kind)
    seat = api.awaited(game)[0]
    command, rule = ILLEGAL[kind]

    found = problem(api.command(game, seat, command), 409)

    assert found["type"] == "/problems/illegal-command"
    assert found["rule"] == rule and found["detail"]
    assert api.version(game) == game.version


@pytest.mark.parametrize("kind", KINDS)
def test_a_seat_that_is_not_awaited_is_refused_with_the_rule(api: Api, kind: str) -> None:
    game = api.create(kind, 3)
    _seat, command = _first_move(api, game)
    idle = next(s for s in range(3) if s not in api.awaited(game))

    found = problem(api.command(game, idle, command), 409)

    assert found["type"] == "/problems/not-awaited" and found["rule"]
    assert api.version(game) == game.version


@pytest.mark.parametrize("kind", KINDS)
def test_who_may_command(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind)
    other = api.create(kind)
    seat, command = _first_move(api, game)
    url = f"/games/{game.game_id}/commands"
    etag = {"If-Match": "*"}

    problem(client.post(url, json=command, headers=etag), 401)  # spectator
    problem(client.post(url, json=command, headers={**etag, **admin()}), 403)
    problem(client.post(url, json=command, headers={**etag, **auth(other.tokens[seat])}), 401)
    claimed = {**command, "seat": 1 - seat}
    problem(client.post(url, json=claimed, headers={**etag, **game.seat(seat)}), 403)
    assert api.version(game) == game.version


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_commands(api: Api, client: FlaskClient, kind: str) -> None:
    game = api.create(kind)
    seat, command = _first_move(api, game)
    url = f"/games/{game.game_id}/commands"
    headers = {"If-Match": "*", **game.seat(seat)}

    assert problem(api.command(game, seat, {"type": "Teleport"}), 422)["field"] == "type"
    assert problem(api.command(game, seat, {"kind": "x"}), 422)["field"] == "type"
    assert problem(api.command(game, seat, {**command, "bogus": 1}), 422)["detail"]
    problem(client.post(url, data="{nope", content_type="application/json", headers=headers), 400)
    problem(client.post(url, data="x", content_type="text/plain", headers=headers), 415)
    problem(client.post(url, json=[command], headers=headers), 422)
    problem(client.post("/games/nosuch/commands", json=command, headers=headers), 404)
    assert api.version(game) == game.version


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_request_id_is_refused_not_stored(api: Api, kind: str) -> None:
    # X-Request-ID goes into the metadata of every event of the command, for good:
    # it is bounded like Idempotency-Key and refused (changing nothing) otherwise.
    game = api.create(kind)
    seat, command = _first_move(api, game)

    for bad in ("x" * 101, "two words"):
        found = problem(api.command(game, seat, command, headers={"X-Request-ID": bad}), 400)
        assert found["field"] == "X-Request-ID"
    assert api.version(game) == game.version
    accepted = api.command(game, seat, command, headers={"X-Request-ID": "req-1"})
    assert accepted.status_code == 200, accepted.get_json()
