"""A per-process cache of the latest loaded game, in front of the application service.

Folding a game (snapshot + events since) is most of a command's cost. A game's state at a
version never changes (the stream is append-only; reverts are events too), so a cached
``LoadedGame`` is the state at that version for good. The service reads the game's
current version from its info record before every fold, so a process whose cache is
behind (another process appended) folds afresh: several server processes stay correct.

This belongs in ``GameService`` itself; until it moves there, the API wraps the service.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from service.application import CommandMeta, CommandOutcome, GameService, LoadedGame
from service.events import ServiceEvent
from service.store.port import GameRecord

DEFAULT_SIZE = 2048


class CachedGameService(GameService):
    """``GameService`` whose ``load`` answers from memory when the stream has not moved."""

    def __init__(self, *args: Any, cache_size: int = DEFAULT_SIZE, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cache: OrderedDict[str, LoadedGame] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    @classmethod
    def wrapping(cls, service: GameService, cache_size: int = DEFAULT_SIZE) -> CachedGameService:
        return cls(
            service.store,
            service.snapshots,
            service.games,
            service.clock,
            snapshot_every=service.snapshot_every,
            idempotency_ttl_s=service.idempotency_ttl_s,
            cache_size=cache_size,
        )

    def _remember(self, game: LoadedGame) -> None:
        with self._lock:
            self._cache[game.game_id] = game
            self._cache.move_to_end(game.game_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _load(self, record: GameRecord, version: int) -> LoadedGame:
        # GameService funnels every fold through ``_load(record, version)``: the one
        # (private) hook that covers ``load``, ``handle`` and ``load_at`` alike.
        with self._lock:
            cached = self._cache.get(record.game_id)
        if cached is not None and cached.version == version:
            return cached
        game = super()._load(record, version)
        if version == record.version:
            self._remember(game)
        return game

    def handle(
        self,
        game_id: str,
        command: Mapping[str, Any] | object,
        *,
        meta: CommandMeta,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandOutcome:
        outcome = super().handle(
            game_id,
            command,
            meta=meta,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
        )
        self._remember(outcome.game)
        return outcome

    def append_service_events(
        self,
        game_id: str,
        events: Sequence[ServiceEvent],
        *,
        meta: CommandMeta,
        expected_version: int | None,
    ) -> CommandOutcome:
        outcome = super().append_service_events(
            game_id, events, meta=meta, expected_version=expected_version
        )
        self._remember(outcome.game)
        return outcome
