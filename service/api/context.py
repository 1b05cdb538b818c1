"""What the views reach through ``current_app``: the application service and friends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from flask import current_app

from service.api.auth import Caller, TokenStore, identify
from service.api.problems import ApiProblem
from service.api.settings import ApiSettings
from service.application import GameService
from service.store.connect import RedisClient

EXTENSION = "tigris"


@dataclass(frozen=True, slots=True)
class Services:
    games: GameService
    tokens: TokenStore
    settings: ApiSettings
    redis: RedisClient
    key_prefix: str = "tigris"  # of every Redis key of this deployment


def services() -> Services:
    return cast(Services, current_app.extensions[EXTENSION])


def caller_for(game_id: str | None) -> Caller:
    """The caller of this request, its token checked against ``game_id``."""
    found = services()
    try:
        return identify(found.tokens, found.settings.admin_token, game_id)
    except ApiProblem:
        if game_id is not None:
            found.games.game_info(game_id)  # an unknown game is a 404 whatever the token
        raise
