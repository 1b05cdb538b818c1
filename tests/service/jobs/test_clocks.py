"""Turn clocks: the deadline is an RQ scheduled job run by a real worker (in-process
``SimpleWorker`` with the scheduler); on expiry the clock's bot moves for the seat, as the
actor ``clock``; a move made in time wins, by version; pending shows the time left."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask.testing import FlaskClient
from rq.registry import ScheduledJobRegistry

from service.application.game_service import GameService
from service.jobs.tasks import clock_expired
from tests.service.api.conftest import admin, auth
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.test_bots import SEAT_0_STARTS


def create(client: FlaskClient, clock: dict[str, Any]) -> tuple[str, list[str], int]:
    body = {
        "kind": "board",
        "seats": ["Ann", "Bob"],
        "seed": SEAT_0_STARTS["board"],
        "clock": clock,
    }
    response = client.post("/games", json=body, headers=admin())
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    tokens = [seat["token"] for seat in created["seats"]]
    return created["game"]["game_id"], tokens, created["game"]["version"]


def scheduled(jobs: Jobs) -> list[str]:
    registry = ScheduledJobRegistry(queue=jobs.queue)  # type: ignore[no-untyped-call]
    ids: list[str] = registry.get_job_ids()
    return ids


def move(client: FlaskClient, game_id: str, token: str, version: int) -> Any:
    legal = client.get(f"/games/{game_id}/legal-commands", headers=auth(token)).get_json()
    return client.post(
        f"/games/{game_id}/commands",
        json=legal["commands"][0],
        headers={**auth(token), "If-Match": f'"{version}"'},
    )


@pytest.mark.parametrize("clock", [{"per_decision_s": 1}, {"initial_s": 1, "increment_s": 0}])
def test_a_clock_expiry_moves_for_the_seat_as_the_clock(
    client: FlaskClient, games: GameService, jobs: Jobs, clock: dict[str, Any]
) -> None:
    # given a game with a one-second clock, awaiting seat 0
    game_id, _, version = create(client, clock)
    assert scheduled(jobs) == [f"clock-{game_id}-{version}-0"]  # its deadline, scheduled
    # when the second has passed and the worker runs what is due
    time.sleep(1.2)
    jobs.run()
    # then the clock moved for seat 0, as an event whose actor is the clock
    events = games.queries.events(game_id, version)
    assert events and events[0].metadata["actor"] == "clock" and events[0].metadata["seat"] == 0
    assert events[0].metadata["command_id"] == f"{game_id}-clock-{version}-0"
    # and the next deadline is scheduled
    after = games.repository.get(game_id).version
    assert any(job.startswith(f"clock-{game_id}-{after}-") for job in scheduled(jobs))


def test_a_move_in_time_wins_the_race(client: FlaskClient, games: GameService, jobs: Jobs) -> None:
    # given a game with a clock whose deadline job for this version is scheduled
    game_id, tokens, version = create(client, {"per_decision_s": 2})
    deadline_job = f"clock-{game_id}-{version}-0"
    assert deadline_job in scheduled(jobs)
    # when seat 0 moves in time, and the expiry for that version runs anyway (not cancelled)
    assert move(client, game_id, tokens[0], version).status_code == 200
    moved = games.repository.get(game_id).version
    late = jobs.queue.enqueue(clock_expired, game_id, version, 0, job_id="late")
    jobs.run()
    # then the expiry did nothing: the version had moved on
    assert str(late.return_value()).startswith("moved in time")
    assert games.repository.get(game_id).version == moved
    assert all(e.metadata["actor"] == "seat:0" for e in games.queries.events(game_id, version))
    assert deadline_job in scheduled(jobs)  # still there: the version check decides


def test_pending_shows_each_awaited_seats_remaining_time(client: FlaskClient) -> None:
    # given a game clock of 60 s plus 5 s per command
    game_id, tokens, version = create(client, {"initial_s": 60, "increment_s": 5})
    pending = client.get(f"/games/{game_id}/pending").get_json()
    [seat] = pending["clock"]["seats"]
    assert seat["seat"] == 0 and 50_000 < seat["remaining_ms"] <= 60_000
    # when seat 0 makes a command quickly (it acts again: two actions a turn)
    assert move(client, game_id, tokens[0], version).status_code == 200
    # then its clock gained the increment, less the time it took
    pending = client.get(f"/games/{game_id}/pending").get_json()
    [seat] = pending["clock"]["seats"]
    assert seat["seat"] == 0 and 60_000 < seat["remaining_ms"] <= 65_000
    game = client.get(f"/games/{game_id}").get_json()
    assert game["clock"] == {"initial_s": 60, "increment_s": 5, "on_expiry": "random"}


def test_a_running_clock_is_never_answered_not_modified(client: FlaskClient) -> None:
    # Given a clocked game, and its pending decision as a client cached it
    game_id, _, version = create(client, {"initial_s": 60, "increment_s": 5})
    first = client.get(f"/games/{game_id}/pending")
    # When the client asks again with the game's version as its ETag
    again = client.get(f"/games/{game_id}/pending", headers={"If-None-Match": f'"{version}"'})
    # Then it gets the time left now (not a 304 that would keep the old one), and no ETag
    assert (first.status_code, again.status_code) == (200, 200)
    assert "ETag" not in again.headers
    [before], [now] = first.get_json()["clock"]["seats"], again.get_json()["clock"]["seats"]
    assert now["remaining_ms"] <= before["remaining_ms"]
    # while the state of a clocked game still answers 304 for an unchanged version
    etag = f'"{version}-spectator"'  # the spectator's view (service.api.http.viewer_etag)
    state = client.get(f"/games/{game_id}/state", headers={"If-None-Match": etag})
    assert state.status_code == 304


@pytest.mark.parametrize(
    "clock",
    [
        {},
        {"per_decision_s": 5, "initial_s": 5},
        {"per_decision_s": 0},
        {"per_decision_s": 1.5},
        {"per_decision_s": 5, "on_expiry": "mcts"},
        {"initial_s": 5, "bonus": 1},
        # a DecisionClock has no increment (issue 21, point 8: Clock is one of two shapes)
        {"per_decision_s": 5, "increment_s": 1},
    ],
)
def test_a_bad_clock_is_refused_and_creates_nothing(
    client: FlaskClient, games: GameService, clock: dict[str, Any]
) -> None:
    body = {"kind": "board", "seats": ["Ann", "Bob"], "clock": clock}
    response = client.post("/games", json=body)
    assert response.status_code == 422, response.get_json()
    assert response.get_json()["field"].startswith("clock")
    assert games.queries.list_games()[0] == []
