"""Pile: a tiny but complete game behind the ``GameRules`` protocol, for storage tests and
as the third game of ``tests/test_third_game.py``.

2-4 seats take turns removing 1..``max_take`` counters from a pile whose size is
drawn from the seed (the one draw, hidden until dealt); whoever takes the last
counter loses. It exercises everything the store relies on (a setup event, a
draw, decide/evolve, the position format) without depending on the real games,
and its ``CountersTaken`` event is at schema v2 with an upcaster from v1. Its
registration also has all the rest a game on offer needs: a rule-id prefix and a rules
page, the contract's schemas and redactions, and what the bots need (determinization,
a playout sampler, score keys, a playout rate).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from domain.common.codec import JSON, TypeRegistry
from domain.common.errors import FormatError, GameOver, IllegalCommand, NotAwaited
from domain.common.exact import is_int_between
from domain.common.protocol import Redaction, SharedEnum, fold_with
from domain.common.schema import SEAT, array, const, nullable, record

POSITION_FORMAT = "pile/1"

RULES_MARKDOWN = """# Pile — the rules this engine follows

Two to four players take turns taking counters from one pile; who takes the last loses.

### P-TURN-1 Seats move in order

Seat 0 begins, then each seat in turn.

### P-TAKE-1 Take one to `max_take` counters

A seat takes at least one counter and at most `max_take` (an option, 1 to 5, 3 by
default), and never more than are left.

### P-END-1 Who takes the last counter loses

The game ends when the pile is empty; nothing is accepted after that.
"""
COUNT_RANGE: JSON = array({"type": "integer", "minimum": 1}, minItems=2, maxItems=2)
SCHEMAS: dict[str, JSON] = {
    "PileView": record(
        {
            "kind": const("pile"),
            "viewer": nullable(SEAT),
            "format": const(POSITION_FORMAT),
            "seats": array({"type": "string"}),
            "max_take": {"type": "integer", "minimum": 1, "maximum": 5},
            "seed": {"type": "integer", "minimum": 0},
            "pile": nullable({"type": "integer", "minimum": 0}),
            "next_seat": SEAT,
            "turn": {"type": "integer", "minimum": 1},
            "taken": array({"type": "integer", "minimum": 0}),
            "loser": nullable(SEAT),
        },
        optional=("seed",),
        description="A pile game's position; `seed` only once the game is over.",
    ),
    "PilePending": record(
        {"kind": const("pile"), "seat": nullable(SEAT), "take": nullable(COUNT_RANGE)},
        description="Who takes next, and how many counters they may take.",
    ),
    "PileMap": record(
        {
            "kind": const("pile"),
            "options": {"$ref": "#/components/schemas/PileOptions"},
            "take": COUNT_RANGE,
        },
        description="What a pile game of these options begins with: how many counters a "
        "turn may take.",
    ),
    "PileResult": record(
        {"kind": const("pile"), "loser": SEAT, "taken": array({"type": "integer"})},
        description="Who took the last counter, and how many each seat took.",
    ),
}
REDACTED: dict[str, Redaction] = {"GameStarted": (("seed",), {})}


@dataclass(frozen=True, slots=True)
class Options:
    """The pile game's options."""

    max_take: int = 3


@dataclass(frozen=True, slots=True)
class TakeCounters:
    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class GameStarted:
    seats: tuple[str, ...]
    options: Options
    seed: int


@dataclass(frozen=True, slots=True)
class PileDealt:
    size: int


@dataclass(frozen=True, slots=True)
class CountersTaken:
    seat: int
    count: int


PileCommand = TakeCounters
PileEvent = GameStarted | PileDealt | CountersTaken

COMMANDS: TypeRegistry[PileCommand] = TypeRegistry("command")
EVENTS: TypeRegistry[PileEvent] = TypeRegistry("event")
COMMANDS.register("TakeCounters")(TakeCounters)
EVENTS.register("GameStarted")(GameStarted)
EVENTS.register("PileDealt")(PileDealt)
EVENTS.register("CountersTaken", version=2)(CountersTaken)


