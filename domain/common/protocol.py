"""The decider protocol every game implements, so the service stays generic.

Each game package exposes one object satisfying :class:`GameRules` (its ``RULES``, most
simply a :class:`domain.common.adapter.GameAdapter`), listed once in ``domain.games``. The
service never looks inside a state; it only calls these functions and reads these fields:
the contract, the rules pages and the bots take what they need of a game from here too.

Seats are ``0..n-1`` in play (clockwise) order. A command always carries the
``seat`` that sends it; the HTTP layer fills it in from the caller's token.
``viewer`` is a seat, or ``None`` for a spectator.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from random import Random
from typing import Any, Protocol, TypeVar

from domain.common.codec import JSON, TypeRegistry

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")

# An event's redaction for the contract: the fields a viewer may not see (left out of the
# ``…Redacted`` schema) and the fields added in their place (name: JSON type, e.g. a count).
Redaction = tuple[tuple[str, ...], Mapping[str, str]]
# A string enum the contract names once (a component) for every schema that lists its values:
# (values, description).
SharedEnum = tuple[tuple[str, ...], str]


class GameRules(Protocol[S, C, E]):
    kind: str  # e.g. "board": stable, part of stored game metadata, URLs and event types
    noun: str  # e.g. "board game": how the contract's descriptions name a game of this kind
    rule_prefix: str  # e.g. "B": the letter before every rule id (``B-WAR-4``)
    min_seats: int
    max_seats: int
    dynasties: tuple[str, ...]  # dynasty names in seat order (seat i plays dynasties[i])
    commands: TypeRegistry[C]
    events: TypeRegistry[E]
    # The JSON Schemas of the contract's ``<Kind>View``, ``<Kind>Pending``, ``<Kind>Result``
    # and ``<Kind>Map`` (and the records they refer to), by component name.
    schemas: Mapping[str, JSON]
    redacted: Mapping[str, Redaction]  # by event name: what ``event_view`` may hide
    # Event names that only record what the rules derived (``evolve`` changes nothing on
    # them): a stream stored before one existed lacks it, and is no less right.
    records: frozenset[str]
    enums: Mapping[str, SharedEnum]  # by component name (``Monument``): enums named once
    playouts_per_ms: float  # the bots' search rate on one core (think time -> playouts)

    def normalize_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Validate game options and fill in defaults; FormatError on bad input."""
        ...

    def start(self, seat_names: Sequence[str], options: Mapping[str, Any], seed: int) -> list[E]:
        """The events that begin a game: the setup event (seats, options, seed),
        then the initial draws. ``fold`` of these gives the first position."""
        ...

    def rename_seat(self, state: S, seat: int, name: str) -> S:
        """``state`` with seat ``seat`` named ``name`` (an open seat claimed in the lobby);
        nothing else changes."""
        ...

    def decide(self, state: S, command: C) -> list[E]:
        """Judge a command; return its events (never empty) or raise RulesError."""
        ...

    def explain(self, state: S | None, events: Sequence[E]) -> list[tuple[str, ...]]:
        """The rule trail of ``events`` (decided on ``state``; None: a game's start events):
        per event, the ids of the rules that decided it, consequences that ``evolve`` fires
        with it included. Pure."""
        ...

    def explain_event(self, before: S | None, event: E, after: S) -> tuple[str, ...]:
        """The rule ids behind one event, given the states right before and after it (what
        ``explain`` does per event; for a caller that evolves the events anyway)."""
        ...

    def trail(self, state: S, command: C) -> list[tuple[str, ...]]:
        """``explain`` of the events that ``decide(state, command)`` produces."""
        ...

    def evolve(self, state: S | None, event: E) -> S:
        """Apply one event. ``state`` is None only for the setup event."""
        ...

    def fold(self, events: Iterable[E]) -> S: ...

    def legal_commands(self, state: S, seat: int) -> Iterator[C]:
        """Every command ``decide`` accepts from ``seat`` now, and no other (but ``Resign``:
        see ``resigned``)."""
        ...

    def awaited(self, state: S) -> frozenset[int]:
        """Seats whose input is awaited now (empty when the game is over)."""
        ...

    def resigned(self, state: S) -> tuple[int, ...]:
        """The seats that resigned (``Resign``), in the order they did: they are still
        awaited (the service decides for them) and rank last. ``Resign`` is the one command
        ``decide`` accepts that ``legal_commands`` does not list: it is always open to a seat
        that has not resigned while the game runs, and no bot or playout should choose it."""
        ...

    def setup_map(self, options: Mapping[str, Any]) -> JSON:
        """What a game of ``options`` begins with and never changes (the board game's size,
        rivers, starting temples and treasures; the card game's columns and bridges), as
        JSON of the contract's ``<Kind>Map`` (in ``schemas``), ``kind`` and the normalized
        ``options`` first. Pure and the same for the same options: the service serves it as
        a cacheable resource. FormatError on bad options (as ``normalize_options``)."""
        ...

    def pending(self, state: S) -> JSON:
        """The pending decision as JSON: who must act and on what."""
        ...

    def is_over(self, state: S) -> bool: ...

    def turn(self, state: S) -> tuple[int, int]:
        """``(turn number from 1, active seat)``: undo of one's own action is
        allowed only within the current turn."""
        ...

    def is_draw(self, event: E) -> bool:
        """True for an event that draws from the bag / pile: it reveals hidden
        information, so it can never be undone without the other seats' consent."""
        ...

    def result(self, state: S) -> JSON | None:
        """Final scoring and places once the game is over, else None."""
        ...

    def view(self, state: S, viewer: int | None, *, complete: bool = False) -> JSON:
        """What ``viewer`` may see of the state (None: a spectator); ``complete``:
        everything (the admin). After the game has ended, everything is public. The
        shape is the same for every caller: what is hidden is ``null``. It names its
        ``viewer`` (a bot checks that it decides from its own seat's view) and, if the
        game has turns, the ``turn``."""
        ...

    def event_view(
        self, event: E, viewer: int | None, state_after: S, data: Mapping[str, Any] | None = None
    ) -> JSON:
        """An event's data (its fields, without ``type``) as ``viewer`` may see it
        (e.g. another seat's draw shows only a count). ``state_after`` is a state
        at or after the event (the service passes the game's current one): it tells
        whether the game has ended and what has become public since (a bridge card
        turned face up). ``data``: the event's fields as the registry encodes them at
        its current schema version, when the caller holds them already (read from a
        store): then they are not encoded again."""
        ...

    def dump_position(self, state: S) -> JSON:
        """The versioned JSON position format: everything, hidden parts included."""
        ...

    def load_position(self, data: Mapping[str, Any]) -> S:
        """Inverse of ``dump_position``; FormatError on bad input."""
        ...

    def rules_markdown(self) -> str:
        """The rules the engine follows, in Markdown, one heading per rule id (the
        service's ``/rules/<kind>`` page)."""
        ...

    def determinize(self, view: Mapping[str, Any], rng: Random) -> S:
        """A full state consistent with a seat's ``view``, its hidden parts sampled."""
        ...

    def sample_command(self, state: S, seat: int, rng: Random) -> C:
        """A random legal command of ``seat``: the bots' playouts' move."""
        ...

    def score_keys(self, state: S) -> list[tuple[int, ...]]:
        """Every seat's score as a tuple that compares like the final ranking does (the
        bots' evaluation)."""
        ...


def fold_with(rules: GameRules[S, C, E], events: Iterable[E]) -> S:
    """Fold events through ``rules.evolve``; fails on an empty sequence."""
    state: S | None = None
    for event in events:
        state = rules.evolve(state, event)
    if state is None:
        raise ValueError("cannot fold an empty event sequence: a game begins with its setup event")
    return state
