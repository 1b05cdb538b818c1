"""Seeded games played through the application service, for the archive tier's tests."""

from __future__ import annotations

import random
import uuid

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.application.repository import LoadedGame
from service.application.tokens import hash_token
from tests.autoplay import choose_command


def play(
    service: GameService,
    kind: str,
    seats: int,
    seed: int,
    *,
    commands: int | None = None,
    tokens: list[str] | None = None,
) -> LoadedGame:
    """A ``kind`` game of ``seats`` seats played by seeded random commands: to its end, or
    ``commands`` of them. ``tokens``: the seats' tokens (their hashes are stored)."""
    tokens = tokens if tokens is not None else [uuid.uuid4().hex for _ in range(seats)]
    admin = CommandMeta(command_id=uuid.uuid4().hex, actor="admin", seat=None)
    game = service.commands.create_game(
        kind,
        [f"P{n}" for n in range(seats)],
        {},
        seed,
        admin,
        token_hashes=[hash_token(t) for t in tokens],
    )
    return play_on(service, game, commands, random.Random(seed))


def play_on(
    service: GameService,
    game: LoadedGame,
    commands: int | None = None,
    rng: random.Random | None = None,
) -> LoadedGame:
    """``game`` played on by random commands (``rng``, else seeded by its version): to its
    end, or ``commands`` of them."""
    rng = rng if rng is not None else random.Random(game.version)
    played = 0
    while not game.rules.is_over(game.state) and (commands is None or played < commands):
        command = choose_command(game.rules, game.state, rng)
        meta = CommandMeta.for_actor(f"seat:{command.seat}", command.seat)  # as the API
        game = service.commands.handle(
            game.game_id,
            command,
            meta=meta,
            expected_version=game.version,
            idempotency_key=uuid.uuid4().hex,
        ).game
        played += 1
    return game
