"""Turn clocks: an optional time control per game, fixed at creation.

- ``{"per_decision_s": n}``: every awaited seat has ``n`` seconds for each decision;
- ``{"initial_s": n, "increment_s": m}``: a game clock, ``n`` seconds per seat for the whole
  game plus ``m`` seconds after each of its commands.

``on_expiry`` (``random`` or ``greedy``) says which bot moves for a seat whose time runs out
(the move is an event whose actor is ``clock``). Time enters only through the events'
``recorded_at`` metadata and the caller's clock: a seat is awaited from the last event on.
A game clock charges the time between two commands to the seat that made the later one
(when several seats are awaited at once, each is charged only for its own commands). A
lobby claim is no decision: the time a game waited for players is no one's (the clock
starts with the last claim).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.common.errors import FormatError
from service.application.chain import CLAIM_SEAT, COMMAND_KEY

EXPIRY_POLICIES = ("random", "greedy")
MAX_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True, slots=True)
class ClockSpec:
    per_decision_s: float | None = None
    initial_s: float | None = None
    increment_s: float = 0.0
    on_expiry: str = "random"

    def __post_init__(self) -> None:
        if (self.per_decision_s is None) == (self.initial_s is None):
            raise FormatError("a clock has either per_decision_s or initial_s", "clock")
        for name in ("per_decision_s", "initial_s", "increment_s"):
            value = getattr(self, name)
            if value is not None and not 0 <= value <= MAX_SECONDS:
                raise FormatError(f"{name} must be 0-{MAX_SECONDS}", f"clock.{name}")
        if self.per_decision_s is not None and self.per_decision_s <= 0:
            raise FormatError("per_decision_s must be > 0", "clock.per_decision_s")
        if self.on_expiry not in EXPIRY_POLICIES:
            raise FormatError(f"on_expiry must be one of {EXPIRY_POLICIES}", "clock.on_expiry")

    def to_json(self) -> dict[str, Any]:
        if self.per_decision_s is not None:
            return {"per_decision_s": self.per_decision_s, "on_expiry": self.on_expiry}
        return {
            "initial_s": self.initial_s,
            "increment_s": self.increment_s,
            "on_expiry": self.on_expiry,
        }


def clock_field(spec: ClockSpec) -> str:
    return json.dumps(spec.to_json(), sort_keys=True)


def parse_clock(raw: str | None) -> ClockSpec | None:
    return ClockSpec(**json.loads(raw)) if raw else None


@dataclass(frozen=True, slots=True)
class ClockReading:
    since: float  # when the awaited seats became awaited (epoch seconds)
    remaining_s: dict[int, float]  # per awaited seat, at ``now``
    deadlines: dict[int, float]  # per awaited seat (epoch seconds)


def is_claim(meta: Mapping[str, Any]) -> bool:
    """Whether an event's metadata is a lobby claim's (its recorded command ``ClaimSeat``)."""
    command = meta.get(COMMAND_KEY)
    return isinstance(command, Mapping) and command.get("type") == CLAIM_SEAT


def read_clock(
    spec: ClockSpec,
    seats: int,
    awaited: Iterable[int],
    metadata: Iterable[Mapping[str, Any]],
    now: float,
) -> ClockReading:
    """The clock of a game at ``now``: ``metadata`` of its events, oldest first (from its
    start events on; the last one is the moment the awaited seats became awaited)."""
    used = [0.0] * seats
    commands = [0] * seats
    previous: float | None = None
    last_command: str | None = None
    since = now
    for meta in metadata:
        at = datetime.fromisoformat(str(meta["recorded_at"])).timestamp()
        command_id = meta.get("command_id")
        seat = meta.get("seat")
        if command_id != last_command:  # the first event of a command
            if is_claim(meta):
                seat = None  # the time before it was spent waiting for players
            if previous is not None and isinstance(seat, int) and 0 <= seat < seats:
                used[seat] += max(0.0, at - previous)
                commands[seat] += 1
            last_command = command_id
            previous = at
        since = at
    remaining: dict[int, float] = {}
    deadlines: dict[int, float] = {}
    for seat in sorted(awaited):
        if spec.per_decision_s is not None:
            budget = spec.per_decision_s
        else:
            assert spec.initial_s is not None
            budget = spec.initial_s + spec.increment_s * commands[seat] - used[seat]
        deadlines[seat] = since + max(0.0, budget)
        remaining[seat] = max(0.0, deadlines[seat] - now)
    return ClockReading(since, remaining, deadlines)


CLOCK_ACTOR = "clock"  # the actor of the moves (and the resignation) a clock makes for a seat


def timeouts_in_a_row(metadata: Iterable[Mapping[str, Any]], seat: int) -> int:
    """How many of ``seat``'s last decisions in a row its clock made (the seat's time ran out
    each time), from the ``metadata`` of a game's events, oldest first: the clock's policy
    resigns a seat whose time runs out too often in a row (``TIGRIS_CLOCK_RESIGN_AFTER``)."""
    run = 0
    last_command: object = None
    for meta in metadata:
        command_id = meta.get("command_id")
        if command_id == last_command:
            continue  # one command's further events
        last_command = command_id
        if meta.get("seat") != seat or is_claim(meta):
            continue
        run = run + 1 if meta.get("actor") == CLOCK_ACTOR else 0
    return run
