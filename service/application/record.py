"""A game's record: its events as JSON Lines, each with its hash, and their offline check.

**Format** (``tigris-record/1``). Every line is canonical JSON (``chain.canonical``) ending
in ``\\n``. The first line is the header::

    {"format": "tigris-record/1", "game_id", "kind", "seats", "options",
     "complete": true|false, "events": <count>, "genesis": <hash>, "head": <last hash>}

and, for a game with bot seats only, ``"bots": {"<seat>": {"bot", "think_ms"}}``: the seats
server-side bots play (an imported game keeps them; they have no seat token).

then one line per event, version 1, 2, ... in order::

    {"version", "type", "schema", "data", "meta", "command", "hash"}

``type``, ``schema`` and ``data`` are the envelope as stored; ``meta`` the audit metadata
the hash covers (``chain.HASHED_META``: command id, actor, seat, time, rule trail);
``command`` what was asked, on the first event of each command's events (null on the
others): a game command as the domain encodes it (with its ``seat``), ``CreateGame``
(seats, options, seed, and ``open_seats`` when some were left to claim) for the start
events, ``ClaimSeat`` (seat, name) for a lobby claim's ``service.SeatClaimed``, and
``RequestUndo``, ``AnswerUndo``, ``Revert`` or ``AppendServiceEvents`` for undo events.
The header's ``seats`` are the current names (the creation's, renamed by the claims); its
``genesis`` is computed with the names of the creation, so it never changes. ``hash`` is
the event's link (``chain.link``) to the one before, the first to the header's ``genesis``.

A *complete* record holds everything; a record exported while a game runs, to anyone but
the admin, is redacted as its caller may see the game (``event_view``; the seed and other
seats' commands left out) and says ``"complete": false``: its hashes are the stored ones,
so it can later be compared line by line with the complete record, but it cannot be
verified on its own.

**Verification** (``verify``) needs nothing but the domain: each line must be the canonical
form of itself, each hash the link of its line to the previous hash, and each event the
one the rules derive: the start events from ``CreateGame`` (``rules.start`` with the
recorded seed), a game command's events from ``rules.decide`` on the state before it, undo
events must agree with their command and a revert must go back to a version after the
setup (and the last claim); a claim must name a seat still open and a player, and produce
exactly its ``SeatClaimed``; no other command comes before the last claim. The genesis must
be the hash of the header's game with the creation's names, and the header must match the
names the replay ends with, the event count and the last hash. The
answer names the first version (0: the header) where the record and the rules disagree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.common.codec import TypeRegistry
from domain.common.errors import FormatError, RulesError
from domain.common.protocol import GameRules
from service.application import chain
from service.application.bots import BotSeat, bots_field, parse_bots
from service.application.repository import replay
from service.events import SERVICE_EVENTS, SERVICE_KIND, GameReverted, SeatClaimed, SeatLeft

HEADER_KEYS = frozenset(
    {"format", "game_id", "kind", "seats", "options", "complete", "events", "genesis", "head"}
)
HEADER_BOTS = "bots"  # optional: only a game with bot seats has it
EVENT_KEYS = frozenset({"version", "type", "schema", "data", "meta", "command", "hash"})
CREATE_GAME = "CreateGame"  # the command recorded with a game's start events
CLAIM_SEAT = chain.CLAIM_SEAT  # the command recorded with a lobby claim's service.SeatClaimed
LEAVE_SEAT = chain.LEAVE_SEAT  # the command recorded with a lobby leave's service.SeatLeft
UNDO_COMMANDS = frozenset({"RequestUndo", "AnswerUndo", "Revert", "AppendServiceEvents"})
REMATCH = chain.REMATCH  # the command recorded with a finished game's service.RematchCreated
# The commands of an open seat's invitation (service.SeatReserved, service.ReservationRevoked)
INVITATION_COMMANDS = frozenset({chain.INVITE, chain.REVOKE_INVITATION})
# The service's own commands (public in a record shown while the game runs).
SERVICE_COMMANDS = UNDO_COMMANDS | INVITATION_COMMANDS | {CLAIM_SEAT, LEAVE_SEAT, REMATCH}
_HASH = re.compile("[0-9a-f]{64}")


def sees_all(rules: GameRules[Any, Any, Any], state: Any, *, admin: bool) -> bool:
    """Who sees a game's record complete (every command, every event unredacted): the
    admin, and anyone once the game is over."""
    return admin or rules.is_over(state)


def visible_command(command: Any, seat: Any, viewer: int | None) -> dict[str, Any] | None:
    """What of a recorded ``command`` (sent as ``seat``, from its event's metadata) a seat
    ``viewer`` (None: a spectator) may see while the game runs: the creation without its
    seed, the service's own commands (undo, claims), and the seat's own commands; nothing
    of another seat's command (it may tell what the seat holds)."""
    if not isinstance(command, dict):
        return None
    name = command.get("type")
    if name == CREATE_GAME:
        return {key: value for key, value in command.items() if key != "seed"}
    if name in SERVICE_COMMANDS:
        return command
    if viewer is not None and seat == viewer:
        return command
    return None


def header_line(  # noqa: PLR0917 (the header's fields)
    game_id: str,
    kind: str,
    seats: Sequence[str],
    options: Mapping[str, Any],
    complete: bool,
    events: int,
    head: str,
    genesis: str,
    bots: Mapping[int, BotSeat] | None = None,
) -> dict[str, Any]:
    """The header: ``seats`` are the current names (claims included), ``genesis`` the
    game's, computed from the names it was created with (``chain.creation_seats``);
    ``bots`` only when the game has bot seats."""
    extra = {HEADER_BOTS: json.loads(bots_field(bots))} if bots else {}
    return {
        "format": chain.RECORD_FORMAT,
        "game_id": game_id,
        "kind": kind,
        "seats": list(seats),
        "options": dict(options),
        "complete": complete,
        "events": events,
        "genesis": genesis,
        "head": head,
        **extra,
    }


def event_line(  # noqa: PLR0917 (an event line's fields)
    version: int,
    type_name: str,
    schema: int,
    data: Mapping[str, Any],
    meta: Mapping[str, Any],
    command: Mapping[str, Any] | None,
    hash_hex: str,
) -> dict[str, Any]:
    return {
        "version": version,
        "type": type_name,
        "schema": schema,
        "data": dict(data),
        "meta": chain.hashed_meta(meta),
        "command": None if command is None else dict(command),
        "hash": hash_hex,
    }


def dump(lines: Sequence[Mapping[str, Any]]) -> bytes:
    """The record's bytes: each line canonical, ``\\n``-terminated."""
    return b"".join(chain.canonical(line) + b"\n" for line in lines)


class Disagreement(Exception):
    """The record and the rules (or the record and itself) disagree at ``version``."""

    def __init__(self, version: int, reason: str) -> None:
        super().__init__(f"version {version}: {reason}")
        self.version = version
        self.reason = reason


class Incomplete(Exception):
    """A redacted record: it cannot be checked on its own."""


@dataclass(frozen=True)
class Verified:
    """A record that verified: its header, its event lines, and what replaying gave."""

    header: dict[str, Any]
    events: list[dict[str, Any]]
    rules: GameRules[Any, Any, Any]
    state: Any
    start_version: int  # the number of start events, or the version of the last claim
    reverts: list[tuple[int, int]] = field(default_factory=list)
    open_seats: tuple[int, ...] = ()  # seats still to claim at the record's end
    bots: dict[int, BotSeat] = field(default_factory=dict)  # the header's bot seats


def split_lines(data: bytes) -> list[bytes]:
    """The record's lines (without their line ends)."""
    if not data.endswith(b"\n"):
        raise Disagreement(data.count(b"\n"), "the record does not end with a line end")
    return data[:-1].split(b"\n")


def parse_line(version: int, raw: bytes) -> dict[str, Any]:
    """One line as a JSON object, checked to be canonical (so that no byte of it goes
    unchecked); a Disagreement names the line's version (0: the header)."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise Disagreement(version, f"not a JSON line: {exc}") from None
    if not isinstance(value, dict):
        raise Disagreement(version, "a line must be a JSON object")
    try:
        again = chain.canonical(value)
    except ValueError as exc:
        raise Disagreement(version, f"not canonical JSON: {exc}") from None
    if again != raw:
        raise Disagreement(version, "the line is not in canonical form")
    return value


def verify(data: bytes, games: Mapping[str, GameRules[Any, Any, Any]]) -> Verified:
    """Check a complete record (module docstring); Disagreement names the first version
    where it fails, Incomplete says it is redacted."""
    lines = split_lines(data)
    header = _check_header(parse_line(0, lines[0]), games)
    rules = games[header["kind"]]
    checker = _Replayer(header, rules)
    prev = header["genesis"]
    events: list[dict[str, Any]] = []
    for version, raw in enumerate(lines[1:], start=1):
        line = parse_line(version, raw)
        prev = _check_first(header, line) if version == 1 else _check_link(version, line, prev)
        checker.feed(version, line)
        events.append(line)
    checker.finish(len(events) + 1)
    if header["seats"] != checker.names:
        raise Disagreement(0, f"the header's seats are not {checker.names} (creation and claims)")
    if header["events"] != len(events):
        raise Disagreement(0, f"the header counts {header['events']} events, not {len(events)}")
    if header["head"] != prev:
        raise Disagreement(0, "the header's head is not the last event's hash")
    bots = header_bots(header)
    if set(bots) & checker.open_seats:
        raise Disagreement(0, "a seat still open is not a bot's")
    return Verified(
        header,
        events,
        rules,
        checker.state,
        checker.start_version,
        checker.reverts,
        tuple(sorted(checker.open_seats)),
        bots,
    )


def _check_header(
    header: dict[str, Any], games: Mapping[str, GameRules[Any, Any, Any]]
) -> dict[str, Any]:
    if set(header) - {HEADER_BOTS} != HEADER_KEYS:
        raise Disagreement(0, f"the header's fields are not {sorted(HEADER_KEYS)} (and bots)")
    if header["format"] != chain.RECORD_FORMAT:
        raise Disagreement(0, f"unknown record format {header['format']!r}")
    kind, seats, options = header["kind"], header["seats"], header["options"]
    if kind not in games:
        raise Disagreement(0, f"unknown game kind {kind!r}")
    if (
        not isinstance(header["game_id"], str)
        or not isinstance(seats, list)
        or not all(isinstance(s, str) for s in seats)
        or not isinstance(options, dict)
        or not isinstance(header["complete"], bool)
        or type(header["events"]) is not int
        or not all(isinstance(header[k], str) for k in ("genesis", "head"))
    ):
        raise Disagreement(0, "a header field has the wrong type")
    if not header["complete"]:
        raise Incomplete("a redacted record (complete: false) cannot be verified on its own")
    header_bots(header)
    return header


def header_bots(header: Mapping[str, Any]) -> dict[int, BotSeat]:
    """The header's bot seats (none without ``bots``); Disagreement at version 0 if they
    are not bot seats of the header's seats."""
    if HEADER_BOTS not in header:
        return {}
    raw = header[HEADER_BOTS]
    seats = len(header["seats"])
    if (
        not isinstance(raw, dict)
        or not raw
        or not all(isinstance(seat, str) and seat.isdigit() for seat in raw)
        or not all(isinstance(spec, dict) for spec in raw.values())
    ):
        raise Disagreement(0, "the header's bots are not seat numbers with a bot each")
    try:
        bots = parse_bots(json.dumps(raw))
    except (FormatError, TypeError) as exc:
        raise Disagreement(0, f"the header's bots are not bots: {exc}") from None
    if any(not 0 <= seat < seats for seat in bots) or json.loads(bots_field(bots)) != raw:
        raise Disagreement(0, "the header's bots are not bot seats of its seats, in normal form")
    return bots


def _check_first(header: dict[str, Any], line: dict[str, Any]) -> str:
    """The first event's link to the header's genesis, which must be the hash of the
    header's game with the seat names of the first event's ``CreateGame`` (the names the
    game was created with; the header's are the current ones). A line 1 that does not
    link to the header's genesis is line 1's fault unless it links to the right one."""
    command = line.get("command")
    seats = command.get("seats") if isinstance(command, dict) else None
    expected = None
    if isinstance(seats, list) and all(isinstance(name, str) for name in seats):
        expected = chain.genesis(header["game_id"], header["kind"], seats, header["options"])
    wrong = Disagreement(0, "the genesis is not the hash of the header's game")
    try:
        hash_hex = _check_link(1, line, header["genesis"])
    except Disagreement:
        if expected is not None and expected != header["genesis"]:
            try:
                _check_link(1, line, expected)
            except Disagreement:
                pass
            else:
                raise wrong from None
        raise
    if expected is not None and expected != header["genesis"]:
        raise wrong
    return hash_hex


def _check_link(version: int, line: dict[str, Any], prev: str) -> str:
    if set(line) != EVENT_KEYS:
        raise Disagreement(version, f"the event's fields are not {sorted(EVENT_KEYS)}")
    if line["version"] != version:
        raise Disagreement(version, f"line {version} holds version {line['version']!r}")
    meta, command, hash_hex = line["meta"], line["command"], line["hash"]
    if (
        not isinstance(line["type"], str)
        or type(line["schema"]) is not int
        or not isinstance(line["data"], dict)
        or not isinstance(meta, dict)
        or not (command is None or isinstance(command, dict))
        or not isinstance(hash_hex, str)
        or _HASH.fullmatch(hash_hex) is None
    ):
        raise Disagreement(version, "an event field has the wrong type")
    if set(meta) - set(chain.HASHED_META):
        raise Disagreement(version, "unknown metadata in the event")
    expected = chain.link(prev, version, line["type"], line["schema"], line["data"], meta, command)
    if expected != hash_hex:
        raise Disagreement(version, "the hash is not the event's link to the one before")
    return hash_hex


@dataclass
class _Expected:
    """Events the current command still has to account for."""

    command_version: int
    events: list[object]
    trails: list[tuple[str, ...]]


class _Replayer:
    """Re-derives each event from the recorded commands, folding as it goes."""

    def __init__(self, header: dict[str, Any], rules: GameRules[Any, Any, Any]) -> None:
        self.header = header
        self.rules = rules
        self.state: Any = None
        self.version = 0
        self.start_version = 0
        self.seen: dict[int, Any] = {}
        self.pending: _Expected | None = None
        self.service_command: dict[str, Any] | None = None
        self.reverts: list[tuple[int, int]] = []
        self.names: list[str] = []  # the seats' names: the creation's, then the claims'
        self.open_seats: set[int] = set()

    def feed(self, version: int, line: dict[str, Any]) -> None:
        command = line["command"]
        self._skip_unrecorded(None if command is not None else line["type"])
        if command is not None:
            if self.pending is not None and self.pending.events:
                raise Disagreement(
                    version,
                    f"the command at version {self.pending.command_version} produces more "
                    "events than recorded",
                )
            self._start_command(version, line, command)
        elif self.pending is None and self.service_command is None:
            raise Disagreement(version, "an event that no recorded command produced")
        event = self._decode(version, line)
        if self.service_command is not None and self.service_command.get("type") == CLAIM_SEAT:
            self._claim(version, event, line)
        elif self.service_command is not None and self.service_command.get("type") == LEAVE_SEAT:
            self._leave(version, event, line)
        elif self.service_command is not None:
            self._service_event(version, event, line)
        else:
            assert self.pending is not None
            if not self.pending.events:
                raise Disagreement(
                    version,
                    f"the command at version {self.pending.command_version} produces fewer "
                    "events than recorded",
                )
            wanted = self.pending.events.pop(0)
            trail = self.pending.trails.pop(0)
            if not self._agrees(wanted, event, line):
                raise Disagreement(version, "the rules derive another event here")
            recorded = line["meta"].get(chain.TRAIL_KEY)
            if recorded is not None and recorded != list(trail):  # absent: not recorded then
                raise Disagreement(version, f"the rule trail is {list(trail)}, not {recorded}")
            try:
                self.state = self.rules.evolve(self.state, event)
            except (RulesError, FormatError) as exc:
                raise Disagreement(version, f"the event does not apply: {exc}") from None
        self.version = version
        self.seen[version] = self.state
        if self.start_version == 0 and self.pending is not None and not self.pending.events:
            self.start_version = version

    def _skip_unrecorded(self, recorded: str | None) -> None:
        """Drop the command's next derived events that only record what the rules derived
        (``GameRules.records``) when the record has not them here (``recorded``: the type of
        the line read, None at a new command or the end): a game recorded before such an
        event existed. They change no state, so nothing else differs."""
        pending = self.pending
        while pending is not None and pending.events:
            name = self.rules.events.encode(pending.events[0])[0]
            if name not in self.rules.records or recorded == f"{self.rules.kind}.{name}":
                return
            pending.events.pop(0)
            pending.trails.pop(0)

    def _agrees(self, wanted: object, event: object, line: dict[str, Any]) -> bool:
        """The derived event is the recorded one. An event recorded at an older schema
        version agrees on the fields it recorded (upcast): what later versions added, the
        record could not say."""
        _, version, derived = self.rules.events.encode(wanted)
        _, _, recorded = self.rules.events.encode(event)
        if line["schema"] >= version:
            return derived == recorded
        return all(derived.get(key) == recorded.get(key) for key in line["data"])

    def finish(self, version: int) -> None:
        self._skip_unrecorded(None)
        if self.pending is not None and self.pending.events:
            raise Disagreement(
                version,
                f"the record ends before the events of the command at version "
                f"{self.pending.command_version}",
            )
        if self.version == 0:
            raise Disagreement(1, "the record holds no event")

    def _start_command(self, version: int, line: dict[str, Any], command: dict[str, Any]) -> None:
        name = command.get("type")
        meta = line["meta"]
        self.pending, self.service_command = None, None
        if version == 1:
            if name != CREATE_GAME:
                raise Disagreement(1, "a game begins with its CreateGame command")
            events = self._start_events(command)
            self.pending = _Expected(1, events, self.rules.explain(None, events))
            return
        if name == CREATE_GAME:
            raise Disagreement(version, "CreateGame after the start")
        if name in (CLAIM_SEAT, LEAVE_SEAT) or name in INVITATION_COMMANDS:
            self.service_command = command
            return
        if self.open_seats:
            raise Disagreement(
                version, f"{name!r} before the game starts (seats {sorted(self.open_seats)} open)"
            )
        if name in UNDO_COMMANDS or name == REMATCH:
            self.service_command = command
            return
        try:
            decoded = self.rules.commands.from_json(command)
        except FormatError as exc:
            raise Disagreement(version, f"not a command of this game: {exc}") from None
        actor, seat = meta.get("actor"), command.get("seat")
        if isinstance(actor, str) and actor.startswith("seat:") and actor != f"seat:{seat}":
            raise Disagreement(version, f"{actor} sent a command of seat {seat}")
        try:
            events = self.rules.decide(self.state, decoded)
        except RulesError as exc:
            raise Disagreement(version, f"the rules refuse the command ({exc})") from None
        self.pending = _Expected(version, list(events), self.rules.explain(self.state, events))

    def _start_events(self, command: dict[str, Any]) -> list[object]:
        header = self.header
        if (
            not {"type", "seats", "options", "seed"}
            <= set(command)
            <= {
                "type",
                "seats",
                "options",
                "seed",
                "open_seats",
            }
        ):
            raise Disagreement(1, "CreateGame needs exactly seats, options, seed (and open seats)")
        seats, open_seats = command["seats"], command.get("open_seats", [])
        if command["options"] != header["options"]:
            raise Disagreement(1, "CreateGame's options are not the header's")
        if not isinstance(seats, list) or not all(isinstance(name, str) for name in seats):
            raise Disagreement(1, "CreateGame's seats are not names")
        if (
            not isinstance(open_seats, list)
            or ("open_seats" in command and not open_seats)
            or any(type(seat) is not int or not 0 <= seat < len(seats) for seat in open_seats)
            or open_seats != sorted(set(open_seats))
        ):
            raise Disagreement(1, "CreateGame's open seats are not seats, in order, once each")
        self.names = list(seats)
        self.open_seats = set(open_seats)
        try:
            options = self.rules.normalize_options(command["options"])
            if options != command["options"]:
                raise Disagreement(1, "the options are not in their normal form")
            return list(self.rules.start(command["seats"], options, command["seed"]))
        except FormatError as exc:
            raise Disagreement(1, f"the game cannot start so: {exc}") from None

    def _decode(self, version: int, line: dict[str, Any]) -> object:
        prefix, _, name = line["type"].partition(".")
        registry: TypeRegistry[Any]
        if prefix == SERVICE_KIND:
            registry = SERVICE_EVENTS
            if self.service_command is None:
                raise Disagreement(version, "an undo event that no undo command produced")
        elif prefix == self.rules.kind:
            registry = self.rules.events
            if self.service_command is not None:
                raise Disagreement(version, "a game event produced by an undo command")
        else:
            raise Disagreement(version, f"event type {line['type']!r} in a {self.rules.kind} game")
        try:
            return registry.decode(name, line["schema"], line["data"])
        except (FormatError, KeyError, ValueError) as exc:
            raise Disagreement(version, f"not a valid event: {exc}") from None

    def _service_event(self, version: int, event: object, line: dict[str, Any]) -> None:
        command = self.service_command
        assert command is not None
        for key, value in command.items():  # what the command names, the event must say
            if key in line["data"] and line["data"][key] != value:
                raise Disagreement(version, f"the event's {key} is not its command's")
        if isinstance(event, GameReverted):
            target = event.to_version
            if not self.start_version <= target < version or target not in self.seen:
                raise Disagreement(version, f"a revert to version {target}")
            self.reverts.append((version, target))
        try:
            self.state, _ = replay(
                self.rules,
                [_Numbered(version, event)],
                base_state=self.state,
                base_version=version - 1,
                state_at=self.seen.__getitem__,
            )
        except FormatError as exc:
            raise Disagreement(version, f"the event does not apply: {exc}") from None

    def _claim(self, version: int, event: object, line: dict[str, Any]) -> None:
        """A lobby claim: its seat was open, it names a player, the event is its
        ``SeatClaimed`` and the only one; the claim of the last open seat starts the game."""
        command = self.service_command
        assert command is not None
        if set(command) != {"type", "seat", "name"}:
            raise Disagreement(version, "ClaimSeat needs exactly seat and name")
        seat, name = command["seat"], command["name"]
        if type(seat) is not int or seat not in self.open_seats:
            raise Disagreement(version, f"a claim of seat {seat!r}, which is not open")
        if not isinstance(name, str) or not name.strip():
            raise Disagreement(version, "a claim without a name")
        actor = line["meta"].get("actor")
        if isinstance(actor, str) and actor.startswith("seat:") and actor != f"seat:{seat}":
            raise Disagreement(version, f"{actor} claimed seat {seat}")
        if event != SeatClaimed(seat, name):
            raise Disagreement(version, f"the claim's event is not SeatClaimed({seat}, {name!r})")
        try:
            self.state = self.rules.rename_seat(self.state, seat, name)
        except (RulesError, FormatError) as exc:
            raise Disagreement(version, f"the claim does not apply: {exc}") from None
        self.names[seat] = name
        self.open_seats.discard(seat)
        if not self.open_seats:
            self.start_version = version  # the game starts here: no revert reaches before
        self.service_command = None  # a claim is one event

    def _leave(self, version: int, event: object, line: dict[str, Any]) -> None:
        """A lobby leave: the game has not started, its seat was taken (not open), the event
        is its ``SeatLeft`` and the only one; the seat is open again."""
        command = self.service_command
        assert command is not None
        if set(command) != {"type", "seat"}:
            raise Disagreement(version, "LeaveSeat needs exactly seat")
        seat = command["seat"]
        if not self.open_seats:
            raise Disagreement(version, "a seat left after the game started")
        if type(seat) is not int or not 0 <= seat < len(self.names) or seat in self.open_seats:
            raise Disagreement(version, f"seat {seat!r} left, which is not taken")
        actor = line["meta"].get("actor")
        if isinstance(actor, str) and actor.startswith("seat:") and actor != f"seat:{seat}":
            raise Disagreement(version, f"{actor} left seat {seat}")
        if not isinstance(event, SeatLeft) or event.seat != seat or not event.name.strip():
            raise Disagreement(version, f"the leave's event is not SeatLeft({seat}, name)")
        try:
            self.state = self.rules.rename_seat(self.state, seat, event.name)
        except (RulesError, FormatError) as exc:
            raise Disagreement(version, f"the leave does not apply: {exc}") from None
        self.names[seat] = event.name
        self.open_seats.add(seat)
        self.service_command = None  # a leave is one event


@dataclass(frozen=True)
class _Numbered:
    version: int
    event: object
