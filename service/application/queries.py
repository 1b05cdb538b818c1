"""Queries: pages of a game's event log, waiting for new events, the states right after
past events, listing games, and an audit of the snapshot cache. Nothing here writes,
apart from listing's repair of index entries that disagree with their game."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from service.application.mapper import EventMapper, GameInfo, StoredEvent, game_info
from service.application.repository import GameRepository, LoadedGame, replay
from service.errors import StoreUnavailable
from service.store.port import (
    GAME_ID_PATTERN,
    STATUSES,
    EventStore,
    EventWatch,
    RecordedEvent,
    SnapshotStore,
    index_filters,
    index_member,
)

MAX_PAGE = 200
# An index entry with no game behind it is left alone this long: its creation may be under
# way (the index is written first). Older ones are creations that never completed.
CREATION_GRACE_MS = 60_000
# A listing cursor as list_games makes it (``index_member``): creation time (ms, 15
# digits), a colon, a game id.
_CURSOR = re.compile(rf"[0-9]{{15}}:{GAME_ID_PATTERN}")


@dataclass(frozen=True)
class SnapshotMismatch:
    """A cached snapshot that differs from the full fold at its version."""

    version: int
    reason: str


class GameWatch:
    """``EventStore.watch`` for the application: the new events of many games at once (a
    server process's follower of live streams, ``service.api.fanout``), read as records and
    decoded game by game, so that one game's undecodable event fails that game alone."""

    def __init__(self, watch: EventWatch, mapper: EventMapper) -> None:
        self._watch = watch
        self._mapper = mapper
        self.shared = watch.shared  # False: one game per read

    def read(
        self, after: Mapping[str, int], timeout_s: float, *, limit: int
    ) -> dict[str, list[RecordedEvent]]:
        """Each game's records after its version (``after``), at most ``limit``; games with
        none are left out. Blocks up to ``timeout_s`` until one has an event, or until
        ``interrupt``."""
        return self._watch.read(after, timeout_s, limit=limit)

    def decode(self, kind: str, records: Sequence[RecordedEvent]) -> list[StoredEvent]:
        """A game's records (of ``kind``) as its events."""
        return [self._mapper.decode(kind, r) for r in records]

    def interrupt(self) -> bool:
        return self._watch.interrupt()

    def close(self) -> None:
        self._watch.close()


class GameQueries:
    def __init__(  # noqa: PLR0917 (the collaborators of the read side)
        self,
        store: EventStore,
        snapshots: SnapshotStore | None,
        games: Mapping[str, GameRules[Any, Any, Any]],
        repository: GameRepository,
        mapper: EventMapper,
        clock: Callable[[], datetime],
    ) -> None:
        self._store = store
        self._snapshots = snapshots
        self._games = games
        self._repository = repository
        self._mapper = mapper
        self._clock = clock

    def game_info(self, game_id: str) -> GameInfo:
        return game_info(self._repository.record(game_id))

    def events(
        self,
        game_id: str,
        after_version: int = 0,
        limit: int | None = None,
        *,
        game: LoadedGame | None = None,
    ) -> list[StoredEvent]:
        """Events after ``after_version``, oldest first, at most ``limit``. ``game``: the
        game as the caller just loaded it, which spares reading its info."""
        kind = self.game_info(game_id).kind if game is None else game.kind
        if after_version < 0:
            raise FormatError(f"after_version must be >= 0, not {after_version}", "after_version")
        if limit is not None and limit < 1:
            raise FormatError(f"limit must be >= 1, not {limit}", "limit")
        records = self._store.read(game_id, after_version, limit)
        return [self._mapper.decode(kind, r) for r in records]

    def wait_for_events(
        self,
        game_id: str,
        after_version: int,
        timeout_s: float,
        *,
        game: LoadedGame | None = None,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        """``events`` once there is one, waiting up to ``timeout_s``. ``game``: the game as
        the caller just loaded it, which spares reading its info; ``limit``: at most this
        many events (1 for a caller that only needs to wake up)."""
        kind = self.game_info(game_id).kind if game is None else game.kind
        records = self._store.wait(game_id, after_version, timeout_s, limit=limit)
        return [self._mapper.decode(kind, r) for r in records]

    def watch(self) -> GameWatch:
        """A blocking read of many games' new events at once (see ``GameWatch``)."""
        return GameWatch(self._store.watch(), self._mapper)

    def states_after(
        self, game: LoadedGame, events: Sequence[StoredEvent], versions: set[int]
    ) -> dict[int, Any]:
        """The state right after each of ``versions``, all of them versions of ``events``
        (consecutive, oldest first): one time-travel load to the first, then one fold on
        through ``events`` — not one load per version."""
        if not versions:
            return {}
        first, last = min(versions), max(versions)
        state = self._repository.get_at(game.game_id, first).state
        states = {first: state}
        for event in events:
            if first < event.version <= last:
                state = self._repository.fold_onto(game.game_id, game.rules, state, [event])
                states[event.version] = state
        return {v: states[v] for v in versions}

    def list_games(
        self,
        *,
        kind: str | None = None,
        status: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> tuple[list[GameInfo], str | None]:
        """Games newest first, filtered by kind and status; and the cursor of the next
        page (None at the end). The cursor is opaque to callers."""
        if not 1 <= limit <= MAX_PAGE:
            raise FormatError(f"limit must be 1..{MAX_PAGE}, not {limit}", "limit")
        if cursor is not None and not _CURSOR.fullmatch(cursor):
            # Never read as "from the start": a mangled cursor would silently repeat page one.
            raise FormatError("malformed cursor: pass a next_cursor back unchanged", "cursor")
        if status is not None and status not in STATUSES:
            raise FormatError(f"unknown status {status!r}", "status")
        # One index per filter (``index_filters``): a page costs O(limit), plus the few
        # entries that listing finds stale and repairs on the way (see ``_stale``).
        found: list[GameInfo] = []
        now_ms = int(self._clock().timestamp() * 1000)
        while True:
            entries, next_cursor = self._store.list_index(
                cursor, limit - len(found), kind=kind, status=status
            )
            records = self._store.infos([game_id for _, game_id in entries])  # one round trip
            for (created_ms, game_id), record in zip(entries, records, strict=True):
                info = None if record is None else game_info(record)
                if self._stale(game_id, created_ms, info, kind, status, now_ms):
                    continue
                assert info is not None
                found.append(info)
                if len(found) == limit:
                    # More may follow: resume after this game.
                    return found, index_member(created_ms, game_id)
            if next_cursor is None:
                return found, None
            cursor = next_cursor

    def _stale(  # noqa: PLR0917 (one entry of a listing page)
        self,
        game_id: str,
        created_ms: int,
        info: GameInfo | None,
        kind: str | None,
        status: str | None,
        now_ms: int,
    ) -> bool:
        """True if a listing's index entry does not describe its game; repairs the indexes.

        - No game behind the entry: its creation was indexed first and never written (or is
          being written now). Entries older than ``CREATION_GRACE_MS`` are removed.
        - A game whose status is not the index's: a status change moves a game between
          indexes in three steps (add to the new status's indexes, append, remove from the
          old ones), since the indexes may live on another Redis Cluster slot than the game.
          A process that died between the steps leaves it in both; listing moves it.
        """
        if info is None:
            if now_ms - created_ms > CREATION_GRACE_MS:
                filters = {f for k in self._games for st in STATUSES for f in index_filters(k, st)}
                with contextlib.suppress(StoreUnavailable):
                    self._store.unindex_game(game_id, created_ms, sorted(filters, key=str))
            return True
        if status is not None and info.status != status:
            with contextlib.suppress(StoreUnavailable):
                self._store.index_game(game_id, created_ms, kind=info.kind, status=info.status)
                self._store.unindex_game(game_id, created_ms, [(None, status), (info.kind, status)])
            return True
        return kind is not None and info.kind != kind  # never true for a sound index

    def check_snapshots(self, game_id: str) -> list[SnapshotMismatch]:
        """Compare every cached snapshot of the game with a full fold (no snapshots)."""
        if self._snapshots is None:
            return []
        record = self._repository.record(game_id)
        rules = self._games[record.fields["kind"]]
        stored = [self._mapper.decode(rules.kind, r) for r in self._store.read(game_id)]
        states: dict[int, Any] = {}
        state: Any = None
        for n in range(len(stored)):
            state, _ = replay(
                rules,
                stored[n : n + 1],
                base_state=state,
                base_version=n,
                state_at=states.__getitem__,
            )
            states[n + 1] = state
        mismatches: list[SnapshotMismatch] = []
        for version in self._snapshots.versions(game_id):
            snapshot = self._snapshots.get(game_id, version)
            if snapshot is None:
                continue
            if version not in states:
                mismatches.append(SnapshotMismatch(version, "beyond the end of the stream"))
                continue
            # Compared as states: a snapshot written by an older (still readable) version of
            # the position format dumps differently but may hold the same position.
            try:
                cached = rules.load_position(snapshot.position)
            except FormatError:
                mismatches.append(SnapshotMismatch(version, "unreadable"))
                continue
            if rules.dump_position(cached) != rules.dump_position(states[version]):
                mismatches.append(SnapshotMismatch(version, "differs from the full fold"))
        return mismatches
