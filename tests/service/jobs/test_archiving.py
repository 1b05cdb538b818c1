"""The archive tier's jobs on a real RQ worker: the sweep enqueues one job per game due,
the job moves it, and a second sweep finds nothing left to do."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.application.game_service import GameService, build_service
from service.config import StoreSettings
from service.jobs.tasks import sweep
from tests.service.archive_games import play
from tests.service.jobs.conftest import Jobs


def test_the_sweep_archives_abandoned_and_finished_games_through_jobs(
    games: GameService,
    jobs: Jobs,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    # given a game left for years (its last event written by a clock in 2020)
    monkeypatch.setenv("TIGRIS_ARCHIVE_DIR", str(tmp_path))
    then = GameService(games.store, None, clock=lambda: datetime(2020, 1, 1, tzinfo=UTC))
    old = play(then, "board", 2, 17, commands=6)
    fresh = play(games, "cards", 2, 18, commands=3)
    state = games.repository.get(old.game_id).state
    # when the sweep runs on a worker
    jobs.queue.enqueue(sweep, job_id="sweep-now")
    jobs.run()
    # then the old game is archived (read the same, read-only) and the recent one is not
    info = games.store.info(old.game_id)
    assert info is not None and "archived" in info.fields
    assert list(tmp_path.rglob("*.json.zst"))
    reader, connection = build_service(StoreSettings.from_env())  # a process reading it
    assert reader.repository.get(old.game_id).state == state
    connection.close()
    recent = games.store.info(fresh.game_id)
    assert recent is not None and "archived" not in recent.fields
    finished = jobs.queue.finished_job_registry.get_job_ids()
    assert any(job_id.startswith(f"archive-{old.game_id}-") for job_id in finished)
