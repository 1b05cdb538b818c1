"""``GameAdapter``: one game's functions behind the :class:`GameRules` protocol.

A game package registers once, by building one adapter from its module-level functions
and data (``domain/<kind>/rules.py``); the adapter only forwards. Everything the service,
the contract, the bots and the rules pages need from a game is here, so no module outside
the game's package names the game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Generic, Protocol, TypeVar

from domain.common.codec import JSON, TypeRegistry
from domain.common.protocol import Redaction, SharedEnum, fold_with


@cache
def package_text(package: str, name: str) -> str:
    """The text file ``name`` shipped in ``package`` (e.g. a game's ``RULES.md``), read once."""
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")
S_contra = TypeVar("S_contra", contravariant=True)
E_contra = TypeVar("E_contra", contravariant=True)


class ViewFn(Protocol[S_contra]):
    def __call__(self, state: S_contra, viewer: int | None, *, complete: bool = False) -> JSON: ...


class EventViewFn(Protocol[S_contra, E_contra]):
    def __call__(
        self,
        event: E_contra,
        viewer: int | None,
        state_after: S_contra,
        data: Mapping[str, Any] | None = None,
        /,
    ) -> JSON: ...


@dataclass(kw_only=True, eq=False)
class GameAdapter(Generic[S, C, E]):
    """A :class:`~domain.common.protocol.GameRules` made of a game's functions."""

    # What the game is
    kind: str
    noun: str
    rule_prefix: str
    min_seats: int
    max_seats: int
    dynasties: tuple[str, ...]
    commands: TypeRegistry[C]
    events: TypeRegistry[E]
    # The decider
    normalize_options_fn: Callable[[Mapping[str, Any]], dict[str, Any]]
    start_fn: Callable[[Sequence[str], Mapping[str, Any], int], list[E]]
    rename_seat_fn: Callable[[S, int, str], S]
    decide_fn: Callable[[S, C], list[E]]
    evolve_fn: Callable[[S | None, E], S]
    explain_fn: Callable[[S | None, list[E]], list[tuple[str, ...]]]
    explain_event_fn: Callable[[S | None, E, S], tuple[str, ...]]
    legal_commands_fn: Callable[[S, int], Iterator[C]]
    awaited_fn: Callable[[S], frozenset[int]]
    is_over_fn: Callable[[S], bool]
    turn_fn: Callable[[S], tuple[int, int]]
    is_draw_fn: Callable[[E], bool]
    # What a caller sees
    setup_map_fn: Callable[[Mapping[str, Any]], JSON]
    pending_fn: Callable[[S], JSON]
    result_fn: Callable[[S], JSON | None]
    view_fn: ViewFn[S]
    event_view_fn: EventViewFn[S, E]
    dump_position_fn: Callable[[S], JSON]
    load_position_fn: Callable[[Mapping[str, Any]], S]
    fold_fn: Callable[[Iterable[E]], S] | None = None  # default: evolve each event in turn
    resigned_fn: Callable[[S], tuple[int, ...]] = lambda state: ()  # default: no resignation
    # The contract, the rules page, the bots
    schemas: Mapping[str, JSON] = field(default_factory=dict)
    redacted: Mapping[str, Redaction] = field(default_factory=dict)
    records: frozenset[str] = frozenset()
    enums: Mapping[str, SharedEnum] = field(default_factory=dict)
    rules_markdown_fn: Callable[[], str] = lambda: ""
    determinize_fn: Callable[[Mapping[str, Any], random.Random], S] | None = None
    sample_command_fn: Callable[[S, int, random.Random], C] | None = None
    score_keys_fn: Callable[[S], list[tuple[int, ...]]] | None = None
    playouts_per_ms: float = 1.0

    def normalize_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return self.normalize_options_fn(options)

    def start(self, seat_names: Sequence[str], options: Mapping[str, Any], seed: int) -> list[E]:
        return self.start_fn(seat_names, options, seed)

    def rename_seat(self, state: S, seat: int, name: str) -> S:
        return self.rename_seat_fn(state, seat, name)

    def decide(self, state: S, command: C) -> list[E]:
        return self.decide_fn(state, command)

    def explain(self, state: S | None, events: Sequence[E]) -> list[tuple[str, ...]]:
        return self.explain_fn(state, list(events))

    def explain_event(self, before: S | None, event: E, after: S) -> tuple[str, ...]:
        return self.explain_event_fn(before, event, after)

    def trail(self, state: S, command: C) -> list[tuple[str, ...]]:
        return self.explain_fn(state, self.decide_fn(state, command))

    def evolve(self, state: S | None, event: E) -> S:
        return self.evolve_fn(state, event)

    def fold(self, events: Iterable[E]) -> S:
        if self.fold_fn is None:
            return fold_with(self, events)
        return self.fold_fn(events)

    def legal_commands(self, state: S, seat: int) -> Iterator[C]:
        return self.legal_commands_fn(state, seat)

    def awaited(self, state: S) -> frozenset[int]:
        return self.awaited_fn(state)

    def resigned(self, state: S) -> tuple[int, ...]:
        return self.resigned_fn(state)

    def setup_map(self, options: Mapping[str, Any]) -> JSON:
        return self.setup_map_fn(options)

    def pending(self, state: S) -> JSON:
        return self.pending_fn(state)

    def is_over(self, state: S) -> bool:
        return self.is_over_fn(state)

    def turn(self, state: S) -> tuple[int, int]:
        return self.turn_fn(state)

    def is_draw(self, event: E) -> bool:
        return self.is_draw_fn(event)

    def result(self, state: S) -> JSON | None:
        return self.result_fn(state)

    def view(self, state: S, viewer: int | None, *, complete: bool = False) -> JSON:
        return self.view_fn(state, viewer, complete=complete)

    def event_view(
        self, event: E, viewer: int | None, state_after: S, data: Mapping[str, Any] | None = None
    ) -> JSON:
        return self.event_view_fn(event, viewer, state_after, data)

    def dump_position(self, state: S) -> JSON:
        return self.dump_position_fn(state)

    def load_position(self, data: Mapping[str, Any]) -> S:
        return self.load_position_fn(data)

    def rules_markdown(self) -> str:
        return self.rules_markdown_fn()

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> S:
        if self.determinize_fn is None:
            raise NotImplementedError(f"the {self.kind} game has no determinizer: no bots")
        return self.determinize_fn(view, rng)

    def sample_command(self, state: S, seat: int, rng: random.Random) -> C:
        if self.sample_command_fn is None:  # uniform over the legal commands
            options = list(self.legal_commands_fn(state, seat))
            return options[rng.randrange(len(options))]
        return self.sample_command_fn(state, seat, rng)

    def score_keys(self, state: S) -> list[tuple[int, ...]]:
        if self.score_keys_fn is None:
            raise NotImplementedError(f"the {self.kind} game has no evaluation: no searching bots")
        return self.score_keys_fn(state)
