"""``GameService``: the application's parts wired together, and one entry point for callers.

Each method hands the call to the one part that does the job (``commands``, ``repository``,
``queries``, ``undo``, ``lobby``); nothing is decided here. ``build_service`` wires it onto the
configured Redis.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from domain.common.protocol import GameRules
from service.application.archive import ExportedRecord, GameArchive
from service.application.bots import BotSeat
from service.application.clocks import ClockSpec
from service.application.commands import CommandHandler, CommandOutcome, CreatedGame
from service.application.explanations import Explainer, Explanation
from service.application.lobby import ClaimedSeat, SeatClaims
from service.application.mapper import CommandMeta, EventMapper, GameInfo, StoredEvent
from service.application.observer import Observer, Observers, WriteObserver
from service.application.queries import GameQueries, SnapshotMismatch
from service.application.repository import GameRepository, LoadedGame
from service.application.undo import UndoOutcome, UndoRecord, UndoWorkflow
from service.config import DEFAULT_IDEMPOTENCY_TTL_S, StoreSettings
from service.events import ServiceEvent
from service.store.connect import StoreConnection, connect
from service.store.port import EventStore, SnapshotStore


def utc_now() -> datetime:
    return datetime.now(UTC)


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
        observer: Observer | None = None,
        writes: Sequence[WriteObserver] = (),
    ) -> None:
        if games is None:
            from domain.games import all_games

            games = all_games()
        rules = dict(games)
        mapper = EventMapper(rules)
        self.store = store
        # What follows every successful write (jobs, deliveries): one port, told by the
        # append paths themselves; more are added as the process wires them
        # (``service.api.background``, ``service.jobs.context``).
        self.writes = Observers(writes)
        self.repository = GameRepository(
            store,
            snapshots,
            rules,
            mapper,
            snapshot_every=snapshot_every,
            cache_size=cache_size,
            observer=observer,
        )
        self.commands = CommandHandler(
            store,
            self.repository,
            mapper,
            clock,
            idempotency_ttl_s=idempotency_ttl_s,
            observer=observer,
            writes=self.writes,
        )
        self.queries = GameQueries(store, snapshots, rules, self.repository, mapper, clock)
        self.undo = UndoWorkflow(store, self.repository, self.queries, self.commands)
        self.lobby = SeatClaims(
            store,
            self.repository,
            mapper,
            clock,
            idempotency_ttl_s=idempotency_ttl_s,
            writes=self.writes,
        )
        self.explainer = Explainer(store, self.repository, mapper)
        self.archive = GameArchive(
            store,
            self.repository,
            self.queries,
            mapper,
            games=rules,
            clock=clock,
            writes=self.writes,
        )

    @property
    def snapshot_every(self) -> int:
        return self.repository.snapshot_every

    @property
    def cache_size(self) -> int:
        return self.repository.cache.size

    # ------------------------------------------------------------------ commands
    def create_game(  # noqa: PLR0917 (CommandHandler.create_game's arguments)
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
        bots: Mapping[int, BotSeat] | None = None,
        clock: ClockSpec | None = None,
    ) -> LoadedGame:
        return self.commands.create_game(
            kind,
            seat_names,
            options,
            seed,
            meta,
            game_id,
            token_hashes=token_hashes,
            created_ms=created_ms,
            bots=bots,
            clock=clock,
        )

    def create_seated_game(  # noqa: PLR0917 (CommandHandler.create_seated_game's arguments)
        self,
        kind: str,
        seat_names: Sequence[str],
        options: Mapping[str, Any],
        seed: int | None,
        meta: CommandMeta,
        idempotency_key: str | None = None,
        bots: Mapping[int, BotSeat] | None = None,
        clock: ClockSpec | None = None,
        *,
        open_seats: Sequence[int] = (),
    ) -> CreatedGame:
        return self.commands.create_seated_game(
            kind,
            seat_names,
            options,
            seed,
            meta,
            idempotency_key,
            bots,
            clock,
            open_seats=open_seats,
        )

    def handle(
        self,
        game_id: str,
        command: Mapping[str, Any] | object,
        *,
        meta: CommandMeta,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandOutcome:
        return self.commands.handle(
            game_id,
            command,
            meta=meta,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
        )

    def claim_seat(
        self,
        game_id: str,
        seat: int,
        name: str,
        meta: CommandMeta,
        idempotency_key: str | None = None,
    ) -> ClaimedSeat:
        return self.lobby.claim(game_id, seat, name, meta, idempotency_key)

    # ---------------------------------------------------------------------- undo
    def undo_requests(self, game_id: str) -> tuple[LoadedGame, list[UndoRecord]]:
        return self.undo.requests(game_id)

    def undo_request(self, game_id: str, request_id: str) -> UndoOutcome:
        return self.undo.request(game_id, request_id)

    def request_undo(
        self,
        game_id: str,
        to_version: int,
        reason: str,
        *,
        meta: CommandMeta,
        expected_version: int | None,
    ) -> UndoOutcome:
        return self.undo.request_undo(
            game_id, to_version, reason, meta=meta, expected_version=expected_version
        )

    def answer_undo(
        self,
        game_id: str,
        request_id: str,
        approve: bool,
        *,
        meta: CommandMeta,
        expected_version: int | None,
    ) -> UndoOutcome:
        return self.undo.answer_undo(
            game_id, request_id, approve, meta=meta, expected_version=expected_version
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
        return self.undo.revert(
            game_id,
            to_version,
            reason=reason,
            requested_by=requested_by,
            approved_by=approved_by,
            meta=meta,
            expected_version=expected_version,
        )

    def append_service_events(
        self,
        game_id: str,
        events: Sequence[ServiceEvent],
        *,
        meta: CommandMeta,
        expected_version: int | None,
    ) -> CommandOutcome:
        return self.undo.append_service_events(
            game_id, events, meta=meta, expected_version=expected_version
        )

    def explain(self, game_id: str, version: int) -> Explanation:
        return self.explainer.explain(game_id, version)

    # ------------------------------------------------------------------- records
    def export_record(self, game_id: str, *, viewer: int | None, admin: bool) -> ExportedRecord:
        return self.archive.export(game_id, viewer=viewer, admin=admin)

    def import_record(self, data: bytes, meta: CommandMeta) -> CreatedGame:
        return self.archive.import_record(data, meta)

    # --------------------------------------------------------------------- reads
    def load(self, game_id: str) -> LoadedGame:
        return self.repository.get(game_id)

    def load_at(self, game_id: str, version: int) -> LoadedGame:
        return self.repository.get_at(game_id, version)

    def load_past(self, current: LoadedGame, version: int) -> LoadedGame:
        return self.repository.past(current, version)

    def game_info(self, game_id: str) -> GameInfo:
        return self.queries.game_info(game_id)

    def events(
        self,
        game_id: str,
        after_version: int = 0,
        limit: int | None = None,
        *,
        game: LoadedGame | None = None,
    ) -> list[StoredEvent]:
        return self.queries.events(game_id, after_version, limit, game=game)

    def wait_for_events(
        self,
        game_id: str,
        after_version: int,
        timeout_s: float,
        *,
        game: LoadedGame | None = None,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        return self.queries.wait_for_events(
            game_id, after_version, timeout_s, game=game, limit=limit
        )

    def states_after(
        self, game: LoadedGame, events: Sequence[StoredEvent], versions: set[int]
    ) -> dict[int, Any]:
        return self.queries.states_after(game, events, versions)

    def list_games(
        self,
        *,
        kind: str | None = None,
        status: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> tuple[list[GameInfo], str | None]:
        return self.queries.list_games(kind=kind, status=status, cursor=cursor, limit=limit)

    def check_snapshots(self, game_id: str) -> list[SnapshotMismatch]:
        return self.queries.check_snapshots(game_id)


def build_service(
    settings: StoreSettings | None = None,
    games: Mapping[str, GameRules[Any, Any, Any]] | None = None,
    clock: Callable[[], datetime] = utc_now,
    *,
    cache_size: int = 0,
    max_connections: int | None = None,
    max_wait_s: float | None = None,
    max_waiting: int | None = None,
    observer: Observer | None = None,
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
        observer=observer,
    )
    return service, connection
