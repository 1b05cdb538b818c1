"""Whose input is awaited and on what, and the turn: read off the agenda.

The head of ``State.agenda`` is the pending decision, if it is one; with an
empty agenda and actions left, the active seat is to take an action. ``decide``,
``legal_commands`` and the views all ask this module, never each other.
"""

from __future__ import annotations

from domain.cards.model import (
    DECISIONS,
    ChooseWar,
    Commit,
    Decision,
    Offer,
    ShipOffer,
    ShipPoints,
    State,
    TraderSwap,
)

# Names of the pending decisions, as in ``pending()`` and ``Declined.decision``.
DECISION_NAMES: dict[type[object], str] = {
    Offer: "point",
    ShipOffer: "ship",
    ShipPoints: "ship_points",
    ChooseWar: "choose_war",
    Commit: "commit",
    TraderSwap: "treasure_swap",
}
# The rule that governs each pending decision (for NotAwaited errors).
DECISION_RULES: dict[type[object], str] = {
    Offer: "C-SCORE-1",
    ShipOffer: "C-SHIP-1",
    ShipPoints: "C-SHIP-5",
    ChooseWar: "C-WAR-1",
    Commit: "C-REVOLT-3",
    TraderSwap: "C-TRADER-1",
}


def current_decision(state: State) -> Decision | None:
    """The pending decision at the head of the agenda (None: an action, or the end)."""
    if state.agenda:
        head = state.agenda[0]
        if isinstance(head, DECISIONS):
            return head
    return None


def awaited_seat(state: State) -> int | None:
    """The one seat whose input is awaited, or None."""
    if state.over is not None:
        return None
    decision = current_decision(state)
    if decision is not None:
        return decision.seat
    if not state.agenda and state.actions_left > 0:
        return state.active
    return None


def awaited(state: State) -> frozenset[int]:
    seat = awaited_seat(state)
    return frozenset() if seat is None else frozenset({seat})


def turn(state: State) -> tuple[int, int]:
    return state.turn, state.active


def is_over(state: State) -> bool:
    return state.over is not None


def resigned(state: State) -> tuple[int, ...]:
    """The seats that resigned, in the order they did (C-RESIGN-1)."""
    return state.resigned
