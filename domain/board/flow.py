"""Whose input is awaited and on what, and the turn: read off the agenda.

As in the card game (``domain.cards.flow``): the head of ``State.agenda`` is the pending
decision, if it is one; with an empty agenda and actions left, the active seat is to take
an action. ``decide``, ``legal_commands`` and the views all ask this module, never each
other.
"""

from __future__ import annotations

from domain.board.model import (
    ACTION,
    CHOOSE_WAR,
    COMMIT,
    DECISION_NAMES,
    MONUMENT,
    REFILL,
    STEP_DECISIONS,
    TREASURE,
    WAR,
    Decision,
    State,
)

__all__ = [
    "DECISION_NAMES",
    "DECISION_RULES",
    "awaited",
    "awaited_seat",
    "current_decision",
    "decision_rule",
]

# The rule that governs each kind of awaited input (for NotAwaited errors).
DECISION_RULES = {
    ACTION: "B-TURN-1",
    COMMIT: "B-REVOLT-3",
    CHOOSE_WAR: "B-WAR-2",
    MONUMENT: "B-MONUMENT-1",
    TREASURE: "B-TREASURE-1",
    REFILL: "B-TURN-4",
}


def decision_rule(state: State) -> str:
    """The rule of what is awaited now: a war's commit is B-WAR-5, a revolt's B-REVOLT-3."""
    if state.decision == COMMIT and state.conflict is not None and state.conflict.kind == WAR:
        return "B-WAR-5"
    return DECISION_RULES.get(state.decision, "B-TURN-1")


def current_decision(state: State) -> Decision | None:
    """The pending decision at the head of the agenda (None: an action, or the end)."""
    if state.agenda and not state.ended:
        head = state.agenda[0]
        if isinstance(head, STEP_DECISIONS):
            return head
    return None


def awaited_seat(state: State) -> int:
    """The one seat whose input is awaited, or -1."""
    if state.ended:
        return -1
    decision = current_decision(state)
    if decision is not None:
        return decision.seat
    if not state.agenda and state.actions_left > 0:
        return state.active
    return -1


def awaited(state: State) -> frozenset[int]:
    seat = awaited_seat(state)
    return frozenset() if seat < 0 else frozenset((seat,))


def turn(state: State) -> tuple[int, int]:
    return (state.turn, state.active)


def is_over(state: State) -> bool:
    return bool(state.ended)


def resigned(state: State) -> tuple[int, ...]:
    """The seats that resigned, in the order they did (B-RESIGN-1)."""
    return state.resigned
