"""The event mapper: between the application's objects and the store's records.

Events go out as envelopes (``<kind>.<Name>`` or ``service.<Name>``, the registry's schema
version, the data, and metadata from the request's ``CommandMeta``) and come back as
``StoredEvent``s, upcast to the current schema version on the way (an old envelope is
decoded through the registry's upcasters and re-encoded). A game's info record, a flat
map of strings in the store, is mapped to and from ``GameInfo`` here too.

Metadata is encoded here and only here (``encode_metadata`` / ``decode_metadata``). In
memory (``StoredEvent.metadata``) it is the full audit record: ``event_id``,
``command_id``, ``actor``, ``seat``, ``correlation_id``, ``causation_id``, ``recorded_at``.
Stored, it is versioned by the field ``v``:

- version 1 (no ``v``; games stored before the compact form): the full record as is;
- version 2: ``{"v": 2, "e": event id, "c": command id, "a": actor, "t": recorded at}``
  with nothing repeated. A 32-hex-digit id is kept as its 16 bytes in unpadded base64
  (22 characters); any other id is kept as given under the upper-case key (``E``, ``C``,
  ``R``, ``U``). ``seat`` is left out when the actor says it (``seat:N``, or none for
  ``admin``/``system``), else kept as ``s``. ``correlation_id`` (``r``/``R``) and
  ``causation_id`` (``u``/``U``) are left out when they equal the command id, which they
  do unless a caller gave its own. ``recorded_at``, an ISO-8601 UTC time, is kept as
  integer microseconds since the epoch when it reads back to the very same text, else as
  the text (``T``). Fields of a record unknown here are kept under ``x``.

- version 3 (issue 13): version 2 plus the game's record: ``h``, the event's link in the
  game's hash chain (``service.application.chain``; 64 hex digits kept as 43 characters of
  unpadded base64, else as given under ``H``); ``k``, the command that produced the append
  (on its first event); ``p``, the rule trail (the rule ids of the decisions that produced
  the event). Version 2 kept those, if at all, among the unknown fields under ``x``; its
  upcaster lifts them out. A record without ``p`` has no trail recorded (never "no rule").

Reading upcasts through ``METADATA_UPCASTERS`` (version n to n + 1) to the current
version, then expands it, so every stored game still reads. Nothing stored is ever
rewritten.
"""

from __future__ import annotations

import binascii
import functools
import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from domain.common.codec import TypeRegistry
from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from service.application.bots import BotSeat, bots_field, parse_bots
from service.application.chain import COMMAND_KEY, HASH_KEY, TRAIL_KEY, link_of
from service.application.clocks import ClockSpec, clock_field, parse_clock
from service.events import (
    SERVICE_EVENT_TYPES,
    SERVICE_EVENTS,
    SERVICE_KIND,
)
from service.store.port import AppendResult, GameRecord, NewEvent, RecordedEvent

# A command id to be derived from the game's chain when its events are sealed.
DERIVE_COMMAND_ID = "(derived)"


