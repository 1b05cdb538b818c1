"""The undo workflow: ask to take a game back, answer, revert — derived from the event log.

A request is an ``UndoRequested`` event; answers are ``UndoAnswered`` events; an applied
request is followed (in the same append) by ``GameReverted``. Any other event appended while
a request is open — a game event or another revert — makes it lapse. Nothing is kept outside
the stream, so every request and its outcome is auditable in the event log.

The policy: a seat asks, every other seat (or the admin alone) must approve, one refusal
closes the request; only one request is open at a time; a finished game is never undone;
a game goes back only to a version between two commands, after its setup. A seat may take
back its own action of the current turn alone — while nobody else acted and nothing was
drawn (which revealed hidden information) — and then the revert is applied at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.common.errors import FormatError
from service.application.commands import (
    CommandHandler,
    CommandOutcome,
    check_expected,
    refuse_resigned,
)
from service.application.mapper import CommandMeta, StoredEvent, decode_metadata
from service.application.queries import GameQueries
from service.application.repository import GameRepository, LoadedGame, Numbered
from service.errors import NotAllowedToAnswer, RevertNotAllowed, UndoConflict, UndoNotFound
from service.events import SERVICE_KIND, GameReverted, ServiceEvent, UndoAnswered, UndoRequested
from service.store.port import EventStore

ADMIN = "admin"
# The commands recorded with undo events (``service.application.record`` replays them).
REQUEST_UNDO = "RequestUndo"
ANSWER_UNDO = "AnswerUndo"
REVERT = "Revert"
SERVICE_EVENTS_COMMAND = "AppendServiceEvents"


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


@dataclass(frozen=True)
class UndoOutcome:
    """An undo request as it stands in ``game`` (the game after the request or answer)."""

    game: LoadedGame
    record: UndoRecord


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
        if stored.type.startswith(f"{SERVICE_KIND}."):
            return False
        if stored.metadata.get("seat") != seat:
            return False
        if rules.is_draw(stored.event):
            return False
    return rules.turn(then.state) == rules.turn(now.state)


class UndoWorkflow:
    def __init__(
        self,
        store: EventStore,
        repository: GameRepository,
        queries: GameQueries,
        commands: CommandHandler,
    ) -> None:
        self._store = store
        self._repository = repository
        self._queries = queries
        self._commands = commands

    def requests(self, game_id: str) -> tuple[LoadedGame, list[UndoRecord]]:
        """The game now, and every undo request of its log, oldest first."""
        game = self._repository.get(game_id)
        return game, undo_records(self._queries.events(game_id, game=game))

    def request(self, game_id: str, request_id: str) -> UndoOutcome:
        game, records = self.requests(game_id)
        return UndoOutcome(game, _find(records, request_id))

    def request_undo(
        self,
        game_id: str,
        to_version: int,
        reason: str,
        *,
        meta: CommandMeta,
        expected_version: int | None,
    ) -> UndoOutcome:
        """Ask, as ``meta``'s seat, to take the game back to ``to_version``; applied at once
        if it only takes back the seat's own action of this turn (``is_self_undo``)."""
        if meta.seat is None:
            raise ValueError("only a seat asks for an undo")
        game = self._repository.get(game_id)
        check_expected(game, expected_version)
        if game.rules.is_over(game.state):
            raise UndoConflict("game-over", "a finished game cannot be undone")
        refuse_resigned(game, meta)  # a resignation is not taken back by its seat
        self.check_revert_target(game, to_version)
        events = self._queries.events(game_id, game=game)
        if any(record.status == "open" for record in undo_records(events)):
            raise UndoConflict("undo-pending", "another undo request is still open")
        request_id = uuid.uuid4().hex
        appended: list[ServiceEvent] = [UndoRequested(request_id, to_version, reason, meta.actor)]
        then = self._repository.get_at(game_id, to_version)
        since = [event for event in events if event.version > to_version]
        if is_self_undo(since, meta.seat, then, game):
            appended.append(GameReverted(to_version, reason, meta.actor, ()))
        command = {"type": REQUEST_UNDO, "to_version": to_version, "reason": reason}
        # Unless applied at once, every other seat's answer is awaited.
        awaiting = () if len(appended) > 1 else _others(game, meta.actor)
        outcome = self._append(game, appended, meta, command, awaiting)
        record = _find(undo_records([*events, *outcome.events]), request_id)
        return UndoOutcome(outcome.game, record)

    def answer_undo(
        self,
        game_id: str,
        request_id: str,
        approve: bool,
        *,
        meta: CommandMeta,
        expected_version: int | None,
    ) -> UndoOutcome:
        """Approve or refuse an open request as ``meta``'s actor (a seat or the admin); the
        last approval needed (or the admin's) applies it."""
        game = self._repository.get(game_id)
        check_expected(game, expected_version)
        refuse_resigned(game, meta)  # the server answers for a seat that resigned
        seats = len(game.info.seat_names)
        events = self._queries.events(game_id, game=game)
        record = _find(undo_records(events), request_id)
        # A seat answers as itself, whoever acts for it (its player, or its bot: ``bot:<n>``
        # in the metadata); the admin as the admin.
        answerer = meta.actor if meta.seat is None else f"seat:{meta.seat}"
        if record.requested_by == answerer:
            raise NotAllowedToAnswer("the asking seat cannot answer its own request")
        if record.status != "open":
            raise UndoConflict("undo-closed", f"the request is {record.status}")
        if answerer in record.approved_by:
            raise UndoConflict("undo-answered", "this seat has already approved")
        appended: list[ServiceEvent] = [UndoAnswered(request_id, answerer, approve)]
        if approve:
            record.approved_by.append(answerer)
            if answerer == ADMIN or is_fully_approved(record, seats):
                # Still a version the game may go back to (nothing but answers followed
                # the request while it was open); checked again all the same.
                self.check_revert_target(game, record.to_version)
                appended.append(
                    GameReverted(
                        record.to_version,
                        record.reason,
                        record.requested_by,
                        tuple(record.approved_by),
                    )
                )
        command = {"type": ANSWER_UNDO, "request_id": request_id, "approve": approve}
        # Still open after a approval that does not apply it: the answers it still awaits.
        awaiting = record.awaiting(seats) if approve and len(appended) == 1 else []
        outcome = self._append(game, appended, meta, command, awaiting)
        settled = _find(undo_records([*events, *outcome.events]), request_id)
        return UndoOutcome(outcome.game, settled)

    def revert(
        self,
        game_id: str,
        to_version: int,
        *,
        reason: str,
        requested_by: str,
        approved_by: Sequence[str],
        meta: CommandMeta,
        expected_version: int | None,
    ) -> CommandOutcome:
        """Take the game back to ``to_version`` at once (an operator's decision)."""
        event = GameReverted(to_version, reason, requested_by, tuple(approved_by))
        command = {"type": REVERT, "to_version": to_version, "reason": reason}
        return self.append_service_events(
            game_id, [event], meta=meta, expected_version=expected_version, command=command
        )

    def append_service_events(
        self,
        game_id: str,
        events: Sequence[ServiceEvent],
        *,
        meta: CommandMeta,
        expected_version: int | None,
        command: Mapping[str, Any] | None = None,
    ) -> CommandOutcome:
        """Append undo events as they are, checked for what they may name (an operator's
        tool; requests and answers go through ``request_undo`` and ``answer_undo``).
        ``command``: what is recorded as asked (default: the service events themselves)."""
        game = self._repository.get(game_id)
        check_expected(game, expected_version)
        if not events:
            raise FormatError("no events to append", "events")
        for event in events:
            if not isinstance(event, GameReverted | UndoRequested | UndoAnswered):
                raise FormatError(f"not a service event: {event!r}", "events")
            if isinstance(event, GameReverted | UndoRequested):
                self.check_revert_target(game, event.to_version)
        if command is None:
            command = {"type": SERVICE_EVENTS_COMMAND, "count": len(events)}
        return self._append(game, events, meta, command)

    def check_revert_target(self, game: LoadedGame, to_version: int) -> None:
        """Raise ``RevertNotAllowed`` unless ``game`` may go back to ``to_version``: after
        its setup, before its current version, and between two commands."""
        low = game.info.start_version
        if not isinstance(to_version, int) or not low <= to_version < game.version:
            raise RevertNotAllowed(
                f"can revert only to a version in {low}..{game.version - 1}, not {to_version!r}",
                "to_version",
            )
        # Only between commands: the middle of one command's events (say, after a
        # placement but before its draw) is no position a game can continue from.
        around = self._store.read_range(game.game_id, to_version, to_version + 1)
        if (
            len(around) == 2
            and decode_metadata(around[0].metadata)["command_id"]
            == decode_metadata(around[1].metadata)["command_id"]
            and not around[1].type.startswith(f"{SERVICE_KIND}.")
        ):
            raise RevertNotAllowed(
                f"version {to_version} lies inside the events of one command", "to_version"
            )

    def _append(
        self,
        game: LoadedGame,
        events: Sequence[ServiceEvent],
        meta: CommandMeta,
        command: Mapping[str, Any],
        awaiting: Sequence[str] = (),
    ) -> CommandOutcome:
        """Append checked service events to ``game`` as loaded (the append checks that
        the game is still at its version); ``command`` is recorded with them; ``awaiting``:
        the actors whose answer a request these events leave open awaits."""
        numbered = [Numbered(game.version + n, e) for n, e in enumerate(events, start=1)]
        state = self._repository.fold_onto(game.game_id, game.rules, game.state, numbered)
        return self._commands.append(game, events, state, meta, command=command, awaiting=awaiting)


def _others(game: LoadedGame, actor: str) -> list[str]:
    """The seats (as actors) other than ``actor``: whose answer a new request awaits."""
    return [a for a in (f"seat:{s}" for s in range(len(game.info.seat_names))) if a != actor]


def _find(records: Sequence[UndoRecord], request_id: str) -> UndoRecord:
    for record in records:
        if record.request_id == request_id:
            return record
    raise UndoNotFound(request_id)
