"""The consented-undo workflow, derived entirely from the event log.

A request is an ``UndoRequested`` event; answers are ``UndoAnswered`` events; an applied
request is followed (in the same append) by ``GameReverted``. Any other event appended while
a request is open — a game event or another revert — makes it lapse. Nothing is kept outside
the stream, so every request and its outcome is auditable in the event log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.common.codec import JSON
from service.application.mapper import StoredEvent
from service.application.repository import LoadedGame
from service.events import GameReverted, UndoAnswered, UndoRequested

ADMIN = "admin"


@dataclass
class UndoRecord:
    request_id: str
    to_version: int
    reason: str
    requested_by: str
    requested_at: int
    status: str = "open"  # open | applied | rejected | lapsed
    self_undo: bool = False
    approved_by: list[str] = field(default_factory=list)
    rejected_by: list[str] = field(default_factory=list)
    applied_at: int | None = None

    def awaiting(self, seat_count: int) -> list[str]:
        """The seats whose answer is still needed (none once the request is closed)."""
        if self.status != "open":
            return []
        return [
            actor
            for actor in (f"seat:{seat}" for seat in range(seat_count))
            if actor != self.requested_by and actor not in self.approved_by
        ]

    def to_json(self, seat_count: int) -> JSON:
        return {
            "request_id": self.request_id,
            "to_version": self.to_version,
            "reason": self.reason,
            "requested_by": self.requested_by,
            "status": self.status,
            "self_undo": self.self_undo,
            "approved_by": list(self.approved_by),
            "rejected_by": list(self.rejected_by),
            "awaiting": self.awaiting(seat_count),
            "requested_at": self.requested_at,
            "applied_at": self.applied_at,
        }


def undo_records(events: Sequence[StoredEvent]) -> list[UndoRecord]:
    """Every undo request in the log with its outcome, oldest first."""
    records: list[UndoRecord] = []
    open_record: UndoRecord | None = None
    for stored in events:
        event: Any = stored.event
        if isinstance(event, UndoRequested):
            open_record = UndoRecord(
                event.request_id,
                event.to_version,
                event.reason,
                event.requested_by,
                stored.version,
            )
            records.append(open_record)
        elif isinstance(event, UndoAnswered):
            if open_record is None or open_record.request_id != event.request_id:
                continue
            if event.approve:
                open_record.approved_by.append(event.by)
            else:
                open_record.rejected_by.append(event.by)
                open_record.status = "rejected"
                open_record = None
        elif isinstance(event, GameReverted) and open_record is not None:
            applied = open_record.to_version == event.to_version
            open_record.status = "applied" if applied else "lapsed"
            if applied:
                open_record.applied_at = stored.version
                open_record.self_undo = not event.approved_by
            open_record = None
        elif open_record is not None and not isinstance(event, GameReverted):
            # A game event was appended before the request was settled.
            open_record.status = "lapsed"
            open_record = None
    return records


def open_request(records: Sequence[UndoRecord]) -> UndoRecord | None:
    return next((record for record in records if record.status == "open"), None)


def is_fully_approved(record: UndoRecord, seat_count: int) -> bool:
    return ADMIN in record.approved_by or not record.awaiting(seat_count)


def is_self_undo(
    events_since: Sequence[StoredEvent],
    seat: int,
    then: LoadedGame,
    now: LoadedGame,
) -> bool:
    """May ``seat`` take back everything after ``then`` without anybody's consent?

    Only its own action of the current turn: every event since is a game event by this seat,
    none of them drew from the bag or pile (that revealed hidden information), and the turn
    (number and active seat) is still the one it was then.
    """
    rules = now.rules
    if not events_since:
        return False
    for stored in events_since:
        if stored.type.startswith("service."):
            return False
        if stored.metadata.get("seat") != seat:
            return False
        if rules.is_draw(stored.event):
            return False
    return rules.turn(then.state) == rules.turn(now.state)
