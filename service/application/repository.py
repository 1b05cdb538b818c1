"""The game repository: a game's state at its current version or any earlier one.

A load reads the game's info (which fixes the version), starts from the newest snapshot
at or before that version and folds the events since (``replay``: domain events through
``rules.evolve``, service events honoured). Snapshots are only a cache: one is written
every ``snapshot_every`` events, an unreadable or unreachable one is a miss, and a command
never fails for one.

The latest copy of each game a process loaded or appended to is kept in that process
(``GameCache``, bounded). A state at a version never changes (the stream is append-only,
reverts are events too), and every load reads the stream's current version first, so a
process whose copy is behind (another process appended) folds afresh: several processes
stay correct. The command handler may decide on the cached copy without reading anything,
because its append checks the version.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from service.application import chain
from service.application.mapper import EventMapper, GameInfo, StoredEvent, game_info
from service.application.observer import NullObserver, Observer
from service.errors import GameNotFound, StoreUnavailable, VersionNotFound
from service.events import (
    GameReverted,
    RematchCreated,
    ReservationRevoked,
    SeatClaimed,
    SeatLeft,
    SeatReserved,
    UndoAnswered,
    UndoRequested,
)
from service.store.port import EventStore, GameRecord, Snapshot, SnapshotStore, is_game_id


@dataclass(frozen=True)
class LoadedGame:
    game_id: str
    kind: str
    rules: GameRules[Any, Any, Any]
    state: Any
    version: int
    info: GameInfo
    snapshot_version: int = 0  # the snapshot the load started from; 0 if none
    # The hash of the event at ``version`` (``service.application.chain``); None when not
    # known yet (an event stored before hashes were kept): ``GameRepository.head_of``.
    head: str | None = None


class VersionedEvent(Protocol):
    @property
    def version(self) -> int: ...

    @property
    def event(self) -> object: ...


@dataclass(frozen=True)
class Numbered:
    """An event not yet stored, numbered for ``replay``."""

    version: int
    event: object


def replay(
    rules: GameRules[Any, Any, Any],
    events: Iterable[VersionedEvent],
    *,
    base_state: Any = None,
    base_version: int = 0,
    state_at: Callable[[int], Any] | None = None,
) -> tuple[Any, int]:
    """Fold ``events`` (versions ``base_version+1, ...``) onto ``base_state``.

    ``GameReverted(to_version=k)`` makes the state the state at version ``k`` (which may
    itself lie after an earlier revert: "state at k" always means the fold of the first k
    events, reverts included): answered from the states seen on the way, else by
    ``state_at(k)`` for a revert that reaches back before the base. ``UndoRequested`` /
    ``UndoAnswered`` (and ``RematchCreated``, ``SeatReserved``, ``ReservationRevoked``)
    leave the state alone; ``SeatClaimed`` and
    ``SeatLeft`` rename the seat (``rules.rename_seat``). Returns ``(state, version)``.
    """
    seen: dict[int, Any] = {}
    if base_version > 0:
        seen[base_version] = base_state
    state, version = base_state, base_version
    for stored in events:
        if stored.version != version + 1:
            raise FormatError(f"event version {stored.version} follows {version}: a gap")
        event = stored.event
        if isinstance(event, GameReverted):
            target = event.to_version
            if not 1 <= target < stored.version:
                raise FormatError(f"revert at v{stored.version} to v{target}", "to_version")
            if target in seen:
                state = seen[target]
            elif state_at is not None:
                state = state_at(target)
            else:
                raise FormatError(f"revert to v{target} reaches before the folded range")
        elif isinstance(
            event,
            UndoRequested
            | UndoAnswered
            | SeatClaimed
            | SeatLeft
            | RematchCreated
            | SeatReserved
            | ReservationRevoked,
        ):
            if state is None:
                raise FormatError("a game cannot begin with a service event")
            if isinstance(event, SeatClaimed | SeatLeft):
                state = rules.rename_seat(state, event.seat, event.name)
        else:
            state = rules.evolve(state, event)
        version = stored.version
        seen[version] = state
    return state, version


class GameCache:
    """The latest loaded game per id in this process (at most ``size``, least recently
    used dropped first), and next to each the newest snapshot version known, so that a
    game past ``snapshot_every`` does not ask the snapshot store again on every command."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._games: OrderedDict[str, tuple[LoadedGame, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> tuple[LoadedGame, int] | None:
        with self._lock:
            return self._games.get(game_id)

    def put(self, game: LoadedGame, known_snapshot: int) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._games[game.game_id] = (game, known_snapshot)
            self._games.move_to_end(game.game_id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)