def derived_command_id(prev: str, first_version: int) -> str:
    """The id of the command whose events are appended at ``first_version``, after the
    event whose hash is ``prev`` (the game's genesis for its first command): 32 hex digits
    of ``sha256("<prev>/<first_version>")``. Unique per game and place in it (the chain's
    hashes are), derived again by the archive tier instead of being kept."""
    return hashlib.sha256(f"{prev}/{first_version}".encode()).hexdigest()[:32]


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

    @classmethod
    def for_actor(
        cls,
        actor: str,
        seat: int | None = None,
        *,
        command_id: str | None = None,
        correlation_id: str | None = None,
    ) -> CommandMeta:
        """The metadata of a write by ``actor`` (``seat:<n>``, ``bot:<n>``, ``admin``,
        ``system``) acting as ``seat`` (None: no seat); unless ``command_id`` is given (a job
        derives its own, so that its retries are one command), the command id is derived
        when the events are sealed (``derived_command_id``): unique as a random one, and
        nothing for the archive tier to keep; ``correlation_id``: the request's
        ``X-Request-ID``."""
        return cls(
            command_id=DERIVE_COMMAND_ID if command_id is None else command_id,
            actor=actor,
            seat=seat,
            correlation_id=correlation_id,
        )


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
    status: str  # "open" (seats to claim) | "active" | "over"
    version: int
    updated_at: str
    start_version: int  # the version of the initial position: the number of start events
    created_ms: int
    # (version of a GameReverted, the version it went back to), oldest first; None for a
    # game stored before the service kept them (then they are found by reading the log)
    reverts: tuple[tuple[int, int], ...] | None = ()
    # Seats created open and not claimed yet; the game starts (status "active") once
    # there is none left.
    open_seats: tuple[int, ...] = ()
    bots: Mapping[int, BotSeat] = field(default_factory=dict)  # seat → its bot (bots.py)
    clock: ClockSpec | None = None  # the time control (clocks.py)
    players: Mapping[int, str] = field(default_factory=dict)  # seat → its player (players.py)
    rated: bool = False  # its result updates its players' ratings (ratings.py)
    # A rematch's links (``rematch.py``): the game this one is a rematch of, and this one's
    # rematch (written with the ``service.RematchCreated`` appended to the finished game)
    rematch_of: str | None = None
    rematch: str | None = None
    # Open seats reserved for invited players (``invitations.py``): seat → its reservation
    reserved: Mapping[int, Reservation] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Reservation:
    """An open seat's invitation: the invited ``player``, the SHA-256 of the invitation's
    code (the code itself is shown once, to ``by``), and ``by``, the actor who made it."""

    player: str
    code_hash: str
    by: str


def reserved_field(reserved: Mapping[int, Reservation]) -> str:
    return json.dumps(
        {
            str(seat): {"player": r.player, "code_hash": r.code_hash, "by": r.by}
            for seat, r in sorted(reserved.items())
        }
    )


def parse_reserved(raw: str | None) -> dict[int, Reservation]:
    if not raw:
        return {}
    return {int(seat): Reservation(**spec) for seat, spec in json.loads(raw).items()}


class Sealed(NamedTuple):
    """Envelopes made ready to store (``EventMapper.sealed``)."""

    events: list[NewEvent]  # metadata encoded for the store
    head: str  # the hash of the last one
    metadata: list[dict[str, Any]]  # each one's full metadata, as it reads back


