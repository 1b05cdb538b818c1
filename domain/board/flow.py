"""Whose input is awaited and on what, and the turn: read off ``State.decision``.

``decide``, ``legal_commands`` and the views all ask this module, never each other.
"""

from __future__ import annotations

from domain.board.model import (
    ACTION,
    CHOOSE_WAR,
    MONUMENT,
    OVER,
    REFILL,
    REVOLT_SUPPORT,
    TREASURE,
    WAR_SUPPORT,
    State,
)

# The rule that governs each kind of awaited input (for NotAwaited errors).
DECISION_RULES = {
    ACTION: "B-TURN-1",
    REVOLT_SUPPORT: "B-REVOLT-3",
    WAR_SUPPORT: "B-WAR-5",
    CHOOSE_WAR: "B-WAR-2",
    MONUMENT: "B-MONUMENT-1",
    TREASURE: "B-TREASURE-1",
    REFILL: "B-TURN-4",
}


def awaited_seat(state: State) -> int:
    """The one seat whose input is awaited, or -1."""
    d = state.decision
    if d in (ACTION, CHOOSE_WAR, MONUMENT):
        return state.active
    if d in (REVOLT_SUPPORT, WAR_SUPPORT):
        assert state.conflict is not None
        return state.conflict.awaiting
    if d == TREASURE:
        return state.treasure_seat
    return -1


def awaited(state: State) -> frozenset[int]:
    seat = awaited_seat(state)
    return frozenset() if seat < 0 else frozenset((seat,))


def turn(state: State) -> tuple[int, int]:
    return (state.turn, state.active)


def is_over(state: State) -> bool:
    return state.decision == OVER
