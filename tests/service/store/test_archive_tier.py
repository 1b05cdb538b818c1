"""The archive tier on the event stores (in memory and Redis) and a local directory: a
game moves out and reads the same, is read-only, comes back for an admin; an archiving cut
short at any step leaves the game whole; the Redis residue is small."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
import zstandard

from domain.common.errors import FormatError
from domain.games import all_games
from service.application import archive_codec
from service.application.archive_tier import TieredEventStore
from service.application.game_service import ArchivePolicy, GameService
from service.application.mapper import CommandMeta, EventMapper
from service.errors import GameArchived
from service.store.archive_objects import ArchiveObjects, LocalArchiveObjects
from service.store.memory import InMemoryEventStore, InMemorySnapshotStore
from service.store.port import ARCHIVED_KEY, NewEvent
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.service.archive_games import play
from tests.service.store.pile_game import PILE

SEED = 424_242


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1500)
        return self.now


@pytest.fixture(params=["memory", "redis"])
def stores(
    request: pytest.FixtureRequest, redis_client: redis.Redis, key_prefix: str
) -> Iterator[tuple[Any, Any]]:
    if request.param == "memory":
        yield InMemoryEventStore(), InMemorySnapshotStore()
        return
    client = redis.Redis(connection_pool=redis_client.connection_pool)
    yield (
        RedisEventStore(client, prefix=key_prefix),
        RedisSnapshotStore(client, prefix=key_prefix),
    )


GAMES = {**all_games(), "pile": PILE}


def make_service(
    stores: tuple[Any, Any], objects: ArchiveObjects, clock: Clock, retention_s: int = 60
) -> GameService:
    return GameService(
        stores[0],
        stores[1],
        GAMES,
        clock=clock,
        snapshot_every=20,
        archive=objects,
        archive_policy=ArchivePolicy(retention_s=retention_s, abandoned_after_s=3600),
    )


def reads(service: GameService, game_id: str) -> dict[str, Any]:
    """What the read side gives for a game: info, state, a past state, every event."""
    game = service.repository.get(game_id)
    return {
        "info": service.queries.game_info(game_id),
        "state": game.rules.dump_position(game.state),
        "past": game.rules.dump_position(service.repository.get_at(game_id, 3).state),
        "events": service.queries.events(game_id, 0),
        "page": service.queries.events(game_id, 5, 3),
        "head": service.repository.head_of(game),
    }


def test_a_finished_game_past_retention_moves_out_and_reads_the_same(
    stores: tuple[Any, Any], tmp_path: Path
) -> None:
    clock = Clock()
    service = make_service(stores, LocalArchiveObjects(tmp_path), clock)
    game = play(service, "pile", 3, SEED)
    assert service.queries.game_info(game.game_id).status == "over"
    assert service.archiver is not None
    assert service.archiver.due(10) == []  # not yet past retention
    before = reads(service, game.game_id)
    clock.now += timedelta(seconds=61)
    assert service.archiver.due(10) == [game.game_id]
    outcome = service.archiver.archive(game.game_id)
    assert outcome.outcome == "archived" and outcome.events == game.version
    assert stores[0].read(game.game_id) == []  # nothing left in the event store
    assert service.archiver.due(10) == []
    fresh = make_service(stores, LocalArchiveObjects(tmp_path), clock)  # a cold process
    assert reads(fresh, game.game_id) == before
    assert service.archiver.archive(game.game_id).outcome == "already"


@pytest.mark.parametrize(("kind", "seats"), [("board", 2), ("cards", 4)])
def test_games_of_both_kinds_read_the_same_from_the_archive(
    stores: tuple[Any, Any], tmp_path: Path, kind: str, seats: int
) -> None:
    clock = Clock()
    service = make_service(stores, LocalArchiveObjects(tmp_path), clock)
    game = play(service, kind, seats, SEED, commands=40)
    before = reads(service, game.game_id)
    assert service.archiver is not None
    assert service.archiver.archive(game.game_id, force=True).outcome == "archived"
    fresh = make_service(stores, LocalArchiveObjects(tmp_path), clock)
    assert reads(fresh, game.game_id) == before
    # A stream of it: every event at once, then a quiet wait like a finished game's.
    assert fresh.queries.wait_for_events(game.game_id, 0, 30.0) == before["events"]
    assert fresh.queries.wait_for_events(game.game_id, game.version, 0.1) == []


def test_an_archived_game_is_read_only_until_an_admin_brings_it_back(
    stores: tuple[Any, Any], tmp_path: Path
) -> None:
    clock = Clock()
    service = make_service(stores, LocalArchiveObjects(tmp_path), clock)
    game = play(service, "board", 2, SEED, commands=12)
    assert service.archiver is not None
    assert service.archiver.archive(game.game_id).outcome == "not-due"  # active, recent
    assert service.archiver.archive(game.game_id, force=True).outcome == "archived"
    meta = CommandMeta(command_id=uuid.uuid4().hex, actor="seat:0", seat=0)
    state = service.repository.get(game.game_id)
    seat = sorted(state.rules.awaited(state.state))[0]
    legal = next(iter(state.rules.legal_commands(state.state, seat)))
    meta = CommandMeta(command_id=uuid.uuid4().hex, actor=f"seat:{seat}", seat=seat)
    with pytest.raises(GameArchived):
        service.commands.handle(game.game_id, legal, meta=meta)
    done, record = service.archiver.rehydrate(game.game_id, by="test")
    assert done and ARCHIVED_KEY not in record.fields and record.version == game.version
    assert json.loads(record.fields["rehydrations"])[0]["by"] == "test"
    outcome = service.commands.handle(game.game_id, legal, meta=meta)
    assert outcome.game.version > game.version


def test_a_game_left_for_longer_than_the_abandoned_rule_is_archived_as_it_is(
    stores: tuple[Any, Any], tmp_path: Path
) -> None:
    clock = Clock()
    service = make_service(stores, LocalArchiveObjects(tmp_path), clock)
    game = play(service, "cards", 2, SEED, commands=5)
    assert service.archiver is not None
    clock.now += timedelta(seconds=3601)
    assert service.archiver.due(10) == [game.game_id]
    assert service.archiver.archive(game.game_id).outcome == "archived"
    assert service.queries.game_info(game.game_id).status == "active"


class Crash(Exception):
    pass


class CrashingObjects(ArchiveObjects):
    """A directory whose ``step``-th operation (put, get) dies as a killed process would."""

    def __init__(self, root: Path, step: str) -> None:
        self.inner = LocalArchiveObjects(root)
        self.step = step

    def put(self, key: str, blob: bytes) -> None:
        if self.step == "put":
            self.inner.put(key, blob[: len(blob) // 2])  # a torn write: half an object
            raise Crash
        self.inner.put(key, blob)

    def get(self, key: str) -> bytes:
        if self.step == "get":
            raise Crash
        return self.inner.get(key)

    def delete(self, key: str) -> None:
        self.inner.delete(key)

    def keys(self, prefix: str = "games/") -> list[str]:
        return self.inner.keys(prefix)


@pytest.mark.parametrize("step", ["put", "get"])
def test_an_archiving_cut_short_leaves_the_game_whole_and_a_retry_completes_it(
    stores: tuple[Any, Any], tmp_path: Path, step: str
) -> None:
    clock = Clock()
    service = make_service(stores, CrashingObjects(tmp_path, step), clock)
    game = play(service, "board", 2, SEED, commands=15)
    before = reads(service, game.game_id)
    assert service.archiver is not None
    with pytest.raises(Crash):
        service.archiver.archive(game.game_id, force=True)
    assert stores[0].version(game.game_id) == game.version
    assert reads(service, game.game_id) == before
    retry = make_service(stores, LocalArchiveObjects(tmp_path), clock)
    assert retry.archiver is not None
    assert retry.archiver.archive(game.game_id, force=True).outcome == "archived"
    assert reads(retry, game.game_id) == before


def test_a_game_that_moved_on_while_it_was_written_stays_in_redis(
    stores: tuple[Any, Any], tmp_path: Path
) -> None:
    service = make_service(stores, LocalArchiveObjects(tmp_path), Clock())
    game = play(service, "board", 2, SEED, commands=4)
    assert not stores[0].archive_swap(game.game_id, game.version - 1, {ARCHIVED_KEY: "x"})
    assert stores[0].version(game.game_id) == game.version
    assert ARCHIVED_KEY not in stores[0].info(game.game_id).fields


def test_a_changed_archive_object_is_refused(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(
        (InMemoryEventStore(), InMemorySnapshotStore()), LocalArchiveObjects(tmp_path), clock
    )
    game = play(service, "board", 2, SEED, commands=10)
    records = service.store.read(game.game_id)
    info = service.store.info(game.game_id)
    assert info is not None
    mapper = EventMapper(all_games())
    blob = archive_codec.encode(game.game_id, info.fields, records, game.rules, mapper)
    assert archive_codec.decode(blob, all_games(), mapper).events == records
    payload = json.loads(zstandard.ZstdDecompressor().decompress(blob))
    payload["events"][3][2]["d"] += 1  # one event's time moved by a microsecond
    changed = zstandard.ZstdCompressor().compress(json.dumps(payload).encode())
    with pytest.raises(FormatError, match="head"):
        archive_codec.decode(changed, all_games(), mapper)


def test_events_stored_before_derived_ids_keep_their_own(tmp_path: Path) -> None:
    """Old games' random event ids, request ids and metadata of version 1 and 2 all come
    back as stored."""
    events = InMemoryEventStore()
    service = make_service(
        (events, InMemorySnapshotStore()), LocalArchiveObjects(tmp_path), Clock()
    )
    game = play(service, "cards", 2, SEED, commands=6)
    records = events.read(game.game_id)
    old = InMemoryEventStore()
    legacy = []
    for n, r in enumerate(records):
        meta = dict(r.metadata)
        if n % 3 == 0:
            meta["e"] = "A" * 22  # a random id of old
        if n % 3 == 1:
            meta = {"event_id": uuid.uuid4().hex, "command_id": "cmd", "actor": "admin"}
        legacy.append(NewEvent(r.type, r.schema_version, r.data, meta))
    info = events.info(game.game_id)
    assert info is not None
    old.append(game.game_id, legacy, 0, info=info.fields)
    stored = old.read(game.game_id)
    mapper = EventMapper(all_games())
    blob = archive_codec.encode(game.game_id, info.fields, stored, game.rules, mapper)
    assert archive_codec.decode(blob, all_games(), mapper).events == stored


def test_an_archived_game_leaves_under_a_kilobyte_in_redis(
    redis_client: redis.Redis, key_prefix: str, tmp_path: Path
) -> None:
    client = redis.Redis(connection_pool=redis_client.connection_pool)
    stores = (
        RedisEventStore(client, prefix=key_prefix),
        RedisSnapshotStore(client, prefix=key_prefix),
    )
    service = make_service(stores, LocalArchiveObjects(tmp_path), Clock())
    game = play(service, "board", 4, SEED, commands=30)
    assert service.archiver is not None
    service.archiver.archive(game.game_id, force=True)
    keys = list(client.scan_iter(match=f"{key_prefix}:{{{game.game_id}}}:*"))
    residue = sum(int(client.memory_usage(k, samples=0) or 0) for k in keys)
    assert sorted(str(k).rsplit(":", 1)[1] for k in keys) == ["info", "tokens"]
    assert residue <= 1024, residue
    assert isinstance(service.store, TieredEventStore)
