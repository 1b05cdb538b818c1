"""The playouts' samplers (``domain.board.sample`` / ``domain.cards.sample``): every
sampled command is legal, and every legal command can be sampled."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from domain.board import sample as board_sample
from domain.cards import sample as cards_sample
from tests.bots.positions import GAMES, sample_positions

SAMPLERS: dict[str, Any] = {"board": board_sample, "cards": cards_sample}
_CACHE: dict[str, list[Any]] = {}


def positions(game: str) -> list[Any]:
    if game not in _CACHE:
        _CACHE[game] = sample_positions(GAMES[game], range(2, 5), per_kind=4, every=9)
    return _CACHE[game]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_sampler_can_return_exactly_the_legal_commands(game: str) -> None:
    rules = GAMES[game]
    support: Callable[[Any, int], Iterator[Any]] = SAMPLERS[game].support
    for state in positions(game):
        seat = min(rules.awaited(state))
        legal = list(rules.legal_commands(state, seat))
        found = list(support(state, seat))
        assert len(set(found)) == len(legal)
        assert set(found) == set(legal)
        assert list(support(state, 1 - seat)) == []


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_sampled_command_is_legal(game: str) -> None:
    rules = GAMES[game]
    sample = SAMPLERS[game].sample_command
    rng = random.Random(5)
    for state in positions(game):
        seat = min(rules.awaited(state))
        legal = set(rules.legal_commands(state, seat))
        for _ in range(25):
            command = sample(state, seat, rng)
            assert command in legal
            assert rules.decide(state, command)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_sampling_is_deterministic_for_a_seeded_rng(game: str) -> None:
    rules = GAMES[game]
    sample = SAMPLERS[game].sample_command
    for i, state in enumerate(positions(game)[::5]):
        seat = min(rules.awaited(state))
        first = [sample(state, seat, random.Random(i)) for _ in range(3)]
        assert [sample(state, seat, random.Random(i)) for _ in range(3)] == first
