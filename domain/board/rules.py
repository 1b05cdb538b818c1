"""``RULES``: the board game's one registration (a :class:`GameAdapter` of its functions)."""

from __future__ import annotations

import dataclasses
from functools import partial

from domain.board.commands import COMMANDS, Command
from domain.board.decide import decide
from domain.board.determinize import determinize
from domain.board.events import EVENTS, Event, is_draw
from domain.board.evolve import evolve, fold
from domain.board.explain import explain, explain_event
from domain.board.flow import awaited, is_over, resigned, turn
from domain.board.legal import legal_commands
from domain.board.model import DYNASTIES, MONUMENTS, State
from domain.board.position import dump_position, load_position
from domain.board.sample import sample_command
from domain.board.schemas import SCHEMAS
from domain.board.setup import normalize_options, setup_map, start
from domain.board.views import REDACTED, event_view, pending, result, view
from domain.common.adapter import GameAdapter, package_text
from domain.common.scoring import score_key


def rename_seat(state: State, seat: int, name: str) -> State:
    seats = tuple(name if n == seat else old for n, old in enumerate(state.seats))
    return dataclasses.replace(state, seats=seats, cache=None)


def score_keys(state: State) -> list[tuple[int, ...]]:
    """Every seat's score key (its colours, treasures as jokers), for the bots."""
    return [score_key(list(state.points[s]), state.taken[s]) for s in range(state.seat_count)]


class BoardRules(GameAdapter[State, Command, Event]):
    """The board game's :class:`~domain.common.protocol.GameRules`."""


RULES = BoardRules(
    kind="board",
    noun="board game",
    rule_prefix="B",
    min_seats=2,
    max_seats=4,
    dynasties=DYNASTIES,
    commands=COMMANDS,
    events=EVENTS,
    normalize_options_fn=normalize_options,
    start_fn=start,
    rename_seat_fn=rename_seat,
    decide_fn=decide,
    evolve_fn=evolve,
    fold_fn=fold,
    explain_fn=explain,
    explain_event_fn=explain_event,
    legal_commands_fn=legal_commands,
    awaited_fn=awaited,
    resigned_fn=resigned,
    is_over_fn=is_over,
    turn_fn=turn,
    is_draw_fn=is_draw,
    setup_map_fn=setup_map,
    pending_fn=pending,
    result_fn=result,
    view_fn=view,
    event_view_fn=event_view,
    dump_position_fn=dump_position,
    load_position_fn=load_position,
    schemas=SCHEMAS,
    redacted=REDACTED,
    records=frozenset({"ConflictResolved"}),
    enums={
        "Monument": (tuple(str(m) for m in MONUMENTS), "A monument, by its two colours."),
        "ConflictKind": (("revolt", "war"), "A revolt (over a leader) or a war (over a kingdom)."),
        "BoardEndReason": (("treasures", "bag", "resigned"), "Why a board game ended."),
    },
    rules_markdown_fn=partial(package_text, "domain.board", "RULES.md"),
    determinize_fn=determinize,
    sample_command_fn=sample_command,
    score_keys_fn=score_keys,
    # The search's playouts per millisecond of think time on one core (docs/benchmarks.md,
    # Bots, with a margin): 600 board playouts take 370 ms of CPU on average (at most 506).
    playouts_per_ms=1.2,
)
