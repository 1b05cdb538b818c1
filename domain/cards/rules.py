"""``RULES``: the card game behind the generic :class:`GameRules` protocol."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from domain.cards.commands import COMMANDS, Command
from domain.cards.decide import decide
from domain.cards.events import EVENTS, Event, is_draw
from domain.cards.evolve import evolve, fold
from domain.cards.explain import explain, explain_event
from domain.cards.flow import awaited, is_over, turn
from domain.cards.legal import legal_commands
from domain.cards.model import DYNASTIES, State
from domain.cards.position import dump_position, load_position
from domain.cards.setup import normalize_options, start
from domain.cards.views import event_view, pending, result, view
from domain.common.codec import JSON, TypeRegistry
from domain.common.protocol import GameRules


class CardRules:
    """``GameRules`` for Euphrat & Tigris: Wettstreit der Könige."""

    kind: str = "cards"
    min_seats: int = 2
    max_seats: int = 4
    dynasties: tuple[str, ...] = DYNASTIES
    commands: TypeRegistry[Command] = COMMANDS
    events: TypeRegistry[Event] = EVENTS

    def normalize_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return normalize_options(options)

    def start(
        self, seat_names: Sequence[str], options: Mapping[str, Any], seed: int
    ) -> list[Event]:
        return start(seat_names, options, seed)

    def rename_seat(self, state: State, seat: int, name: str) -> State:
        seats = tuple(name if n == seat else old for n, old in enumerate(state.setup.seats))
        return state._replace(setup=dataclasses.replace(state.setup, seats=seats))

    def decide(self, state: State, command: Command) -> list[Event]:
        return decide(state, command)

    def explain(self, state: State | None, events: Sequence[Event]) -> list[tuple[str, ...]]:
        return explain(state, list(events))

    def explain_event(self, before: State | None, event: Event, after: State) -> tuple[str, ...]:
        return explain_event(before, event, after)

    def trail(self, state: State, command: Command) -> list[tuple[str, ...]]:
        return explain(state, decide(state, command))

    def evolve(self, state: State | None, event: Event) -> State:
        return evolve(state, event)

    def fold(self, events: Iterable[Event]) -> State:
        return fold(events)

    def legal_commands(self, state: State, seat: int) -> Iterator[Command]:
        return legal_commands(state, seat)

    def awaited(self, state: State) -> frozenset[int]:
        return awaited(state)

    def pending(self, state: State) -> JSON:
        return pending(state)

    def is_over(self, state: State) -> bool:
        return is_over(state)

    def turn(self, state: State) -> tuple[int, int]:
        return turn(state)

    def is_draw(self, event: Event) -> bool:
        return is_draw(event)

    def result(self, state: State) -> JSON | None:
        return result(state)

    def view(self, state: State, viewer: int | None, *, complete: bool = False) -> JSON:
        return view(state, viewer, complete=complete)

    def event_view(
        self,
        event: Event,
        viewer: int | None,
        state_after: State,
        data: Mapping[str, Any] | None = None,
    ) -> JSON:
        return event_view(event, viewer, state_after, data)

    def dump_position(self, state: State) -> JSON:
        return dump_position(state)

    def load_position(self, data: Mapping[str, Any]) -> State:
        return load_position(data)


RULES: GameRules[State, Command, Event] = CardRules()
