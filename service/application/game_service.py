"""``GameService``: the application's parts wired together, a plain container.

Callers use the part that does the job: ``commands`` (create games, handle commands),
``lobby`` (claim open seats), ``undo`` (requests, answers, reverts), ``archive`` (records
out and in), ``repository`` (load a game), ``queries`` (events, listings, info),
``explainer``; every successful write of theirs is told to ``writes`` (the write observers:
``service.application.observer``). Nothing is decided here. ``build_service`` wires it onto
the configured Redis.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from domain.common.protocol import GameRules
from service.application.archive import GameArchive
from service.application.commands import CommandHandler
from service.application.explanations import Explainer
from service.application.lobby import SeatClaims
from service.application.mapper import EventMapper
from service.application.observer import Observer
from service.application.players import PlayerGames, Players
from service.application.queries import GameQueries
from service.application.repository import GameRepository
from service.application.undo import UndoWorkflow
from service.application.writes import Observers, WriteObserver
from service.config import DEFAULT_IDEMPOTENCY_TTL_S, StoreSettings
from service.store.connect import StoreConnection, connect
from service.store.memory import InMemoryPlayerStore
from service.store.port import EventStore, PlayerStore, SnapshotStore
from service.store.redis_players import RedisPlayerStore


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
        players: PlayerStore | None = None,
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
        # Players and their game lists (in memory unless a store is given).
        player_store = InMemoryPlayerStore() if players is None else players
        self.players = Players(player_store, clock)
        self.player_games = PlayerGames(player_store)
        self.commands = CommandHandler(
            store,
            self.repository,
            mapper,
            clock,
            idempotency_ttl_s=idempotency_ttl_s,
            observer=observer,
            writes=self.writes,
            player_games=self.player_games,
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
            player_games=self.player_games,
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
        players=RedisPlayerStore(connection.client, prefix=settings.key_prefix),
    )
    return service, connection
