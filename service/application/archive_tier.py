"""The archive tier: finished (and abandoned) games move out of Redis into one immutable
object each (``service.application.archive_codec``), kept by an ``ArchiveObjects`` store
(a local directory or S3), and are read back through the same ports.

- ``Archiver.archive`` moves one game: it encodes the game's events, writes the object,
  reads it back and checks that it decodes (refolding the game through its rules) to the
  very events stored, and only then, in one atomic step of the event store
  (``EventStore.archive_swap``), marks the game archived and drops its events, snapshots
  and idempotency records. A crash at any point leaves the game whole in Redis (an object
  written but not swapped in is written again, identical, next time) or archived. It runs
  as an RQ job (``archive_game``), which the periodic sweep (``Archiver.due``) enqueues for
  games past retention: finished ones ``archive_retention_s`` after their last event,
  abandoned ones (open or active, no event for ``archive_abandoned_after_s``) as they are.
- ``TieredEventStore`` wraps the event store: an archived game's info record stays in
  Redis (with its listing entries and seat tokens: a few hundred bytes) and says which
  object holds its events; reads that find no events in Redis for an archived game are
  answered from the object (decoded once per process, kept in a small LRU). Appends to it
  are refused (``GameArchived``), so it is read-only.
- ``Archiver.rehydrate`` brings an archived game back into Redis for an admin (a dispute
  that needs an undo); the object stays (objects are never deleted by the service).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from service.application import archive_codec
from service.application.archive_codec import ArchivedGame
from service.application.mapper import EventMapper
from service.errors import GameNotFound
from service.store.archive_objects import (
    ArchiveObjectMissing,
    ArchiveObjects,
    ArchiveObserver,
    ArchiveUnavailable,
    NullArchiveObserver,
    object_key,
)
from service.store.port import (
    ARCHIVED_AT,
    ARCHIVED_KEY,
    ARCHIVED_VERSION,
    AppendResult,
    EventStore,
    EventWatch,
    GameRecord,
    Idempotency,
    NewEvent,
    RecordedEvent,
    Snapshot,
    SnapshotStore,
)


class ArchiveCorrupt(ArchiveUnavailable):
    """An archive object that does not match its content hash or does not decode."""


class ArchiveReader:
    """Archived games read back, decoded, verified and kept (LRU of ``cache_games``)."""

    def __init__(
        self,
        objects: ArchiveObjects,
        games: Mapping[str, GameRules[Any, Any, Any]],
        mapper: EventMapper,
        *,
        cache_games: int = 64,
        observer: ArchiveObserver | None = None,
    ) -> None:
        self.objects = objects
        self._games = games
        self._mapper = mapper
        self._size = cache_games
        self._cache: OrderedDict[str, ArchivedGame] = OrderedDict()
        self._heads: OrderedDict[str, archive_codec.ArchivedHead] = OrderedDict()
        self._lock = threading.Lock()
        self.observer: ArchiveObserver = observer or NullArchiveObserver()

    def load(self, record: GameRecord) -> ArchivedGame:
        """The game that ``record`` (its info, read just now) says is archived."""
        sha = record.fields[ARCHIVED_KEY]
        key = object_key(record.game_id, sha)
        with self._lock:
            found = self._cache.get(sha)
            if found is not None:
                self._cache.move_to_end(sha)
                return found
        started = time.perf_counter()
        try:
            blob = self.objects.get(key)
        except ArchiveObjectMissing:
            raise ArchiveCorrupt(f"archive object {key} is missing") from None
        game = self.decode(blob, sha)
        self.observer.archive_read(game.kind, time.perf_counter() - started)
        if self._size > 0:
            with self._lock:
                self._cache[sha] = game
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return game

    def first_events(self, record: GameRecord, upto: int) -> list[RecordedEvent]:
        """The first ``upto`` events of the game that ``record`` says is archived: from the
        decoded game if this process has it, else refolded only that far (a first page
        costs a part of the game, not all of it; not kept)."""
        sha = record.fields[ARCHIVED_KEY]
        if 2 * upto >= record.version:  # most of it: decode it all, once, and keep it
            return self.load(record).events[:upto]
        with self._lock:
            found = self._cache.get(sha)
        if found is not None:
            return found.events[:upto]
        key = object_key(record.game_id, sha)
        try:
            blob = self.objects.get(key)
        except ArchiveObjectMissing:
            raise ArchiveCorrupt(f"archive object {key} is missing") from None
        if archive_codec.content_hash(blob) != sha:
            raise ArchiveCorrupt(f"archive object with SHA-256 {sha} reads back otherwise")
        try:
            return archive_codec.decode(blob, self._games, self._mapper, upto=upto).events
        except (FormatError, KeyError, TypeError, ValueError) as exc:
            raise ArchiveCorrupt(f"archive object {sha} does not decode: {exc}") from exc

    def head(self, record: GameRecord) -> archive_codec.ArchivedHead:
        """The last state and event of the game that ``record`` says is archived: from
        the object without refolding it (its hash checked), or from the decoded game."""
        sha = record.fields[ARCHIVED_KEY]
        with self._lock:
            found = self._heads.get(sha)
        if found is not None:
            return found
        return self._head_of(record, sha, self._games[record.fields["kind"]])

    def _head_of(
        self, record: GameRecord, sha: str, rules: GameRules[Any, Any, Any]
    ) -> archive_codec.ArchivedHead:
        started = time.perf_counter()
        try:
            blob = self.objects.get(object_key(record.game_id, sha))
        except ArchiveObjectMissing:
            raise ArchiveCorrupt(f"archive object of {record.game_id} is missing") from None
        if archive_codec.content_hash(blob) != sha:
            raise ArchiveCorrupt(f"archive object with SHA-256 {sha} reads back otherwise")
        try:
            found = archive_codec.head(blob)
        except FormatError as exc:
            raise ArchiveCorrupt(str(exc)) from exc
        self.observer.archive_read(rules.kind, time.perf_counter() - started)
        if self._size > 0:
            with self._lock:
                self._heads[sha] = found
                while len(self._heads) > self._size:
                    self._heads.popitem(last=False)
        return found

    def decode(self, blob: bytes, sha: str) -> ArchivedGame:
        if archive_codec.content_hash(blob) != sha:
            raise ArchiveCorrupt(f"archive object with SHA-256 {sha} reads back otherwise")
        try:
            return archive_codec.decode(blob, self._games, self._mapper)
        except (FormatError, KeyError, TypeError, ValueError) as exc:
            raise ArchiveCorrupt(f"archive object {sha} does not decode: {exc}") from exc


KNOWN_ARCHIVED = 10_000  # archived game ids a process remembers (for ``wait``)
NOTED_GAMES = 50_000  # games whose last note in the due index a process remembers
RENOTE_AFTER_MAX_S = 60.0  # the due index's entries are at most this much early


def renote_after_s(retention_s: float, abandoned_after_s: float) -> float:
    """How long a process may skip noting a game's unchanged status in the due index: a
    hundredth of the shortest archiving delay, at most ``RENOTE_AFTER_MAX_S`` (a minute
    early against days of retention; a sweep reads a candidate's info before it acts)."""
    delays = [d for d in (retention_s, abandoned_after_s) if d > 0]
    return min([RENOTE_AFTER_MAX_S, *(d / 100 for d in delays)])


def is_archived(record: GameRecord | None) -> bool:
    return record is not None and ARCHIVED_KEY in record.fields


class TieredEventStore(EventStore):
    """``inner`` (Redis) for every game, and the archive for the events of archived ones."""

    def __init__(
        self, inner: EventStore, reader: ArchiveReader, *, renote_after_s: float = 0.0
    ) -> None:
        self.inner = inner
        self.reader = reader
        self._known_archived: dict[str, None] = {}  # insertion-ordered: oldest dropped
        # The due index is noted again for a game whose status is unchanged only once its
        # entry here is ``renote_after_s`` old: one Redis round trip a command spared. An
        # entry up to that much earlier than the last event is harmless, as any entry the
        # game's info contradicts: ``Archiver.due`` reads each candidate's info first.
        self.renote_after_s = renote_after_s
        self._noted: dict[str, tuple[bool, float]] = {}  # game: (over, noted at), oldest first

    def __getattr__(self, name: str) -> Any:  # the adapter's own extras (rebuild_index...)
        return getattr(self.inner, name)

    def _note(self, game_id: str, at_s: float, *, over: bool) -> None:
        """Note ``game_id``'s activity at ``at_s`` in the due index, unless this process
        noted the same status for it less than ``renote_after_s`` before ``at_s``."""
        last = self._noted.get(game_id)
        if last is not None and last[0] == over and 0 <= at_s - last[1] < self.renote_after_s:
            return
        self.inner.note_activity(game_id, int(at_s * 1000), over=over)
        self._noted.pop(game_id, None)
        self._noted[game_id] = (over, at_s)
        if len(self._noted) > NOTED_GAMES:
            self._noted.pop(next(iter(self._noted)))

    def append(
        self,
        game_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        *,
        idempotency: Idempotency | None = None,
        info: Mapping[str, str] | None = None,
        seat_tokens: Mapping[str, int] | None = None,
    ) -> AppendResult:
        if info is not None and "status" in info:
            # Noted before the append (a crash in between leaves a later time than the
            # last event's, which ``Archiver.due`` corrects; never a game left out).
            at = parse_time(info.get("updated_at") or info.get("created_at"))
            if at is not None:
                self._note(game_id, at.timestamp(), over=info["status"] == "over")
        return self.inner.append(
            game_id,
            events,
            expected_version,
            idempotency=idempotency,
            info=info,
            seat_tokens=seat_tokens,
        )

    def lookup_idempotency(self, game_id: str, key: str) -> tuple[str, AppendResult] | None:
        return self.inner.lookup_idempotency(game_id, key)

    def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        found = self.inner.read(game_id, after_version, limit)
        if found:
            return found
        record = self.inner.info(game_id)
        if record is None or not is_archived(record):
            return found
        start = max(after_version, 0)
        stop = record.version if limit is None else min(start + limit, record.version)
        return self.reader.first_events(record, stop)[start:stop]

    def read_range(self, game_id: str, first: int, last: int) -> list[RecordedEvent]:
        found = self.inner.read_range(game_id, first, last)
        if found or last < first:
            return found
        record = self.inner.info(game_id)
        if record is None or not is_archived(record):
            return found
        if first >= record.version:  # the last event only: no need to refold the game
            return [self.reader.head(record).last] if first == record.version else []
        stop = min(last, record.version)
        return self.reader.first_events(record, stop)[max(first, 1) - 1 : stop]

    def version(self, game_id: str) -> int:
        found = self.inner.version(game_id)
        if found:
            return found
        record = self.inner.info(game_id)
        return 0 if record is None else record.version

    def wait(
        self, game_id: str, after_version: int, timeout_s: float, *, limit: int | None = None
    ) -> list[RecordedEvent]:
        # A game known archived (its info was read here: a stream loads its game first)
        # is read at once; any other waits in Redis as before, no extra round trip, and is
        # looked up only when the wait found nothing (it may have been archived meanwhile).
        if game_id not in self._known_archived:
            found = self.inner.wait(game_id, after_version, timeout_s, limit=limit)
            if found:
                return found
            record = self.inner.info(game_id)
            if record is None or not is_archived(record):
                return found
            self._remember(record)
        found = self.read(game_id, after_version, limit)
        if found:
            return found
        # Caught up: nothing will come; wait as for a quiet game (no busy loop).
        return self.inner.wait(game_id, after_version, timeout_s, limit=limit)

    def watch(self) -> EventWatch:
        # An archived game gets no new events (it is read-only): the watch of the live tier.
        return self.inner.watch()

    def _remember(self, record: GameRecord | None) -> None:
        if record is not None and is_archived(record):
            self._known_archived[record.game_id] = None
            if len(self._known_archived) > KNOWN_ARCHIVED:
                self._known_archived.pop(next(iter(self._known_archived)))

    def info(self, game_id: str) -> GameRecord | None:
        record = self.inner.info(game_id)
        self._remember(record)
        return record

    def infos(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        return self.inner.infos(game_ids)

    def index_game(
        self, game_id: str, created_ms: int, *, kind: str | None = None, status: str | None = None
    ) -> None:
        self.inner.index_game(game_id, created_ms, kind=kind, status=status)

    def unindex_game(
        self, game_id: str, created_ms: int, filters: Sequence[tuple[str | None, str | None]]
    ) -> None:
        self.inner.unindex_game(game_id, created_ms, filters)

    def list_index(
        self,
        cursor: str | None,
        limit: int,
        *,
        kind: str | None = None,
        status: str | None = None,
    ) -> tuple[list[tuple[int, str]], str | None]:
        return self.inner.list_index(cursor, limit, kind=kind, status=status)

    def reserve_creation(self, key: str, record: Mapping[str, str], ttl_s: int) -> dict[str, str]:
        return self.inner.reserve_creation(key, record, ttl_s)

    def archive_swap(self, game_id: str, version: int, fields: Mapping[str, str]) -> bool:
        return self.inner.archive_swap(game_id, version, fields)

    def note_activity(self, game_id: str, at_ms: int, *, over: bool) -> None:
        self.inner.note_activity(game_id, at_ms, over=over)

    def forget_activity(self, game_id: str) -> None:
        self.inner.forget_activity(game_id)

    def due_by_activity(self, *, over: bool, until_ms: int, limit: int) -> list[str] | None:
        return self.inner.due_by_activity(over=over, until_ms=until_ms, limit=limit)

    def activity_migrated(self, mark: bool = False) -> bool:
        return self.inner.activity_migrated(mark)

    def rehydrate(
        self, game_id: str, events: Sequence[RecordedEvent], info: Mapping[str, str] | None = None
    ) -> bool:
        return self.inner.rehydrate(game_id, events, info)


REHYDRATIONS = "rehydrations"  # the info field: who brought the game back, when, from where


class TieredSnapshotStore(SnapshotStore):
    """``inner`` (Redis) for every game, and for an archived game its last state, which
    its archive object holds as it is: a cold read of its state refolds nothing."""

    def __init__(self, inner: SnapshotStore, store: EventStore, reader: ArchiveReader) -> None:
        self.inner = inner
        self._store = store
        self.reader = reader

    def latest(self, game_id: str, at_most: int | None = None) -> Snapshot | None:
        found = self.inner.latest(game_id, at_most)
        if found is not None:
            return found
        record = self._store.info(game_id)
        if record is None or not is_archived(record):
            return None
        if at_most is not None and at_most < record.version:
            return None
        return Snapshot(record.version, self.reader.head(record).position)

    def put(self, game_id: str, snapshot: Snapshot) -> None:
        self.inner.put(game_id, snapshot)

    def versions(self, game_id: str) -> list[int]:
        return self.inner.versions(game_id)

    def get(self, game_id: str, version: int) -> Snapshot | None:
        return self.inner.get(game_id, version)

    def delete(self, game_id: str) -> None:
        self.inner.delete(game_id)


@dataclass(frozen=True)
class ArchiveOutcome:
    """What ``Archiver.archive`` did: ``archived`` (now), ``already`` (was), ``not-due``,
    ``moved`` (the game changed meanwhile: tried again by a later sweep), ``missing``."""

    game_id: str
    outcome: str
    key: str | None = None
    size: int = 0
    events: int = 0


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


class Archiver:
    """Moves games into the archive tier and back (see the module docstring)."""

    def __init__(
        self,
        store: EventStore,
        snapshots: SnapshotStore | None,
        reader: ArchiveReader,
        games: Mapping[str, GameRules[Any, Any, Any]],
        mapper: EventMapper,
        *,
        clock: Callable[[], datetime],
        retention_s: int,
        abandoned_after_s: int,
    ) -> None:
        self._store = store.inner if isinstance(store, TieredEventStore) else store
        self._snapshots = snapshots
        self.reader = reader
        self._games = games
        self._mapper = mapper
        self._clock = clock
        self.retention_s = retention_s
        self.abandoned_after_s = abandoned_after_s

    def is_due(self, record: GameRecord, now: datetime | None = None) -> bool:
        """Whether ``record``'s game is past retention (finished) or abandoned."""
        if is_archived(record):
            return False
        fields = record.fields
        updated = parse_time(fields.get("updated_at") or fields.get("created_at"))
        if updated is None:
            return False
        age = (now or self._clock()) - updated
        if fields.get("status") == "over":
            return age >= timedelta(seconds=self.retention_s)
        return self.abandoned_after_s > 0 and age >= timedelta(seconds=self.abandoned_after_s)

    def due(self, limit: int, *, page: int = 500) -> list[str]:
        """Up to ``limit`` games due for archiving, oldest first within each status:
        finished games past retention, then abandoned ones. From the store's due index
        (O(log n + due)); the games stored before it existed are noted in it once, by a
        scan of the game index (``migrate_due_index``). An adapter without the index is
        scanned every time."""
        now = self._clock()
        if not self._store.activity_migrated():
            self.migrate_due_index(page=page)
        found: list[str] = []
        policies = [(True, self.retention_s)]
        if self.abandoned_after_s > 0:
            policies.append((False, self.abandoned_after_s))
        for over, after_s in policies:
            until_ms = int((now - timedelta(seconds=after_s)).timestamp() * 1000)
            # Entries the records say are not due are corrected (they leave the range),
            # and the next candidates read; bounded, should many be wrong at once.
            taken: set[str] = set()  # found here already (they stay first in the index)
            for _ in range(10):
                want = limit - len(found)
                if want <= 0:
                    break
                ids = self._store.due_by_activity(
                    over=over, until_ms=until_ms, limit=len(taken) + want
                )
                if ids is None:
                    return self.due_by_scan(limit, page=page)
                ids = [game_id for game_id in ids if game_id not in taken]
                if not ids:
                    break
                wrong = 0
                for game_id, record in zip(ids, self._store.infos(ids), strict=True):
                    if record is None:
                        self._store.forget_activity(game_id)
                        wrong += 1
                    elif self.is_due(record, now):
                        found.append(record.game_id)
                        taken.add(record.game_id)
                    else:
                        self._renote(record)
                        wrong += 1
                if wrong == 0:
                    break
        return found

    def _renote(self, record: GameRecord) -> None:
        """Correct ``record``'s entry in the due index (or take it off if archived)."""
        if is_archived(record):
            self._store.forget_activity(record.game_id)
            return
        fields = record.fields
        at = parse_time(fields.get("updated_at") or fields.get("created_at"))
        if at is not None:
            over = fields.get("status") == "over"
            self._store.note_activity(record.game_id, int(at.timestamp() * 1000), over=over)

    def migrate_due_index(self, *, page: int = 500) -> int:
        """Note every game not archived in the due index (once: the games stored before
        it existed), then mark it done; how many were noted."""
        noted = 0
        for status in ("over", "active", "open"):
            cursor: str | None = None
            while True:
                entries, cursor = self._store.list_index(cursor, page, status=status)
                for record in self._store.infos([game_id for _, game_id in entries]):
                    if record is not None and not is_archived(record):
                        self._renote(record)
                        noted += 1
                if cursor is None:
                    break
        self._store.activity_migrated(mark=True)
        return noted

    def due_by_scan(self, limit: int, *, page: int = 500) -> list[str]:
        """``due`` by a scan of every game of the statuses concerned (no due index)."""
        found: list[str] = []
        now = self._clock()
        statuses = ["over"] + (["active", "open"] if self.abandoned_after_s > 0 else [])
        for status in statuses:
            cursor: str | None = None
            while len(found) < limit:
                entries, cursor = self._store.list_index(cursor, page, status=status)
                ids = [game_id for _, game_id in entries]
                for record in self._store.infos(ids):
                    if record is not None and self.is_due(record, now):
                        found.append(record.game_id)
                        if len(found) >= limit:
                            break
                if cursor is None:
                    break
        return found

    def archive(self, game_id: str, *, force: bool = False) -> ArchiveOutcome:
        """Move ``game_id`` into the archive if it is due (or ``force``: an admin's)."""
        started = time.perf_counter()
        record = self._store.info(game_id)
        if record is None:
            return ArchiveOutcome(game_id, "missing")
        if is_archived(record):
            self._store.forget_activity(game_id)
            return ArchiveOutcome(
                game_id, "already", object_key(game_id, record.fields[ARCHIVED_KEY])
            )
        if not force and not self.is_due(record):
            return ArchiveOutcome(game_id, "not-due")
        kind = record.fields["kind"]
        rules = self._games[kind]
        records = self._store.read_range(game_id, 1, record.version)
        if len(records) != record.version:
            return ArchiveOutcome(game_id, "moved")
        blob = archive_codec.encode(game_id, record.fields, records, rules, self._mapper)
        sha = archive_codec.content_hash(blob)
        key = object_key(game_id, sha)
        self.reader.objects.put(key, blob)
        # Read back and verified before anything leaves Redis: the object decodes (through
        # the rules: every event they give is refolded) to exactly the events stored.
        back = self.reader.decode(self.reader.objects.get(key), sha)
        if back.events != records or back.info != record.fields:
            self.reader.observer.archive_failed("mismatch")
            raise ArchiveCorrupt(f"archive of {game_id} does not read back as stored")
        fields = {
            ARCHIVED_KEY: sha,
            ARCHIVED_VERSION: str(record.version),
            ARCHIVED_AT: self._clock().isoformat(),
        }
        if not self._store.archive_swap(game_id, record.version, fields):
            return ArchiveOutcome(game_id, "moved", key)
        with contextlib.suppress(Exception):  # else the next sweep finds it archived
            self._store.forget_activity(game_id)
        if self._snapshots is not None:
            # A cache: the swap dropped Redis's already; another store's may stay behind.
            with contextlib.suppress(Exception):
                self._snapshots.delete(game_id)
        self.reader.observer.archived(
            kind, record.version, len(blob), time.perf_counter() - started
        )
        return ArchiveOutcome(game_id, "archived", key, len(blob), record.version)

    def rehydrate(self, game_id: str, by: str) -> tuple[bool, GameRecord]:
        """Bring an archived game back into Redis (its events as they were, writable
        again), for ``by`` (who asked: kept in the game's info, field ``rehydrations``,
        with the time and the object it came from); whether it did, and the game's record
        as it is then. GameNotFound for an unknown game; a game that is not archived is
        left as it is."""
        record = self._store.info(game_id)
        if record is None:
            raise GameNotFound(game_id)
        done = False
        if is_archived(record):
            game = self.reader.load(record)
            history = json.loads(record.fields.get(REHYDRATIONS, "[]"))
            history.append(
                {
                    "at": self._clock().isoformat(),
                    "by": by,
                    "object": object_key(game_id, record.fields[ARCHIVED_KEY]),
                }
            )
            done = self._store.rehydrate(game_id, game.events, {REHYDRATIONS: json.dumps(history)})
            record = self._store.info(game_id)
            assert record is not None
            if done:  # in Redis again: due as by its last event, as any game
                self._renote(record)
        return done, record

    def archive_all(self, game_ids: Iterable[str]) -> list[ArchiveOutcome]:
        return [self.archive(game_id) for game_id in game_ids]