class GameRepository:
    def __init__(
        self,
        store: EventStore,
        snapshots: SnapshotStore | None,
        games: Mapping[str, GameRules[Any, Any, Any]],
        mapper: EventMapper,
        *,
        snapshot_every: int,
        cache_size: int,
        observer: Observer | None = None,
    ) -> None:
        self._observer: Observer = observer or NullObserver()
        self._store = store
        self._snapshots = snapshots
        self._games = games
        self._mapper = mapper
        self.snapshot_every = snapshot_every
        self.cache = GameCache(cache_size)

    def kinds(self) -> list[str]:
        """The kinds of game this service offers."""
        return list(self._games)

    def rules(self, kind: str) -> GameRules[Any, Any, Any]:
        """The rules of a game kind this service offers; a FormatError naming the field
        ``kind`` for any other."""
        try:
            return self._games[kind]
        except KeyError:
            raise FormatError(
                f"unknown game kind {kind!r}; known: {', '.join(sorted(self._games))}", "kind"
            ) from None

    def record(self, game_id: str) -> GameRecord:
        """The game's info record as stored now (its version included); GameNotFound."""
        if not is_game_id(game_id):
            raise GameNotFound(game_id)
        record = self._store.info(game_id)
        if record is None or record.fields.get("kind") not in self._games:
            raise GameNotFound(game_id)
        return record

    def get(self, game_id: str) -> LoadedGame:
        """The game at its current version."""
        record = self.record(game_id)
        return self.at(record, record.version)

    def get_at(self, game_id: str, version: int) -> LoadedGame:
        """Time travel: the game as it was right after its first ``version`` events."""
        record = self.record(game_id)
        if not 1 <= version <= record.version:
            raise VersionNotFound(game_id, version, record.version)
        return self.at(record, version)

    def past(self, current: LoadedGame, version: int) -> LoadedGame:
        """Time travel from ``current`` (just loaded): the game right after its first
        ``version`` events, its info that of ``current`` (no second read of it)."""
        if not 1 <= version <= current.version:
            raise VersionNotFound(current.game_id, version, current.version)
        if version == current.version:
            return current
        state, base, head = self._fold_to(current.game_id, current.rules, version)
        return LoadedGame(
            current.game_id, current.kind, current.rules, state, version, current.info, base, head
        )

    def at(self, record: GameRecord, version: int) -> LoadedGame:
        """The game of ``record`` (just read) at ``version``; remembered if current."""
        game_id = record.game_id
        cached = self.cached(game_id)
        if cached is not None and cached.version == version:
            return cached
        kind = record.fields["kind"]
        rules = self._games[kind]
        state, base, head = self._fold_to(game_id, rules, version)
        game = LoadedGame(game_id, kind, rules, state, version, game_info(record), base, head)
        if version == record.version:
            self.remember(game)
        return game

    def cached(self, game_id: str) -> LoadedGame | None:
        """This process's latest copy of the game; possibly behind the stream."""
        entry = self.cache.get(game_id)
        return None if entry is None else entry[0]

    def remember(self, game: LoadedGame) -> None:
        """Keep ``game`` (current as of now) as this process's copy, snapshotting it first
        if the last snapshot is ``snapshot_every`` events old."""
        entry = self.cache.get(game.game_id)
        known = game.snapshot_version if entry is None else max(game.snapshot_version, entry[1])
        self.cache.put(game, self._maybe_snapshot(game, known))

    def catch_up(self, game: LoadedGame) -> LoadedGame:
        """``game`` (a copy that may be behind) brought up to the stream's end by reading
        and folding only the events after its version: one read of a few events instead
        of the info, a snapshot and up to ``snapshot_every`` events. The info fields an
        append changes (status, update time, revert history, version) follow from those
        events, as the appends that wrote them set them. Remembered when it moved on."""
        records = self._store.read(game.game_id, game.version)
        if not records:
            return game
        return self.advance(game, [self._mapper.decode(game.kind, r) for r in records])

    def advance(self, game: LoadedGame, stored: Sequence[StoredEvent]) -> LoadedGame:
        """``game`` folded on through ``stored``, the events right after its version just
        read from the stream (as ``catch_up`` does after its read); remembered. Only the
        info fields an append of game events changes follow: a caller whose events include
        the service's own (a claim, a reservation, ...) loads the game again instead."""
        if not stored:
            return game
        if stored[0].version != game.version + 1:
            raise FormatError(f"event version {stored[0].version} follows {game.version}")
        version = stored[-1].version
        head = stored[-1].metadata.get(chain.HASH_KEY)
        held = self.cached(game.game_id)
        if held is not None and held.version == version and head and held.head == head:
            # This process holds the game at that version already (it appended those events
            # itself, or another reader folded them), and its last event's hash is the one
            # just read: the same game, with no fold.
            return held
        rules = game.rules
        state = self.fold_onto(game.game_id, rules, game.state, stored)
        reverts = game.info.reverts
        if reverts is not None:
            reverts = (
                *reverts,
                *(
                    (s.version, s.event.to_version)
                    for s in stored
                    if isinstance(s.event, GameReverted)
                ),
            )
        changed = {
            "status": "over" if rules.is_over(state) else "active",
            "updated_at": stored[-1].metadata.get("recorded_at") or game.info.updated_at,
            "version": version,
            "reverts": reverts,
        }
        info = GameInfo(**{**game.info.__dict__, **changed})
        caught = LoadedGame(
            game.game_id,
            game.kind,
            rules,
            state,
            version,
            info,
            game.snapshot_version,
            head if isinstance(head, str) else None,
        )
        self._observer.game_load("catch_up")
        latest = self.cached(game.game_id)
        if latest is None or latest.version <= version:
            # Not over a copy already further on (a command appended here while a stream's
            # follower folded older events): the next command would start from behind.
            self.remember(caught)
        return caught

    def state_at(self, game_id: str, rules: GameRules[Any, Any, Any], version: int) -> Any:
        return self._fold_to(game_id, rules, version)[0]

    def head_of(self, game: LoadedGame) -> str:
        """The hash of ``game``'s event at its version: ``game.head``, else computed over
        the log (a game whose events were stored before hashes were kept)."""
        if game.head is not None:
            return game.head
        records = self._store.read_range(game.game_id, 1, game.version)
        decoded = [self._mapper.decode(game.kind, r) for r in records]
        start = self.genesis_of(game, decoded[0].metadata if decoded else None)
        hashes = chain.links(
            start,
            (
                (r.version, r.type, r.schema_version, r.data, d.metadata)
                for r, d in zip(records, decoded, strict=True)
            ),
        )
        return hashes[-1]

    @staticmethod
    def genesis_of(game: LoadedGame, first: Mapping[str, Any] | None) -> str:
        """The genesis of ``game``'s chain, from the seat names it was created with (the
        ``CreateGame`` command in ``first``, its first event's full metadata), never from
        its current names, which a claim in the lobby changes."""
        info = game.info
        seats = chain.creation_seats(first, info.seat_names)
        return chain.genesis(game.game_id, game.kind, seats, info.options)

    def fold_onto(
        self,
        game_id: str,
        rules: GameRules[Any, Any, Any],
        state: Any,
        events: Sequence[VersionedEvent],
    ) -> Any:
        """``state`` (at the version before the first of ``events``) folded on through
        ``events`` (``StoredEvent``s or ``Numbered``); a revert reaching further back is
        answered by a load at its target."""
        if not events:
            return state
        folded, _ = replay(
            rules,
            events,
            base_state=state,
            base_version=events[0].version - 1,
            state_at=lambda v: self.state_at(game_id, rules, v),
        )
        return folded

    def _fold_to(
        self, game_id: str, rules: GameRules[Any, Any, Any], version: int
    ) -> tuple[Any, int, str | None]:
        """The state after ``version`` events, from the best snapshot at or before it;
        returns ``(state, snapshot version used or 0, hash of the event at version)``
        (the event at the snapshot's version is read too, for its hash)."""
        base_state: Any = None
        base_version = 0
        if self._snapshots is not None:
            snapshot = self._latest_snapshot(game_id, at_most=version)
            if snapshot is not None:
                try:
                    base_state = rules.load_position(snapshot.position)
                    base_version = snapshot.version
                except FormatError:
                    pass  # an unreadable snapshot is only a cache miss
        self._observer.game_load("snapshot" if base_version else "events")
        records = self._store.read_range(game_id, max(base_version, 1), version)
        stored = [self._mapper.decode(rules.kind, r) for r in records]
        head = stored[-1].metadata.get(chain.HASH_KEY) if stored else None
        if base_version > 0 and stored and stored[0].version == base_version:
            stored = stored[1:]
        state, reached = replay(
            rules,
            stored,
            base_state=base_state,
            base_version=base_version,
            state_at=lambda v: self.state_at(game_id, rules, v),
        )
        if reached != version:
            raise VersionNotFound(game_id, version, reached)
        return state, base_version, head if isinstance(head, str) else None

    def _maybe_snapshot(self, game: LoadedGame, known: int) -> int:
        """Snapshot ``game`` unless a recent one exists; ``known`` is the newest snapshot
        version known here. Returns the newest snapshot version known afterwards."""
        if self._snapshots is None or game.version - known < self.snapshot_every:
            return known
        latest = self._latest_snapshot(game.game_id)
        if latest is not None and game.version - latest.version < self.snapshot_every:
            return latest.version
        position = game.rules.dump_position(game.state)
        try:
            self._snapshots.put(game.game_id, Snapshot(game.version, position))
        except StoreUnavailable:
            return known  # the events are stored: a command never fails for its cache
        return game.version

    def _latest_snapshot(self, game_id: str, at_most: int | None = None) -> Snapshot | None:
        """The newest snapshot at or before ``at_most``; a failing cache is a miss."""
        assert self._snapshots is not None
        try:
            return self._snapshots.latest(game_id, at_most=at_most)
        except StoreUnavailable:
            return None
