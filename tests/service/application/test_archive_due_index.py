"""The archive tier's due index: a sweep finds the games due for archiving in a sorted set of
games by their last event's time (one for finished games, one for the others), not by
reading every game; archiving takes a game off it, rehydration puts it back; the games
stored before the index existed are noted in it by one scan, flagged done. On the Redis
adapter and the in-memory one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import redis

from service.application.archive_tier import Archiver
from service.application.game_service import ArchivePolicy, GameService
from service.store.archive_objects import LocalArchiveObjects
from service.store.memory import InMemoryEventStore
from service.store.port import EventStore, GameRecord
from service.store.redis_streams import RedisEventStore
from tests.service.archive_games import play, play_on

RETENTION = timedelta(hours=1)
ABANDONED = timedelta(days=2)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class Counting(EventStore):
    """A store adapter counting the games whose info a caller read, and the due notes."""

    read_infos = 0
    notes = 0

    def infos(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        self.read_infos += len(game_ids)
        return super().infos(game_ids)

    def note_activity(self, game_id: str, at_ms: int, *, over: bool) -> None:
        self.notes += 1
        super().note_activity(game_id, at_ms, over=over)


class CountingRedis(Counting, RedisEventStore):
    pass


class CountingMemory(Counting, InMemoryEventStore):
    pass


@pytest.fixture(params=["redis", "memory"])
def new_store(
    request: pytest.FixtureRequest, redis_client: redis.Redis, key_prefix: str
) -> Callable[[], CountingRedis | CountingMemory]:
    if request.param == "redis":
        return lambda: CountingRedis(redis_client, prefix=key_prefix)
    return CountingMemory


def tiered(store: EventStore, clock: Clock, archive: Path) -> GameService:
    return GameService(
        store,
        None,
        clock=clock,
        archive=LocalArchiveObjects(archive),
        archive_policy=ArchivePolicy(
            retention_s=int(RETENTION.total_seconds()),
            abandoned_after_s=int(ABANDONED.total_seconds()),
        ),
    )


def swept(
    store: CountingRedis | CountingMemory, tmp_path: Path
) -> tuple[CountingRedis | CountingMemory, Clock, GameService, Archiver]:
    """``store`` tiered, its due index migrated (a first sweep, nothing stored yet)."""
    clock = Clock()
    games = tiered(store, clock, tmp_path)
    assert games.archiver is not None
    games.archiver.due(1)
    return store, clock, games, games.archiver


def test_a_sweep_reads_only_the_games_due_and_archiving_takes_them_off(
    new_store: Callable[[], CountingRedis | CountingMemory], tmp_path: Path
) -> None:
    # given a finished game, an unfinished one and 12 finished later, on a fresh store
    store, clock = new_store(), Clock()
    games = tiered(store, clock, tmp_path)
    assert games.archiver is not None
    assert games.archiver.due(10) == []  # the one-time scan: nothing stored yet
    finished = play(games, "board", 2, 8)
    unfinished = play(games, "cards", 2, 5, commands=4)
    clock.now += timedelta(minutes=30)
    later = []
    for seed in range(12):
        clock.now += timedelta(seconds=1)
        later.append(play(games, "cards", 2, seed, commands=2).game_id)
    # when a sweep looks before any is due, then it reads no game's info
    store.read_infos = 0
    assert games.archiver.due(10) == []
    assert store.read_infos == 0
    # when the finished game is past retention, then it alone is due, read alone
    clock.now += RETENTION
    assert games.archiver.due(10) == [finished.game_id]
    assert store.read_infos == 1
    # when the others are abandoned too, then they are due after it, oldest first
    clock.now += ABANDONED
    assert games.archiver.due(20) == [finished.game_id, unfinished.game_id, *later]
    # when the finished game is archived, then it is off the index
    assert games.archiver.archive(finished.game_id).outcome == "archived"
    store.read_infos = 0
    assert games.archiver.due(1) == [unfinished.game_id]
    assert store.read_infos == 1
    # when it is rehydrated, then it is due again by its last event (as any game)
    done, _ = games.archiver.rehydrate(finished.game_id, "admin")
    assert done
    assert games.archiver.due(1) == [finished.game_id]


def test_a_game_stored_before_the_index_is_found_by_one_scan_then_never_scanned_again(
    new_store: Callable[[], CountingRedis | CountingMemory], tmp_path: Path
) -> None:
    # given games stored by a service without the archive tier (nothing noted)
    store, clock = new_store(), Clock()
    plain = GameService(store, None, clock=clock)
    before = play(plain, "board", 2, 8)
    games = tiered(store, clock, tmp_path)
    assert games.archiver is not None
    clock.now += RETENTION
    # when the first sweep looks, then the scan notes it, and it is due
    assert not store.activity_migrated()
    assert games.archiver.due(10) == [before.game_id]
    assert store.activity_migrated()
    # and a game stored afterwards without a note is not scanned for any more: the
    # sweep reads the index alone
    unnoted = play(plain, "board", 2, 7)
    clock.now += RETENTION
    store.read_infos = 0
    assert games.archiver.due(10) == [before.game_id]
    assert store.read_infos == 1
    assert unnoted.game_id not in games.archiver.due(10)


def test_an_entry_later_than_the_game_is_corrected_by_the_sweep(
    new_store: Callable[[], CountingRedis | CountingMemory], tmp_path: Path
) -> None:
    # given a finished game noted as over an hour later than its last event (as when an
    # append that was noted first then failed), and also noted as not over
    store, clock, games, archiver = swept(new_store(), tmp_path)
    game = play(games, "board", 2, 8)
    early = int((clock.now - ABANDONED - RETENTION).timestamp() * 1000)
    store.note_activity(game.game_id, early, over=False)  # wrongly: as long abandoned
    # when a sweep finds it in the wrong set, then it is not due, and put right
    assert archiver.due(10) == []
    clock.now += RETENTION
    assert archiver.due(10) == [game.game_id]


def test_commands_in_quick_succession_note_the_index_once_and_the_end_at_once(
    new_store: Callable[[], CountingRedis | CountingMemory], tmp_path: Path
) -> None:
    # given a game being played on the tiered store (retention an hour: an entry may be
    # renote_after_s = 36 s early)
    store, clock, games, archiver = swept(new_store(), tmp_path)
    game = play(games, "board", 2, 8, commands=3)
    # when 20 more commands come within the window, then none of them notes the index
    store.notes = 0
    game = play_on(games, game, 20)
    assert store.notes == 0
    # when one comes after it, then it is noted again, at its time
    clock.now += timedelta(seconds=37)
    game = play_on(games, game, 1)
    assert store.notes == 1
    # when the game ends within the window, then its end is noted at once (a new status)
    store.notes = 0
    game = play_on(games, game, 10_000)
    assert game.rules.is_over(game.state)
    assert store.notes == 1
    clock.now += RETENTION
    assert archiver.due(10) == [game.game_id]
