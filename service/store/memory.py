"""In-memory adapters of the event store, snapshot, token, webhook and audit log ports.

For fast unit tests and demos; they pass the same contract suites as the Redis
adapters. One lock makes every append atomic; a condition wakes waiting readers.
Nothing survives the process.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from service.errors import ConcurrencyError, GameArchived, IdempotencyConflict
from service.store.port import (
    APPLIED,
    ARCHIVED_FIELDS,
    ARCHIVED_KEY,
    ARCHIVED_VERSION,
    COUNTED,
    OUT_OF_ORDER,
    REBUILDING,
    STALE,
    AppendResult,
    AuditLog,
    AuditRun,
    AuditSummary,
    EventStore,
    EventWatch,
    FeedEntry,
    GameRecord,
    Idempotency,
    NewEvent,
    PlayerFeedStore,
    PlayerRating,
    PlayerRecord,
    PlayerStore,
    RatedGame,
    RatingHistoryEntry,
    RatingStore,
    RecordedEvent,
    Snapshot,
    SnapshotStore,
    Subscription,
    TokenStore,
    TooManyWebhooks,
    WebhookStore,
    check_append,
    check_game_id,
    check_player_id,
    index_filters,
    index_member,
    parse_member,
)


@dataclass
class _Game:
    events: list[RecordedEvent] = field(default_factory=list)
    info: dict[str, str] = field(default_factory=dict)
    # key -> (command hash, first, last, expiry on the monotonic clock)
    idempotency: dict[str, tuple[str, int, int, float]] = field(default_factory=dict)


class InMemoryTokenStore(TokenStore):
    """Seat tokens (written by the ``InMemoryEventStore`` that owns this store, with a
    game's creation) and stream tickets, which expire on the monotonic clock."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._seats: dict[str, dict[str, int]] = {}  # game id -> token hash -> seat
        self._tickets: dict[tuple[str, str], tuple[str, float]] = {}  # -> (holder, expiry)
        self._lock = threading.Lock()
        self._monotonic = monotonic

    def add_seats(self, game_id: str, seat_tokens: Mapping[str, int]) -> None:
        """For the event store's creating append (under its lock, so as atomic as it)."""
        with self._lock:
            self._seats.setdefault(game_id, {}).update(seat_tokens)

    def seat_of(self, game_id: str, token_hash: str) -> int | None:
        check_game_id(game_id)
        with self._lock:
            return self._seats.get(game_id, {}).get(token_hash)

    def hashes_of(self, game_id: str, seat: int) -> list[str]:
        check_game_id(game_id)
        with self._lock:
            return sorted(h for h, s in self._seats.get(game_id, {}).items() if s == seat)

    def put_ticket(self, game_id: str, ticket_hash: str, holder: str, ttl_s: int) -> None:
        check_game_id(game_id)
        with self._lock:
            self._tickets[game_id, ticket_hash] = (holder, self._monotonic() + ttl_s)

    def ticket_holder(self, game_id: str, ticket_hash: str) -> str | None:
        check_game_id(game_id)
        with self._lock:
            found = self._tickets.get((game_id, ticket_hash))
            if found is None:
                return None
            holder, expiry = found
            if expiry <= self._monotonic():
                del self._tickets[game_id, ticket_hash]
                return None
            return holder


class InMemoryEventStore(EventStore):
    """``tokens``: the token store that its appends (creations, claims) write seat tokens to."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.tokens = InMemoryTokenStore(monotonic)
        self._games: dict[str, _Game] = {}
        # (kind, status) filter (None = any) -> index members
        self._indexes: dict[tuple[str | None, str | None], set[str]] = {}
        self._creations: dict[str, tuple[dict[str, str], float]] = {}
        self._activity: dict[bool, dict[str, int]] = {True: {}, False: {}}  # over? -> id -> ms
        self._migrated = False
        self._changed = threading.Condition()
        self._monotonic = monotonic

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
        check_append(game_id, events, expected_version, seat_tokens)
        with self._changed:
            game = self._games.get(game_id) or _Game()
            if idempotency is not None:
                found = self._idempotency(game, idempotency.key)
                if found is not None:
                    command_hash, result = found
                    if command_hash != idempotency.command_hash:
                        raise IdempotencyConflict(idempotency.key)
                    return result
            if ARCHIVED_KEY in game.info:
                raise GameArchived(game_id)
            current = len(game.events)
            if current != expected_version:
                raise ConcurrencyError(expected_version, current, game_id)
            for offset, event in enumerate(events, start=1):
                version = current + offset
                game.events.append(
                    RecordedEvent(
                        game_id=game_id,
                        version=version,
                        stream_id=f"{version}-0",
                        type=event.type,
                        schema_version=event.schema_version,
                        data=copy.deepcopy(dict(event.data)),
                        metadata=copy.deepcopy(dict(event.metadata)),
                    )
                )
            game.info.update(info or {})
            if seat_tokens:
                self.tokens.add_seats(game_id, seat_tokens)
            last = len(game.events)
            if idempotency is not None:
                expiry = self._monotonic() + idempotency.ttl_s
                game.idempotency[idempotency.key] = (
                    idempotency.command_hash,
                    current + 1,
                    last,
                    expiry,
                )
            self._games[game_id] = game
            self._changed.notify_all()
            return AppendResult(current + 1, last)

    def _idempotency(self, game: _Game, key: str) -> tuple[str, AppendResult] | None:
        record = game.idempotency.get(key)
        if record is None:
            return None
        command_hash, first, last, expiry = record
        if expiry <= self._monotonic():
            del game.idempotency[key]
            return None
        return command_hash, AppendResult(first, last, replayed=True)

    def lookup_idempotency(self, game_id: str, key: str) -> tuple[str, AppendResult] | None:
        check_game_id(game_id)
        with self._changed:
            game = self._games.get(game_id)
            return None if game is None else self._idempotency(game, key)

    def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        check_game_id(game_id)
        with self._changed:
            events = self._games[game_id].events if game_id in self._games else []
            stop = None if limit is None else max(after_version, 0) + limit
            return [copy.deepcopy(e) for e in events[max(after_version, 0) : stop]]

    def read_range(self, game_id: str, first: int, last: int) -> list[RecordedEvent]:
        check_game_id(game_id)
        if last < first:
            return []
        with self._changed:
            events = self._games[game_id].events if game_id in self._games else []
            return [copy.deepcopy(e) for e in events[max(first, 1) - 1 : last]]

    def version(self, game_id: str) -> int:
        check_game_id(game_id)
        with self._changed:
            game = self._games.get(game_id)
            return 0 if game is None else len(game.events)

    def wait(
        self, game_id: str, after_version: int, timeout_s: float, *, limit: int | None = None
    ) -> list[RecordedEvent]:
        check_game_id(game_id)
        deadline = time.monotonic() + max(timeout_s, 0.0)
        with self._changed:
            while True:
                found = self.read(game_id, after_version)
                remaining = deadline - time.monotonic()
                if found or remaining <= 0:
                    return found if limit is None else found[:limit]
                self._changed.wait(remaining)

    def watch(self) -> EventWatch:
        return _InMemoryWatch(self)

    def info(self, game_id: str) -> GameRecord | None:
        check_game_id(game_id)
        with self._changed:
            game = self._games.get(game_id)
            if game is None:
                return None
            version = len(game.events) or int(game.info.get(ARCHIVED_VERSION, "0"))
            if version == 0:
                return None
            return GameRecord(game_id, dict(game.info), version)

    def index_game(
        self, game_id: str, created_ms: int, *, kind: str | None = None, status: str | None = None
    ) -> None:
        check_game_id(game_id)
        filters = [(None, None)] if kind is None else index_filters(kind, status)
        with self._changed:
            for key in filters:
                self._indexes.setdefault(key, set()).add(index_member(created_ms, game_id))

    def unindex_game(
        self, game_id: str, created_ms: int, filters: Sequence[tuple[str | None, str | None]]
    ) -> None:
        check_game_id(game_id)
        with self._changed:
            for key in filters:
                self._indexes.get(key, set()).discard(index_member(created_ms, game_id))

    def list_index(
        self,
        cursor: str | None,
        limit: int,
        *,
        kind: str | None = None,
        status: str | None = None,
    ) -> tuple[list[tuple[int, str]], str | None]:
        with self._changed:
            newest_first = sorted(self._indexes.get((kind, status), set()), reverse=True)
        if cursor is not None:
            newest_first = [m for m in newest_first if m < cursor]
        page = newest_first[:limit]
        next_cursor = page[-1] if len(page) == limit else None
        return [parse_member(m) for m in page], next_cursor

    def note_activity(self, game_id: str, at_ms: int, *, over: bool) -> None:
        with self._changed:
            self._activity[not over].pop(game_id, None)
            self._activity[over][game_id] = at_ms

    def forget_activity(self, game_id: str) -> None:
        with self._changed:
            for noted in self._activity.values():
                noted.pop(game_id, None)

    def due_by_activity(self, *, over: bool, until_ms: int, limit: int) -> list[str] | None:
        with self._changed:
            found = sorted((ms, g) for g, ms in self._activity[over].items() if ms <= until_ms)
        return [game_id for _, game_id in found[:limit]]

    def activity_migrated(self, mark: bool = False) -> bool:
        with self._changed:
            self._migrated = self._migrated or mark
            return self._migrated

    def archive_swap(self, game_id: str, version: int, fields: Mapping[str, str]) -> bool:
        check_game_id(game_id)
        with self._changed:
            game = self._games.get(game_id)
            if game is None or ARCHIVED_KEY in game.info or len(game.events) != version:
                return False
            game.info.update(fields)
            game.events = []
            game.idempotency = {}
            return True

    def rehydrate(
        self, game_id: str, events: Sequence[RecordedEvent], info: Mapping[str, str] | None = None
    ) -> bool:
        check_game_id(game_id)
        with self._changed:
            game = self._games.get(game_id)
            if game is None or ARCHIVED_KEY not in game.info or game.events:
                return False
            game.events = [copy.deepcopy(e) for e in events]
            for name in ARCHIVED_FIELDS:
                game.info.pop(name, None)
            game.info.update(info or {})
            self._changed.notify_all()
            return True

    def reserve_creation(self, key: str, record: Mapping[str, str], ttl_s: int) -> dict[str, str]:
        with self._changed:
            found = self._creations.get(key)
            if found is None or found[1] <= self._monotonic():
                found = (dict(record), self._monotonic() + ttl_s)
                self._creations[key] = found
            return dict(found[0])


class _InMemoryWatch(EventWatch):
    """Many games at once: the store's one condition wakes it on any append."""

    def __init__(self, store: InMemoryEventStore) -> None:
        self._store = store
        self._interrupted = False

    def read(
        self, after: Mapping[str, int], timeout_s: float, *, limit: int
    ) -> dict[str, list[RecordedEvent]]:
        for game_id in after:
            check_game_id(game_id)
        deadline = time.monotonic() + max(timeout_s, 0.0)
        changed = self._store._changed
        with changed:
            while True:
                found = {g: self._store.read(g, v, limit) for g, v in after.items()}
                found = {g: events for g, events in found.items() if events}
                remaining = deadline - time.monotonic()
                if found or remaining <= 0 or self._interrupted:
                    self._interrupted = False
                    return found
                changed.wait(remaining)

    def interrupt(self) -> bool:
        with self._store._changed:
            self._interrupted = True
            self._store._changed.notify_all()
        return True


class InMemorySnapshotStore(SnapshotStore):
    def __init__(self) -> None:
        self._snapshots: dict[str, dict[int, Snapshot]] = {}
        self._lock = threading.Lock()

    def latest(self, game_id: str, at_most: int | None = None) -> Snapshot | None:
        with self._lock:
            candidates = [
                v for v in self._snapshots.get(game_id, {}) if at_most is None or v <= at_most
            ]
            return self._snapshots[game_id][max(candidates)] if candidates else None

    def put(self, game_id: str, snapshot: Snapshot) -> None:
        check_game_id(game_id)
        with self._lock:
            self._snapshots.setdefault(game_id, {})[snapshot.version] = copy.deepcopy(snapshot)

    def versions(self, game_id: str) -> list[int]:
        with self._lock:
            return sorted(self._snapshots.get(game_id, {}))

    def get(self, game_id: str, version: int) -> Snapshot | None:
        with self._lock:
            return self._snapshots.get(game_id, {}).get(version)

    def delete(self, game_id: str) -> None:
        with self._lock:
            self._snapshots.pop(game_id, None)


class InMemoryWebhookStore(WebhookStore):
    """Subscriptions, logs and delivery locks in dicts under one lock; locks expire on the
    monotonic clock."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._subs: dict[tuple[str, str], Subscription] = {}
        self._logs: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._locks: dict[tuple[str, str], tuple[str, float]] = {}
        self._lock = threading.Lock()
        self._monotonic = monotonic

    def create(self, sub: Subscription, *, per_game: int, per_owner: int) -> None:
        with self._lock:
            game = [s for (g, _), s in self._subs.items() if g == sub.game_id]
            if len(game) >= per_game:
                raise TooManyWebhooks("game", per_game)
            if sum(s.owner == sub.owner for s in game) >= per_owner:
                raise TooManyWebhooks("token", per_owner)
            self._subs[sub.game_id, sub.sub_id] = replace(
                sub,
                status="active",
                failures=0,
                disabled_reason=None,
                batch=None,
                next_attempt_at=None,
            )

    def get(self, game_id: str, sub_id: str) -> Subscription | None:
        with self._lock:
            return self._subs.get((game_id, sub_id))

    def of_game(self, game_id: str) -> list[Subscription]:
        with self._lock:
            return sorted(
                (s for (g, _), s in self._subs.items() if g == game_id), key=lambda s: s.sub_id
            )

    def delete(self, game_id: str, sub_id: str) -> bool:
        with self._lock:
            self._logs.pop((game_id, sub_id), None)
            return self._subs.pop((game_id, sub_id), None) is not None

    def _update(self, sub: Subscription, **changes: Any) -> bool:
        key = (sub.game_id, sub.sub_id)
        current = self._subs.get(key)
        if current is None:
            return False
        self._subs[key] = replace(current, **changes)
        return True

    def enable(self, sub: Subscription) -> bool:
        with self._lock:
            current = self._subs.get((sub.game_id, sub.sub_id))
            if current is None or current.status == "active":
                return current is not None
            return self._update(
                sub, status="active", failures=0, disabled_reason=None, next_attempt_at=None
            )

    def start_batch(self, sub: Subscription, first: int, last: int) -> bool:
        with self._lock:
            return self._update(sub, batch=(first, last))

    def advance(self, sub: Subscription, version: int) -> bool:
        with self._lock:
            current = self._subs.get((sub.game_id, sub.sub_id))
            if current is None or version <= current.cursor:
                return False
            return self._update(sub, cursor=version, failures=0, batch=None, next_attempt_at=None)

    def fail(self, sub: Subscription, reason: str, max_failures: int, next_at: float) -> int:
        with self._lock:
            current = self._subs.get((sub.game_id, sub.sub_id))
            if current is None:
                return -1
            failures = current.failures + 1
            if failures >= max_failures and current.status == "active":
                disabled = (
                    f"disabled after {max_failures} failed deliveries in a row; last: {reason}"
                )
                self._update(
                    sub,
                    failures=failures,
                    status="disabled",
                    disabled_reason=disabled,
                    next_attempt_at=None,
                )
            else:
                self._update(sub, failures=failures, next_attempt_at=next_at)
            return failures

    def disable(self, sub: Subscription, reason: str) -> bool:
        with self._lock:
            return self._update(sub, status="disabled", disabled_reason=reason)

    def log(self, sub: Subscription, entry: dict[str, Any]) -> None:
        with self._lock:
            key = (sub.game_id, sub.sub_id)
            if key in self._subs:
                entries = self._logs.setdefault(key, [])
                entries.insert(0, copy.deepcopy(entry))
                del entries[self.LOG_LENGTH :]

    def deliveries(self, game_id: str, sub_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._logs.get((game_id, sub_id), []))

    def lock(self, sub: Subscription, token: str, ttl_s: int) -> bool:
        with self._lock:
            key = (sub.game_id, sub.sub_id)
            held = self._locks.get(key)
            now = self._monotonic()
            if held is not None and held[1] > now:
                return False
            self._locks[key] = (token, now + ttl_s)
            return True

    def unlock(self, sub: Subscription, token: str) -> None:
        with self._lock:
            key = (sub.game_id, sub.sub_id)
            held = self._locks.get(key)
            if held is not None and held[0] == token:
                del self._locks[key]


class InMemoryAuditLog(AuditLog):
    def __init__(self) -> None:
        self._summary = AuditSummary()
        self._lock = threading.Lock()

    def record_run(self, run: AuditRun, mismatches: Sequence[dict[str, Any]]) -> None:
        with self._lock:
            old = self._summary
            recent = tuple(copy.deepcopy(m) for m in reversed(mismatches)) + old.recent
            self._summary = AuditSummary(
                runs=old.runs + 1,
                games_checked=old.games_checked + run.games,
                mismatches=old.mismatches + run.mismatches,
                last_run=run,
                recent=recent[: self.RECENT],
            )

    def read(self) -> AuditSummary:
        with self._lock:
            return self._summary


class InMemoryPlayerStore(PlayerStore):
    def __init__(self) -> None:
        self._players: dict[str, PlayerRecord] = {}
        self._lists: dict[tuple[str, str | None], set[str]] = {}
        self._lock = threading.Lock()

    def create(self, record: PlayerRecord) -> bool:
        check_player_id(record.player_id)
        with self._lock:
            if record.player_id in self._players:
                return False
            self._players[record.player_id] = record
            return True

    def get(self, player_id: str) -> PlayerRecord | None:
        check_player_id(player_id)
        with self._lock:
            return self._players.get(player_id)

    def add_game(
        self, player_id: str, game_id: str, created_ms: int, lists: Sequence[str | None]
    ) -> None:
        check_player_id(player_id)
        check_game_id(game_id)
        with self._lock:
            for which in lists:
                self._lists.setdefault((player_id, which), set()).add(
                    index_member(created_ms, game_id)
                )

    def remove_game(
        self, player_id: str, game_id: str, created_ms: int, lists: Sequence[str | None]
    ) -> None:
        check_player_id(player_id)
        with self._lock:
            for which in lists:
                self._lists.get((player_id, which), set()).discard(
                    index_member(created_ms, game_id)
                )

    def list_games(
        self, player_id: str, which: str | None, cursor: str | None, limit: int
    ) -> tuple[list[tuple[int, str]], str | None]:
        check_player_id(player_id)
        with self._lock:
            newest_first = sorted(self._lists.get((player_id, which), set()), reverse=True)
        if cursor is not None:
            newest_first = [m for m in newest_first if m < cursor]
        page = newest_first[:limit]
        next_cursor = page[-1] if len(page) == limit else None
        return [parse_member(m) for m in page], next_cursor


@dataclass
class _KindRatings:
    ratings: dict[str, PlayerRating] = field(default_factory=dict)
    counted: dict[str, str] = field(default_factory=dict)
    last: str | None = None
    history: dict[str, list[RatingHistoryEntry]] = field(default_factory=dict)
    rebuild: tuple[str, float] | None = None  # owner, until (monotonic)


class InMemoryRatingStore(RatingStore):
    def __init__(self) -> None:
        self._kinds: dict[str, _KindRatings] = {}
        self._expected: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def _kind(self, kind: str) -> _KindRatings:
        return self._kinds.setdefault(kind, _KindRatings())

    def ratings(self, kind: str, player_ids: Sequence[str]) -> dict[str, PlayerRating]:
        with self._lock:
            found = self._kind(kind).ratings
            return {p: found[check_player_id(p)] for p in player_ids if p in found}

    def apply(self, kind: str, game: RatedGame, owner: str = "") -> str:
        check_game_id(game.game_id)
        with self._lock:
            data = self._kind(kind)
            if game.game_id in data.counted:
                return COUNTED
            held = data.rebuild
            if held is not None and held[1] > time.monotonic() and held[0] != owner:
                return REBUILDING
            if data.last is not None and data.last >= game.order:
                return OUT_OF_ORDER
            if any(data.ratings.get(c.player_id) != c.before for c in game.changes):
                return STALE
            for change in game.changes:
                data.ratings[change.player_id] = change.after
                data.history.setdefault(change.player_id, []).append(
                    RatingHistoryEntry(
                        game.game_id,
                        game.version,
                        game.ended_at,
                        change.seat,
                        change.place,
                        change.before,
                        change.after,
                    )
                )
            data.counted[game.game_id] = game.order
            data.last = game.order
            self._expected.get(kind, set()).discard(game.game_id)
            return APPLIED

    def counted(self, kind: str, game_id: str) -> bool:
        with self._lock:
            return game_id in self._kind(kind).counted

    def leaderboard(
        self, kind: str, offset: int, limit: int
    ) -> tuple[list[tuple[str, PlayerRating]], int]:
        with self._lock:
            found = self._kind(kind).ratings
            best = sorted(found.items(), key=lambda item: (item[1].ordinal, item[0]), reverse=True)
        return best[offset : offset + limit], len(best)

    def history(
        self, kind: str, player_id: str, offset: int, limit: int
    ) -> tuple[list[RatingHistoryEntry], int]:
        check_player_id(player_id)
        with self._lock:
            newest_first = list(reversed(self._kind(kind).history.get(player_id, [])))
        return newest_first[offset : offset + limit], len(newest_first)

    def expect(self, kind: str, game_id: str) -> None:
        check_game_id(game_id)
        with self._lock:
            self._expected.setdefault(kind, set()).add(game_id)

    def expected(self, kind: str, limit: int) -> list[str]:
        with self._lock:
            return sorted(self._expected.get(kind, set()))[:limit]

    def forget(self, kind: str, game_id: str) -> None:
        with self._lock:
            self._expected.get(kind, set()).discard(game_id)

    def begin_rebuild(self, kind: str, owner: str, ttl_s: int) -> bool:
        with self._lock:
            held = self._kind(kind).rebuild
            if held is not None and held[1] > time.monotonic():
                return False
            self._kinds[kind] = _KindRatings(rebuild=(owner, time.monotonic() + ttl_s))
            return True

    def end_rebuild(self, kind: str, owner: str) -> None:
        with self._lock:
            data = self._kind(kind)
            if data.rebuild is not None and data.rebuild[0] == owner:
                data.rebuild = None


class InMemoryPlayerFeedStore(PlayerFeedStore):
    def __init__(self) -> None:
        self._feeds: dict[str, list[FeedEntry]] = {}
        self._keys: dict[str, dict[str, int]] = {}
        self._last: dict[str, int] = {}
        self._projected: dict[str, int] = {}
        self._changed = threading.Condition()

    def append(
        self, player_id: str, entries: Sequence[tuple[str, dict[str, Any]]], keep: int
    ) -> list[int]:
        check_player_id(player_id)
        written: list[int] = []
        with self._changed:
            feed = self._feeds.setdefault(player_id, [])
            keys = self._keys.setdefault(player_id, {})
            for key, entry in entries:
                if key in keys:
                    continue
                seq = self._last.get(player_id, 0) + 1
                self._last[player_id] = seq
                feed.append(FeedEntry(seq, copy.deepcopy(entry)))
                keys[key] = seq
                written.append(seq)
            if written:
                del feed[: max(0, len(feed) - keep)]
                oldest = feed[0].seq if feed else 0
                for key in [k for k, seq in keys.items() if seq < oldest]:
                    del keys[key]
                self._changed.notify_all()
        return written

    def read(self, player_id: str, after: int, limit: int) -> list[FeedEntry]:
        check_player_id(player_id)
        with self._changed:
            found = [e for e in self._feeds.get(player_id, []) if e.seq > after][:limit]
        return [FeedEntry(e.seq, copy.deepcopy(e.data)) for e in found]

    def wait(self, player_id: str, after: int, timeout_s: float) -> bool:
        check_player_id(player_id)
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while self._last.get(player_id, 0) <= after:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(remaining)
            return True

    def bounds(self, player_id: str) -> tuple[int, int]:
        check_player_id(player_id)
        with self._changed:
            feed = self._feeds.get(player_id, [])
            return (feed[0].seq if feed else 0), self._last.get(player_id, 0)

    def projected(self, game_id: str) -> int:
        check_game_id(game_id)
        with self._changed:
            return self._projected.get(game_id, 0)

    def project_to(self, game_id: str, version: int) -> None:
        check_game_id(game_id)
        with self._changed:
            self._projected[game_id] = max(version, self._projected.get(game_id, 0))
