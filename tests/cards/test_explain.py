"""The card game's rule trail (``RULES.trail`` / ``RULES.explain``): per event, the rules that
decided it. Each case: given the first position of a seeded random game where a command
does the thing, when that command is explained, then its events name the case's rules."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from domain.cards import RULES, State
from domain.cards.events import CardPlayed, ConflictResolved, Event, PointScored, ShipBuilt
from domain.cards.flow import current_decision
from domain.cards.model import ShipPoints

Found = tuple[State, Any, list[Event]]
SEEDS = range(1, 40)
OPTIONS = RULES.normalize_options({})


def first(matches: Callable[[State, list[Event]], bool]) -> Found:
    """The first (state, command, events) of seeded random games where ``matches``."""
    for seed in SEEDS:
        rng = random.Random(seed)
        state = RULES.fold(RULES.start(["a", "b"], OPTIONS, seed))
        while not RULES.is_over(state):
            seat = min(RULES.awaited(state))
            command = rng.choice(list(RULES.legal_commands(state, seat)))
            events = RULES.decide(state, command)
            if matches(state, events):
                return state, command, events
            for event in events:
                state = RULES.evolve(state, event)
    pytest.fail("no seeded game reaches the case")


def trail_of(found: Found, event_type: type[Event], **fields: Any) -> tuple[str, ...]:
    state, command, events = found
    trails = RULES.trail(state, command)
    assert trails == RULES.explain(state, events) and len(trails) == len(events)
    return next(
        t
        for e, t in zip(events, trails, strict=True)
        if isinstance(e, event_type) and all(getattr(e, k) == v for k, v in fields.items())
    )


def _has(event_type: type[Event], **fields: Any) -> Callable[[State, list[Event]], bool]:
    return lambda _s, es: any(
        isinstance(e, event_type) and all(getattr(e, k) == v for k, v in fields.items()) for e in es
    )


def test_a_bridge_card_that_joins_kingdoms_into_a_war() -> None:
    found = first(
        lambda s, es: (
            any(isinstance(e, CardPlayed) and e.bridge is not None for e in es)
            and any("C-JOIN-1" in t for t in RULES.explain(s, es))
        )
    )
    trail = trail_of(found, CardPlayed)
    assert {"C-TURN-2", "C-CARD-2", "C-JOIN-1"} <= set(trail)


def test_a_war_resolved() -> None:
    found = first(_has(ConflictResolved, kind="war"))
    assert {"C-WAR-3", "C-WAR-4", "C-WAR-5"} <= set(trail_of(found, ConflictResolved, kind="war"))


def test_a_revolt_resolved() -> None:
    found = first(_has(ConflictResolved, kind="revolt"))
    trail = trail_of(found, ConflictResolved, kind="revolt")
    assert {"C-REVOLT-2", "C-REVOLT-4"} <= set(trail)


def test_a_ship_built_and_its_points() -> None:
    built = first(_has(ShipBuilt))
    assert "C-SHIP-1" in trail_of(built, ShipBuilt)
    points = first(
        lambda s, es: (
            isinstance(current_decision(s), ShipPoints)
            and any(isinstance(e, PointScored) for e in es)
        )
    )
    assert "C-SHIP-5" in trail_of(points, PointScored)


def test_the_start_events() -> None:
    events = RULES.start(["a", "b"], OPTIONS, 7)
    trails = RULES.explain(None, events)
    assert trails[0] == ("C-SETUP-2", "C-SETUP-4") and all("C-SETUP-4" in t for t in trails)
