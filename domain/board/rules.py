"""``RULES``: the board game behind the generic :class:`GameRules` protocol."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from domain.board.commands import COMMANDS, Command
from domain.board.decide import awaited_seat, decide
from domain.board.events import EVENTS, Event, GameStarted, TilesDrawn, TilesSwapped
from domain.board.evolve import bag_order, evolve, fold
from domain.board.legal import legal_commands
from domain.board.model import HAND_SIZE, OVER, State
from domain.board.position import dump_position, load_position
from domain.board.views import DYNASTIES, event_view, pending, result, view
from domain.common.codec import JSON
from domain.common.colours import COLOURS
from domain.common.errors import FormatError
from domain.common.exact import is_int


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The board game has no options yet: any key is an error."""
    if not isinstance(options, Mapping):
        raise FormatError("options must be an object", "options")
    for key in options:
        raise FormatError(f"unknown option {key!r}", str(key))
    return {}


def start(seat_names: Sequence[str], options: Mapping[str, Any], seed: int) -> list[Event]:
    """``GameStarted`` then each seat's six tiles in seat order (B-SETUP-4, B-SETUP-5)."""
    names = list(seat_names)
    if not 2 <= len(names) <= 4:
        raise FormatError(f"the board game takes 2 to 4 seats, not {len(names)}", "seats")
    if not is_int(seed):
        raise FormatError(f"expected an integer seed, got {seed!r}", "seed")
    opts = normalize_options(options)
    bag, start_player = bag_order(seed, len(names))
    events: list[Event] = [GameStarted(tuple(names), seed, start_player, opts)]
    for seat in range(len(names)):
        tiles = bag[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
        events.append(TilesDrawn(seat, tuple(COLOURS[c] for c in tiles)))
    return events


def awaited(state: State) -> frozenset[int]:
    seat = awaited_seat(state)
    return frozenset() if seat < 0 else frozenset((seat,))


def is_over(state: State) -> bool:
    return state.decision == OVER


def turn(state: State) -> tuple[int, int]:
    return (state.turn, state.active)


def is_draw(event: Event) -> bool:
    return isinstance(event, TilesDrawn | TilesSwapped)


class BoardRules:
    """The board game's :class:`~domain.common.protocol.GameRules`."""

    kind = "board"
    min_seats = 2
    max_seats = 4
    dynasties: tuple[str, ...] = DYNASTIES
    commands = COMMANDS
    events = EVENTS

    def normalize_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return normalize_options(options)

    def start(
        self, seat_names: Sequence[str], options: Mapping[str, Any], seed: int
    ) -> list[Event]:
        return start(seat_names, options, seed)

    def decide(self, state: State, command: Command) -> list[Event]:
        return decide(state, command)

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

    def view(self, state: State, viewer: int | None) -> JSON:
        return view(state, viewer)

    def event_view(self, event: Event, viewer: int | None, state_after: State) -> JSON:
        return event_view(event, viewer, state_after)

    def dump_position(self, state: State) -> JSON:
        return dump_position(state)

    def load_position(self, data: Mapping[str, Any]) -> State:
        return load_position(data)


RULES = BoardRules()
