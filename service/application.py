"""The application service: the only writer of game streams.

Implements the interface agreed with the HTTP layer (notes/app_service_interface.md).
Additions to it, all backwards compatible:

- ``GameInfo`` also has ``game_id``, ``version``, ``updated_at``, ``start_version`` (the
  version of the initial position, i.e. the number of start events) and ``created_ms``.
- ``LoadedGame`` also has ``snapshot_version`` (the snapshot the load started from; 0 if none).
- ``VersionNotFound`` (a ``LookupError``) for versions outside ``1..current``; ``GameExists``
  (a ``ConcurrencyError``) when ``create_game`` is given a taken ``game_id``.
- ``StoredEvent.stream_id`` is ``"<version>-0"``: stream entries carry their version as id.
- ``list_games`` lists newest first; the cursor is opaque.
- ``check_snapshots`` compares every cached snapshot of a game with a full fold.
- ``check_revert_target`` (public, so the HTTP layer can refuse an undo request early) raises
  ``RevertNotAllowed`` (a ``FormatError``); ``events``/``wait_for_events`` take the ``game``
  just loaded, to spare another read of its info.

Flow of a command: decode it (the caller's seat is put in) → answer from the
idempotency record if the key was used → load (snapshot + events since) →
``rules.decide`` → append with the expected version, atomically with the
idempotency record and the game's status → evolve → maybe snapshot.
With the per-process cache, ``handle`` first tries the cached copy without any read:
the append's version check (and the script's own idempotency check) make that safe,
so a command is usually one Redis round trip; any refusal retries on the path above.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain.common.codec import TypeRegistry
from domain.common.errors import FormatError, RulesError
from domain.common.protocol import GameRules
from service.config import DEFAULT_IDEMPOTENCY_TTL_S, StoreSettings
from service.errors import (
    ConcurrencyError,
    GameExists,
    GameNotFound,
    IdempotencyConflict,
    RevertNotAllowed,
    StoreUnavailable,
    VersionNotFound,
)
from service.events import (
    SERVICE_EVENTS,
    SERVICE_KIND,
    GameReverted,
    ServiceEvent,
    UndoAnswered,
    UndoRequested,
)
from service.seats import derived_tokens, hash_token, new_salt, new_tokens
from service.store.connect import StoreConnection, connect
from service.store.port import (
    GAME_ID_PATTERN,
    STATUSES,
    AppendResult,
    EventStore,
    GameRecord,
    Idempotency,
    NewEvent,
    RecordedEvent,
    Snapshot,
    SnapshotStore,
    check_game_id,
    index_filters,
    index_member,
    is_game_id,
)
from service.store.replay import replay

MAX_PAGE = 200
# An index entry with no game behind it is left alone this long: its creation may be under
# way (the index is written first). Older ones are creations that never completed.
CREATION_GRACE_MS = 60_000
# A listing cursor as list_games makes it: creation time (ms, 15 digits), a colon, a game id.
_CURSOR = re.compile(rf"[0-9]{{15}}:{GAME_ID_PATTERN}")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class CommandMeta:
    """What the caller knows about a request; time enters here."""

    command_id: str
    actor: str  # "seat:0".."seat:3", "admin", "system"
    seat: int | None
    correlation_id: str | None = None
    causation_id: str | None = None
    recorded_at: str | None = None  # ISO-8601 UTC; filled from the service clock if None


@dataclass(frozen=True)
class StoredEvent:
    """One envelope read back from the stream, upcast to the current schema version."""

    game_id: str
    version: int
    stream_id: str
    type: str
    schema_version: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    event: object  # a domain event, or a service event (GameReverted, ...)


@dataclass(frozen=True)
class GameInfo:
    game_id: str
    kind: str
    seat_names: tuple[str, ...]
    options: dict[str, Any]
    created_at: str
    status: str  # "active" | "over"
    version: int
    updated_at: str
    start_version: int
    created_ms: int
    # (version of a GameReverted, the version it went back to), oldest first; None for a
    # game stored before the service kept them (then they are found by reading the log)
    reverts: tuple[tuple[int, int], ...] | None = ()


@dataclass(frozen=True)
class LoadedGame:
    game_id: str
    kind: str
    rules: GameRules[Any, Any, Any]
    state: Any
    version: int
    info: GameInfo
    snapshot_version: int = 0


@dataclass(frozen=True)
class CreatedGame:
    """A new game with its seats' tokens (index = seat); ``replayed``: an earlier attempt
    with the same idempotency key had created it."""

    game: LoadedGame
    tokens: tuple[str, ...]
    replayed: bool


@dataclass(frozen=True)
class CommandOutcome:
    game: LoadedGame
    events: list[StoredEvent]
    replayed: bool


@dataclass(frozen=True)
class SnapshotMismatch:
    """A cached snapshot that differs from the full fold at its version."""

    version: int
    reason: str


def command_hash(kind: str, command_json: Mapping[str, Any], actor: str) -> str:
    """What "the same command" means for idempotency: same game kind, actor and command."""
    canonical = json.dumps(
        {"kind": kind, "actor": actor, "command": command_json},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _default_games() -> Mapping[str, GameRules[Any, Any, Any]]:
    from domain.games import all_games

    return all_games()


class GameService:
    def __init__(
        self,
        store: EventStore,
        snapshots: SnapshotStore | None = None,
        games: Mapping[str, GameRules[Any, Any, Any]] | None = None,
        clock: Callable[[], datetime] = utc_now,
        *,
        snapshot_every: int = 50,
        idempotency_ttl_s: int = DEFAULT_IDEMPOTENCY_TTL_S,
        cache_size: int = 0,
    ) -> None:
        self.store = store
        self.snapshots = snapshots
        self.games = dict(games) if games is not None else dict(_default_games())
        self.clock = clock
        self.snapshot_every = snapshot_every
        self.idempotency_ttl_s = idempotency_ttl_s
        # The latest loaded game per id, in this process. A state at a version never
        # changes (the stream is append-only, reverts are events too), and every load
        # reads the stream's current version first, so a process whose copy is behind
        # (another process appended) folds afresh: several processes stay correct.
        # Next to each game: the newest snapshot version known, so that a game past
        # ``snapshot_every`` does not ask the snapshot store again on every command.
        self.cache_size = cache_size
        self._cache: OrderedDict[str, tuple[LoadedGame, int]] = OrderedDict()
        self._cache_lock = threading.Lock()

    # ------------------------------------------------------------------ writes
    def create_game(  # noqa: PLR0917 (the agreed interface)
        self,
        kind: str,
        seat_names: Sequence[str],
        options: Mapping[str, Any],
        seed: int | None,
        meta: CommandMeta,
        game_id: str | None = None,
        *,
        token_hashes: Sequence[str] = (),
        created_ms: int | None = None,
    ) -> LoadedGame:
        """Create a game. ``token_hashes`` (one per seat) are stored in the same atomic
        write as the start events and info, so no game exists without its seats' tokens;
        the game is indexed *before* that write, so a game that answers is always listed
        (an index entry whose game never got written is dropped by ``list_games``).
        ``created_ms`` fixes the creation time (an idempotent retry keeps its first one)."""
        rules = self._rules(kind)
        game_id = uuid.uuid4().hex if game_id is None else check_game_id(game_id)
        names = tuple(seat_names)
        if not rules.min_seats <= len(names) <= rules.max_seats:
            raise FormatError(
                f"{kind} needs {rules.min_seats}-{rules.max_seats} seats, got {len(names)}",
                "seat_names",
            )
        if not all(isinstance(n, str) and n.strip() for n in names):
            raise FormatError(
                f"seat names must be non-empty strings: {list(names)!r}", "seat_names"
            )
        normalized = rules.normalize_options(options)
        if seed is None:
            seed = secrets.randbits(63)  # the seed decides the bag: unguessable
        events = rules.start(list(names), normalized, seed)
        state, _ = replay(rules, _Local.wrap(events))
        if token_hashes and len(token_hashes) != len(names):
            raise ValueError(f"{len(token_hashes)} token hashes for {len(names)} seats")
        if created_ms is None:
            created_ms = int(self.clock().timestamp() * 1000)
        created_at = datetime.fromtimestamp(created_ms / 1000, UTC).isoformat()
        status = _status(rules, state)
        info = {
            "kind": kind,
            "seat_names": json.dumps(list(names), ensure_ascii=False),
            "options": json.dumps(normalized, sort_keys=True, ensure_ascii=False),
            "created_at": created_at,
            "created_ms": str(created_ms),
            "updated_at": created_at,
            "start_version": str(len(events)),
            "status": status,
            "reverts": "[]",
        }
        envelopes = [self._envelope(rules.events, kind, e, meta, created_at) for e in events]
        self.store.index_game(game_id, created_ms, kind=kind, status=status)
        tokens = {digest: seat for seat, digest in enumerate(token_hashes)}
        try:
            result = self.store.append(game_id, envelopes, 0, info=info, seat_tokens=tokens)
        except ConcurrencyError as exc:
            raise GameExists(0, exc.actual, game_id) from None
        record = GameRecord(game_id, info, result.last)
        return LoadedGame(game_id, kind, rules, state, result.last, _game_info(record))

    def create_seated_game(  # noqa: PLR0917 (create_game's arguments)
        self,
        kind: str,
        seat_names: Sequence[str],
        options: Mapping[str, Any],
        seed: int | None,
        meta: CommandMeta,
        idempotency_key: str | None = None,
    ) -> CreatedGame:
        """Create a game and its seats' tokens (returned once; only hashes are stored).

        With an ``idempotency_key`` the creation can be retried safely: the first attempt
        records (for the idempotency TTL) the game id, the creation time and a salt from
        which the tokens are derived (``service.seats``); a retry with the same key and body
        creates that same game if no earlier attempt got that far, or answers with it, and
        its tokens, if one did. The same key with another body is an IdempotencyConflict."""
        count = len(seat_names)
        if idempotency_key is None:
            tokens = new_tokens(count)
            game = self.create_game(
                kind, seat_names, options, seed, meta, token_hashes=[hash_token(t) for t in tokens]
            )
            return CreatedGame(game, tuple(tokens), replayed=False)
        digest = command_hash(
            kind,
            {"seats": list(seat_names), "options": dict(options), "seed": seed},
            meta.actor,
        )
        proposal = {
            "hash": digest,
            "game_id": uuid.uuid4().hex,
            "created_ms": str(int(self.clock().timestamp() * 1000)),
            "salt": new_salt(),
        }
        record = self.store.reserve_creation(idempotency_key, proposal, self.idempotency_ttl_s)
        if record.get("hash") != digest:
            raise IdempotencyConflict(idempotency_key)
        game_id = record["game_id"]
        tokens = derived_tokens(record["salt"], game_id, count)
        try:
            game = self.create_game(
                kind,
                seat_names,
                options,
                seed,
                meta,
                game_id,
                token_hashes=[hash_token(t) for t in tokens],
                created_ms=int(record["created_ms"]),
            )
        except GameExists:
            return CreatedGame(self.load(game_id), tuple(tokens), replayed=True)
        return CreatedGame(game, tuple(tokens), replayed=False)

    def handle(
        self,
        game_id: str,
        command: Mapping[str, Any] | object,
        *,
        meta: CommandMeta,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandOutcome:
        cached = self._latest_cached(game_id)
        if cached is not None:
            # The fast path: decide on this process's latest copy without first reading
            # the stream's version; the append's version check proves the copy current
            # (and the script answers a known idempotency key before anything else).
            # Should the copy be behind or the command fail on it, the checked path
            # below answers as if this attempt had never been made: nothing was written.
            decoded, digest = self._command(cached.kind, command, meta)
            try:
                return self._decide_and_append(
                    cached, decoded, digest, meta, expected_version, idempotency_key
                )
            except (RulesError, ConcurrencyError):
                pass
        record = self._record(game_id)
        kind = record.fields["kind"]
        decoded, digest = self._command(kind, command, meta)
        if idempotency_key is not None:
            replayed = self._replay_if_known(game_id, idempotency_key, digest)
            if replayed is not None:
                return replayed
        try:
            # The record read above fixes the version we decide at; should the game move
            # on meanwhile, the append's version check refuses (or replays a twin).
            game = self._load(record, record.version)
            return self._decide_and_append(
                game, decoded, digest, meta, expected_version, idempotency_key
            )
        except (RulesError, ConcurrencyError):
            # A twin of this request may have been appended since the lookup above,
            # moving the game on: then the answer is the twin's outcome, not an error.
            replayed = None
            if idempotency_key is not None:
                replayed = self._replay_if_known(game_id, idempotency_key, digest)
            if replayed is None:
                raise
            return replayed

    def _command(
        self, kind: str, command: Mapping[str, Any] | object, meta: CommandMeta
    ) -> tuple[object, str]:
        """The command decoded for a ``kind`` game, and its idempotency hash."""
        rules = self.games[kind]
        if isinstance(command, Mapping):
            body = dict(command)
            if meta.seat is not None:
                body["seat"] = meta.seat  # the caller's seat, never the one claimed in the body
            decoded = rules.commands.from_json(body)
        else:
            decoded = command
        try:
            command_json = rules.commands.to_json(decoded)
        except KeyError:  # an object, but not a command of this game
            raise FormatError(f"not a {kind} command: {decoded!r}", "type") from None
        return decoded, command_hash(kind, command_json, meta.actor)

    def _decide_and_append(  # noqa: PLR0917 (one step of handle)
        self,
        game: LoadedGame,
        decoded: object,
        digest: str,
        meta: CommandMeta,
        expected_version: int | None,
        idempotency_key: str | None,
    ) -> CommandOutcome:
        self._check_expected(game, expected_version)
        rules = game.rules
        events = rules.decide(game.state, decoded)
        state = game.state
        for event in events:
            state = rules.evolve(state, event)
        recorded_at = meta.recorded_at or self.clock().astimezone(UTC).isoformat()
        envelopes = [self._envelope(rules.events, game.kind, e, meta, recorded_at) for e in events]
        return self._append(
            game=game,
            envelopes=envelopes,
            events=events,
            state=state,
            recorded_at=recorded_at,
            idempotency_key=idempotency_key,
            digest=digest,
        )

    def append_service_events(
        self,
        game_id: str,
        events: Sequence[ServiceEvent],
        *,
        meta: CommandMeta,
        expected_version: int | None,
    ) -> CommandOutcome:
        if not events:
            raise FormatError("no events to append", "events")
        game = self.load(game_id)
        self._check_expected(game, expected_version)
        for event in events:
            if not isinstance(event, GameReverted | UndoRequested | UndoAnswered):
                raise FormatError(f"not a service event: {event!r}", "events")
            if isinstance(event, GameReverted | UndoRequested):
                self.check_revert_target(game, event.to_version)
        recorded_at = meta.recorded_at or self.clock().astimezone(UTC).isoformat()
        stored = [_Local(game.version + n, e) for n, e in enumerate(events, start=1)]
        state, _ = replay(
            game.rules,
            stored,
            base_state=game.state,
            base_version=game.version,
            state_at=lambda v: self._state_at(game_id, game.rules, v),
        )
        envelopes = [
            self._envelope(SERVICE_EVENTS, SERVICE_KIND, e, meta, recorded_at) for e in events
        ]
        return self._append(
            game=game,
            envelopes=envelopes,
            events=list(events),
            state=state,
            recorded_at=recorded_at,
            idempotency_key=None,
            digest="",
        )

    def revert(
        self,
        game_id: str,
        to_version: int,
        *,
        reason: str,
        requested_by: str,
        approved_by: Sequence[str],
        meta: CommandMeta,
        expected_version: int | None,
    ) -> CommandOutcome:
        event = GameReverted(to_version, reason, requested_by, tuple(approved_by))
        return self.append_service_events(
            game_id, [event], meta=meta, expected_version=expected_version
        )

    def check_revert_target(self, game: LoadedGame, to_version: int) -> None:
        """Raise ``RevertNotAllowed`` unless ``game`` may go back to ``to_version``: after
        its setup, before its current version, and between two commands."""
        low = game.info.start_version
        if not isinstance(to_version, int) or not low <= to_version < game.version:
            raise RevertNotAllowed(
                f"can revert only to a version in {low}..{game.version - 1}, not {to_version!r}",
                "to_version",
            )
        # Only between commands: the middle of one command's events (say, after a
        # placement but before its draw) is no position a game can continue from.
        around = self.store.read_range(game.game_id, to_version, to_version + 1)
        if (
            len(around) == 2
            and around[0].metadata.get("command_id") == around[1].metadata.get("command_id")
            and not around[1].type.startswith(f"{SERVICE_KIND}.")
        ):
            raise RevertNotAllowed(
                f"version {to_version} lies inside the events of one command", "to_version"
            )

    # ------------------------------------------------------------------- reads
    def load(self, game_id: str) -> LoadedGame:
        record = self._record(game_id)
        return self._load(record, record.version)

    def load_at(self, game_id: str, version: int) -> LoadedGame:
        """Time travel: the game as it was right after its first ``version`` events."""
        record = self._record(game_id)
        if not 1 <= version <= record.version:
            raise VersionNotFound(game_id, version, record.version)
        return self._load(record, version)

    def states_after(
        self, game: LoadedGame, events: Sequence[StoredEvent], versions: set[int]
    ) -> dict[int, Any]:
        """The state right after each of ``versions``, all of them versions of ``events``
        (consecutive, oldest first): one time-travel load to the first, then one fold on
        through ``events`` — not one load per version."""
        if not versions:
            return {}
        first = min(versions)
        state = self.load_at(game.game_id, first).state
        states = {first: state}
        for event in events:
            if event.version <= first or event.version > max(versions):
                continue
            state, _ = replay(
                game.rules,
                [event],
                base_state=state,
                base_version=event.version - 1,
                state_at=lambda v: self._state_at(game.game_id, game.rules, v),
            )
            states[event.version] = state
        return {v: states[v] for v in versions}

    def events(
        self,
        game_id: str,
        after_version: int = 0,
        limit: int | None = None,
        *,
        game: LoadedGame | None = None,
    ) -> list[StoredEvent]:
        """``game``: the game as the caller just loaded it, which spares reading its info."""
        kind = self.game_info(game_id).kind if game is None else game.kind
        if after_version < 0:
            raise FormatError(f"after_version must be >= 0, not {after_version}", "after_version")
        if limit is not None and limit < 1:
            raise FormatError(f"limit must be >= 1, not {limit}", "limit")
        records = self.store.read(game_id, after_version, limit)
        return [self._decode(kind, r) for r in records]

    def wait_for_events(
        self,
        game_id: str,
        after_version: int,
        timeout_s: float,
        *,
        game: LoadedGame | None = None,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        """``game``: the game as the caller just loaded it, which spares reading its info;
        ``limit``: at most this many events (1 for a caller that only needs to wake up)."""
        kind = self.game_info(game_id).kind if game is None else game.kind
        records = self.store.wait(game_id, after_version, timeout_s, limit=limit)
        return [self._decode(kind, r) for r in records]

    def game_info(self, game_id: str) -> GameInfo:
        return _game_info(self._record(game_id))

    def list_games(
        self,
        *,
        kind: str | None = None,
        status: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> tuple[list[GameInfo], str | None]:
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
        now_ms = int(self.clock().timestamp() * 1000)
        while True:
            entries, next_cursor = self.store.list_index(
                cursor, limit - len(found), kind=kind, status=status
            )
            records = self.store.infos([game_id for _, game_id in entries])  # one round trip
            for (created_ms, game_id), record in zip(entries, records, strict=True):
                info = None if record is None else _game_info(record)
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
                filters = {f for k in self.games for st in STATUSES for f in index_filters(k, st)}
                with contextlib.suppress(StoreUnavailable):
                    self.store.unindex_game(game_id, created_ms, sorted(filters, key=str))
            return True
        if status is not None and info.status != status:
            with contextlib.suppress(StoreUnavailable):
                self.store.index_game(game_id, created_ms, kind=info.kind, status=info.status)
                self.store.unindex_game(game_id, created_ms, [(None, status), (info.kind, status)])
            return True
        return kind is not None and info.kind != kind  # never true for a sound index

    def check_snapshots(self, game_id: str) -> list[SnapshotMismatch]:
        """Compare every cached snapshot of the game with a full fold (no snapshots)."""
        if self.snapshots is None:
            return []
        record = self._record(game_id)
        rules = self.games[record.fields["kind"]]
        stored = [self._decode(rules.kind, r) for r in self.store.read(game_id)]
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
        for version in self.snapshots.versions(game_id):
            snapshot = self.snapshots.get(game_id, version)
            if snapshot is None:
                continue
            if version not in states:
                mismatches.append(SnapshotMismatch(version, "beyond the end of the stream"))
                continue
            expected = rules.dump_position(states[version])
            if snapshot.position != expected:
                mismatches.append(SnapshotMismatch(version, "differs from the full fold"))
        return mismatches

    # --------------------------------------------------------------- internals
    def _rules(self, kind: str) -> GameRules[Any, Any, Any]:
        try:
            return self.games[kind]
        except KeyError:
            raise FormatError(
                f"unknown game kind {kind!r}; known: {', '.join(sorted(self.games))}", "kind"
            ) from None

    def _record(self, game_id: str) -> GameRecord:
        if not is_game_id(game_id):
            raise GameNotFound(game_id)
        record = self.store.info(game_id)
        if record is None or record.fields.get("kind") not in self.games:
            raise GameNotFound(game_id)
        return record

    def _check_expected(self, game: LoadedGame, expected_version: int | None) -> None:
        if expected_version is not None and expected_version != game.version:
            raise ConcurrencyError(expected_version, game.version, game.game_id)

    def _replay_if_known(self, game_id: str, key: str, digest: str) -> CommandOutcome | None:
        found = self.store.lookup_idempotency(game_id, key)
        if found is None:
            return None
        recorded_hash, result = found
        if recorded_hash != digest:
            raise IdempotencyConflict(key)
        return self._outcome_of_replay(game_id, result)

    def _outcome_of_replay(self, game_id: str, result: AppendResult) -> CommandOutcome:
        game = self.load(game_id)
        events = [
            self._decode(game.kind, r)
            for r in self.store.read_range(game_id, result.first, result.last)
        ]
        return CommandOutcome(game, events, replayed=True)

    def _append(
        self,
        *,
        game: LoadedGame,
        envelopes: list[NewEvent],
        events: Sequence[object],
        state: Any,
        recorded_at: str,
        idempotency_key: str | None,
        digest: str,
    ) -> CommandOutcome:
        idempotency = (
            None
            if idempotency_key is None
            else Idempotency(idempotency_key, digest, self.idempotency_ttl_s)
        )
        status = _status(game.rules, state)
        info_fields = {"status": status, "updated_at": recorded_at}
        reverts = game.info.reverts
        new_reverts = [
            (game.version + n, event.to_version)
            for n, event in enumerate(events, start=1)
            if isinstance(event, GameReverted)
        ]
        if new_reverts and reverts is not None:
            # Kept in the game's info by the same atomic write, so that a page of the log
            # knows which events were taken back without reading the rest of the log.
            reverts = (*reverts, *new_reverts)
            info_fields["reverts"] = json.dumps([list(pair) for pair in reverts])
        before = game.info.status
        created_ms = game.info.created_ms
        if status != before:  # listed under the new status before it is true (see _stale)
            self.store.index_game(game.game_id, created_ms, kind=game.kind, status=status)
        result = self.store.append(
            game.game_id,
            envelopes,
            game.version,
            idempotency=idempotency,
            info=info_fields,
        )
        if status != before and not result.replayed:
            with contextlib.suppress(StoreUnavailable):  # stored: listing repairs the rest
                self.store.index_game(game.game_id, created_ms, kind=game.kind, status=status)
                self.store.unindex_game(
                    game.game_id, created_ms, [(None, before), (game.kind, before)]
                )
        if result.replayed:  # a concurrent twin with the same key won the race
            return self._outcome_of_replay(game.game_id, result)
        stored = [
            StoredEvent(
                game_id=game.game_id,
                version=version,
                stream_id=f"{version}-0",
                type=envelope.type,
                schema_version=envelope.schema_version,
                data=dict(envelope.data),
                metadata=dict(envelope.metadata),
                event=event,
            )
            for version, envelope, event in zip(result.versions, envelopes, events, strict=True)
        ]
        info = GameInfo(
            **{
                **game.info.__dict__,
                "status": status,
                "updated_at": recorded_at,
                "version": result.last,
                "reverts": reverts,
            }
        )
        after = LoadedGame(
            game.game_id, game.kind, game.rules, state, result.last, info, game.snapshot_version
        )
        known = max(after.snapshot_version, self._known_snapshot(after.game_id))
        self._remember(after, self._maybe_snapshot(after, known))
        return CommandOutcome(after, stored, replayed=False)

    def _envelope(
        self,
        registry: TypeRegistry[Any],
        prefix: str,
        event: object,
        meta: CommandMeta,
        recorded_at: str,
    ) -> NewEvent:
        name, schema_version, data = registry.encode(event)
        metadata = {
            "event_id": uuid.uuid4().hex,
            "command_id": meta.command_id,
            "actor": meta.actor,
            "seat": meta.seat,
            "correlation_id": meta.correlation_id or meta.command_id,
            "causation_id": meta.causation_id or meta.command_id,
            "recorded_at": meta.recorded_at or recorded_at,
        }
        return NewEvent(f"{prefix}.{name}", schema_version, data, metadata)

    def _decode(self, kind: str, record: RecordedEvent) -> StoredEvent:
        prefix, _, name = record.type.partition(".")
        registry: TypeRegistry[Any]
        if prefix == SERVICE_KIND:
            registry = SERVICE_EVENTS
        elif prefix == kind:
            registry = self.games[kind].events
        else:
            raise FormatError(f"event type {record.type!r} in a {kind} game", "type")
        event = registry.decode(name, record.schema_version, record.data)
        schema_version = record.schema_version
        data = record.data
        if schema_version != registry.version_of(event):  # upcast: re-encode at the current version
            _, schema_version, data = registry.encode(event)
        return StoredEvent(
            game_id=record.game_id,
            version=record.version,
            stream_id=record.stream_id,
            type=record.type,
            schema_version=schema_version,
            data=data,
            metadata=record.metadata,
            event=event,
        )

    def _remember(self, game: LoadedGame, known_snapshot: int) -> None:
        if self.cache_size <= 0:
            return
        with self._cache_lock:
            self._cache[game.game_id] = (game, known_snapshot)
            self._cache.move_to_end(game.game_id)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    def _latest_cached(self, game_id: str) -> LoadedGame | None:
        """This process's latest copy of the game; possibly behind the stream."""
        with self._cache_lock:
            entry = self._cache.get(game_id)
        return None if entry is None else entry[0]

    def _known_snapshot(self, game_id: str) -> int:
        with self._cache_lock:
            entry = self._cache.get(game_id)
        return 0 if entry is None else entry[1]

    def _cached(self, game_id: str, version: int) -> LoadedGame | None:
        game = self._latest_cached(game_id)
        return game if game is not None and game.version == version else None

    def _load(self, record: GameRecord, version: int) -> LoadedGame:
        game_id = record.game_id
        cached = self._cached(game_id, version)
        if cached is not None:
            return cached
        kind = record.fields["kind"]
        rules = self.games[kind]
        state, base = self._fold_to(game_id, rules, version)
        info = _game_info(record)
        game = LoadedGame(game_id, kind, rules, state, version, info, base)
        if version == record.version:
            self._remember(game, self._maybe_snapshot(game, base))
        return game

    def _state_at(self, game_id: str, rules: GameRules[Any, Any, Any], version: int) -> Any:
        return self._fold_to(game_id, rules, version)[0]

    def _fold_to(
        self, game_id: str, rules: GameRules[Any, Any, Any], version: int
    ) -> tuple[Any, int]:
        """The state after ``version`` events, from the best snapshot at or before it;
        returns ``(state, snapshot version used or 0)``."""
        base_state: Any = None
        base_version = 0
        if self.snapshots is not None:
            snapshot = self._latest_snapshot(game_id, at_most=version)
            if snapshot is not None:
                try:
                    base_state = rules.load_position(snapshot.position)
                    base_version = snapshot.version
                except FormatError:
                    pass  # an unreadable snapshot is only a cache miss
        records = self.store.read_range(game_id, base_version + 1, version)
        stored = [self._decode(rules.kind, r) for r in records]
        state, reached = replay(
            rules,
            stored,
            base_state=base_state,
            base_version=base_version,
            state_at=lambda v: self._state_at(game_id, rules, v),
        )
        if reached != version:
            raise VersionNotFound(game_id, version, reached)
        return state, base_version

    def _maybe_snapshot(self, game: LoadedGame, known: int) -> int:
        """Snapshot ``game`` unless a recent one exists; ``known`` is the newest snapshot
        version known here. Returns the newest snapshot version known afterwards."""
        if self.snapshots is None or game.version - known < self.snapshot_every:
            return known
        latest = self._latest_snapshot(game.game_id)
        if latest is not None and game.version - latest.version < self.snapshot_every:
            return latest.version
        position = game.rules.dump_position(game.state)
        try:
            self.snapshots.put(game.game_id, Snapshot(game.version, position))
        except StoreUnavailable:
            return known  # the events are stored: a command never fails for its cache
        return game.version

    def _latest_snapshot(self, game_id: str, at_most: int | None = None) -> Snapshot | None:
        """The newest snapshot at or before ``at_most``; a failing cache is a miss."""
        assert self.snapshots is not None
        try:
            return self.snapshots.latest(game_id, at_most=at_most)
        except StoreUnavailable:
            return None


