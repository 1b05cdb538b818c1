"""Turning loaded games and stored events into JSON for one caller.

Redaction goes through the domain only: ``rules.view`` and ``rules.event_view``. A state
has one shape for every caller: the admin's view, and every view once a game has ended
(history included), is the complete one. Service events (undo requests, reverts) are
public.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from domain.common.codec import JSON
from service.api.auth import Caller
from service.application.clocks import ClockReading
from service.application.game_service import GameService
from service.application.mapper import GameInfo, StoredEvent
from service.application.repository import LoadedGame
from service.application.undo import UndoRecord
from service.events import SERVICE_KIND, GameReverted


def viewer_label(caller: Caller) -> str:
    return caller.actor


def game_json(game: LoadedGame) -> JSON:
    info = game.info
    dynasties = game.rules.dynasties
    seats = [
        (
            {
                "seat": seat,
                "name": name,
                "open": seat in info.open_seats,
                "dynasty": dynasties[seat],
            }
            if seat < len(dynasties)
            else {"seat": seat, "name": name, "open": seat in info.open_seats}
        )
        | bot_json(info, seat)
        for seat, name in enumerate(info.seat_names)
    ]
    status = "open" if info.open_seats else "active"
    if game.rules.is_over(game.state):
        status = "over"
    return {
        "game_id": game.game_id,
        "kind": game.kind,
        "seats": seats,
        "options": dict(info.options),
        "status": status,
        "version": game.version,
        "created_at": info.created_at,
    } | ({} if info.clock is None else {"clock": info.clock.to_json()})


def state_json(game: LoadedGame, caller: Caller, *, public: bool = False) -> JSON:
    """The state of ``game`` as ``caller`` may see it (``public``: history after the end)."""
    rules = game.rules
    state = rules.view(game.state, caller.seat, complete=caller.admin or public)
    return {
        "game_id": game.game_id,
        "version": game.version,
        "viewer": viewer_label(caller),
        "over": rules.is_over(game.state),
        "state": state,
    }


def event_json(
    event: StoredEvent, caller: Caller, current: LoadedGame, state_after: Any = None
) -> JSON:
    """One event as ``caller`` may see it. ``current`` is the game now: once it has ended,
    ``event_view`` shows everything (history is public after the end). ``state_after``
    replaces the current state for an event that a revert took back (``events_json``)."""
    metadata = event.metadata
    if event.type.startswith(SERVICE_KIND + ".") or caller.admin:
        data: dict[str, Any] = dict(event.data)  # upcast already: the fields, without type
    else:
        after = current.state if state_after is None else state_after
        data = current.rules.event_view(event.event, caller.seat, after, event.data)
    return {
        "version": event.version,
        "type": event.type,
        "actor": str(metadata.get("actor", "system")),
        "seat": metadata.get("seat"),
        "recorded_at": metadata.get("recorded_at"),
        "command_id": metadata.get("command_id"),
        "correlation_id": metadata.get("correlation_id"),
        "data": data,
    }


def events_json(
    events: Sequence[StoredEvent],
    caller: Caller,
    current: LoadedGame,
    *,
    games: GameService | None = None,
) -> list[JSON]:
    """``events`` (consecutive, oldest first) as ``caller`` may see them. With ``games``,
    events that a revert took back are redacted against the state right after them, not
    the current one: the current state is no state after them (a card they laid face down
    may be back in its owner's hand). Which ones were taken back comes from the game's
    revert history in its info, so a page costs O(page) whatever the log's length; their
    states come from one fold through the page. Without ``games``, ``events`` must lie on
    the game's current line (e.g. just appended)."""
    after: dict[int, Any] = {}
    if (
        games is not None
        and events
        and not caller.admin
        and not current.rules.is_over(current.state)
    ):
        reverts = current.info.reverts
        if reverts is None:  # a game stored before revert histories were kept
            reverts = tuple(
                (e.version, e.event.to_version)
                for e in games.queries.events(current.game_id, after_version=events[0].version - 1)
                if isinstance(e.event, GameReverted)
            )
        page = {e.version for e in events}
        gone = taken_back(reverts, current.version) & page
        after = games.queries.states_after(current, events, gone)
    return [event_json(event, caller, current, after.get(event.version)) for event in events]


def taken_back(reverts: Sequence[tuple[int, int]], current_version: int) -> set[int]:
    """Versions that reverts took back, i.e. off the line that leads to ``current_version``.
    ``reverts``: (version of a GameReverted, the version it went back to)."""
    gone: set[int] = set()
    line = current_version  # walking the current line back from its end
    for version, to_version in sorted(reverts, reverse=True):
        if version <= line:  # a revert on the line: what lies between is off it
            gone.update(range(to_version + 1, version))
            line = to_version
    return gone


def command_json(rules_json: JSON) -> JSON:
    """A command as a client sends it: ``seat`` comes from the token, so it is left out."""
    return {key: value for key, value in rules_json.items() if key != "seat"}


def bot_json(info: GameInfo, seat: int) -> JSON:
    """``{"bot": {...}}`` for a seat a bot plays, else nothing."""
    bot = info.bots.get(seat)
    return {} if bot is None else {"bot": bot.to_json()}


def info_json(info: GameInfo) -> JSON:
    """A game of a listing, from its stored info record (no fold needed)."""
    return {
        "game_id": info.game_id,
        "kind": info.kind,
        "seats": [
            {"seat": seat, "name": name, "open": seat in info.open_seats} | bot_json(info, seat)
            for seat, name in enumerate(info.seat_names)
        ],
        "options": dict(info.options),
        "status": info.status,
        "version": info.version,
        "created_at": info.created_at,
    } | ({} if info.clock is None else {"clock": info.clock.to_json()})


def undo_json(record: UndoRecord, game: LoadedGame) -> JSON:
    """An undo request with its outcome; ``awaiting``: the seats of ``game`` whose answer
    is still needed."""
    return {
        "request_id": record.request_id,
        "to_version": record.to_version,
        "reason": record.reason,
        "requested_by": record.requested_by,
        "status": record.status,
        "self_undo": record.self_undo,
        "approved_by": list(record.approved_by),
        "rejected_by": list(record.rejected_by),
        "awaiting": record.awaiting(len(game.info.seat_names)),
        "requested_at": record.requested_at,
        "applied_at": record.applied_at,
    }


def clock_json(reading: ClockReading) -> JSON:
    """The awaited seats' remaining time and deadlines (``pending``'s ``clock``)."""
    return {
        "since": datetime.fromtimestamp(reading.since, UTC).isoformat(),
        "seats": [
            {
                "seat": seat,
                "remaining_ms": round(reading.remaining_s[seat] * 1000),
                "deadline": datetime.fromtimestamp(reading.deadlines[seat], UTC).isoformat(),
            }
            for seat in sorted(reading.deadlines)
        ],
    }