class EventMapper:
    """Envelopes of the events of the games in ``games`` (by kind), and of service events."""

    def __init__(self, games: Mapping[str, GameRules[Any, Any, Any]]) -> None:
        self._games = games
        # Every type's decoder and encoder built up front, not by the first request that
        # meets a type (a time-travel fold from the start decoded ~40 new types in 5 ms).
        for rules in games.values():
            rules.commands.prepare()
            rules.events.prepare()
        SERVICE_EVENTS.prepare()

    def envelopes(
        self, kind: str, events: Sequence[object], meta: CommandMeta, recorded_at: str
    ) -> list[NewEvent]:
        """``events`` of a ``kind`` game (domain or service events) as envelopes for
        ``sealed``, their metadata the full audit record (every field; ``sealed`` encodes it)."""
        metadata = {
            "command_id": meta.command_id,
            "actor": meta.actor,
            "seat": meta.seat,
            "correlation_id": meta.correlation_id or meta.command_id,
            "causation_id": meta.causation_id or meta.command_id,
            "recorded_at": meta.recorded_at or recorded_at,
        }
        envelopes = []
        for index, event in enumerate(events):
            prefix, registry = self._registry_of(kind, event)
            name, schema_version, data = registry.encode(event)
            envelopes.append(
                NewEvent(
                    f"{prefix}.{name}",
                    schema_version,
                    data,
                    {"event_id": derived_event_id(meta.command_id, index), **metadata},
                )
            )
        return envelopes

    def sealed(
        self,
        envelopes: Sequence[NewEvent],
        trails: Sequence[Sequence[str]] | None,
        first_version: int,
        prev: str,
        command: Mapping[str, Any] | None,
    ) -> Sealed:
        """``envelopes`` (to be appended at ``first_version``, ...; their metadata stored
        in any version, as ``envelopes`` gives them or in full) made ready to store: each
        one's rule trail (``trails``, if given) and, on the first, ``command`` put into
        its *full* metadata, each linked into the game's hash chain from ``prev`` (the
        hash of the event before) over the full metadata as it reads back from the store
        (``chain.link_of``, as the record's verification recomputes it), then encoded.
        Returns them, the new head (the last hash) and each one's full metadata."""
        if trails is not None and len(trails) != len(envelopes):
            raise ValueError(f"{len(trails)} rule trails for {len(envelopes)} events")
        out: list[NewEvent] = []
        records: list[dict[str, Any]] = []
        command_id = derived_command_id(prev, first_version)
        for n, envelope in enumerate(envelopes):
            given = envelope.metadata
            # A full record with every audit field (what ``envelopes`` makes) reads back
            # unchanged once encoded; any other form is read back as the store would.
            full = (
                dict(given)
                if "v" not in given and all(name in given for name in AUDIT_FIELDS)
                else decode_metadata(given)
            )
            full.pop(HASH_KEY, None)  # sealed here, and only here
            full.pop(COMMAND_KEY, None)
            if full.get("command_id") == DERIVE_COMMAND_ID:
                full["command_id"] = command_id
                if full.get("event_id") == derived_event_id(DERIVE_COMMAND_ID, n):
                    full["event_id"] = derived_event_id(command_id, n)
                for name in ("correlation_id", "causation_id"):
                    if full.get(name) == DERIVE_COMMAND_ID:
                        full[name] = command_id
            if trails is not None:
                full[TRAIL_KEY] = list(trails[n])
            if n == 0 and command is not None:
                full[COMMAND_KEY] = dict(command)
            prev = link_of(
                prev, first_version + n, envelope.type, envelope.schema_version, full, envelope.data
            )
            full[HASH_KEY] = prev
            stored = encode_metadata(full)
            out.append(NewEvent(envelope.type, envelope.schema_version, envelope.data, stored))
            records.append(full)
        return Sealed(out, prev, records)

    def appended(
        self, game_id: str, result: AppendResult, sealed: Sealed, events: Sequence[object]
    ) -> list[StoredEvent]:
        """What the ``sealed`` envelopes (of ``events``) became once appended as ``result``."""
        return [
            StoredEvent(
                game_id=game_id,
                version=version,
                stream_id=f"{version}-0",
                type=envelope.type,
                schema_version=envelope.schema_version,
                data=dict(envelope.data),
                metadata=dict(metadata),  # the full record, as it reads back from the store
                event=event,
            )
            for version, envelope, metadata, event in zip(
                result.versions, sealed.events, sealed.metadata, events, strict=True
            )
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
            metadata=decode_metadata(record.metadata),
            event=event,
        )

    def _registry_of(self, kind: str, event: object) -> tuple[str, TypeRegistry[Any]]:
        if isinstance(event, SERVICE_EVENT_TYPES):
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
    open_seats: Sequence[int] = (),
    bots: Mapping[int, BotSeat] | None = None,
    clock: ClockSpec | None = None,
    players: Mapping[int, str] | None = None,
    rematch_of: str | None = None,
    *,
    rated: bool = False,
) -> dict[str, str]:
    """The info record that a game's creation writes."""
    extra = {"bots": bots_field(bots)} if bots else {}
    if rematch_of is not None:
        extra["rematch_of"] = rematch_of
    if players:
        extra["players"] = players_field(players)
    if rated:
        extra["rated"] = "1"
    if clock is not None:
        extra["clock"] = clock_field(clock)
    return {
        "open_seats": open_seats_field(open_seats),
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


def open_seats_field(seats: Sequence[int]) -> str:
    return json.dumps(sorted(seats))


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
        open_seats=tuple(json.loads(fields.get("open_seats", "[]"))),
        bots=parse_bots(fields.get("bots")),
        clock=parse_clock(fields.get("clock")),
        players=parse_players(fields.get("players")),
        rated=fields.get("rated") == "1",
        rematch_of=fields.get("rematch_of"),
        rematch=fields.get("rematch"),
        reserved=parse_reserved(fields.get("reserved")),
    )


def _reverts(raw: str | None) -> tuple[tuple[int, int], ...] | None:
    if raw is None:
        return None
    return tuple((int(at), int(to)) for at, to in json.loads(raw))


