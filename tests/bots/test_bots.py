"""The bots: legal moves everywhere, whole bot-only games, determinism, and
honesty (a bot's choice never depends on a secret its seat cannot see)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.board.determinize import determinize as board_determinize
from domain.bots import BOT_KINDS, Budget, choose_command
from domain.cards.determinize import determinize as cards_determinize
from tests.bots.positions import GAMES, Rules, decision_of, sample_positions, scramble

SMALL = Budget(playouts=12, depth=4, determinizations=3)
DETERMINIZERS = {"board": board_determinize, "cards": cards_determinize}
KINDS = {
    "board": {"action", "commit", "choose_war", "monument", "treasure"},
    "cards": {"action", "point", "commit", "ship", "ship_points", "treasure_swap", "choose_war"},
}
# Seeds whose random games reach every decision kind (monuments and chosen wars are rare).
SEEDS = {"board": range(2, 4), "cards": range(3, 5)}


def positions(game: str) -> list[Any]:
    return sample_positions(GAMES[game], SEEDS[game], per_kind=4, every=60)


_CACHE: dict[str, list[Any]] = {}


def cached(game: str) -> list[Any]:
    if game not in _CACHE:
        _CACHE[game] = positions(game)
    return _CACHE[game]


def seat_of(rules: Rules, state: Any) -> int:
    return min(rules.awaited(state))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_sample_covers_every_decision_kind(game: str) -> None:
    kinds = {decision_of(GAMES[game], s) for s in cached(game)}
    assert KINDS[game] <= kinds


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_determinized_state_shows_the_same_view_and_the_same_legal_commands(game: str) -> None:
    rules = GAMES[game]
    for i, state in enumerate(cached(game)):
        for viewer in range(len(rules.view(state, None)["seats"])):
            view = rules.view(state, viewer)
            sampled = DETERMINIZERS[game](view, random.Random(i))
            assert rules.view(sampled, viewer) == view
        seat = seat_of(rules, state)
        sampled = DETERMINIZERS[game](rules.view(state, seat), random.Random(i))
        assert list(rules.legal_commands(sampled, seat)) == list(rules.legal_commands(state, seat))


@pytest.mark.parametrize("kind", BOT_KINDS)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_bot_returns_a_legal_command_in_every_sampled_position(game: str, kind: str) -> None:
    rules = GAMES[game]
    for i, state in enumerate(cached(game)):
        seat = seat_of(rules, state)
        # given a position and the awaited seat's view
        view = rules.view(state, seat)
        # when the bot decides
        command = choose_command(kind, rules, view, seat=seat, seed=i, budget=SMALL)
        # then the real state accepts it
        assert rules.decide(state, command)


@pytest.mark.parametrize("kind", BOT_KINDS)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_choice_is_deterministic_for_a_bot_seed(game: str, kind: str) -> None:
    rules = GAMES[game]
    for i, state in enumerate(cached(game)[::3]):
        seat = seat_of(rules, state)
        view = rules.view(state, seat)
        first = choose_command(kind, rules, view, seat=seat, seed=i, budget=SMALL)
        assert choose_command(kind, rules, view, seat=seat, seed=i, budget=SMALL) == first


@pytest.mark.parametrize("kind", BOT_KINDS)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_scrambling_hidden_information_never_changes_the_choice(game: str, kind: str) -> None:
    rules = GAMES[game]
    rng = random.Random(11)
    changed = 0
    for i, state in enumerate(cached(game)):
        seat = seat_of(rules, state)
        # given a position and another one this seat cannot tell from it
        scrambled = scramble(rules, state, seat, rng)
        view = rules.view(state, seat)
        assert rules.view(scrambled, seat) == view
        changed += rules.dump_position(scrambled) != rules.dump_position(state)
        # when the bot decides in each, from what the view shows
        here = choose_command(kind, rules, view, seat=seat, seed=i, budget=SMALL)
        there = choose_command(
            kind, rules, rules.view(scrambled, seat), seat=seat, seed=i, budget=SMALL
        )
        # then the choice is the same
        assert here == there
    assert changed >= len(cached(game)) * 0.8  # the scrambler really changes secrets


@pytest.mark.parametrize("kind", BOT_KINDS)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_bot_only_game_runs_to_the_end(game: str, kind: str) -> None:
    rules = GAMES[game]
    budget = Budget(playouts=2, depth=2, determinizations=1)
    state: Any = None
    for event in rules.start(["a", "b"], rules.normalize_options({}), 7):
        state = rules.evolve(state, event)
    for n in range(20_000):
        if rules.is_over(state):
            break
        seat = seat_of(rules, state)
        command = choose_command(
            kind, rules, rules.view(state, seat), seat=seat, seed=n, budget=budget
        )
        for event in rules.decide(state, command):
            state = rules.evolve(state, event)
    assert rules.is_over(state)
    assert rules.result(state) is not None
