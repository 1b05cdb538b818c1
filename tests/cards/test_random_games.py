"""Property-based random games: 200+ seeded games with 2, 3 and 4 players and
random variants, commands drawn from ``legal_commands``, invariants after
every event (issue 3)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.cards import RULES, Event, State, fold
from domain.cards.setup import OPTION_NAMES
from tests.autoplay import play_random_game
from tests.cards.invariants import accounted, check_all, display_sound, views_hide_secrets

GAMES = 210
CHUNKS = 7


def options_for(seed: int) -> dict[str, Any]:
    rng = random.Random(seed * 7919)
    return {
        name: rng.random() < 0.5
        for name in OPTION_NAMES  # every variant, the trader's included
    }


def run_checked_game(seed: int) -> tuple[int, State]:
    """One complete game with every invariant checked after every event."""
    seats = 2 + seed % 3
    count = 0
    snapshots: dict[int, State] = {}

    def on_event(before: State, event: Event, after: State) -> None:
        nonlocal count
        count += 1
        check_all(before, event, after)
        # the secrecy check is the costly one: one viewer per event, in rotation
        views_hide_secrets(after, viewer=count % (after.seat_count + 1) - 1)
        if count % 400 == 0:
            snapshots[count] = after

    played = play_random_game(RULES, seats, seed, options_for(seed), on_event=on_event)
    final = played.final
    assert final is not None and final.over is not None
    assert fold(played.events) == final  # folding equals step-by-step evolution
    for n, state in snapshots.items():
        assert fold(played.events[:n]) == state
    assert RULES.result(final) is not None
    return seats, final


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_keep_every_invariant(chunk: int) -> None:
    seen = set()
    for seed in range(chunk, GAMES, CHUNKS):
        seats, final = run_checked_game(seed)
        seen.add(seats)
        accounted(final)
        display_sound(final)
    assert seen == {2, 3, 4}
