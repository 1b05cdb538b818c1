"""The storage ports: what the application service needs from storage.

An event store adapter stores, per game, an append-only sequence of envelopes numbered
from 1 (the *version* of a game is the number of envelopes in it), plus a
small info record, idempotency records and a game index. Adapters know nothing
of the domain: type names, schema versions and data are opaque here; decoding
and upcasting happen in the application's event mapper (``service.application.mapper``).
The snapshot store caches folded states; the token store answers who holds a seat token
or a stream ticket (it sees only their hashes). The webhook store keeps a game's webhook
subscriptions, their delivery state and logs; the audit log the periodic audit's counts.

Every event store and snapshot store adapter must pass
``tests/service/store/test_contract.py``; every token store adapter
``tests/service/store/test_token_contract.py``; every webhook store adapter
``tests/service/store/test_webhook_contract.py``; every audit log adapter
``tests/service/store/test_audit_contract.py``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.common.errors import FormatError
from service.config import DEFAULT_IDEMPOTENCY_TTL_S

# Game ids go into Redis keys inside a hash tag: no braces, colons or spaces. The one
# definition of a game id (the API's path converter and the listing cursor use it too).
GAME_ID_PATTERN = "[A-Za-z0-9_-]{1,64}"
_GAME_ID_RE = re.compile(GAME_ID_PATTERN)


def check_game_id(game_id: str) -> str:
    """``game_id`` if it is one (``GAME_ID_PATTERN``), else a FormatError."""
    if not is_game_id(game_id):
        raise FormatError(f"game id must be 1-64 of [A-Za-z0-9_-], not {game_id!r}", "game_id")
    return game_id


def check_append(
    game_id: str,
    events: Sequence[object],
    expected_version: int,
    seat_tokens: Mapping[str, int] | None = None,
) -> None:
    """The argument checks every adapter makes before it appends anything."""
    check_game_id(game_id)
    if not events:
        raise ValueError("append needs at least one event")
    if expected_version < 0:
        raise ValueError(f"expected_version must be >= 0, not {expected_version}")


# The info fields that mark a game as archived (``service.application.archive_tier``):
# the archive object's SHA-256 (64 hex digits, which name it: ``object_key``), the version
# archived, when (each value fits Redis's compact hash encoding: at most 64 bytes). While
# they are there the game has no events in the event store, its info record reads with the
# archived version, and appends are refused (``GameArchived``).
ARCHIVED_KEY = "archived"
ARCHIVED_VERSION = "archived_version"
ARCHIVED_AT = "archived_at"
ARCHIVED_WEBHOOKS = "archived_webhooks"  # webhook subscriptions dropped at archiving
ARCHIVED_FIELDS = (ARCHIVED_KEY, ARCHIVED_VERSION, ARCHIVED_AT)

# "open": created with open seats, not all claimed yet (no command is accepted before).
STATUSES = ("open", "active", "over")


def index_member(created_ms: int, game_id: str) -> str:
    """A game's entry in the game indexes: ordered by creation time, then id. It is also
    the listing cursor (``<15-digit created_ms>:<game_id>``)."""
    return f"{created_ms:015d}:{game_id}"


def parse_member(member: str) -> tuple[int, str]:
    created, _, game_id = member.partition(":")
    return int(created), game_id


def index_filters(kind: str, status: str | None) -> list[tuple[str | None, str | None]]:
    """The indexes a game of ``kind`` with ``status`` belongs to: every game, its kind,
    and (given a status) its status and its kind with its status."""
    filters: list[tuple[str | None, str | None]] = [(None, None), (kind, None)]
    if status is not None:
        filters += [(None, status), (kind, status)]
    return filters


def is_game_id(game_id: object) -> bool:
    return isinstance(game_id, str) and _GAME_ID_RE.fullmatch(game_id) is not None


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An envelope to append: stable type name, schema version, data, metadata."""

    type: str
    schema_version: int
    data: Mapping[str, Any]
    metadata: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An envelope as stored; ``data`` is at the schema version it was written with."""

    game_id: str
    version: int
    stream_id: str
    type: str
    schema_version: int
    data: dict[str, Any]
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Idempotency:
    """The idempotency key of a command and a hash of the command itself."""

    key: str
    command_hash: str
    ttl_s: int = DEFAULT_IDEMPOTENCY_TTL_S


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Versions ``first..last`` hold the events of this command. ``replayed`` is True when
    the idempotency key had been used for the same command already: then nothing was
    appended and ``first..last`` are the versions of the original append. ``webhooks``: how
    many webhook subscriptions the game had at that moment, when the adapter learns it with
    the append (None: unknown; a caller that needs it reads the subscriptions)."""

    first: int
    last: int
    replayed: bool = False
    webhooks: int | None = field(default=None, compare=False)

    @property
    def versions(self) -> range:
        return range(self.first, self.last + 1)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The stored info of a game: what ``create`` wrote plus status and current version."""

    game_id: str
    fields: dict[str, str] = field(default_factory=dict)
    version: int = 0


class EventStore(ABC):
    """Append-only per-game event streams with optimistic concurrency and idempotency."""

    @abstractmethod
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
        """Append ``events`` atomically if the game has exactly ``expected_version`` events.

        All or nothing: either every event is appended (versions ``expected+1..``) together
        with the idempotency record, the ``info`` fields and the seat tokens' hashes
        (``hash -> seat``, read back through the ``TokenStore``: those of the named seats
        when creating the game, ``expected_version == 0``, and that of an open seat when
        its claim is appended), or nothing changes: a game never exists without its seats'
        tokens, and a seat is claimed exactly when its claim event is stored.
        Raises ConcurrencyError on a stale version, IdempotencyConflict if the key was used
        for a different command hash; a repeated key with the same hash returns the
        original result with ``replayed=True`` and appends nothing (version not checked).
        """

    @abstractmethod
    def lookup_idempotency(self, game_id: str, key: str) -> tuple[str, AppendResult] | None:
        """``(command hash, original result)`` recorded under ``key``, if any."""

    @abstractmethod
    def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """Events with version > ``after_version``, oldest first, at most ``limit``."""

    @abstractmethod
    def read_range(self, game_id: str, first: int, last: int) -> list[RecordedEvent]:
        """Events with ``first <= version <= last`` (fewer if the game is shorter)."""

    @abstractmethod
    def version(self, game_id: str) -> int:
        """Number of events of the game (0: no such game)."""

    @abstractmethod
    def wait(
        self, game_id: str, after_version: int, timeout_s: float, *, limit: int | None = None
    ) -> list[RecordedEvent]:
        """Events after ``after_version`` (at most ``limit``); blocks up to ``timeout_s``
        until there is one."""

    def watch(self) -> EventWatch:
        """A reader of many games' new events at once, for one loop (a server process's
        follower of live streams). This default reads one game per watch, through ``wait``;
        an adapter that can wait on many games in one request returns its own."""
        return OneGameWatch(self)

    @abstractmethod
    def info(self, game_id: str) -> GameRecord | None:
        """The game's info record (None: no such game)."""

    def infos(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        """``info`` of each game, in order; an adapter may fetch them in one round trip."""
        return [self.info(game_id) for game_id in game_ids]

    @abstractmethod
    def index_game(
        self, game_id: str, created_ms: int, *, kind: str | None = None, status: str | None = None
    ) -> None:
        """Add a game to the game index (ordered by creation time) and, given its ``kind``
        (and ``status``), to the filtered indexes (``index_filters``). Adding twice changes
        nothing."""

    @abstractmethod
    def unindex_game(
        self, game_id: str, created_ms: int, filters: Sequence[tuple[str | None, str | None]]
    ) -> None:
        """Remove a game from the indexes of ``filters`` (``(kind, status)``, None = any)."""

    @abstractmethod
    def list_index(
        self,
        cursor: str | None,
        limit: int,
        *,
        kind: str | None = None,
        status: str | None = None,
    ) -> tuple[list[tuple[int, str]], str | None]:
        """``(created_ms, game_id)`` of one index, newest first, after ``cursor``; and the
        cursor of the next page (None at the end). O(log n + limit)."""

    def list_game_ids(self, cursor: str | None, limit: int) -> tuple[list[str], str | None]:
        """Game ids of the whole index, newest first, after ``cursor``; and the next cursor."""
        page, next_cursor = self.list_index(cursor, limit)
        return [game_id for _, game_id in page], next_cursor

    @abstractmethod
    def reserve_creation(self, key: str, record: Mapping[str, str], ttl_s: int) -> dict[str, str]:
        """Keep ``record`` under the creation idempotency ``key`` for ``ttl_s`` unless a
        record is there already; return the record that is there now (first one wins)."""

    # The archive tier's due index: every game by the time of its last event, in one
    # sorted set for finished games and one for the others, so that a sweep reads the
    # games due (``Archiver.due``) in O(log n + due) instead of scanning every game. An
    # adapter without it answers None from ``due_by_activity`` (the sweep then scans).

    def note_activity(self, game_id: str, at_ms: int, *, over: bool) -> None:
        """Note that ``game_id`` had its last event at ``at_ms`` (finished or not)."""
        return None

    def forget_activity(self, game_id: str) -> None:
        """Take ``game_id`` off the due index (it was archived, or is gone)."""
        return None

    def due_by_activity(self, *, over: bool, until_ms: int, limit: int) -> list[str] | None:
        """Up to ``limit`` games (finished or not) whose last event is at or before
        ``until_ms``, oldest first; None if this adapter keeps no due index."""
        return None

    def activity_migrated(self, mark: bool = False) -> bool:
        """Whether the games stored before the due index existed were noted in it (the
        one-time scan); ``mark``: note that they now are."""
        return True

    @abstractmethod
    def archive_swap(self, game_id: str, version: int, fields: Mapping[str, str]) -> bool:
        """The archive tier's last step, atomic: if the game has exactly ``version`` events
        and is not archived, set ``fields`` (``ARCHIVED_FIELDS``) in its info and drop its
        events, snapshots and idempotency records; True if it did. From then on ``info``
        reads the version from ``ARCHIVED_VERSION``, reads find no events, and ``append``
        raises ``GameArchived``."""

    @abstractmethod
    def rehydrate(
        self, game_id: str, events: Sequence[RecordedEvent], info: Mapping[str, str] | None = None
    ) -> bool:
        """Undo ``archive_swap``, atomic: if the game is archived and has no events, store
        ``events`` (all of them, as they were), drop the ``ARCHIVED_FIELDS`` and set the
        ``info`` fields; True if it did."""


class EventWatch(ABC):
    """A blocking read of the new events of many games at once (``EventStore.watch``).
    One loop reads; any thread may ``interrupt`` the read (e.g. to add a game to it)."""

    # Whether one read may cover many games; False: give each read the same single game.
    shared: bool = True

    @abstractmethod
    def read(
        self, after: Mapping[str, int], timeout_s: float, *, limit: int
    ) -> dict[str, list[RecordedEvent]]:
        """For each game in ``after`` (game id: its last version seen), its events after
        that version, at most ``limit``; games with none are left out. Blocks up to
        ``timeout_s`` until some game has one, or until ``interrupt``."""

    @abstractmethod
    def interrupt(self) -> bool:
        """Make the read blocked now return (empty) at once; an adapter may also end the
        next read at once. False: none was ended (one may be about to block: a caller that
        must reach it tries again)."""

    def close(self) -> None:  # noqa: B027 (most watches hold nothing)
        """Give back what the watch holds (a connection); it reads no more."""


class OneGameWatch(EventWatch):
    """``EventWatch`` over ``EventStore.wait``: one game per read."""

    shared = False

    def __init__(self, store: EventStore) -> None:
        self._store = store

    def read(
        self, after: Mapping[str, int], timeout_s: float, *, limit: int
    ) -> dict[str, list[RecordedEvent]]:
        if len(after) != 1:
            raise ValueError(f"this store's watch reads one game at a time, not {len(after)}")
        ((game_id, version),) = after.items()
        found = self._store.wait(game_id, version, timeout_s, limit=limit)
        return {game_id: found} if found else {}

    def interrupt(self) -> bool:
        return False  # a one-game read needs no new game; it returns within its timeout


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A folded state cached at ``version``, in the domain's JSON position format."""

    version: int
    position: dict[str, Any]


class SnapshotStore(ABC):
    """A cache of folded states. Losing it changes no result, only speed."""

    @abstractmethod
    def latest(self, game_id: str, at_most: int | None = None) -> Snapshot | None:
        """The snapshot with the highest version ``<= at_most`` (any if None)."""

    @abstractmethod
    def put(self, game_id: str, snapshot: Snapshot) -> None: ...

    @abstractmethod
    def versions(self, game_id: str) -> list[int]:
        """Versions at which snapshots exist, ascending."""

    @abstractmethod
    def get(self, game_id: str, version: int) -> Snapshot | None: ...

    @abstractmethod
    def delete(self, game_id: str) -> None:
        """Drop every snapshot of the game."""


# The seat a revoked token's hash is written with (``TokenStore``): it stands for no one.
REVOKED = -1


class TokenStore(ABC):
    """Who holds a credential of a game, by the credential's SHA-256 hash (a token or
    ticket itself is never stored).

    Seat tokens are written by the ``EventStore``'s appends (the one that creates the game,
    so no game exists without them, the one that stores an open seat's claim, and the one
    that stores a seat's leave, which writes its tokens' hashes again as ``REVOKED``) and
    only read here; a seat token never changes its seat, and a revoked one never comes back.
    Stream tickets are written here, each with its own lifetime.
    """

    @abstractmethod
    def seat_of(self, game_id: str, token_hash: str) -> int | None:
        """The seat whose token hashes to ``token_hash`` in this game, if any (``REVOKED``:
        a token of a seat that was left, standing for no one)."""

    @abstractmethod
    def hashes_of(self, game_id: str, seat: int) -> list[str]:
        """The hashes of the tokens of ``seat`` in this game (revoked ones left out)."""

    @abstractmethod
    def put_ticket(self, game_id: str, ticket_hash: str, holder: str, ttl_s: int) -> None:
        """Keep a ticket of this game for ``ttl_s`` seconds, standing for ``holder``."""

    @abstractmethod
    def ticket_holder(self, game_id: str, ticket_hash: str) -> str | None:
        """The holder of a live ticket of this game (None: unknown, expired, other game)."""


ADMIN_OWNER = "admin"  # the owner of a subscription made with the admin token


class TooManyWebhooks(Exception):
    """A subscription over a limit: ``scope`` ``game`` or ``token``."""

    def __init__(self, scope: str, limit: int) -> None:
        super().__init__(f"at most {limit} webhooks per {scope}")
        self.scope = scope
        self.limit = limit


def message_id(sub_id: str, first: int, last: int) -> str:
    """The ``webhook-id`` of the batch of versions ``first..last`` of a subscription."""
    return f"msg_{sub_id}_{first}_{last}"


@dataclass(frozen=True, slots=True)
class Subscription:
    """A webhook subscription of one game (see ``service.application.webhooks``)."""

    sub_id: str
    game_id: str
    url: str
    events: tuple[str, ...]  # event types to send; empty: every event
    seat: int | None
    secret: str
    status: str  # "active" | "disabled"
    failures: int
    cursor: int  # the last version delivered (or skipped by the filter)
    created_at: str
    disabled_reason: str | None = None
    owner: str | None = None  # the SHA-256 of the seat token that made it, or "admin"
    batch: tuple[int, int] | None = None  # the batch under way: first and last version
    next_attempt_at: float | None = None  # no attempt before (a Unix time), after a failure

    @property
    def batch_id(self) -> str | None:
        """The ``webhook-id`` of the batch under way."""
        return None if self.batch is None else message_id(self.sub_id, *self.batch)


class WebhookStore(ABC):
    """A game's webhook subscriptions, their delivery state and delivery logs.

    Every write to a subscription is atomic and leaves a deleted one deleted (a delivery
    that outlives its subscription writes nothing). ``create`` checks the limits and adds
    the subscription in one step, so racing creations never exceed them.
    """

    LOG_LENGTH = 100  # delivery log entries kept per subscription, newest first

    @abstractmethod
    def create(self, sub: Subscription, *, per_game: int, per_owner: int) -> None:
        """Add ``sub`` (new id, ``active``, no failures) unless its game has ``per_game``
        subscriptions already or its owner ``per_owner`` in that game: ``TooManyWebhooks``."""

    @abstractmethod
    def get(self, game_id: str, sub_id: str) -> Subscription | None: ...

    @abstractmethod
    def of_game(self, game_id: str) -> list[Subscription]:
        """The game's subscriptions, by id."""

    @abstractmethod
    def delete(self, game_id: str, sub_id: str) -> bool:
        """Remove the subscription and its log; False if it was not there."""

    @abstractmethod
    def enable(self, sub: Subscription) -> bool:
        """Active again, its failures forgotten and no retry pending (an active one is left
        as it is); False when it is gone."""

    @abstractmethod
    def start_batch(self, sub: Subscription, first: int, last: int) -> bool:
        """Fix the bounds of ``sub``'s next batch; False when it is gone."""

    @abstractmethod
    def advance(self, sub: Subscription, version: int) -> bool:
        """Move the cursor forward to ``version`` (never back), clearing the failures, the
        batch and the retry due; False when it did not move (or the subscription is gone)."""

    @abstractmethod
    def fail(self, sub: Subscription, reason: str, max_failures: int, next_at: float) -> int:
        """Count a failed attempt: the next one is due at ``next_at``, unless it was the
        ``max_failures``-th in a row (an active subscription is then disabled, saying why).
        Returns the count of failures in a row; -1 when the subscription is gone."""

    @abstractmethod
    def disable(self, sub: Subscription, reason: str) -> bool:
        """Disabled, saying why; False when it is gone."""

    @abstractmethod
    def log(self, sub: Subscription, entry: dict[str, Any]) -> None:
        """Keep ``entry`` in the delivery log (the last ``LOG_LENGTH``), unless it is gone."""

    @abstractmethod
    def deliveries(self, game_id: str, sub_id: str) -> list[dict[str, Any]]:
        """The delivery log, newest first."""

    @abstractmethod
    def lock(self, sub: Subscription, token: str, ttl_s: int) -> bool:
        """Take the subscription's delivery lock for ``ttl_s`` seconds, as ``token``; False
        while another holds it."""

    @abstractmethod
    def unlock(self, sub: Subscription, token: str) -> None:
        """Release the lock if ``token`` still holds it."""


@dataclass(frozen=True, slots=True)
class AuditRun:
    at: str  # ISO 8601
    games: int
    mismatches: int
    duration_ms: float


@dataclass(frozen=True, slots=True)
class AuditSummary:
    """The audit's counters since the first run, its last run and its last mismatches
    (newest first)."""

    runs: int = 0
    games_checked: int = 0
    mismatches: int = 0
    last_run: AuditRun | None = None
    recent: tuple[dict[str, Any], ...] = ()


class AuditLog(ABC):
    """What the periodic audit found (``service.application.audit``)."""

    RECENT = 100  # mismatches kept, newest first

    @abstractmethod
    def record_run(self, run: AuditRun, mismatches: Sequence[dict[str, Any]]) -> None:
        """Count one run and keep its mismatches (the last ``RECENT`` overall)."""

    @abstractmethod
    def read(self) -> AuditSummary: ...


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player (``service.application.players``): an id, a display name, the SHA-256 of
    the player's secret key (the key itself is never stored) and when it was made."""

    player_id: str
    name: str
    key_hash: str
    created_at: str


# A player's game lists besides "all": by status, and those awaiting one of its seats.
PLAYER_LISTS = ("open", "active", "over", "awaiting")

# A player id: 32 lowercase hex digits (a UUID's), safe in a Redis hash tag.
PLAYER_ID_PATTERN = "[0-9a-f]{32}"
_PLAYER_ID_RE = re.compile(PLAYER_ID_PATTERN)


def is_player_id(player_id: object) -> bool:
    return isinstance(player_id, str) and _PLAYER_ID_RE.fullmatch(player_id) is not None


def check_player_id(player_id: str) -> str:
    if not isinstance(player_id, str) or _PLAYER_ID_RE.fullmatch(player_id) is None:
        raise FormatError(f"a player id is 32 hex digits, not {player_id!r}", "player_id")
    return player_id


class PlayerStore(ABC):
    """Players and the games they hold seats in.

    A player's games are an index (``add_game``), written *before* the append that binds
    the player's seat (a game's creation or an open seat's claim), as the game index is:
    an entry whose game never got written is dropped when listed, so an acknowledged
    binding is always listed. The bindings themselves live in the game's info record
    (``players``), written atomically with the game, so the index can be rebuilt from the
    games (``service.application.players.Players.reindex``)."""

    @abstractmethod
    def create(self, record: PlayerRecord) -> bool:
        """Store a new player; False (and nothing changes) if the id is taken."""

    @abstractmethod
    def get(self, player_id: str) -> PlayerRecord | None: ...

    @abstractmethod
    def add_game(
        self, player_id: str, game_id: str, created_ms: int, lists: Sequence[str | None]
    ) -> None:
        """Add a game to the player's game lists named in ``lists`` (None: all of the
        player's games; else one of ``PLAYER_LISTS``), ordered by creation time; twice
        changes nothing."""

    @abstractmethod
    def remove_game(
        self, player_id: str, game_id: str, created_ms: int, lists: Sequence[str | None]
    ) -> None:
        """Remove a game from the player's game lists named in ``lists``."""

    @abstractmethod
    def list_games(
        self, player_id: str, which: str | None, cursor: str | None, limit: int
    ) -> tuple[list[tuple[int, str]], str | None]:
        """``(created_ms, game_id)`` of one of the player's game lists (``which``: None for
        all), newest first, after ``cursor`` (an ``index_member``), and the next cursor
        (None at the end). O(log n + limit)."""


# ------------------------------------------------------------------------------- ratings
@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's rating in one kind (``service.application.ratings``): the rating model's
    ``mu`` and ``sigma``, its conservative ``ordinal`` (what leaderboards are ordered by)
    and the number of rated games it counts."""

    mu: float
    sigma: float
    ordinal: float
    games: int


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's rating before (None: the player's first rated game of the kind) and
    after one rated game."""

    player_id: str
    seat: int
    place: int
    before: PlayerRating | None
    after: PlayerRating


@dataclass(frozen=True, slots=True)
class RatedGame:
    """What one rated game changes. ``order``: its place in the projection's order, a
    string that sorts like it (``<15-digit ms it ended>:<game_id>``); ``version``: the
    game's version when it ended; ``ended_at``: when, ISO-8601."""

    game_id: str
    order: str
    version: int
    ended_at: str
    changes: tuple[RatingChange, ...]


@dataclass(frozen=True, slots=True)
class RatingHistoryEntry:
    game_id: str
    version: int
    ended_at: str
    seat: int
    place: int
    before: PlayerRating | None
    after: PlayerRating


# What ``RatingStore.apply`` answers: the game was counted now, it had been counted, a
# player's rating was no longer the ``before`` it was computed from (compute again), the
# game comes before the last one counted (rebuild), or a rebuild holds the kind.
APPLIED, COUNTED, STALE, OUT_OF_ORDER, REBUILDING = (
    "applied",
    "counted",
    "stale",
    "out-of-order",
    "rebuilding",
)


class RatingStore(ABC):
    """The ratings read model, per kind: every player's current rating, the leaderboard
    (by ordinal), each player's history, and the games counted. It is a projection of the
    rated games' logs (``service.application.ratings``): it can be dropped and rebuilt.

    ``apply`` is atomic: a game's changes, its history entries and its mark as counted are
    written together or not at all, after checking that the game was not counted yet,
    that it comes after the last game counted (the order makes a rebuild give the same
    numbers) and that every ``before`` is still the player's current rating."""

    @abstractmethod
    def ratings(self, kind: str, player_ids: Sequence[str]) -> dict[str, PlayerRating]:
        """The current ratings of those of ``player_ids`` that have one."""

    @abstractmethod
    def apply(self, kind: str, game: RatedGame, owner: str = "") -> str:
        """Count ``game`` (see the class docstring); one of ``APPLIED``, ``COUNTED``,
        ``STALE``, ``OUT_OF_ORDER``, ``REBUILDING`` (a rebuild other than ``owner``'s
        holds the kind)."""

    @abstractmethod
    def counted(self, kind: str, game_id: str) -> bool: ...

    @abstractmethod
    def leaderboard(
        self, kind: str, offset: int, limit: int
    ) -> tuple[list[tuple[str, PlayerRating]], int]:
        """One page of the kind's players, best ordinal first (equal ones by player id,
        descending), and how many players are rated."""

    @abstractmethod
    def history(
        self, kind: str, player_id: str, offset: int, limit: int
    ) -> tuple[list[RatingHistoryEntry], int]:
        """One page of a player's rated games of ``kind``, newest first, and how many."""

    @abstractmethod
    def expect(self, kind: str, game_id: str) -> None:
        """Note a rated game to count once it is over (written before the append that
        creates it; ``apply`` takes it off). The sweep counts what a lost job left."""

    @abstractmethod
    def expected(self, kind: str, limit: int) -> list[str]:
        """Up to ``limit`` of the rated games of ``kind`` noted and not counted yet."""

    @abstractmethod
    def forget(self, kind: str, game_id: str) -> None:
        """Take a noted game off (it was never stored, or is gone)."""

    @abstractmethod
    def begin_rebuild(self, kind: str, owner: str, ttl_s: int) -> bool:
        """Hold the kind for a rebuild by ``owner`` (for at most ``ttl_s``) and drop its
        read model; False (nothing dropped) if another rebuild holds it."""

    @abstractmethod
    def end_rebuild(self, kind: str, owner: str) -> None:
        """Let go of the kind (if ``owner`` still holds it)."""


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One entry of a player's feed (``service.application.feed``): its number in the feed
    (1, 2, ...: never reused, also the SSE ``id``) and its JSON object."""

    seq: int
    data: dict[str, Any]


class PlayerFeedStore(ABC):
    """Each player's feed, an append-only list of entries numbered 1, 2, ... of which the
    newest ``keep`` are kept, and each game's projection cursor (the last version whose
    entries were written to the feeds).

    An entry comes with a key (its game, version, type and seat); an entry whose key the
    feed holds already is not written again, so a projection that runs twice writes each
    entry once. Keys are kept as long as their entries are."""

    @abstractmethod
    def append(
        self, player_id: str, entries: Sequence[tuple[str, dict[str, Any]]], keep: int
    ) -> list[int]:
        """Append ``entries`` (key, entry) to the player's feed in one atomic step, those
        whose key it holds skipped, and trim it to its newest ``keep``; returns the numbers
        of the entries written."""

    @abstractmethod
    def read(self, player_id: str, after: int, limit: int) -> list[FeedEntry]:
        """The kept entries numbered above ``after``, oldest first, at most ``limit``."""

    @abstractmethod
    def wait(self, player_id: str, after: int, timeout_s: float) -> bool:
        """Block until the feed holds an entry above ``after`` or ``timeout_s`` passes;
        whether one came."""

    @abstractmethod
    def bounds(self, player_id: str) -> tuple[int, int]:
        """The oldest entry number kept (0: none) and the last one written (0: none)."""

    @abstractmethod
    def projected(self, game_id: str) -> int:
        """The last version of ``game_id`` whose entries were written (0: none)."""

    @abstractmethod
    def project_to(self, game_id: str, version: int) -> None:
        """Move ``game_id``'s projection cursor forward to ``version`` (never back)."""
