"""The archive tier's object: one finished game in one immutable, compressed, verifiable
blob (``encode`` / ``decode``). Not to be confused with a game's *record*
(``service.application.record``), the portable export that clients download and verify.

The object is ``zstd(JSON)`` (inspect one with ``zstd -dc games/<id>/<sha256>.json.zst``)::

    {"format": "tigris-archive/1", "game_id", "kind", "version",
     "info": {<the game's info fields as stored>},
     "head": <the hash of the last event: the record chain's anchor>,
     "types": [[type name, schema version], ...],
     "events": [[type index, data or null, residue], ...]}

Each event keeps exactly what cannot be worked out again, so that decoding gives back every
stored envelope, equal field for field (type, schema, data, and the stored metadata: event
and command ids, actor, seat, request ids, time, link, command, rule trail):

- **data** is ``null`` when the game's rules give it back: the events of a command are
  ``rules.decide(state, command)`` and the start events ``rules.start(seats, options,
  seed)`` (the ``CreateGame`` command holds the seed); any other event (service events,
  or one the rules would now decide otherwise) keeps its data;
- the **residue** is the stored metadata (``service.application.mapper``, version 3) less
  what follows from the events before: the link ``h`` (recomputed along the chain, which
  ``decode`` checks against ``head``), the rule trail ``p`` when ``rules.explain_event``
  gives it back, the event id ``e`` when it is the one derived from its command id
  (``derived_event_id``: what new games store), the command id ``c`` and actor ``a``
  when they repeat the previous event's, and the time ``t`` as the microseconds since the
  previous event's (``d``). A removed field that the event never had is kept as ``null``,
  so that removal never invents one.

The content hash (SHA-256 of the compressed bytes) names the object and is kept with the
game's residue in Redis; ``decode`` also recomputes every link from the game's genesis and
checks the last one against ``head``, which is the record's head (``GET
/games/{id}/record``), so an object whose content was changed does not decode.
"""

from __future__ import annotations

import binascii
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import zstandard

from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from service.application import chain
from service.application.mapper import (
    METADATA_VERSION,
    EventMapper,
    decode_metadata,
    derived_command_id,
    derived_event_id,
    pack_id,
)
from service.application.repository import replay
from service.events import SERVICE_KIND
from service.store.port import RecordedEvent

ARCHIVE_FORMAT = "tigris-archive/1"
ZSTD_LEVEL = 19
CREATE_GAME = "CreateGame"

_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class ArchivedGame:
    """A game read back from its archive object."""

    game_id: str
    kind: str
    version: int
    info: dict[str, str]
    head: str
    events: list[RecordedEvent]


