"""The card game behind the shared ``GameRules`` protocol: ``RULES``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from domain.cards import decider as _decide
from domain.cards import evolver as _evolve
from domain.cards import position_format as _position
from domain.cards import views as _views
from domain.cards.commands import COMMANDS, Command
from domain.cards.events import EVENTS, CardsDrawn, Event, GameStarted
from domain.cards.model import COLOUR_OF, HAND_SIZE, Options, State
from domain.cards.setup import deal
from domain.common.codec import JSON, TypeRegistry
from domain.common.errors import FormatError
from domain.common.exact import is_int
from domain.common.protocol import GameRules

OPTION_NAMES = ("leader_colour_must_differ", "allow_withdraw", "open_vp_piles")


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The three variants, booleans, default False; unknown keys are refused."""
    if not isinstance(options, Mapping):
        raise FormatError("options must be an object", "options")
    out: dict[str, Any] = dict.fromkeys(OPTION_NAMES, False)
    for key, value in options.items():
        if key not in out:
            raise FormatError(f"unknown option (known: {', '.join(OPTION_NAMES)})", str(key))
        if not isinstance(value, bool):
            raise FormatError(f"must be true or false, got {value!r}", key)
        out[key] = value
    return out


def start(seat_names: Sequence[str], options: Mapping[str, Any], seed: int) -> list[Event]:
    """GameStarted, then 8 cards dealt to each seat in seat order (C-SETUP-4)."""
    if isinstance(seat_names, str) or not 2 <= len(seat_names) <= 4:
        raise FormatError("the card game needs 2 to 4 seats", "seats")
    if not all(isinstance(name, str) for name in seat_names):
        raise FormatError("seat names must be strings", "seats")
    if not is_int(seed):
        raise FormatError(f"seed must be an integer, got {seed!r}", "seed")
    normal = normalize_options(options)
    pile, _, start_player = deal(seed, len(seat_names))
    events: list[Event] = [GameStarted(tuple(seat_names), Options(**normal), seed, start_player)]
    for seat in range(len(seat_names)):
        cards = pile[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
        events.append(CardsDrawn(seat, tuple(COLOUR_OF[c] for c in cards)))
    return events


def legal_commands(state: State, seat: int) -> Iterator[Command]:
    return _decide.legal_commands(state, seat)


def turn(state: State) -> tuple[int, int]:
    return state.turn, state.active


def is_draw(event: Event) -> bool:
    return isinstance(event, CardsDrawn)


def is_over(state: State) -> bool:
    return state.over is not None


class CardRules:
    """``GameRules`` for Euphrat & Tigris: Wettstreit der Könige."""

    kind: str = "cards"
    min_seats: int = 2
    max_seats: int = 4
    dynasties: tuple[str, ...] = ("lion", "vase", "bow", "bull")
    commands: TypeRegistry[Command] = COMMANDS
    events: TypeRegistry[Event] = EVENTS

    def normalize_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return normalize_options(options)

    def start(
        self, seat_names: Sequence[str], options: Mapping[str, Any], seed: int
    ) -> list[Event]:
        return start(seat_names, options, seed)

    def decide(self, state: State, command: Command) -> list[Event]:
        return _decide.decide(state, command)

    def evolve(self, state: State | None, event: Event) -> State:
        return _evolve.evolve(state, event)

    def fold(self, events: Iterable[Event]) -> State:
        return _evolve.fold(events)

    def legal_commands(self, state: State, seat: int) -> Iterator[Command]:
        return _decide.legal_commands(state, seat)

    def awaited(self, state: State) -> frozenset[int]:
        return _views.awaited(state)

    def pending(self, state: State) -> JSON:
        return _views.pending(state)

    def is_over(self, state: State) -> bool:
        return is_over(state)

    def turn(self, state: State) -> tuple[int, int]:
        return turn(state)

    def is_draw(self, event: Event) -> bool:
        return is_draw(event)

    def result(self, state: State) -> JSON | None:
        return _views.result(state)

    def view(self, state: State, viewer: int | None) -> JSON:
        return _views.view(state, viewer)

    def event_view(self, event: Event, viewer: int | None, state_after: State) -> JSON:
        return _views.event_view(event, viewer, state_after)

    def dump_position(self, state: State) -> JSON:
        return _position.dump_position(state)

    def load_position(self, data: Mapping[str, Any]) -> State:
        return _position.load_position(data)


RULES: GameRules[State, Command, Event] = CardRules()
