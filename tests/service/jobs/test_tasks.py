"""The job bodies live in ``service.jobs.tasks`` and are enqueued by their dotted names
there; jobs queued before they moved name their old places, and still run."""

from __future__ import annotations

import inspect

import pytest
from rq.job import JobStatus
from rq.utils import import_attribute

from service.application.bots import BotSeat
from service.application.game_service import GameService
from service.jobs import enqueue, tasks
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.test_bots import SEAT_0_STARTS, SYSTEM

# The dotted names jobs were queued under before the bodies moved to service.jobs.tasks.
LEGACY = {
    "service.jobs.bots.play_bot": "play_bot",
    "service.jobs.clocks.clock_expired": "clock_expired",
    "service.jobs.webhooks.deliver_webhook": "deliver_webhook",
    "service.jobs.sweep.sweep": "sweep",
    "service.jobs.audit.audit": "audit",
}


def test_every_job_is_enqueued_by_a_name_in_the_tasks_module() -> None:
    # given the names the enqueueing module enqueues by
    names = [enqueue.PLAY_BOT, enqueue.CLOCK_EXPIRED, enqueue.DELIVER_WEBHOOK]
    names += [enqueue.SWEEP, enqueue.AUDIT, enqueue.ARCHIVE_GAME]
    names += [enqueue.RATE_GAME, enqueue.REBUILD_RATINGS]
    names += [enqueue.PROJECT_FEED, enqueue.DELIVER_PLAYER_WEBHOOK]
    # then each is a function of service.jobs.tasks, and those are all its job bodies
    bodies = {
        name
        for name, f in inspect.getmembers(tasks, inspect.isfunction)
        if f.__module__ == tasks.__name__
    }
    assert {name.rpartition(".")[2] for name in names} == bodies
    for name in names:
        assert name.startswith("service.jobs.tasks.")
        assert import_attribute(name) is getattr(tasks, name.rpartition(".")[2])


@pytest.mark.parametrize("old", sorted(LEGACY))
def test_the_old_dotted_names_stay_importable_with_the_same_signature(old: str) -> None:
    # given a job name stored in Redis before the job bodies moved
    found = import_attribute(old)
    # then RQ still finds a function there, called as the new body is
    new = getattr(tasks, LEGACY[old])
    assert callable(found)
    assert inspect.signature(found) == inspect.signature(new)


def test_jobs_queued_under_the_old_names_still_run(games: GameService, jobs: Jobs) -> None:
    # given a card game awaiting its bot, and jobs queued under the old dotted names (as an
    # older version of the service left them in Redis): its bot's move, a stale clock
    # deadline, a delivery of a subscription since deleted, a sweep and an audit
    game = games.commands.create_game(
        "cards", ["bot", "Bob"], {}, SEAT_0_STARTS["cards"], SYSTEM, bots={0: BotSeat("random")}
    )
    gid, version = game.game_id, game.version
    args = {
        "service.jobs.bots.play_bot": (gid, version, 0),
        "service.jobs.clocks.clock_expired": (gid, version - 1, 0),
        "service.jobs.webhooks.deliver_webhook": (gid, "gone"),
        "service.jobs.sweep.sweep": (),
        "service.jobs.audit.audit": (),
    }
    queued = {
        old: jobs.queue.enqueue(old, *args[old], job_id=f"old-{n}")
        for n, old in enumerate(sorted(LEGACY))
    }
    # when a worker runs them
    jobs.run()
    # then each ran to its end, as the job under its new name would have
    results = {}
    for old, job in queued.items():
        job.refresh()  # type: ignore[no-untyped-call]
        assert job.get_status() == JobStatus.FINISHED, (old, job.exc_info)
        results[old] = job.return_value()
    assert str(results["service.jobs.bots.play_bot"]).startswith("moved to version")
    assert str(results["service.jobs.clocks.clock_expired"]).startswith("moved in time")
    assert results["service.jobs.webhooks.deliver_webhook"] == "no active subscription"
    assert results["service.jobs.sweep.sweep"]["games"] >= 1  # type: ignore[index]
    assert results["service.jobs.audit.audit"]["mismatches"] == 0  # type: ignore[index]
    assert games.repository.get(gid).version > version


def test_new_jobs_name_the_tasks_module(games: GameService, jobs: Jobs) -> None:
    # given a game awaiting its bot, its move enqueued the way the service enqueues it
    game = games.commands.create_game(
        "board", ["bot", "Bob"], {}, SEAT_0_STARTS["board"], SYSTEM, bots={0: BotSeat("random")}
    )
    assert enqueue.enqueue_bot_moves(jobs.queue, jobs.settings, game) == 1
    # then the queued job names its body in service.jobs.tasks
    (job,) = jobs.queue.jobs
    assert job.func_name == "service.jobs.tasks.play_bot"