@EVENTS.upcaster("CountersTaken", from_version=1)
def _counters_taken_v1(data: JSON) -> JSON:
    # v1 called the number of counters "amount".
    rest = {k: v for k, v in data.items() if k != "amount"}
    return {**rest, "count": data["amount"]}


@dataclass(frozen=True, slots=True)
class PileState:
    seats: tuple[str, ...]
    max_take: int
    seed: int
    pile: int | None  # None until dealt
    next_seat: int
    turn: int
    taken: tuple[int, ...]
    loser: int | None

    @property
    def over(self) -> bool:
        return self.loser is not None


class PileRules:
    kind: str = "pile"
    noun: str = "pile game"
    rule_prefix: str = "P"
    min_seats: int = 2
    max_seats: int = 4
    dynasties: tuple[str, ...] = ("north", "east", "south", "west")
    commands: TypeRegistry[PileCommand] = COMMANDS
    events: TypeRegistry[PileEvent] = EVENTS
    schemas: Mapping[str, JSON] = SCHEMAS
    redacted: Mapping[str, Redaction] = REDACTED
    records: frozenset[str] = frozenset()
    enums: Mapping[str, SharedEnum] = {}
    playouts_per_ms: float = 20.0

    def normalize_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        unknown = set(options) - {"max_take"}
        if unknown:
            raise FormatError(f"unknown option(s) {sorted(unknown)}", "options")
        max_take = options.get("max_take", 3)
        if not is_int_between(max_take, 1, 5):
            raise FormatError(f"max_take must be 1..5, not {max_take!r}", "max_take")
        return {"max_take": max_take}

    def start(
        self, seat_names: Sequence[str], options: Mapping[str, Any], seed: int
    ) -> list[PileEvent]:
        size = random.Random(seed).randint(12, 30)
        return [GameStarted(tuple(seat_names), Options(options["max_take"]), seed), PileDealt(size)]

    def rename_seat(self, state: PileState, seat: int, name: str) -> PileState:
        seats = tuple(name if n == seat else old for n, old in enumerate(state.seats))
        return replace(state, seats=seats)

    def decide(self, state: PileState, command: PileCommand) -> list[PileEvent]:
        # P-END-1: nothing is accepted after the last counter.
        if state.over:
            raise GameOver("P-END-1", "the game is over")
        # P-TURN-1: seats move in order.
        if command.seat != state.next_seat:
            raise NotAwaited("P-TURN-1", f"seat {state.next_seat} moves, not seat {command.seat}")
        assert state.pile is not None
        # P-TAKE-1: 1..max_take counters, no more than are left.
        if not 1 <= command.count <= min(state.max_take, state.pile):
            raise IllegalCommand(
                "P-TAKE-1", f"take 1..{min(state.max_take, state.pile)}, not {command.count}"
            )
        return [CountersTaken(command.seat, command.count)]

    def explain(
        self, state: PileState | None, events: Sequence[PileEvent]
    ) -> list[tuple[str, ...]]:
        return [() for _ in events]  # the test game names no rules in its trails

    def explain_event(
        self, before: PileState | None, event: PileEvent, after: PileState
    ) -> tuple[str, ...]:
        return ()

    def trail(self, state: PileState, command: PileCommand) -> list[tuple[str, ...]]:
        return self.explain(state, self.decide(state, command))

    def evolve(self, state: PileState | None, event: PileEvent) -> PileState:
        if isinstance(event, GameStarted):
            seats = len(event.seats)
            return PileState(
                event.seats, event.options.max_take, event.seed, None, 0, 1, (0,) * seats, None
            )
        if state is None:
            raise FormatError("a game begins with GameStarted")
        if isinstance(event, PileDealt):
            return replace(state, pile=event.size)
        if isinstance(event, CountersTaken):
            assert state.pile is not None
            pile = state.pile - event.count
            taken = tuple(
                t + event.count if seat == event.seat else t for seat, t in enumerate(state.taken)
            )
            return replace(
                state,
                pile=pile,
                taken=taken,
                next_seat=(event.seat + 1) % len(state.seats),
                turn=state.turn + 1,
                loser=event.seat if pile == 0 else None,
            )
        raise FormatError(f"not a pile event: {event!r}")

    def fold(self, events: Iterable[PileEvent]) -> PileState:
        return fold_with(self, events)

    def legal_commands(self, state: PileState, seat: int) -> Iterator[PileCommand]:
        if state.over or seat != state.next_seat or state.pile is None:
            return
        for count in range(1, min(state.max_take, state.pile) + 1):
            yield TakeCounters(seat, count)

    def awaited(self, state: PileState) -> frozenset[int]:
        return frozenset() if state.over else frozenset({state.next_seat})

    def resigned(self, state: PileState) -> tuple[int, ...]:
        return ()  # the pile game knows no resignation: no seat is ever played by the server

    def setup_map(self, options: Mapping[str, Any]) -> JSON:
        normal = self.normalize_options(options)
        return {"kind": self.kind, "options": normal, "take": [1, normal["max_take"]]}

    def pending(self, state: PileState) -> JSON:
        if state.over or state.pile is None:
            return {"kind": self.kind, "seat": None, "take": None}
        take = [1, min(state.max_take, state.pile)]
        return {"kind": self.kind, "seat": state.next_seat, "take": take}

    def is_over(self, state: PileState) -> bool:
        return state.over

    def turn(self, state: PileState) -> tuple[int, int]:
        return state.turn, state.next_seat

    def is_draw(self, event: PileEvent) -> bool:
        return isinstance(event, PileDealt)

    def result(self, state: PileState) -> JSON | None:
        if state.loser is None:
            return None
        return {"kind": self.kind, "loser": state.loser, "taken": list(state.taken)}

    def view(self, state: PileState, viewer: int | None, *, complete: bool = False) -> JSON:
        position = {"kind": self.kind, "viewer": viewer, **self.dump_position(state)}
        if not (state.over or complete):
            del position["seed"]  # the seed would reveal the pile before it is dealt
        return position

    def event_view(
        self,
        event: PileEvent,
        viewer: int | None,
        state_after: PileState,
        data: Mapping[str, Any] | None = None,
    ) -> JSON:
        wire = EVENTS.fields_json(event, data)  # the envelope names the type
        if isinstance(event, GameStarted) and not state_after.over:
            del wire["seed"]
        return wire

    def dump_position(self, state: PileState) -> JSON:
        return {
            "format": POSITION_FORMAT,
            "seats": list(state.seats),
            "max_take": state.max_take,
            "seed": state.seed,
            "pile": state.pile,
            "next_seat": state.next_seat,
            "turn": state.turn,
            "taken": list(state.taken),
            "loser": state.loser,
        }

    def load_position(self, data: Mapping[str, Any]) -> PileState:
        if data.get("format") != POSITION_FORMAT:
            raise FormatError(f"not a {POSITION_FORMAT} position: {data.get('format')!r}", "format")
        try:
            return PileState(
                seats=tuple(str(s) for s in data["seats"]),
                max_take=int(data["max_take"]),
                seed=int(data["seed"]),
                pile=None if data["pile"] is None else int(data["pile"]),
                next_seat=int(data["next_seat"]),
                turn=int(data["turn"]),
                taken=tuple(int(t) for t in data["taken"]),
                loser=None if data["loser"] is None else int(data["loser"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"bad pile position: {exc!r}") from exc

    def rules_markdown(self) -> str:
        return RULES_MARKDOWN

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> PileState:
        """The view hides only the seed, which no longer matters once the pile is dealt."""
        return self.load_position({**view, "seed": view.get("seed", rng.getrandbits(32))})

    def sample_command(self, state: PileState, seat: int, rng: random.Random) -> PileCommand:
        options = list(self.legal_commands(state, seat))
        return options[rng.randrange(len(options))]

    def score_keys(self, state: PileState) -> list[tuple[int, ...]]:
        """1 for every seat but the loser."""
        return [(0,) if seat == state.loser else (1,) for seat in range(len(state.seats))]


PILE = PileRules()
