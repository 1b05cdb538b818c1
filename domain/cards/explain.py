"""The rule trail of a command: which rules decided each event it produced (C-* ids).

``explain(state, events)`` walks ``events`` (decided on ``state``) through ``evolve`` and
names, per event, the rules that made it legal and the consequences that ``evolve`` fired
with it (a conflict started, leaders sent home, a ship offered): read from the event and from
the states right before and after it. The rules adapter's ``trail`` decides
first.
"""

from __future__ import annotations

from domain.cards.events import (
    CardPlayed,
    CardsCommitted,
    CardsDrawn,
    CatastrophePlayed,
    ConflictResolved,
    Declined,
    Event,
    GameEnded,
    GameStarted,
    LeaderPlaced,
    LeaderWithdrawn,
    Passed,
    PointScored,
    SeatResigned,
    ShipBuilt,
    TreasureSwapped,
    TurnBegan,
    WarChosen,
)
from domain.cards.evolve import evolve
from domain.cards.flow import DECISION_NAMES, DECISION_RULES, current_decision
from domain.cards.model import (
    END_RULES,
    ChooseWar,
    Commit,
    Offer,
    ShipOffer,
    ShipPoints,
    State,
    Wars,
)
from domain.common.trail import Trail, walk

_DECLINED = {name: DECISION_RULES[kind] for kind, name in DECISION_NAMES.items()}


def explain(state: State | None, events: list[Event]) -> list[Trail]:
    """The rule ids behind each of ``events`` (decided on ``state``, or a game's start)."""
    return walk(evolve, explain_event, state, events)


def _on_board(state: State) -> int:
    return sum(1 for spot in state.leaders if spot >= 0)


def explain_event(before: State | None, event: Event, after: State) -> Trail:
    """The rule ids behind ``event``, which took ``before`` (None: none yet) to ``after``."""
    if isinstance(event, GameStarted) or before is None:
        return ("C-SETUP-2", "C-SETUP-4")
    decision = current_decision(before)
    ids: list[str] = []
    if isinstance(event, CardsDrawn):
        dealt = before.turn == 1 and not before.agenda and not any(before.hands[event.seat])
        return ("C-SETUP-4",) if dealt and before.actions_left > 0 else ("C-TURN-3",)
    if isinstance(event, CardPlayed):
        ids += ["C-TURN-2", "C-CARD-1" if event.bridge is None else "C-CARD-2"]
        if event.bridge is not None and after.face_down >= 0:
            ids += ["C-KINGDOM-1", "C-JOIN-1"]
    elif isinstance(event, LeaderPlaced):
        ids += ["C-LEADER-1", "C-SHIP-3"]
    elif isinstance(event, LeaderWithdrawn):
        ids.append("C-LEADER-2")
    elif isinstance(event, CatastrophePlayed):
        ids += ["C-CAT-1", "C-CAT-2"]
    elif isinstance(event, Passed):
        ids.append("C-TURN-1")
    elif isinstance(event, PointScored):
        if isinstance(decision, ShipPoints):
            ids.append("C-SHIP-5")
        else:
            ids.append("C-SCORE-1")
            if isinstance(decision, Offer) and decision.reason == "conflict":
                war = any(isinstance(step, Wars) for step in before.agenda)
                ids.append("C-WAR-5" if war else "C-REVOLT-4")
    elif isinstance(event, Declined):
        ids.append(_DECLINED.get(event.decision, "C-TURN-1"))
    elif isinstance(event, ShipBuilt):
        ids += ["C-SHIP-1", "C-SHIP-3"]
    elif isinstance(event, WarChosen):
        ids += ["C-WAR-1", "C-WAR-2"]
    elif isinstance(event, CardsCommitted):
        revolt = before.conflict is not None and before.conflict.kind == "revolt"
        ids.append("C-REVOLT-3" if revolt else "C-WAR-4")
    elif isinstance(event, ConflictResolved):
        if event.kind == "revolt":
            ids += ["C-REVOLT-2", "C-REVOLT-3", "C-REVOLT-4"]
        else:
            ids += ["C-WAR-2", "C-WAR-3", "C-WAR-4", "C-WAR-5", "C-CAT-2"]
    elif isinstance(event, TreasureSwapped):
        ids.append("C-TRADER-1")
    elif isinstance(event, TurnBegan):
        ids.append("C-TURN-1")
    elif isinstance(event, SeatResigned):
        return ("C-RESIGN-1",)
    elif isinstance(event, GameEnded):
        return (END_RULES.get(event.reason, "C-END-1"), "C-END-3")
    # consequences that evolve fired with the event
    head = current_decision(after)
    if _on_board(after) < _on_board(before) and not isinstance(event, LeaderWithdrawn):
        ids.append("C-LEADER-4")
    if isinstance(head, Commit) and not isinstance(decision, Commit):
        revolt = after.conflict is not None and after.conflict.kind == "revolt"
        ids += ["C-LEADER-3", "C-REVOLT-1"] if revolt else ["C-WAR-6"]
    if isinstance(head, ChooseWar) and not isinstance(decision, ChooseWar):
        ids.append("C-WAR-6")
    if isinstance(head, ShipOffer) and not isinstance(decision, ShipOffer):
        ids.append("C-SHIP-1")
    if isinstance(event, ConflictResolved) and before.face_down >= 0 and after.face_down < 0:
        ids.append("C-WAR-6")
    return tuple(dict.fromkeys(ids))
