"""The board game's rule trail (``RULES.trail`` / ``RULES.explain``): per event, the rules that
decided it. Each case: given the first position of a seeded random game where a command
does the thing, when that command is explained, then its events name the case's rules."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from domain.board import RULES, State
from domain.board.events import (
    CatastrophePlaced,
    Event,
    LeaderMoved,
    LeaderPlaced,
    MonumentBuilt,
    SupportCommitted,
    TilePlaced,
    TreasuresTaken,
)
from domain.board.model import COMMIT, REVOLT, WAR

Found = tuple[State, Any, list[Event]]
SEEDS = range(1, 60)  # games searched, in order, for the first position of a case


def first(matches: Callable[[State, list[Event]], bool]) -> Found:
    """The first (state, command, events) of seeded random games where ``matches``."""
    for seed in SEEDS:
        rng = random.Random(seed)
        state = RULES.fold(RULES.start(["a", "b"], {}, seed))
        while not RULES.is_over(state):
            seat = min(RULES.awaited(state))
            command = rng.choice(list(RULES.legal_commands(state, seat)))
            events = RULES.decide(state, command)
            if matches(state, events):
                return state, command, events
            for event in events:
                state = RULES.evolve(state, event)
    pytest.fail("no seeded game reaches the case")


def trail_of(found: Found, kind: type[Event]) -> tuple[str, ...]:
    state, command, events = found
    trails = RULES.trail(state, command)
    assert len(trails) == len(events)
    assert trails == RULES.explain(state, events)
    return next(t for e, t in zip(events, trails, strict=True) if isinstance(e, kind))


def _after(state: State, events: list[Event]) -> State:
    for event in events:
        state = RULES.evolve(state, event)
    return state


def test_a_tile_that_starts_a_war() -> None:
    found = first(
        lambda s, es: (
            any(isinstance(e, TilePlaced) for e in es)
            and _after(s, es).decision in (COMMIT, "choose_war")
        )
    )
    assert {"B-TILE-1", "B-TILE-2", "B-TILE-4", "B-WAR-1"} <= set(trail_of(found, TilePlaced))


def test_the_support_that_settles_a_war_and_its_removals() -> None:
    found = first(
        lambda s, es: (
            s.decision == COMMIT
            and s.conflict is not None
            and s.conflict.kind == WAR
            and isinstance(es[0], SupportCommitted)
            and es[0].seat == s.conflict.defender
        )
    )
    trail = trail_of(found, SupportCommitted)
    assert {"B-WAR-5", "B-WAR-4", "B-WAR-6", "B-WAR-7"} <= set(trail)


def test_a_revolt_from_its_leader_to_its_outcome() -> None:
    started = first(
        lambda s, es: (
            _after(s, es).decision == COMMIT
            and any(isinstance(e, LeaderPlaced | LeaderMoved) for e in es)
        )
    )
    state, command, _events = started
    assert "B-LEADER-6" in RULES.trail(state, command)[0]
    settled = first(
        lambda s, es: (
            s.decision == COMMIT
            and s.conflict is not None
            and s.conflict.kind == REVOLT
            and isinstance(es[0], SupportCommitted)
            and es[0].seat == s.conflict.defender
        )
    )
    assert {"B-REVOLT-3", "B-REVOLT-2", "B-REVOLT-5"} <= set(trail_of(settled, SupportCommitted))


def test_a_monument_built() -> None:
    found = first(lambda s, es: any(isinstance(e, MonumentBuilt) for e in es))
    assert {"B-MONUMENT-1", "B-MONUMENT-5"} <= set(trail_of(found, MonumentBuilt))


def test_treasures_taken() -> None:
    found = first(lambda s, es: any(isinstance(e, TreasuresTaken) for e in es))
    assert "B-TREASURE-1" in trail_of(found, TreasuresTaken)


def test_a_catastrophe() -> None:
    found = first(lambda s, es: any(isinstance(e, CatastrophePlaced) for e in es))
    assert {"B-CAT-1", "B-CAT-2", "B-CAT-3", "B-CAT-4"} <= set(trail_of(found, CatastrophePlaced))


def test_the_start_events() -> None:
    events = RULES.start(["a", "b"], {}, 7)
    trails = RULES.explain(None, events)
    assert "B-SETUP-4" in trails[0] and all(t == ("B-SETUP-5",) for t in trails[1:])
