"""What the views reach through ``current_app``: the application service and friends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from flask import current_app, g

from service.api.auth import Caller, identify
from service.api.problems import ApiProblem
from service.api.settings import ApiSettings
from service.application.game_service import GameService
from service.application.players import seats_of
from service.application.tokens import Credentials
from service.store.port import PlayerRecord
from service.store.redis_archive_stats import RedisArchiveStats

EXTENSION = "tigris"


@dataclass(frozen=True, slots=True)
class Services:
    games: GameService
    credentials: Credentials
    settings: ApiSettings
    ready: Callable[[], bool]  # whether the store serves (readiness); may raise
    archive_stats: RedisArchiveStats | None = None  # the archive tier's shared counters


def services() -> Services:
    return cast(Services, current_app.extensions[EXTENSION])


def caller_for(game_id: str | None) -> Caller:
    """The caller of this request, its token checked against ``game_id``."""
    found = services()
    try:
        caller = identify(
            found.credentials, found.settings.admin_token, game_id, GamePlayers(found.games)
        )
    except ApiProblem:
        if game_id is not None:
            found.games.queries.game_info(game_id)  # an unknown game is a 404 whatever the token
        raise
    # The answer depends on who asks: its ETag names the viewer, and caches must key on the
    # token (``service.api.http``).
    g.tigris_caller = caller
    return caller


def act_as(caller: Caller, seat: int | None) -> Caller:
    """``caller`` acting as ``seat`` (a player's named seat: ``Caller.acting_as``), kept as
    this request's caller (its ETag names that seat)."""
    acting = caller.acting_as(seat)
    g.tigris_caller = acting
    return acting


class GamePlayers:
    """``PlayerSeats`` on the application service: keys through ``Players``, seats from
    the game's info record."""

    def __init__(self, games: GameService) -> None:
        self._games = games

    def player_of(self, key: str) -> PlayerRecord | None:
        return self._games.players.player_of(key)

    def seats_in(self, game_id: str, player_id: str) -> tuple[int, ...]:
        return seats_of(self._games.queries.game_info(game_id).players, player_id)


def identified_caller() -> Caller | None:
    """The caller ``caller_for`` identified in this request, if it did."""
    caller: Caller | None = g.get("tigris_caller")
    return caller
