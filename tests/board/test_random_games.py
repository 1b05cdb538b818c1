"""Property-based random games: invariants after every event of 210 seeded games."""

from __future__ import annotations

import json
import random

import pytest

from domain.board import (
    RULES,
    Event,
    State,
    TurnEnded,
    dump_position,
    fold,
    load_position,
)
from tests.autoplay import play_random_game
from tests.board.invariants import check_all, check_views_hide

SEATS = (2, 3, 4)
GAMES_PER_BATCH = 35


class Checker:
    """Checks the invariants after each event and keeps a sample of states for folding."""

    def __init__(self, seed: int, seats: int) -> None:
        self.seats = seats
        self.sample = random.Random(seed)
        self.count = 0
        self.checkpoints: list[tuple[int, State]] = []

    def __call__(self, before: State, event: Event, after: State) -> None:
        self.count += 1
        check_all(after)
        if isinstance(event, TurnEnded):  # B-TURN-4: everybody starts a turn with 6 tiles
            assert all(sum(h) == 6 for h in after.hands), f"a hand is short\n{after}"
        # one viewer per event, in rotation: seat 0, seat 1, ..., the spectator
        viewer = self.count % (self.seats + 1)
        check_views_hide(after, [None if viewer == self.seats else viewer])
        if self.sample.random() < 0.02:
            self.checkpoints.append((self.count, after))


def play_checked(seed: int, seats: int) -> None:
    checker = Checker(seed, seats)
    played = play_random_game(RULES, seats, seed, on_event=checker)
    final = played.final
    assert final is not None and RULES.is_over(final)
    assert RULES.result(final) is not None
    # folding the events gives the state reached step by step, at the end and midway
    assert fold(played.events) == final
    for n, state in checker.checkpoints:
        assert fold(played.events[:n]) == state
        # and the position format describes it exactly
        data = dump_position(state)
        assert load_position(json.loads(json.dumps(data))) == state
        assert dump_position(load_position(data)) == data


@pytest.mark.slow
@pytest.mark.parametrize("batch", range(6))
def test_random_games_keep_the_invariants(batch: int) -> None:
    for game in range(GAMES_PER_BATCH):
        play_checked(1000 + batch * GAMES_PER_BATCH + game, SEATS[game % 3])
