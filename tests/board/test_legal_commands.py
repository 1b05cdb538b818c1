"""``legal_commands`` is exact: ``decide`` accepts what it yields and refuses the rest.

Checked against a brute-force superset of candidate commands on positions of
random games, plus perft-style golden counts on fixed seeds.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from domain.board import (
    RULES,
    Command,
    ConflictResolved,
    State,
    decide,
    evolve,
    fold,
    legal_commands,
    start,
)
from domain.common.errors import FormatError, RulesError
from tests.autoplay import play_random_game
from tests.board.candidates import candidates


def accepted(state: State, seat: int) -> set[Command]:
    found = set()
    for command in candidates(state, seat):
        try:
            decide(state, command)
        except (RulesError, FormatError):
            continue
        found.add(command)
    return found


def sample_positions(seed: int, seats: int) -> Iterator[State]:
    played = play_random_game(RULES, seats, seed, keep_states=True)
    for i, state in enumerate(played.states):
        if state.decision not in ("action", "refill", "over") or i % 40 == 0:
            yield state


@pytest.mark.parametrize(
    ("seed", "seats"), [(3, 2), (5, 4), (18, 2), (25, 3)]
)  # 18, 25: every decision
def test_legal_commands_are_exactly_the_accepted_ones(seed: int, seats: int) -> None:
    checked = 0
    for state in sample_positions(seed, seats):
        for seat in range(seats):
            legal = list(legal_commands(state, seat))
            assert len(legal) == len(set(legal)), "a command is listed twice"
            assert set(legal) == accepted(state, seat), RULES.pending(state)
            checked += 1
    assert checked >= 20


def perft(state: State, depth: int) -> int:
    """Number of command sequences of ``depth`` from ``state`` (awaited seats only)."""
    seats = sorted(RULES.awaited(state))
    if depth == 0 or not seats:
        return 1
    total = 0
    for seat in seats:
        for command in legal_commands(state, seat):
            if depth == 1:
                total += 1
                continue
            after = state
            for event in decide(state, command):
                after = evolve(after, event)
            total += perft(after, depth - 1)
    return total


@pytest.mark.parametrize(
    ("seed", "seats", "events", "depth", "count"),
    [
        (1, 2, 0, 1, 746),
        (1, 2, 0, 2, 499_964),
        (2, 4, 0, 2, 370_365),
        (7, 3, 120, 1, 345),
        (8, 4, 200, 1, 3),  # a revolt: commit 0, 1 or 2 temples
    ],
)
def test_perft_golden_counts(seed: int, seats: int, events: int, depth: int, count: int) -> None:
    if events:
        # ``events`` counts the stream as stored before ConflictResolved existed: the
        # position the counts were taken on (the record of an outcome changes no state)
        played = play_random_game(RULES, seats, seed).events
        state = fold([e for e in played if not isinstance(e, ConflictResolved)][:events])
    else:
        state = fold(start([f"p{i}" for i in range(seats)], {}, seed))
    assert perft(state, depth) == count
