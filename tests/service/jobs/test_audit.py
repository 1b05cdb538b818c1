"""The periodic audit on a real RQ worker: every active game folded from its stream and
compared with its snapshots, its loaded state and its stored status; mismatches logged with
game and version, and counted in ``GET /ops/audit``."""

from __future__ import annotations

import logging
import random

import pytest
import redis
from flask.testing import FlaskClient

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.jobs.tasks import audit
from service.store.port import Snapshot
from service.store.redis_streams import RedisSnapshotStore
from tests.service.api.conftest import admin
from tests.service.jobs.conftest import Jobs


def play(games: GameService, game_id: str, commands: int) -> None:
    rng = random.Random(commands)
    for n in range(commands):
        game = games.repository.get(game_id)
        if game.rules.is_over(game.state):
            return
        seat = min(game.rules.awaited(game.state))
        options = list(game.rules.legal_commands(game.state, seat))
        meta = CommandMeta(command_id=f"c{n}", actor=f"seat:{seat}", seat=seat)
        games.commands.handle(game_id, options[rng.randrange(len(options))], meta=meta)


@pytest.fixture
def snapshots_every_5(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIGRIS_SNAPSHOT_EVERY", "5")


@pytest.mark.usefixtures("snapshots_every_5")
def test_the_audit_finds_and_counts_what_disagrees_with_the_fold(  # noqa: PLR0917 (fixtures)
    games: GameService,
    jobs: Jobs,
    client: FlaskClient,
    redis_client: redis.Redis,
    key_prefix: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # given a sound game; a game played to its end whose stored status still says active
    # (as if that write had been lost); and a game whose latest snapshot was tampered with
    meta = CommandMeta(command_id="create", actor="system", seat=None)
    sound, lying, tampered = (
        games.commands.create_game("board", ["a", "b"], {}, seed, meta).game_id
        for seed in (1, 2, 3)
    )
    play(games, sound, 12)
    play(games, tampered, 12)
    play(games, lying, 5_000)
    info = games.queries.game_info(lying)
    assert info.status == "over"
    redis_client.hset(f"{key_prefix}:{{{lying}}}:info", "status", "active")
    games.store.index_game(lying, info.created_ms, kind="board", status="active")
    snapshots = RedisSnapshotStore(redis_client, prefix=key_prefix)
    latest = snapshots.latest(tampered)
    assert latest is not None
    position = dict(latest.position)
    position["bag"] = position["bag"][1:] + position["bag"][:1]  # another draw order
    assert position != latest.position
    snapshots.put(tampered, Snapshot(latest.version, position))
    # when the audit job runs on a worker
    jobs.queue.enqueue(audit, job_id="audit-now")
    with caplog.at_level(logging.WARNING, logger="tigris.audit"):
        jobs.run()
    # then each mismatch is logged with its game and version
    logged = [r.getMessage() for r in caplog.records if r.name == "tigris.audit"]
    assert any(lying in m and "stored status is 'active'" in m for m in logged), logged
    assert any(f"{tampered} version {latest.version}: snapshot" in m for m in logged), logged
    assert not any(sound in m for m in logged)
    # and counted in the operations endpoint (admin only)
    assert client.get("/ops/audit").status_code == 401
    report = client.get("/ops/audit", headers=admin()).get_json()
    assert report["runs"] == 1 and report["games_checked"] == 3
    assert report["mismatches"] == len(logged) >= 2
    assert report["last_run"]["mismatches"] == len(logged)
    assert {m["game_id"] for m in report["recent"]} == {lying, tampered}
