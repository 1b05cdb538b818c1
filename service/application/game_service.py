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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain.common.protocol import GameRules
from service.application.archive import GameArchive
from service.application.archive_tier import (
    Archiver,
    ArchiveReader,
    TieredEventStore,
    TieredSnapshotStore,
    renote_after_s,
)
from service.application.commands import CommandHandler
from service.application.explanations import Explainer
from service.application.feed import DEFAULT_FEED_LENGTH, PlayerFeeds
from service.application.invitations import Invitations
from service.application.lobby import SeatClaims
from service.application.mapper import EventMapper
from service.application.observer import Observer
from service.application.players import PlayerGames, Players
from service.application.queries import GameQueries
from service.application.ratings import RatingProjection
from service.application.rematch import Rematches
from service.application.repository import GameRepository
from service.application.undo import UndoWorkflow
from service.application.writes import Observers, WriteObserver
from service.config import (
    ARCHIVE_RETENTION_S,
    DEFAULT_IDEMPOTENCY_TTL_S,
    ArchiveSettings,
    SettingsError,
    StoreSettings,
)
from service.store.archive_objects import (
    ArchiveObjects,
    ArchiveObserver,
    LocalArchiveObjects,
    S3ArchiveObjects,
)
from service.store.connect import StoreConnection, connect
from service.store.memory import InMemoryPlayerFeedStore, InMemoryPlayerStore, InMemoryRatingStore
from service.store.port import (
    EventStore,
    PlayerFeedStore,
    PlayerStore,
    RatingStore,
    SnapshotStore,
)
from service.store.redis_feeds import RedisPlayerFeedStore
from service.store.redis_players import RedisPlayerStore
from service.store.redis_ratings import RedisRatingStore


@dataclass(frozen=True)
class ArchivePolicy:
    """When games go to the archive tier, and how many are kept decoded in memory."""

    retention_s: int = ARCHIVE_RETENTION_S
    abandoned_after_s: int = 0
    cache_games: int = 64
    observer: ArchiveObserver | None = None


def archive_objects(settings: ArchiveSettings) -> ArchiveObjects | None:
    """The archive storage the settings name (None: ``off``)."""
    if settings.archive_backend == "off":
        return None
    if settings.archive_backend == "s3":
        if not settings.archive_s3_bucket:
            raise SettingsError("TIGRIS_ARCHIVE_S3_BUCKET: required by TIGRIS_ARCHIVE_BACKEND=s3")
        return S3ArchiveObjects(
            settings.archive_s3_bucket,
            prefix=settings.archive_s3_prefix,
            endpoint_url=settings.archive_s3_endpoint_url,
            region=settings.archive_s3_region,
            access_key_id=settings.archive_s3_access_key_id,
            secret_access_key=settings.archive_s3_secret_access_key,
        )
    return LocalArchiveObjects(settings.archive_dir)


def archive_policy(
    settings: ArchiveSettings, observer: ArchiveObserver | None = None
) -> ArchivePolicy:
    return ArchivePolicy(
        settings.archive_retention_s,
        settings.archive_abandoned_after_s,
        settings.archive_cache_games,
        observer,
    )


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
        ratings: RatingStore | None = None,
        feeds: PlayerFeedStore | None = None,
        feed_length: int = DEFAULT_FEED_LENGTH,
        archive: ArchiveObjects | None = None,
        archive_policy: ArchivePolicy | None = None,
    ) -> None:
        if games is None:
            from domain.games import all_games

            games = all_games()
        rules = dict(games)
        mapper = EventMapper(rules)
        policy = archive_policy or ArchivePolicy()
        # The archive tier (``archive_tier``): reads of archived games answered from their
        # objects, and the archiver that moves games there. None: no archive tier.
        self.archiver: Archiver | None = None
        if archive is not None:
            reader = ArchiveReader(
                archive, rules, mapper, cache_games=policy.cache_games, observer=policy.observer
            )
            self.archiver = Archiver(
                store,
                snapshots,
                reader,
                rules,
                mapper,
                clock=clock,
                retention_s=policy.retention_s,
                abandoned_after_s=policy.abandoned_after_s,
            )
            store = TieredEventStore(
                store,
                reader,
                renote_after_s=renote_after_s(policy.retention_s, policy.abandoned_after_s),
            )
            if snapshots is not None:
                snapshots = TieredSnapshotStore(snapshots, store, reader)
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
        rating_store = InMemoryRatingStore() if ratings is None else ratings
        self.commands = CommandHandler(
            store,
            self.repository,
            mapper,
            clock,
            idempotency_ttl_s=idempotency_ttl_s,
            observer=observer,
            writes=self.writes,
            player_games=self.player_games,
            ratings=rating_store,
        )
        self.queries = GameQueries(store, snapshots, rules, self.repository, mapper, clock)
        # The ratings read model, a projection of the rated games (in memory unless a
        # store is given).
        self.ratings = RatingProjection(
            rating_store,
            self.repository,
            self.queries,
            store,
        )
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
        self.invitations = Invitations(
            store, self.repository, mapper, self.lobby, self.players, clock, writes=self.writes
        )
        self.rematches = Rematches(
            store, self.repository, mapper, self.commands, clock, writes=self.writes
        )
        self.explainer = Explainer(store, self.repository, mapper)
        # Each player's feed, projected from the games (``feed.py``).
        self.feeds = PlayerFeeds(
            InMemoryPlayerFeedStore() if feeds is None else feeds,
            self.repository,
            self.queries,
            keep=feed_length,
        )
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
    archive: ArchiveSettings | None = None,
    archive_observer: ArchiveObserver | None = None,
) -> tuple[GameService, StoreConnection]:
    """A GameService on the configured Redis (embedded if no ``REDIS_URL``);
    close the returned connection on shutdown."""
    settings = StoreSettings.from_env() if settings is None else settings
    archive = ArchiveSettings.from_env() if archive is None else archive
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
        ratings=RedisRatingStore(connection.client, prefix=settings.key_prefix),
        feeds=RedisPlayerFeedStore(
            connection.client,
            prefix=settings.key_prefix,
            blocking_client=connection.events.blocking_client,
            max_wait_s=connection.events.max_wait_s,
        ),
        feed_length=settings.player_feed_length,
        archive=archive_objects(archive),
        archive_policy=archive_policy(archive, archive_observer),
    )
    return service, connection
