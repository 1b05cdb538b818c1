"""The hash chain of a game's events: each stored event carries the SHA-256 of its content
and of the previous event's hash, so that changing, dropping or reordering any event shows.

**Canonical JSON** (``canonical``): the UTF-8 bytes of the JSON text with object keys sorted
by code point, no whitespace (separators ``,`` and ``:``), non-ASCII characters written as
themselves (not ``\\u`` escapes), no NaN or infinities. Like RFC 8785 (JCS) for the values
our events hold (strings, booleans, null, integers, arrays, objects with ASCII keys), except
that integers beyond ±2^53 (a game's 63-bit seed) are written exactly, where JCS refuses them.

**Genesis**: ``sha256(canonical({"format", "game_id", "kind", "seats", "options"}))`` in hex:
the game's identity, so a record's header is bound to its first event. ``seats`` are the
names the game was *created* with (those of its ``CreateGame`` command, ``creation_seats``),
never the current ones: a claim in the lobby renames a seat, and the genesis stays the same
for the game's whole life.

**Link** of the event at version ``v``: ``sha256(canonical({"prev": <hash of v-1, or the
genesis>, "version": v, "type": <stored type name>, "schema": <stored schema version>,
"data": <stored data>, "meta": <the hashed metadata>, "command": <the command, or null>}))``
in hex. The type, schema and data are the envelope as written (never an upcast form), so a
hash stays true however the event's schema moves on. The hashed metadata are the keys of
``HASHED_META`` that the event has (who, when, which command, the rule trail); other
metadata (added later, or the hash itself) are not part of the link.

The chain is computed where appends are decided (``CommandHandler.append``, the lobby's
claim, the import), always by ``EventMapper.sealed``, over the full (decoded) metadata
that is then encoded for the store: the game as
loaded knows its last hash (``LoadedGame.head``), and the append's expected-version check
proves that event is still the last one, so each event's hash is stored in its metadata by
the same atomic append. Events stored before hashes were kept have none: their links are
computed when they are read (``head_of``, the record export) by the same function, so a
record looks the same, but those hashes were never stored with the events.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

RECORD_FORMAT = "tigris-record/1"
HASH_KEY = "hash"  # the metadata key of an event's link
COMMAND_KEY = "command"  # the metadata key of the command (on the first event of an append)
CLAIM_SEAT = "ClaimSeat"  # the command recorded with a lobby claim's service.SeatClaimed
LEAVE_SEAT = "LeaveSeat"  # the command recorded with a lobby leave's service.SeatLeft
REMATCH = "Rematch"  # the command recorded with a finished game's service.RematchCreated
INVITE = "Invite"  # the command recorded with an open seat's service.SeatReserved
REVOKE_INVITATION = "RevokeInvitation"  # ... with its service.ReservationRevoked
TRAIL_KEY = "rules"  # the metadata key of an event's rule trail
# The audit metadata that matter: which command, who sent it for which seat, when, and the
# rules that decided it. (Ids of events and requests are the store's bookkeeping.)
HASHED_META = ("command_id", "actor", "seat", "recorded_at", TRAIL_KEY)

_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical(value: Any) -> bytes:
    """The canonical JSON bytes of ``value`` (see the module docstring)."""
    return _encoder.encode(value).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def genesis(game_id: str, kind: str, seats: Sequence[str], options: Mapping[str, Any]) -> str:
    """The hash that the first event of a game links to."""
    core = {
        "format": RECORD_FORMAT,
        "game_id": game_id,
        "kind": kind,
        "seats": list(seats),
        "options": dict(options),
    }
    return sha256_hex(canonical(core))


def creation_seats(first: Mapping[str, Any] | None, current: Sequence[str]) -> list[str]:
    """The seat names a game was created with: those of the ``CreateGame`` command in the
    full metadata ``first`` of its first event; ``current`` (the info's names) for a game
    stored before commands were recorded."""
    command = None if first is None else first.get(COMMAND_KEY)
    if isinstance(command, Mapping):
        seats = command.get("seats")
        if isinstance(seats, list) and all(isinstance(name, str) for name in seats):
            return list(seats)
    return list(current)


def hashed_meta(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata that an event's link covers."""
    return {key: metadata[key] for key in HASHED_META if key in metadata}


def link(  # noqa: PLR0917 (the parts of one link)
    prev: str,
    version: int,
    type_name: str,
    schema: int,
    data: Mapping[str, Any],
    meta: Mapping[str, Any],
    command: Mapping[str, Any] | None,
) -> str:
    """The hash of the event at ``version`` whose predecessor's hash is ``prev``."""
    body = {
        "prev": prev,
        "version": version,
        "type": type_name,
        "schema": schema,
        "data": dict(data),
        "meta": hashed_meta(meta),
        "command": None if command is None else dict(command),
    }
    return sha256_hex(canonical(body))


def link_of(  # noqa: PLR0917 (the parts of one link)
    prev: str,
    version: int,
    type_name: str,
    schema: int,
    metadata: Mapping[str, Any],
    data: Mapping[str, Any],
) -> str:
    """``link`` of an event whose command (if any) sits in its ``metadata``."""
    command = metadata.get(COMMAND_KEY)
    return link(prev, version, type_name, schema, data, metadata, command)


def links(
    start: str,
    events: Iterable[tuple[int, str, int, Mapping[str, Any], Mapping[str, Any]]],
) -> list[str]:
    """The hashes of consecutive stored events ``(version, type, schema, data, metadata)``
    from the hash ``start`` of the one before: the stored hash where an event has one
    (trusted as stored; the record's verification checks it), else the computed link."""
    out: list[str] = []
    prev = start
    for version, type_name, schema, data, metadata in events:
        stored = metadata.get(HASH_KEY)
        if isinstance(stored, str):
            prev = stored
        else:
            prev = link_of(prev, version, type_name, schema, metadata, data)
        out.append(prev)
    return out
