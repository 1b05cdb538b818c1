"""The per-process game cache never serves a stale state: two apps (as two server
processes, each with its own cache) playing the same game alternately stay consistent."""

from __future__ import annotations

import random

from flask import Flask

from service.api import create_app
from service.api.context import EXTENSION
from tests.service.api.conftest import ADMIN_TOKEN, Api, domain_state
from tests.service.api.contract import ContractClient


def test_two_processes_alternating_on_one_game_see_every_move(
    app: Flask, redis_url: str, key_prefix: str
) -> None:
    other = create_app(
        {"REDIS_URL": redis_url, "TIGRIS_KEY_PREFIX": key_prefix, "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN}
    )
    other.test_client_class = ContractClient
    assert app.extensions[EXTENSION].games.repository.cache.size > 0
    first, second = Api(app.test_client()), Api(other.test_client())
    game = first.create("board", 3)
    rng = random.Random(9)

    for turn in range(30):
        api = (first, second)[turn % 2]
        seat = api.awaited(game)[0]
        legal = api.legal(game, seat)
        response = api.command(game, seat, rng.choice(legal), if_match=f'"{api.version(game)}"')
        assert response.status_code == 200, response.get_json()

    state = domain_state(first.client, game)
    for api in (first, second):
        view = api.client.get(f"/games/{game.game_id}/state", headers=game.seat(0)).get_json()
        assert view["state"] == game.rules.view(state, 0)
        assert api.legal(game, 1) == [
            {k: v for k, v in game.rules.commands.to_json(c).items() if k != "seat"}
            for c in game.rules.legal_commands(state, 1)
        ]
