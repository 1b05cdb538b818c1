"""Resigning through the API, with the server playing resigned seats (domain/RESIGNATION.md):
the command ``Resign`` on the real service and Redis, the resigned ("zombie") seat's moves made
by the bot job on a real RQ worker (in-process ``SimpleWorker``), and the clock's policy that
resigns a seat whose time runs out ``TIGRIS_CLOCK_RESIGN_AFTER`` times in a row."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from service.application.game_service import GameService
from service.jobs.tasks import clock_expired
from tests.service.api.conftest import admin, auth
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.test_bots import SEAT_0_STARTS, create

NAMES = ["Ann", "Bob", "Cy", "Di"]


def tokens_of(created: dict[str, Any]) -> list[str]:
    return [seat["token"] for seat in created["seats"]]


def resign(client: FlaskClient, game_id: str, token: str) -> Any:
    headers = {**auth(token), "If-Match": "*"}
    return client.post(f"/games/{game_id}/commands", json={"type": "Resign"}, headers=headers)


def actors_after(games: GameService, game_id: str, version: int) -> list[str]:
    return [e.metadata["actor"] for e in games.queries.events(game_id, version)]


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_a_two_seat_game_ends_when_a_seat_resigns_and_that_seat_loses(
    client: FlaskClient, kind: str
) -> None:
    # Given a two-seat game that seat 0 begins
    created = create(client, kind, NAMES[:2], seed=SEAT_0_STARTS[kind])
    game_id, tokens = created["game"]["game_id"], tokens_of(created)
    # When seat 1, not awaited, resigns
    answer = resign(client, game_id, tokens[1])
    # Then the game is over at once, seat 0 winning and seat 1 last and marked resigned
    assert answer.status_code == 200, answer.get_json()
    types = [event["type"] for event in answer.get_json()["events"]]
    assert types == [f"{kind}.SeatResigned", f"{kind}.GameEnded"]
    result = client.get(f"/games/{game_id}/result").get_json()["result"]
    assert result["reason"] == "resigned" and result["places"] == [[0], [1]]
    assert [(s["seat"], s["resigned"], s["winner"]) for s in result["seats"]] == [
        (0, False, True),
        (1, True, False),
    ]
    # and seat 0 may send nothing more: the game is over, naming the rule
    refused = resign(client, game_id, tokens[0])
    assert refused.status_code == 409
    assert refused.get_json()["rule"] == f"{kind[0].upper()}-RESIGN-2"


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("kind", ["board", "cards"])
def test_a_resigned_seat_is_played_by_the_server_and_its_token_sends_nothing(
    client: FlaskClient, games: GameService, jobs: Jobs, kind: str, seats: int
) -> None:
    # Given a game of three or four seats and the seat it awaits
    created = create(client, kind, NAMES[:seats])
    game_id, tokens = created["game"]["game_id"], tokens_of(created)
    [seat] = created["next"]["awaited"]
    # When that seat resigns
    answer = resign(client, game_id, tokens[seat])
    assert answer.status_code == 200, answer.get_json()
    resigned_at = answer.get_json()["version"]
    assert [e["type"] for e in answer.get_json()["events"]] == [f"{kind}.SeatResigned"]
    # Then the game runs on, and the worker makes the resigned seat's decisions for it
    jobs.run()
    game = games.repository.get(game_id)
    assert not game.rules.is_over(game.state)
    assert seat not in game.rules.awaited(game.state)
    actors = actors_after(games, game_id, resigned_at)
    assert actors and set(actors) == {f"zombie:{seat}"}
    # and every view names it
    assert client.get(f"/games/{game_id}/state").get_json()["state"]["resigned"] == [seat]
    # and its own token no longer sends a command, nor asks for an undo
    legal = {"type": "Pass"}
    headers = {**auth(tokens[seat]), "If-Match": "*"}
    refused = client.post(f"/games/{game_id}/commands", json=legal, headers=headers)
    assert refused.status_code == 409
    assert refused.get_json()["type"] == "/problems/seat-resigned"
    assert refused.get_json()["seat"] == seat
    version = games.repository.get(game_id).version
    undo = client.post(
        f"/games/{game_id}/undo-requests",
        json={"to_version": resigned_at - 1, "reason": "I take it back"},
        headers={**auth(tokens[seat]), "If-Match": f'"{version}"'},
    )
    assert undo.status_code == 409 and undo.get_json()["type"] == "/problems/seat-resigned"
    assert games.repository.get(game_id).version == version  # nothing changed


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_resigned_seats_rank_last_in_a_four_seat_game_played_on_by_the_server(
    client: FlaskClient, games: GameService, jobs: Jobs, kind: str
) -> None:
    # Given a four-seat game
    created = create(client, kind, NAMES)
    game_id, tokens = created["game"]["game_id"], tokens_of(created)
    # When seats 2, 0 and 1 resign in that order, the server playing each meanwhile
    for seat in (2, 0, 1):
        assert resign(client, game_id, tokens[seat]).status_code == 200
        jobs.run()
    # Then the game is over: seat 3 first, then the last to resign, the first to resign last
    result = client.get(f"/games/{game_id}/result").get_json()["result"]
    assert result["reason"] == "resigned"
    assert result["places"] == [[3], [1], [0], [2]]
    assert {s["seat"] for s in result["seats"] if s["resigned"]} == {0, 1, 2}


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_a_seat_whose_clock_runs_out_twice_in_a_row_resigns(
    client: FlaskClient,
    games: GameService,
    jobs: Jobs,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:
    # Given the policy "resign after 2 timeouts in a row", a two-seat game with a clock,
    # and seat 0 awaited
    monkeypatch.setenv("TIGRIS_CLOCK_RESIGN_AFTER", "2")
    body = {
        "kind": kind,
        "seats": NAMES[:2],
        "seed": SEAT_0_STARTS[kind],
        "clock": {"per_decision_s": 3600},
    }
    # (The clock's move is the seeded random bot's, and its seed takes in the game's random
    # id: a move may end seat 0's turn. The game taken is one where it leaves seat 0 awaited.)
    for attempt in range(20):
        created = client.post("/games", json=body, headers=admin()).get_json()
        game_id, version = created["game"]["game_id"], created["game"]["version"]
        # When seat 0's time runs out (its deadline's job runs for this version)
        jobs.queue.enqueue(clock_expired, game_id, version, 0, job_id=f"first-{attempt}")
        jobs.run()
        game = games.repository.get(game_id)
        if list(game.rules.awaited(game.state)) == [0]:
            break
    else:
        pytest.fail("in 20 games the clock's first move always ended seat 0's turn")
    # Then the clock moved for it, and the game runs on
    assert actors_after(games, game_id, version)[0] == "clock"
    assert not game.rules.is_over(game.state) and game.rules.resigned(game.state) == ()
    # When its time runs out again at its next decision
    [awaited] = game.rules.awaited(game.state)
    assert awaited == 0  # the board game's second action, the card game's too
    expired = jobs.queue.enqueue(clock_expired, game_id, game.version, 0, job_id="second")
    jobs.run()
    # Then the clock resigned it instead of moving: the game is over, seat 0 last
    assert str(expired.return_value()).startswith("the clock resigned seat 0")
    game = games.repository.get(game_id)
    assert game.rules.is_over(game.state) and game.rules.resigned(game.state) == (0,)
    resigned = games.queries.events(game_id, version)
    assert [e.metadata["actor"] for e in resigned][-2:] == ["clock", "clock"]
    assert client.get(f"/games/{game_id}/result").get_json()["result"]["places"] == [[1], [0]]


def test_a_clock_timeout_between_moves_made_in_time_does_not_count_towards_resigning(
    client: FlaskClient, games: GameService, jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the policy "resign after 2 timeouts in a row" and a clocked board game
    monkeypatch.setenv("TIGRIS_CLOCK_RESIGN_AFTER", "2")
    body = {
        "kind": "board",
        "seats": NAMES[:2],
        "seed": SEAT_0_STARTS["board"],
        "clock": {"per_decision_s": 3600},
    }
    created = client.post("/games", json=body, headers=admin()).get_json()
    game_id, version = created["game"]["game_id"], created["game"]["version"]
    token = created["seats"][0]["token"]
    # When seat 0 times out once, then moves in time, then times out once more
    jobs.queue.enqueue(clock_expired, game_id, version, 0, job_id="first")
    jobs.run()
    game = games.repository.get(game_id)
    legal = client.get(f"/games/{game_id}/legal-commands", headers=auth(token)).get_json()
    moved = client.post(
        f"/games/{game_id}/commands",
        json=legal["commands"][0],
        headers={**auth(token), "If-Match": f'"{game.version}"'},
    )
    assert moved.status_code == 200
    game = games.repository.get(game_id)
    while not game.rules.is_over(game.state) and 0 not in game.rules.awaited(game.state):
        other = created["seats"][1]["token"]  # seat 1 plays its turn in time
        legal = client.get(f"/games/{game_id}/legal-commands", headers=auth(other)).get_json()
        client.post(
            f"/games/{game_id}/commands",
            json=legal["commands"][0],
            headers={**auth(other), "If-Match": f'"{game.version}"'},
        )
        game = games.repository.get(game_id)
    expired = jobs.queue.enqueue(clock_expired, game_id, game.version, 0, job_id="again")
    jobs.run()
    # Then the clock moved for it again: one timeout in a row, no resignation
    assert str(expired.return_value()).startswith("the clock moved for seat 0")
    game = games.repository.get(game_id)
    assert game.rules.resigned(game.state) == ()
