"""What one viewer sees of a game's events: a seat, a spectator or the admin.

Used by the API (the events endpoint, the command answers) and by the webhook deliveries
(``service.jobs.webhooks``), which send a subscriber exactly what its seat (or a spectator)
would read through the API. Redaction goes through the domain only (``rules.event_view``);
service events (undo requests, reverts) are public, and so is everything once a game ended.
Each event carries a ``description`` in the viewer's language (``service.i18n.describe``),
written from the data the viewer sees, so it reveals nothing the data does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from domain.common.codec import JSON
from service.application.chain import TRAIL_KEY
from service.application.mapper import StoredEvent
from service.application.repository import LoadedGame
from service.events import SERVICE_KIND, GameReverted
from service.i18n import DEFAULT_LANGUAGE
from service.i18n.describe import describe

if TYPE_CHECKING:
    from service.application.game_service import GameService


class Viewer(Protocol):
    """Who is looking: the admin (sees everything), a seat, or neither (a spectator)."""

    @property
    def seat(self) -> int | None: ...

    @property
    def admin(self) -> bool: ...


def event_json(
    event: StoredEvent,
    caller: Viewer,
    current: LoadedGame,
    state_after: Any = None,
    *,
    language: str = DEFAULT_LANGUAGE,
) -> JSON:
    """One event as ``caller`` may see it, described in ``language``. ``current`` is the
    game now: once it has ended, ``event_view`` shows everything (history is public after
    the end). ``state_after`` replaces the current state for an event that a revert took
    back (``events_json``)."""
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
        "description": describe(
            event.type, data, current.info.seat_names, language, _trail(metadata)
        ),
    }


def _trail(metadata: Any) -> tuple[str, ...]:
    """The event's rule trail (``service.application.chain``), empty if none was recorded."""
    trail = metadata.get(TRAIL_KEY)
    return tuple(str(rule) for rule in trail) if isinstance(trail, list) else ()


def events_json(
    events: Sequence[StoredEvent],
    caller: Viewer,
    current: LoadedGame,
    *,
    games: GameService | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> list[JSON]:
    """``events`` (consecutive, oldest first) as ``caller`` may see them, described in
    ``language``. With ``games``,
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
    return [
        event_json(event, caller, current, after.get(event.version), language=language)
        for event in events
    ]


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
