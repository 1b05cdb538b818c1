"""Bot jobs on real worker processes (``python -m service worker``): two workers racing on
duplicate jobs make one move, and a worker killed (SIGKILL, with its work horse) in the
middle of a bot's search leaves exactly one move once the job is retried."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rq.job import JobStatus

from service.application.bots import BotSeat
from service.application.game_service import GameService
from service.application.repository import LoadedGame
from service.jobs.bots import enqueue_bot_moves, job_id_of
from service.jobs.tasks import play_bot
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.test_bots import SEAT_0_STARTS, SYSTEM, assert_one_move_per_decision

ROOT = Path(__file__).resolve().parents[3]


def wait_for(condition: Callable[[], bool], timeout_s: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, (
            f"timed out waiting for {what}:\n{log.read_text()[-3000:]}"
        )
        time.sleep(0.1)


def children_by_parent() -> dict[int, list[int]]:
    """Every running process's children, by parent pid (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def family(pid: int) -> list[int]:
    """``pid`` and its descendants (from /proc): RQ's work horses leave the worker's process
    group (setsid), so killing the group is not enough."""
    children = children_by_parent()
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def kill_family(pid: int) -> None:
    """SIGKILL ``pid`` and every descendant, the worker processes and work horses included."""
    for member in family(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(member, signal.SIGKILL)


@contextmanager
def worker_process(
    env: dict[str, str], log: Path, workers: int
) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m service worker`` in a process group of its own (killed as one)."""
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "service", "worker"],
            env={**env, "TIGRIS_RQ_WORKERS": str(workers)},
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def card_game_awaiting_a_bot(games: GameService, *, think_ms: int) -> LoadedGame:
    """A new card game whose first seat, awaited, is an ``mcts`` bot thinking ``think_ms``."""
    return games.commands.create_game(
        "cards",
        ["bot", "Bob"],
        {},
        SEAT_0_STARTS["cards"],
        SYSTEM,
        bots={0: BotSeat("mcts", think_ms=think_ms)},
    )


def test_two_workers_racing_on_duplicate_jobs_make_one_move(
    games: GameService, jobs: Jobs, job_env: dict[str, str], tmp_path: Path
) -> None:
    # given a card game awaiting its searching bot, and four jobs for that one decision
    game = card_game_awaiting_a_bot(games, think_ms=300)
    queued = [
        jobs.queue.enqueue(play_bot, game.game_id, game.version, 0, job_id=f"twin-{n}")
        for n in range(4)
    ]
    log = tmp_path / "workers.log"
    # when two workers take them at the same time
    with worker_process(job_env, log, workers=2):
        wait_for(
            lambda: all(j.get_status() == JobStatus.FINISHED for j in queued), 120, "the jobs", log
        )
        # and the bot's turn is over (the first job enqueued the rest of it)
        wait_for(
            lambda: 0 not in (g := games.repository.get(game.game_id)).rules.awaited(g.state),
            120,
            "the bot's turn",
            log,
        )
    # then exactly one of the four made the move; the others found it made
    outcomes = [str(j.return_value()) for j in queued]
    assert sum(o.startswith("moved to version") for o in outcomes) == 1, outcomes
    assert assert_one_move_per_decision(games, game.game_id) >= 1


def test_a_worker_killed_mid_search_leaves_exactly_one_move_after_the_retry(
    games: GameService, jobs: Jobs, job_env: dict[str, str], tmp_path: Path
) -> None:
    # given a card game awaiting a bot that thinks for 3 s, and its job
    game = card_game_awaiting_a_bot(games, think_ms=3000)
    assert enqueue_bot_moves(jobs.queue, jobs.settings, game) == 1
    job = jobs.queue.fetch_job(job_id_of(game.game_id, game.version, 0))
    assert job is not None
    env = job_env
    log = tmp_path / "workers.log"
    # when a worker starts the search and is killed with its work horse in the middle of it
    with worker_process(env, log, workers=1) as first:
        wait_for(lambda: job.get_status() == JobStatus.STARTED, 60, "the job to start", log)
        time.sleep(0.5)
        kill_family(first.pid)
        first.wait()
    assert games.repository.get(game.game_id).version == game.version  # nothing was appended
    # and another worker comes
    with worker_process(env, log, workers=1):
        # then the abandoned job is retried and makes the move
        wait_for(lambda: job.get_status() == JobStatus.FINISHED, 120, "the retry", log)
        wait_for(
            lambda: 0 not in (g := games.repository.get(game.game_id)).rules.awaited(g.state),
            120,
            "the bot's turn",
            log,
        )
    assert str(job.return_value()).startswith("moved to version")
    assert "scheduled for retry" in log.read_text(), log.read_text()  # RQ retry, after backoff
    # and exactly one move was made for that decision, and for each later one
    first_move = games.queries.events(game.game_id, game.version)[0]
    assert first_move.metadata["command_id"] == f"{game.game_id}-bot-{game.version}-0"
    assert assert_one_move_per_decision(games, game.game_id) >= 1
