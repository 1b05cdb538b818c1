"""Seeded random play through ``legal_commands``: a test helper (tests, benchmarks), outside
the domain package since it is no rule of either game.

The random source is a local ``random.Random`` seeded by the caller, never the
global one, so a game is reproducible from its two seeds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from domain.common.protocol import GameRules

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")


@dataclass
class PlayedGame(Generic[S, C, E]):
    """The course of one random game."""

    events: list[E] = field(default_factory=list)
    commands: list[C] = field(default_factory=list)
    states: list[S] = field(default_factory=list)  # state after each event (if kept)
    final: S | None = None
    setup_events: int = 0  # how many of ``events`` came from ``start`` (before any command)


def choose_command(rules: GameRules[S, C, E], state: S, rng: random.Random) -> C:
    """A uniformly random legal command for one of the awaited seats."""
    seats = sorted(rules.awaited(state))
    if not seats:
        raise ValueError("no seat is awaited: the game is over")
    seat = seats[0] if len(seats) == 1 else rng.choice(seats)
    options = list(rules.legal_commands(state, seat))
    if not options:
        raise AssertionError(f"seat {seat} is awaited but has no legal command")
    return rng.choice(options)


def play_random_game(
    rules: GameRules[S, C, E],
    seat_count: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    keep_states: bool = False,
    max_commands: int = 20_000,
    on_event: Callable[[S, E, S], None] | None = None,
) -> PlayedGame[S, C, E]:
    """Play one game to its end with commands drawn from ``legal_commands``.

    ``seed`` seeds both the game (bag order, start player) and the choice of
    commands. ``on_event(before, event, after)`` sees every event, setup included
    (``before`` is the setup state itself for the first event).
    """
    rng = random.Random(seed ^ 0x5EED)
    names = [f"player{i + 1}" for i in range(seat_count)]
    played: PlayedGame[S, C, E] = PlayedGame()
    state: S | None = None
    for event in rules.start(names, rules.normalize_options(options or {}), seed):
        after = rules.evolve(state, event)
        if on_event is not None:
            on_event(after if state is None else state, event, after)
        state = after
        played.events.append(event)
        if keep_states:
            played.states.append(state)
    assert state is not None
    played.setup_events = len(played.events)
    for _ in range(max_commands):
        if rules.is_over(state):
            played.final = state
            return played
        command = choose_command(rules, state, rng)
        played.commands.append(command)
        for event in rules.decide(state, command):
            after = rules.evolve(state, event)
            if on_event is not None:
                on_event(state, event, after)
            state = after
            played.events.append(event)
            if keep_states:
                played.states.append(state)
    raise AssertionError(f"game did not end within {max_commands} commands (seed {seed})")
