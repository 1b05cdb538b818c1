"""The rule trail of a command: which rules decided each event it produced (B-* ids).

``explain(state, events)`` walks ``events`` (decided on ``state``) through ``evolve`` and
names, per event, the rules that made it legal and the consequences that ``evolve`` fired
with it (a war's resolution and removals, stranded leaders, monument points): read from
the event and from the states right before and after it. The rules adapter's ``trail``
decides first.
"""

from __future__ import annotations

from domain.board.events import (
    CatastrophePlaced,
    ConflictResolved,
    Event,
    GameEnded,
    GameStarted,
    LeaderMoved,
    LeaderPlaced,
    LeaderWithdrawn,
    MonumentBuilt,
    MonumentDeclined,
    Passed,
    SeatResigned,
    SupportCommitted,
    TilePlaced,
    TilesDrawn,
    TilesSwapped,
    TreasuresTaken,
    TurnEnded,
    WarChosen,
)
from domain.board.evolve import evolve
from domain.board.geometry import BORDER_TREASURES
from domain.board.model import CHOOSE_WAR, COMMIT, MONUMENT, REFILL, REVOLT, WAR, State
from domain.common.colours import Colour
from domain.common.resign import RESIGNED
from domain.common.trail import Trail, walk


def explain(state: State | None, events: list[Event]) -> list[Trail]:
    """The rule ids behind each of ``events`` (decided on ``state``, or a game's start)."""
    return walk(evolve, explain_event, state, events)


def _on_board(state: State) -> int:
    return sum(1 for square in state.leaders if square >= 0)


def _points(state: State) -> int:
    return sum(sum(row) for row in state.points)


def explain_event(before: State | None, event: Event, after: State) -> Trail:
    """The rule ids behind ``event``, which took ``before`` (None: none yet) to ``after``."""
    if isinstance(event, GameStarted) or before is None:
        return ("B-SETUP-1", "B-SETUP-2", "B-SETUP-3", "B-SETUP-4", "B-SETUP-6")
    ids: list[str] = []
    if isinstance(event, TilesDrawn):
        return ("B-TURN-4",) if before.decision == REFILL else ("B-SETUP-5",)
    if isinstance(event, LeaderPlaced | LeaderMoved):
        if isinstance(event, LeaderMoved):
            ids.append("B-LEADER-4")
        ids += ["B-LEADER-1", "B-LEADER-2", "B-LEADER-3"]
        if after.decision == COMMIT and after.conflict is not None:  # only a revolt here
            ids.append("B-LEADER-6")
    elif isinstance(event, LeaderWithdrawn):
        ids.append("B-LEADER-5")
    elif isinstance(event, TilePlaced):
        ids += ["B-TILE-1", "B-TILE-2"]
        if _points(after) > _points(before):
            ids.append("B-TILE-3")
        if after.unification >= 0 or after.decision == CHOOSE_WAR or after.wars:
            ids += ["B-TILE-4", "B-TILE-5"]
        war = after.conflict is not None and after.conflict.kind == WAR
        if war or after.decision == CHOOSE_WAR:
            ids.append("B-WAR-1")
    elif isinstance(event, CatastrophePlaced):
        ids += ["B-CAT-1", "B-CAT-2", "B-CAT-3", "B-CAT-4"]
    elif isinstance(event, TilesSwapped):
        ids.append("B-SWAP-1")
    elif isinstance(event, Passed):
        ids.append("B-TURN-1")
    elif isinstance(event, WarChosen):
        ids += ["B-WAR-2", "B-WAR-3"]
    elif isinstance(event, SupportCommitted):
        conflict = before.conflict
        revolt = conflict is not None and conflict.kind == REVOLT
        ids.append("B-REVOLT-3" if revolt else "B-WAR-5")
        if conflict is not None and event.seat == conflict.defender:  # the conflict is settled
            if conflict.kind == REVOLT:
                ids += ["B-REVOLT-2", "B-REVOLT-5"]
            else:
                ids += ["B-WAR-4", "B-WAR-6", "B-WAR-7", "B-WAR-8"]
    elif isinstance(event, ConflictResolved):  # the record of what the commitment settled
        if event.kind == REVOLT:
            ids += ["B-REVOLT-4", "B-REVOLT-5"]
        else:
            ids += ["B-WAR-5", "B-WAR-6"]
            if event.colour == Colour.RED:
                ids.append("B-WAR-7")
            if sum(1 for r in event.removed if r.piece == "leader") > 1:
                ids.append("B-LEADER-7")
    elif isinstance(event, MonumentBuilt):
        ids += ["B-MONUMENT-1", "B-MONUMENT-2", "B-MONUMENT-5"]
    elif isinstance(event, MonumentDeclined):
        ids += ["B-MONUMENT-2", "B-MONUMENT-3"]
    elif isinstance(event, TreasuresTaken):
        ids.append("B-TREASURE-1")
        if set(before.treasure_squares) & BORDER_TREASURES:
            ids.append("B-TREASURE-2")
    elif isinstance(event, TurnEnded):
        ids.append("B-TURN-4")
        if _points(after) > _points(before):
            ids.append("B-MONUMENT-6")
    elif isinstance(event, SeatResigned):
        return ("B-RESIGN-1",)
    elif isinstance(event, GameEnded):
        if event.reason == RESIGNED:
            return ("B-RESIGN-2", "B-END-3")
        return ("B-END-2" if event.reason == "bag" else "B-END-1", "B-END-3")
    # consequences that evolve fired with the event
    if _on_board(after) < _on_board(before) and not isinstance(
        event, LeaderWithdrawn | SupportCommitted
    ):
        ids.append("B-LEADER-7")
    if after.decision == MONUMENT and before.decision != MONUMENT:
        ids += ["B-TURN-3", "B-MONUMENT-1"]
    return tuple(dict.fromkeys(ids))