@dataclass(frozen=True)
class _Local:
    """An event not yet stored, numbered for ``replay``."""

    version: int
    event: object

    @staticmethod
    def wrap(events: Sequence[object]) -> list[_Local]:
        return [_Local(n, e) for n, e in enumerate(events, start=1)]


def _status(rules: GameRules[Any, Any, Any], state: Any) -> str:
    return "over" if rules.is_over(state) else "active"


def _game_info(record: GameRecord) -> GameInfo:
    fields = record.fields
    return GameInfo(
        game_id=record.game_id,
        kind=fields["kind"],
        seat_names=tuple(json.loads(fields["seat_names"])),
        options=json.loads(fields["options"]),
        created_at=fields["created_at"],
        status=fields.get("status", "active"),
        version=record.version,
        updated_at=fields.get("updated_at", fields["created_at"]),
        start_version=int(fields.get("start_version", "1")),
        created_ms=int(fields.get("created_ms", "0")),
        reverts=_reverts(fields.get("reverts")),
    )


def _reverts(raw: str | None) -> tuple[tuple[int, int], ...] | None:
    if raw is None:
        return None
    return tuple((int(at), int(to)) for at, to in json.loads(raw))


def build_service(
    settings: StoreSettings | None = None,
    games: Mapping[str, GameRules[Any, Any, Any]] | None = None,
    clock: Callable[[], datetime] = utc_now,
    *,
    cache_size: int = 0,
    max_connections: int | None = None,
    max_wait_s: float | None = None,
    max_waiting: int | None = None,
) -> tuple[GameService, StoreConnection]:
    """A GameService on the configured Redis (embedded if no ``REDIS_URL``);
    close the returned connection on shutdown."""
    settings = StoreSettings.from_env() if settings is None else settings
    waits: dict[str, Any] = {} if max_wait_s is None else {"max_wait_s": max_wait_s}
    connection = connect(
        settings, max_connections=max_connections, max_waiting=max_waiting, **waits
    )
    service = GameService(
        connection.events,
        connection.snapshots,
        games,
        clock,
        snapshot_every=settings.snapshot_every,
        idempotency_ttl_s=settings.idempotency_ttl_s,
        cache_size=cache_size,
    )
    return service, connection