def content_hash(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists)."""
    return json.loads(_encoder.encode(value))


class _Refold:
    """A game folded along its events, for what its rules give back: the events of each
    command and the rule trail of each event. Encoding and decoding walk a game alike."""

    def __init__(self, rules: GameRules[Any, Any, Any], mapper: EventMapper) -> None:
        self.rules = rules
        self.mapper = mapper
        self.kind = rules.kind
        self.states: dict[int, Any] = {}
        self.state: Any = None
        self.version = 0
        self.pending: list[tuple[str, int, dict[str, Any]]] = []  # derived, not yet met

    def command(self, command: Any) -> None:
        """A stored command (``k``): the envelopes ``(type, schema, data)`` it gives at the
        current state become the pending ones (none if the rules give none)."""
        self.pending = []
        if not isinstance(command, Mapping):
            return
        try:
            if command.get("type") == CREATE_GAME:
                if self.version != 0:
                    return
                events = self.rules.start(
                    list(command["seats"]), dict(command["options"]), int(command["seed"])
                )
            else:
                if self.state is None:
                    return
                events = self.rules.decide(self.state, self.rules.commands.from_json(command))
        except Exception:
            return
        for event in events:
            name, schema, data = self.rules.events.encode(event)
            self.pending.append((f"{self.kind}.{name}", schema, _normal(data)))

    def step(self, record: RecordedEvent) -> Any:
        """Fold ``record`` in; returns its rule trail as the rules explain it (None for a
        service event or when they cannot)."""
        stored = self.mapper.decode(self.kind, record)
        before = self.state
        self.state, self.version = replay(
            self.rules,
            [stored],
            base_state=self.state,
            base_version=self.version,
            state_at=self.states.__getitem__,
        )
        self.states[self.version] = self.state
        if record.type.startswith(SERVICE_KIND + "."):
            return None
        try:
            return _normal(list(self.rules.explain_event(before, stored.event, self.state)))
        except Exception:
            return None


class _Walk:
    """What encoding and decoding carry from one event to the next."""

    def __init__(self, game_id: str, kind: str, seats: Sequence[str], options: Any) -> None:
        self.prev_hash = chain.genesis(game_id, kind, seats, options)
        self.prev_meta: dict[str, Any] = {}
        self.index = 0  # the event's place among those of its command

    def place(self, meta: Mapping[str, Any]) -> None:
        same = bool(self.prev_meta) and _command_id(meta) == _command_id(self.prev_meta)
        self.index = self.index + 1 if same else 0

    def prev_time(self) -> int:
        t = self.prev_meta.get("t")
        return t if isinstance(t, int) else 0

    def moved(self, meta: dict[str, Any], record: RecordedEvent) -> None:
        full = decode_metadata(meta)
        stored = full.get(chain.HASH_KEY)
        self.prev_hash = (
            stored
            if isinstance(stored, str)
            else chain.link_of(
                self.prev_hash,
                record.version,
                record.type,
                record.schema_version,
                full,
                record.data,
            )
        )
        self.prev_meta = meta


def _command_id(meta: Mapping[str, Any]) -> tuple[str, Any]:
    return ("c", meta["c"]) if "c" in meta else ("C", meta.get("C"))


def _genesis_parts(info: Mapping[str, str], first: Mapping[str, Any] | None) -> tuple[Any, Any]:
    full = None if first is None else decode_metadata(first)
    return chain.creation_seats(full, json.loads(info["seat_names"])), json.loads(info["options"])


_ABSENT = "-"  # the residue's list of fields the event never had
# Stored metadata that the events of one command share (request ids, seat, extra fields).
_PER_COMMAND = ("r", "R", "u", "U", "s", "x")


def encode(
    game_id: str,
    info: Mapping[str, str],
    records: Sequence[RecordedEvent],
    rules: GameRules[Any, Any, Any],
    mapper: EventMapper,
) -> bytes:
    """The archive object of a game whose stored events are ``records`` (all of them)."""
    refold = _Refold(rules, mapper)
    seats, options = _genesis_parts(info, records[0].metadata if records else None)
    walk = _Walk(game_id, rules.kind, seats, options)
    types: list[list[Any]] = []
    type_index: dict[tuple[str, int], int] = {}
    events: list[list[Any]] = []
    for record in records:
        meta = dict(record.metadata)
        if "k" in meta:
            refold.command(meta["k"])
        envelope = (record.type, record.schema_version, record.data)
        derived = bool(refold.pending) and refold.pending[0] == envelope
        if derived:
            refold.pending.pop(0)
        else:
            refold.pending = []
        trail = refold.step(record)
        walk.place(meta)
        residue = _residue(record, meta, walk, trail)
        walk.moved(meta, record)
        key = (record.type, record.schema_version)
        if key not in type_index:
            type_index[key] = len(types)
            types.append([record.type, record.schema_version])
        events.append([type_index[key], None if derived else record.data, residue])
    payload = {
        "format": ARCHIVE_FORMAT,
        "game_id": game_id,
        "kind": rules.kind,
        "version": len(records),
        "info": dict(info),
        "head": walk.prev_hash,
        "types": types,
        "events": events,
        # The last state and event as they are, for reading the game's state without
        # refolding it (the object's hash vouches for them; ``decode`` checks them).
        "state": _normal(rules.dump_position(refold.state)) if records else None,
        "last": _last(records[-1]) if records else None,
    }
    raw = _encoder.encode(payload).encode("utf-8")
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(raw)


def _residue(
    record: RecordedEvent, meta: Mapping[str, Any], walk: _Walk, trail: Any
) -> dict[str, Any]:
    """The stored metadata of ``record`` less what decoding works out again."""
    residue = dict(meta)
    absent: list[str] = []
    if residue.get("v") == METADATA_VERSION:
        del residue["v"]
    elif "v" not in meta:
        absent.append("v")
    full = decode_metadata(meta)
    link = _link(walk.prev_hash, record, full)
    if "h" not in meta:
        absent.append("h")
    elif full.get(chain.HASH_KEY) == link:
        del residue["h"]
    command_id = full.get("command_id")
    if "e" in meta and isinstance(command_id, str):
        if meta["e"] == pack_id(derived_event_id(command_id, walk.index)):
            del residue["e"]
    elif "e" not in meta:
        absent.append("e")
    if walk.index > 0:  # the command id, request ids and seat of the event before
        residue.pop("c", None)
        residue.pop("C", None)
        for name in _PER_COMMAND:
            if name in meta and name in walk.prev_meta and walk.prev_meta[name] == meta[name]:
                del residue[name]
            elif name not in meta and name in walk.prev_meta:
                absent.append(name)
    elif "c" not in meta and "C" not in meta:
        absent.append("c")
    elif meta.get("c") == pack_id(derived_command_id(walk.prev_hash, record.version)):
        residue["c"] = 0  # derived from the chain (``derived_command_id``)
    prev = walk.prev_meta
    if "a" not in meta:
        absent.append("a")
    elif prev and "a" in prev and prev["a"] == meta["a"]:
        del residue["a"]
    if isinstance(meta.get("t"), int):
        del residue["t"]
        residue["d"] = meta["t"] - walk.prev_time()
    if "p" not in meta:
        absent.append("p")
    elif trail is not None and trail == meta["p"]:
        del residue["p"]
    if absent:
        residue[_ABSENT] = absent
    return residue


def decode(
    blob: bytes,
    games: Mapping[str, GameRules[Any, Any, Any]],
    mapper: EventMapper,
    *,
    upto: int | None = None,
) -> ArchivedGame:
    """The game an archive object holds, every stored envelope as it was; a FormatError
    for an object that is not one or whose chain does not end at its head. ``upto``: only
    its first ``upto`` events (refolded that far; the chain is then checked only by the
    object's hash, which the caller checks, not against the head)."""
    try:
        raw = zstandard.ZstdDecompressor().decompress(blob)
        payload = json.loads(raw)
    except (zstandard.ZstdError, ValueError) as exc:
        raise FormatError(f"not an archive object: {exc}") from None
    if not isinstance(payload, dict) or payload.get("format") != ARCHIVE_FORMAT:
        raise FormatError("not an archive object of format " + ARCHIVE_FORMAT)
    game_id, kind, info = payload["game_id"], payload["kind"], payload["info"]
    rules = games.get(kind)
    if rules is None:
        raise FormatError(f"archive of an unknown kind {kind!r}", "kind")
    refold = _Refold(rules, mapper)
    types = [(str(name), int(schema)) for name, schema in payload["types"]]
    records: list[RecordedEvent] = []
    walk: _Walk | None = None
    for version, (type_at, kept, residue) in enumerate(payload["events"], start=1):
        if upto is not None and version > upto:
            break
        type_name, schema = types[type_at]
        data = kept
        if walk is None:
            first = {"v": METADATA_VERSION, "k": residue["k"]} if "k" in residue else None
            seats, options = _genesis_parts(info, first)
            walk = _Walk(game_id, kind, seats, options)
        meta = _meta_of(residue, walk, version)
        if "k" in meta:
            refold.command(meta["k"])
        if data is None:
            if not refold.pending or refold.pending[0][:2] != (type_name, schema):
                raise FormatError(f"archived event {version}: its rules give no such event")
            data = refold.pending.pop(0)[2]
        else:
            refold.pending = []
        record = RecordedEvent(game_id, version, f"{version}-0", type_name, schema, data, meta)
        trail = refold.step(record)
        walk.place(meta)
        _complete(meta, residue, record, walk, trail)
        record = RecordedEvent(game_id, version, f"{version}-0", type_name, schema, data, meta)
        walk.moved(meta, record)
        records.append(record)
    head = walk.prev_hash if walk is not None else ""
    if upto is not None and upto < int(payload["version"]):
        return ArchivedGame(game_id, kind, int(payload["version"]), info, payload["head"], records)
    if records and head != payload["head"]:
        raise FormatError("archived events do not chain to the archive's head")
    if records and (
        payload.get("last") != _last(records[-1])
        or payload.get("state") != _normal(rules.dump_position(refold.state))
    ):
        raise FormatError("the archive's last state or event is not its events' own")
    return ArchivedGame(game_id, kind, int(payload["version"]), info, payload["head"], records)


def _last(record: RecordedEvent) -> list[Any]:
    return [record.type, record.schema_version, record.data, record.metadata]


@dataclass(frozen=True)
class ArchivedHead:
    """An archived game's last state (in the position format) and last event, read from
    its object without refolding it."""

    game_id: str
    version: int
    position: dict[str, Any]
    last: RecordedEvent


def head(blob: bytes) -> ArchivedHead:
    """The last state and event an archive object holds (check its hash first)."""
    try:
        payload = json.loads(zstandard.ZstdDecompressor().decompress(blob))
        game_id, version = payload["game_id"], int(payload["version"])
        type_name, schema, data, meta = payload["last"]
        last = RecordedEvent(game_id, version, f"{version}-0", type_name, schema, data, meta)
        return ArchivedHead(game_id, version, payload["state"], last)
    except (zstandard.ZstdError, ValueError, KeyError, TypeError) as exc:
        raise FormatError(f"not an archive object: {exc}") from None


def _meta_of(residue: Mapping[str, Any], walk: _Walk, version: int) -> dict[str, Any]:
    """The residue's own fields, with the command id, actor and time that come from the
    event before (the rest is completed once the event's place is known)."""
    meta: dict[str, Any] = {}
    absent = residue.get(_ABSENT, ())
    if "v" not in absent and "v" not in residue:
        meta["v"] = METADATA_VERSION
    prev = walk.prev_meta
    meta.update({k: v for k, v in residue.items() if k not in (_ABSENT, "d")})
    if residue.get("c") == 0:
        meta["c"] = pack_id(derived_command_id(walk.prev_hash, version))
    if "c" not in residue and "C" not in residue and "c" not in absent and prev:
        meta.update({k: prev[k] for k in ("c", "C") if k in prev})
        for name in _PER_COMMAND:  # another event of the same command
            if name in prev and name not in residue and name not in absent:
                meta[name] = prev[name]
    if "a" not in residue and "a" not in absent and "a" in prev:
        meta["a"] = prev["a"]
    if "d" in residue:
        meta["t"] = walk.prev_time() + residue["d"]
    return meta


def _complete(
    meta: dict[str, Any],
    residue: Mapping[str, Any],
    record: RecordedEvent,
    walk: _Walk,
    trail: Any,
) -> None:
    """Put back into ``meta`` the event id, trail and link that ``_residue`` left out."""
    absent = residue.get(_ABSENT, ())
    if "e" not in residue and "E" not in residue and "e" not in absent:
        full = decode_metadata(meta)
        meta["e"] = pack_id(derived_event_id(full["command_id"], walk.index))
    if "p" not in residue and "p" not in absent:
        if trail is None:
            raise FormatError(f"archived event {record.version}: its rules give no trail")
        meta["p"] = trail
    if "h" not in residue and "h" not in absent:
        full = decode_metadata(meta)
        meta["h"] = _pack_hash(
            chain.link_of(
                walk.prev_hash,
                record.version,
                record.type,
                record.schema_version,
                full,
                record.data,
            )
        )


def _link(prev: str, record: RecordedEvent, full: Mapping[str, Any]) -> str:
    return chain.link_of(
        prev, record.version, record.type, record.schema_version, full, record.data
    )


def _pack_hash(value: str) -> str:
    return binascii.b2a_base64(bytes.fromhex(value), newline=False).decode()[:43]
