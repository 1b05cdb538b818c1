"""Short given/when/then helpers for card-game tests."""

from __future__ import annotations

import pytest

from domain.cards import Command, Event, State, decide, evolve, pending
from domain.common.errors import RulesError


def play(state: State, *commands: Command) -> tuple[State, list[Event]]:
    """Decide and apply commands in turn; all their events."""
    events: list[Event] = []
    for command in commands:
        new = decide(state, command)
        for event in new:
            state = evolve(state, event)
        events.extend(new)
    return state, events


def refused(
    state: State, command: Command, rule: str, error: type[RulesError] = RulesError
) -> None:
    """The command is refused naming ``rule``, and the state is unchanged."""
    before = state
    with pytest.raises(error) as caught:
        decide(state, command)
    assert caught.value.rule == rule, f"expected {rule}, got {caught.value}"
    assert state == before


def decision(state: State) -> str:
    return str(pending(state)["decision"])


def awaiting(state: State) -> list[int]:
    return list(pending(state)["awaiting"])
