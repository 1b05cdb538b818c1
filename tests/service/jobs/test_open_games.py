"""No bot or clock job for a game still waiting for players (issue 21, point 11): an open
game (a seat left to claim) accepts no command, so a bot's move or a clock's expiry queued
for it could only fail. Its jobs are queued when the last claim starts the game, and its
clock starts then (the lobby's time is no seat's). On a real RQ queue, run by a real
(in-process) worker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from rq.registry import FailedJobRegistry

from service.application.chain import CLAIM_SEAT
from service.application.clocks import ClockSpec, is_claim, read_clock
from service.application.game_service import GameService
from service.jobs.bots import job_id_of
from service.jobs.tasks import clock_expired, play_bot
from tests.service.api.conftest import admin
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.test_bots import SEAT_0_STARTS
from tests.service.jobs.test_clocks import scheduled

# A bot seat that begins (seat 0, with this seed) and a clock, and a seat left to claim.
OPEN_GAME: dict[str, Any] = {
    "kind": "board",
    "seats": [{"bot": "random", "think_ms": 0}, {"type": "open"}],
    "seed": SEAT_0_STARTS["board"],
    "clock": {"per_decision_s": 3600},
}


def failed(jobs: Jobs) -> list[str]:
    registry = FailedJobRegistry(queue=jobs.queue)
    ids: list[str] = registry.get_job_ids()
    return ids


def test_an_open_game_with_a_bot_and_a_clock_queues_no_job_until_its_last_claim(
    client: FlaskClient, games: GameService, jobs: Jobs
) -> None:
    # given an open game whose first seat is a bot, with a clock
    created = client.post("/games", json=OPEN_GAME, headers=admin())
    assert created.status_code == 201, created.get_json()
    game_id, version = created.get_json()["game"]["game_id"], created.get_json()["game"]["version"]
    assert created.get_json()["game"]["status"] == "open"
    # then nothing is queued nor scheduled for it, and a worker run fails no job
    assert jobs.queue.job_ids == []
    assert scheduled(jobs) == []
    jobs.run()
    assert failed(jobs) == []
    assert games.repository.get(game_id).version == version
    # when the last seat is claimed, which starts the game
    claimed = client.post(f"/games/{game_id}/seats/1/claim", json={"name": "Ann"})
    assert claimed.status_code == 201, claimed.get_json()
    started = claimed.get_json()["game"]["version"]
    # then the bot's move is queued and its deadline scheduled
    assert jobs.queue.job_ids == [job_id_of(game_id, started, 0)]
    assert scheduled(jobs) == [f"clock-{game_id}-{started}-0"]
    # and the worker runs the bot's move, with no failed job
    jobs.run()
    assert failed(jobs) == []
    events = games.queries.events(game_id, started)
    assert events and events[0].metadata["actor"] == "bot:0"
    # (and the claim is recorded as one, which the clock charges to no one)
    assert is_claim(games.queries.events(game_id, started - 1, 1)[0].metadata)


def test_the_time_a_game_waited_for_players_is_charged_to_no_seat() -> None:
    # given a game with a one-minute game clock created at t0, whose seat 1 was claimed
    # ten minutes later, after which seat 0 took 10 s for its move
    t0 = datetime(2026, 1, 1, tzinfo=UTC)

    def meta(
        command_id: str, seat: int | None, after_s: float, command: Any = None
    ) -> dict[str, Any]:
        at = (t0 + timedelta(seconds=after_s)).isoformat()
        found = {"command_id": command_id, "seat": seat, "recorded_at": at}
        return found | ({"command": command} if command else {})

    metadata = [
        meta("create", None, 0, {"type": "CreateGame"}),
        meta("claim", 1, 600, {"type": CLAIM_SEAT, "seat": 1, "name": "Ann"}),
        meta("move", 0, 610),
    ]
    spec = ClockSpec(initial_s=60)
    # when the clock is read 10 s later, seat 1 awaited
    reading = read_clock(spec, 2, [1], metadata, (t0 + timedelta(seconds=620)).timestamp())
    # then seat 1 has its minute but the 10 s it has been awaited: the lobby's ten minutes
    # are no one's
    assert reading.remaining_s[1] == pytest.approx(50)
    # and seat 0 was charged its 10 s only
    assert read_clock(spec, 2, [0], metadata, reading.since).remaining_s[0] == pytest.approx(50)


def test_a_job_queued_for_an_open_game_does_nothing_and_does_not_fail(
    client: FlaskClient, games: GameService, jobs: Jobs
) -> None:
    # given an open game, and a bot's and a clock's job queued for it (as older versions
    # did, or a sweep racing with a creation)
    created = client.post("/games", json=OPEN_GAME, headers=admin()).get_json()
    game_id, version = created["game"]["game_id"], created["game"]["version"]
    jobs.queue.enqueue(play_bot, game_id, version, 0, job_id="bot-early")
    jobs.queue.enqueue(clock_expired, game_id, version, 0, job_id="clock-early")
    # when the worker runs them
    jobs.run()
    # then neither failed, each said why, and the game did not move
    assert failed(jobs) == []
    for job_id in ("bot-early", "clock-early"):
        job = jobs.queue.fetch_job(job_id)
        assert job is not None and "waiting for players" in str(job.return_value())
    assert games.repository.get(game_id).version == version
