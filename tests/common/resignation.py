"""Resignation cases both games share (``B-RESIGN-*`` and ``C-RESIGN-*``), run by each game's
``test_resign.py`` with its own ``RULES`` and ``Resign``: the same words, the same promises."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.common.errors import GameOver, IllegalCommand
from tests.autoplay import choose_command

NAMES = ("Ann", "Bob", "Cy", "Di")


def started(rules: Any, seats: int, seed: int = 5) -> tuple[Any, list[Any]]:
    events = rules.start(NAMES[:seats], {}, seed)
    return rules.fold(events), list(events)


def apply(rules: Any, state: Any, events: list[Any], new: list[Any]) -> Any:
    for event in new:
        state = rules.evolve(state, event)
        events.append(event)
    return state


def play_randomly(rules: Any, state: Any, events: list[Any], moves: int, seed: int) -> Any:
    """Up to ``moves`` random legal commands of the awaited seats (resigned ones included)."""
    rng = random.Random(seed)
    for _ in range(moves):
        if rules.is_over(state):
            break
        state = apply(rules, state, events, rules.decide(state, choose_command(rules, state, rng)))
    return state


def two_seats_end_at_once(rules: Any, resign: type) -> None:
    # Given a two-seat game under way, in which seat 1 is not awaited or is
    state, events = started(rules, 2)
    state = play_randomly(rules, state, events, 5, seed=1)
    # When seat 1 resigns
    new = rules.decide(state, resign(seat=1))
    state = apply(rules, state, events, new)
    # Then the game ends at once, and seat 1 loses whatever the points
    assert [type(e).__name__ for e in new] == ["SeatResigned", "GameEnded"]
    assert rules.is_over(state) and rules.awaited(state) == frozenset()
    result = rules.result(state)
    assert result["reason"] == "resigned"
    assert result["places"] == [[0], [1]]
    by_seat = {s["seat"]: s for s in result["seats"]}
    assert by_seat[1]["resigned"] and not by_seat[1]["winner"]
    assert by_seat[0]["winner"] and not by_seat[0]["resigned"]


def resigned_seat_stays_awaited(rules: Any, resign: type, seats: int) -> None:
    # Given a game of three or four seats
    state, events = started(rules, seats)
    awaited = rules.awaited(state)
    seat = min(set(range(seats)) - awaited)  # a seat not awaited now
    # When that seat resigns out of turn
    new = rules.decide(state, resign(seat=seat))
    state = apply(rules, state, events, new)
    # Then the game runs on, awaiting the same seats, and names the resigned seat
    assert [type(e).__name__ for e in new] == ["SeatResigned"]
    assert not rules.is_over(state)
    assert rules.awaited(state) == awaited
    assert rules.resigned(state) == (seat,)
    assert rules.view(state, None)["resigned"] == [seat]
    # and when play comes to it, its decisions are still awaited and decided by the rules
    for _ in range(400):
        if seat in rules.awaited(state) or rules.is_over(state):
            break
        state = play_randomly(rules, state, events, 1, seed=len(events))
    assert seat in rules.awaited(state)
    command = next(iter(rules.legal_commands(state, seat)))
    state = apply(rules, state, events, rules.decide(state, command))
    # and the game folds to the same state from its events
    assert rules.fold(events) == state


def legal_commands_never_offer_resign(rules: Any, resign: type) -> None:
    # Given a game under way, when every awaited seat's legal commands are listed,
    # then none is a resignation (no bot or playout ever chooses it)
    state, events = started(rules, 3)
    for step in range(30):
        for seat in rules.awaited(state):
            assert not any(isinstance(c, resign) for c in rules.legal_commands(state, seat))
        state = play_randomly(rules, state, events, 1, seed=step)


def resigning_twice_is_refused(rules: Any, resign: type, rule: str) -> None:
    state, events = started(rules, 3)
    state = apply(rules, state, events, rules.decide(state, resign(seat=2)))
    with pytest.raises(IllegalCommand) as refused:
        rules.decide(state, resign(seat=2))
    assert refused.value.rule == rule


def resigned_rank_last(rules: Any, resign: type, seats: int, rule: str) -> None:
    # Given a game of ``seats`` seats played a while
    state, events = started(rules, seats, seed=9)
    state = play_randomly(rules, state, events, 60, seed=3)
    assert not rules.is_over(state)
    # When seat 0 resigns, then seat 1, ... until one is left
    order = list(range(seats - 1))
    for seat in order:
        state = apply(rules, state, events, rules.decide(state, resign(seat=seat)))
    # Then the game is over; the one left wins; the first to resign is last
    assert rules.is_over(state)
    result = rules.result(state)
    assert result["places"] == [[seats - 1], *([s] for s in reversed(order))]
    assert [s["resigned"] for s in sorted(result["seats"], key=lambda s: s["seat"])] == [
        *([True] * (seats - 1)),
        False,
    ]
    # and nothing more is accepted, naming the rule the game ended by
    with pytest.raises(GameOver) as refused:
        rules.decide(state, resign(seat=seats - 1))
    assert refused.value.rule == rule
    # and a stored game folds the same, and its position reads back the same
    assert rules.fold(events) == state
    assert rules.load_position(rules.dump_position(state)) == state
