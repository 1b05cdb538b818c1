"""Short position set-up and play helpers for the board-game tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from domain.board import (
    Command,
    Event,
    State,
    build,
    decide,
    dump_position,
    evolve,
    format_board,
    legal_commands,
)
from domain.board.events import GameStarted
from domain.board.setup import initial_state
from domain.common.errors import RulesError

Square = tuple[int, int]

_START = initial_state(GameStarted(("a", "b"), 0, 0))
START_ROWS: list[str] = format_board(_START.board, _START.treasures)


def rows_with(pieces: Mapping[Square, str]) -> list[str]:
    """The start board (10 treasure temples) with ``pieces`` put on it as notation tokens."""
    grid = [row.split() for row in START_ROWS]
    for (r, c), tok in pieces.items():
        grid[r][c] = tok
    return [" ".join(row) for row in grid]


def pos(
    pieces: Mapping[Square, str] | None = None, hands: Sequence[str] = ("", ""), **kw: Any
) -> State:
    """A position in the action phase: start board plus ``pieces``, hands as letters."""
    return build(rows_with(pieces or {}), hands, **kw)


def run(state: State, *commands: Command) -> tuple[State, list[Event]]:
    """Decide and evolve each command in turn; all events returned."""
    events: list[Event] = []
    for command in commands:
        new = decide(state, command)
        assert new, command
        events.extend(new)
        for event in new:
            state = evolve(state, event)
    return state, events


def refused(
    state: State, command: Command, rule: str, kind: type[RulesError] = RulesError
) -> RulesError:
    """``decide`` refuses ``command`` naming ``rule``, and the position is unchanged."""
    before = dump_position(state)
    with pytest.raises(kind) as info:
        decide(state, command)
    assert info.value.rule == rule, info.value
    assert dump_position(state) == before
    assert command not in set(legal_commands(state, command.seat))
    return info.value


def allowed(state: State, command: Command) -> list[Event]:
    """``decide`` accepts ``command`` and ``legal_commands`` lists it."""
    assert command in set(legal_commands(state, command.seat)), command
    return decide(state, command)


def points(state: State, seat: int) -> tuple[int, int, int, int]:
    return state.points[seat]


def cell(state: State, at: Square) -> str:
    """The notation token of one square."""
    return format_board(state.board, state.treasures, state.unification)[at[0]].split()[at[1]]


def version_2_position(state: State) -> dict[str, Any]:
    """``state`` as position format version 2 wrote it (before the agenda): the pending
    decision by name (``revolt_support``/``war_support`` for a commit), ``actions_done``,
    ``wars``, ``placed``, ``monument_squares`` and ``treasure_choice``. Written here from
    the format's old description, not by the code under test."""
    data = {k: v for k, v in dump_position(state).items() if k not in ("agenda", "actions_left")}
    decision = state.decision
    if decision == "commit":
        assert state.conflict is not None
        decision = "revolt_support" if state.conflict.kind == "revolt" else "war_support"
    under_way = decision not in ("action", "refill", "over")
    colours = ("black", "red", "blue", "green")

    def at(sq: int) -> list[int]:
        return [sq // 16, sq % 16]

    return {
        **data,
        "version": 2,
        "actions_done": 2 - state.actions_left - (1 if under_way else 0),
        "decision": decision,
        "wars": [colours[c] for c in state.wars],
        "placed": None if state.placed < 0 else at(state.placed),
        "monument_squares": [at(sq) for sq in state.candidates],
        "treasure_choice": None
        if state.treasure_seat < 0
        else {
            "seat": state.treasure_seat,
            "treasures": [at(sq) for sq in state.treasure_squares],
            "take": state.treasure_take,
        },
    }