# ---------------------------------------------------------------------------- metadata
METADATA_VERSION = 3
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_HEX_ID = re.compile(r"^[0-9a-f]{32}\Z")
# The audit fields, in the order a full record lists them.
AUDIT_FIELDS = (
    "event_id",
    "command_id",
    "actor",
    "seat",
    "correlation_id",
    "causation_id",
    "recorded_at",
)
# Version 2's short key of each id field (upper case: kept as given, not packed).
_ID_KEYS = (("event_id", "e"), ("command_id", "c"), ("correlation_id", "r"), ("causation_id", "u"))


def encode_metadata(full: Mapping[str, Any]) -> dict[str, Any]:
    """A full audit record as stored now (version ``METADATA_VERSION``)."""
    return _encode_v3(full)


def decode_metadata(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A stored record of any version as the full audit record."""
    version = metadata_version(stored)
    while version < METADATA_VERSION:
        stored = METADATA_UPCASTERS[version](stored)
        version = metadata_version(stored)
    if version != METADATA_VERSION:
        raise FormatError(f"event metadata of version {version} is newer than this service")
    return _expand_v3(stored)


def metadata_version(stored: Mapping[str, Any]) -> int:
    version = stored.get("v", 1)
    if not isinstance(version, int) or isinstance(version, bool):
        raise FormatError(f"event metadata version {version!r}", "v")
    return version


def _seat_of_actor(actor: Any) -> int | None:
    if isinstance(actor, str) and actor.startswith("seat:") and actor[5:].isdigit():
        return int(actor[5:])
    return None


def derived_event_id(command_id: str, index: int) -> str:
    """The id of the ``index``-th event (from 0) of the command ``command_id``: 32 hex digits
    of ``sha256("<command id>/<index>")``. Unique as command ids are (a new one per command,
    or one a job derives for itself), and not stored by the archive tier, which works it out
    again; events stored before were given random ids (kept as they are)."""
    return hashlib.sha256(f"{command_id}/{index}".encode()).hexdigest()[:32]


def pack_id(value: str) -> str:
    """A 32-hex-digit id as stored: its 16 bytes in unpadded base64."""
    return _pack_id(value)


def _pack_id(value: str) -> str:
    return binascii.b2a_base64(bytes.fromhex(value), newline=False).decode()[:22]


def _unpack_id(value: str) -> str:
    try:
        return binascii.a2b_base64(value + "==").hex()
    except (binascii.Error, ValueError, TypeError):
        raise FormatError(f"packed id {value!r} in event metadata") from None


# recorded_at from microseconds, as datetime.isoformat() writes a UTC time, without building
# an aware datetime (several times slower) for the years gmtime covers.
_MAX_FAST_MICROS = 253_402_300_800 * 1_000_000  # 10000-01-01


@functools.lru_cache(maxsize=4096)  # a command's events share their time
def _iso_utc(micros: int) -> str:
    if not 0 <= micros < _MAX_FAST_MICROS:
        return (_EPOCH + timedelta(microseconds=micros)).isoformat()
    seconds, fraction = divmod(micros, 1_000_000)
    moment = time.gmtime(seconds)
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % moment[:6]  # noqa: UP031 (the fastest here)
    return f"{text}.{fraction:06d}+00:00" if fraction else f"{text}+00:00"


def _micros(recorded_at: Any) -> int | None:
    """``recorded_at`` as microseconds since the epoch, if that reads back to the same text."""
    if not isinstance(recorded_at, str):
        return None
    return _micros_of(recorded_at)


@functools.lru_cache(maxsize=256)  # a command's events share their time
def _micros_of(recorded_at: str) -> int | None:
    try:
        moment = datetime.fromisoformat(recorded_at)
    except ValueError:
        return None
    if moment.utcoffset() != timedelta(0) or moment.isoformat() != recorded_at:
        return None
    return (moment - _EPOCH) // timedelta(microseconds=1)


def _encode_v2(full: Mapping[str, Any]) -> dict[str, Any]:
    command_id = full.get("command_id")
    stored: dict[str, Any] = {"v": 2}
    for name, key in _ID_KEYS:
        value = full.get(name)
        if name in ("correlation_id", "causation_id") and value == command_id:
            continue  # the usual case: implied by the command id
        if isinstance(value, str) and _HEX_ID.match(value):
            stored[key] = _pack_id(value)
        else:
            stored[key.upper()] = value
    actor = full.get("actor")
    stored["a"] = actor
    if full.get("seat") != _seat_of_actor(actor):
        stored["s"] = full.get("seat")
    micros = _micros(full.get("recorded_at"))
    if micros is not None:
        stored["t"] = micros
    else:
        stored["T"] = full.get("recorded_at")
    extra = {k: v for k, v in full.items() if k not in AUDIT_FIELDS}
    if extra:
        stored["x"] = extra
    return stored


def _expand_v2(stored: Mapping[str, Any]) -> dict[str, Any]:
    # On every event read (a page of the log, a load): kept to plain lookups.
    get = stored.get
    packed = get("c")
    command_id = _unpack_id(packed) if packed is not None else get("C")
    packed = get("e")
    actor = get("a")
    seat = stored["s"] if "s" in stored else _seat_of_actor(actor)
    correlation_id = causation_id = command_id
    if "r" in stored or "R" in stored:
        packed = get("r")
        correlation_id = _unpack_id(packed) if packed is not None else get("R")
    if "u" in stored or "U" in stored:
        packed = get("u")
        causation_id = _unpack_id(packed) if packed is not None else get("U")
    micros = get("t")
    event_id = get("e")
    full: dict[str, Any] = {
        "event_id": _unpack_id(event_id) if event_id is not None else get("E"),
        "command_id": command_id,
        "actor": actor,
        "seat": seat,
        "correlation_id": correlation_id,
        "causation_id": causation_id,
        "recorded_at": get("T") if micros is None else _iso_utc(micros),
    }
    extra = get("x")
    if isinstance(extra, dict):
        full.update(extra)
    return full


def _upcast_v1(stored: Mapping[str, Any]) -> dict[str, Any]:
    """Version 1 (the full record, written before version 2) to version 2: the same
    record, encoded. (A field a version 1 record lacks reads back as None, as it did.)"""
    return _encode_v2(stored)


# Version 3's keys of the record's fields: the link, the command, the rule trail.
_RECORD_KEYS = ((HASH_KEY, "h"), (COMMAND_KEY, "k"), (TRAIL_KEY, "p"))
_HEX_HASH = re.compile(r"^[0-9a-f]{64}\Z")


def _encode_v3(full: Mapping[str, Any]) -> dict[str, Any]:
    record = {name: full[name] for name, _ in _RECORD_KEYS if name in full}
    stored = _encode_v2({k: v for k, v in full.items() if k not in record})
    stored["v"] = 3
    for name, key in _RECORD_KEYS:
        if name not in record:
            continue
        value = record[name]
        if name == HASH_KEY and isinstance(value, str) and _HEX_HASH.match(value):
            stored[key] = binascii.b2a_base64(bytes.fromhex(value), newline=False).decode()[:43]
        elif name == HASH_KEY:
            stored["H"] = value
        else:
            stored[key] = value
    return stored


def _expand_v3(stored: Mapping[str, Any]) -> dict[str, Any]:
    full = _expand_v2(stored)
    packed = stored.get("h")
    if packed is not None:
        try:
            full[HASH_KEY] = binascii.a2b_base64(packed + "=").hex()
        except (binascii.Error, ValueError, TypeError):
            raise FormatError(f"packed hash {packed!r} in event metadata") from None
    elif "H" in stored:
        full[HASH_KEY] = stored["H"]
    if "k" in stored:
        full[COMMAND_KEY] = stored["k"]
    if "p" in stored:
        full[TRAIL_KEY] = stored["p"]
    return full


def _upcast_v2(stored: Mapping[str, Any]) -> dict[str, Any]:
    """Version 2 to version 3: the record's fields kept among the unknown ones (``x``)
    move to their own keys; everything else stays as it was."""
    return _encode_v3(_expand_v2(stored))


# Version n -> n + 1, for every stored version before the current one.
METADATA_UPCASTERS: dict[int, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    1: _upcast_v1,
    2: _upcast_v2,
}


# The seats bound to players, as the game's info keeps them (``service.application.players``
# reads and keeps the players' lists; the info field is the mapper's, so no cycle).
def players_field(players: Mapping[int, str]) -> str:
    return json.dumps({str(seat): players[seat] for seat in sorted(players)})


def parse_players(raw: str | None) -> dict[int, str]:
    if not raw:
        return {}
    loaded: dict[str, Any] = json.loads(raw)
    return {int(seat): str(player) for seat, player in loaded.items()}
