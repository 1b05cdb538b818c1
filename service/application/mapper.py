"""The event mapper: between the application's objects and the store's records.

Events go out as envelopes (``<kind>.<Name>`` or ``service.<Name>``, the registry's schema
version, the data, and metadata from the request's ``CommandMeta``) and come back as
``StoredEvent``s, upcast to the current schema version on the way (an old envelope is
decoded through the registry's upcasters and re-encoded). A game's info record, a flat
map of strings in the store, is mapped to and from ``GameInfo`` here too.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.common.codec import TypeRegistry
from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from service.application.bots import BotSeat, bots_field, parse_bots
from service.application.clocks import ClockSpec, clock_field, parse_clock
from service.events import SERVICE_EVENTS, SERVICE_KIND, GameReverted, UndoAnswered, UndoRequested
from service.store.port import AppendResult, GameRecord, NewEvent, RecordedEvent


@dataclass(frozen=True)
class CommandMeta:
    """What the caller knows about a request; time enters here. Every event the request
    appends carries it in its metadata."""

    command_id: str
    actor: str  # "seat:0".."seat:3", "admin", "system"
    seat: int | None
    correlation_id: str | None = None
    causation_id: str | None = None
    recorded_at: str | None = None  # ISO-8601 UTC; filled from the service clock if None


@dataclass(frozen=True)
class StoredEvent:
    """One envelope read back from the stream, upcast to the current schema version."""

    game_id: str
    version: int
    stream_id: str  # "<version>-0": stream entries carry their version as id
    type: str
    schema_version: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    event: object  # a domain event, or a service event (GameReverted, ...)


@dataclass(frozen=True)
class GameInfo:
    """A game's info record: what its creation wrote, kept current by every append."""

    game_id: str
    kind: str
    seat_names: tuple[str, ...]
    options: dict[str, Any]
    created_at: str
    status: str  # "active" | "over"
    version: int
    updated_at: str
    start_version: int  # the version of the initial position: the number of start events
    created_ms: int
    # (version of a GameReverted, the version it went back to), oldest first; None for a
    # game stored before the service kept them (then they are found by reading the log)
    reverts: tuple[tuple[int, int], ...] | None = ()
    bots: Mapping[int, BotSeat] = field(default_factory=dict)  # seat → its bot (bots.py)
    clock: ClockSpec | None = None  # the time control (clocks.py)


class EventMapper:
    """Envelopes of the events of the games in ``games`` (by kind), and of service events."""

    def __init__(self, games: Mapping[str, GameRules[Any, Any, Any]]) -> None:
        self._games = games

    def envelopes(
        self, kind: str, events: Sequence[object], meta: CommandMeta, recorded_at: str
    ) -> list[NewEvent]:
        """``events`` of a ``kind`` game (domain or service events) as envelopes to append."""
        metadata = {
            "command_id": meta.command_id,
            "actor": meta.actor,
            "seat": meta.seat,
            "correlation_id": meta.correlation_id or meta.command_id,
            "causation_id": meta.causation_id or meta.command_id,
            "recorded_at": meta.recorded_at or recorded_at,
        }
        envelopes = []
        for event in events:
            prefix, registry = self._registry_of(kind, event)
            name, schema_version, data = registry.encode(event)
            envelopes.append(
                NewEvent(
                    f"{prefix}.{name}",
                    schema_version,
                    data,
                    {"event_id": uuid.uuid4().hex, **metadata},
                )
            )
        return envelopes

    def appended(
        self,
        game_id: str,
        result: AppendResult,
        envelopes: Sequence[NewEvent],
        events: Sequence[object],
    ) -> list[StoredEvent]:
        """What ``envelopes`` (of ``events``) became once appended as ``result``."""
        return [
            StoredEvent(
                game_id=game_id,
                version=version,
                stream_id=f"{version}-0",
                type=envelope.type,
                schema_version=envelope.schema_version,
                data=dict(envelope.data),
                metadata=dict(envelope.metadata),
                event=event,
            )
            for version, envelope, event in zip(result.versions, envelopes, events, strict=True)
        ]

    def decode(self, kind: str, record: RecordedEvent) -> StoredEvent:
        """A stored envelope of a ``kind`` game, upcast to the current schema version."""
        prefix, _, name = record.type.partition(".")
        registry: TypeRegistry[Any]
        if prefix == SERVICE_KIND:
            registry = SERVICE_EVENTS
        elif prefix == kind:
            registry = self._games[kind].events
        else:
            raise FormatError(f"event type {record.type!r} in a {kind} game", "type")
        event = registry.decode(name, record.schema_version, record.data)
        schema_version = record.schema_version
        data = record.data
        if schema_version != registry.version_of(event):  # upcast: re-encode at the current version
            _, schema_version, data = registry.encode(event)
        return StoredEvent(
            game_id=record.game_id,
            version=record.version,
            stream_id=record.stream_id,
            type=record.type,
            schema_version=schema_version,
            data=data,
            metadata=record.metadata,
            event=event,
        )

    def _registry_of(self, kind: str, event: object) -> tuple[str, TypeRegistry[Any]]:
        if isinstance(event, GameReverted | UndoRequested | UndoAnswered):
            return SERVICE_KIND, SERVICE_EVENTS
        return kind, self._games[kind].events


def new_info(  # noqa: PLR0917 (the fields of a new game's info)
    kind: str,
    seat_names: Sequence[str],
    options: Mapping[str, Any],
    created_ms: int,
    created_at: str,
    start_version: int,
    status: str,
    bots: Mapping[int, BotSeat] | None = None,
    clock: ClockSpec | None = None,
) -> dict[str, str]:
    """The info record that a game's creation writes."""
    extra = {"bots": bots_field(bots)} if bots else {}
    if clock is not None:
        extra["clock"] = clock_field(clock)
    return {
        **extra,
        "kind": kind,
        "seat_names": json.dumps(list(seat_names), ensure_ascii=False),
        "options": json.dumps(dict(options), sort_keys=True, ensure_ascii=False),
        "created_at": created_at,
        "created_ms": str(created_ms),
        "updated_at": created_at,
        "start_version": str(start_version),
        "status": status,
        "reverts": "[]",
    }


def reverts_field(reverts: Sequence[tuple[int, int]]) -> str:
    return json.dumps([list(pair) for pair in reverts])


def game_info(record: GameRecord) -> GameInfo:
    fields = record.fields
    return GameInfo(
        game_id=record.game_id,
        kind=fields["kind"],
        seat_names=tuple(json.loads(fields["seat_names"])),
        options=json.loads(fields["options"]),
        created_at=fields["created_at"],
        status=fields.get("status", "active"),
        version=record.version,
        updated_at=fields.get("updated_at", fields["created_at"]),
        start_version=int(fields.get("start_version", "1")),
        created_ms=int(fields.get("created_ms", "0")),
        reverts=_reverts(fields.get("reverts")),
        bots=parse_bots(fields.get("bots")),
        clock=parse_clock(fields.get("clock")),
    )


def _reverts(raw: str | None) -> tuple[tuple[int, int], ...] | None:
    if raw is None:
        return None
    return tuple((int(at), int(to)) for at, to in json.loads(raw))
