"""Each player's feed: one list of what concerns the player across all of its games.

Entries (``ENTRY_TYPES``), each about seats bound to the player (``players.seats_of``) and
never holding more than those seats may see (no tile, card or hand; a result only once the
game is over, when everything is public):

- ``game_started``   a game with a seat of the player starts (``seats``): at its creation,
                     or with the claim of its last open seat
- ``your_turn``      a seat of the player becomes awaited (``seat``; ``version``: the
                     version to send the next command at, as ``If-Match``)
- ``undo_requested`` another seat asks to take the game back and a seat of the player must
                     answer (``seat``, ``request_id``, ``to_version``, ``requested_by``)
- ``game_over``      the game ends (``seats``, ``result``: the final scoring and places)
- ``invitation_received`` an open seat is reserved for the player (``seat``, ``invited_by``),
                     derived from the game's ``service.SeatReserved``; the player claims it
                     with its key (``PlayerFeeds.invitation_received`` writes one directly)

The games stay the source of truth: entries are derived from a game's events
(``derive``) by a projection (``PlayerFeeds.project``) that runs after each append (the
jobs' ``project_feed``, enqueued by the write observer, and the sweep for any it missed)
and remembers per game the last version it projected. Each entry has a key (game, version,
type, seat) and a feed does not take a key twice, so a projection run again, or two at
once, writes every entry once. A feed numbers its entries 1, 2, ... (the SSE ``id``) and
keeps its newest ``keep`` (``TIGRIS_PLAYER_FEED_LENGTH``), older ones dropped as new ones
come.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.common.protocol import GameRules
from service.application.mapper import GameInfo, StoredEvent
from service.application.queries import GameQueries
from service.application.repository import GameRepository
from service.events import GameReverted, SeatClaimed, SeatReserved, UndoRequested
from service.store.port import FeedEntry, PlayerFeedStore

GAME_STARTED = "game_started"
YOUR_TURN = "your_turn"
UNDO_REQUESTED = "undo_requested"
GAME_OVER = "game_over"
INVITATION_RECEIVED = "invitation_received"
# Who made an invitation, when a player did (``Reservation.by``: ``player:<id>``).
PLAYER_BY = "player:"
ENTRY_TYPES = (GAME_STARTED, YOUR_TURN, UNDO_REQUESTED, GAME_OVER, INVITATION_RECEIVED)

DEFAULT_FEED_LENGTH = 1000
PROJECTION_BATCH = 500  # events projected per read


@dataclass(frozen=True, slots=True)
class Derived:
    """One entry for one player: its key (no feed takes a key twice) and its JSON."""

    player_id: str
    key: str
    entry: dict[str, Any]


def entry_key(game_id: str, version: int, kind: str, seat: int | None = None) -> str:
    return f"{game_id}:{version}:{kind}:{'-' if seat is None else seat}"


def _by_player(players: Mapping[int, str], seats: Sequence[int]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for seat in sorted(seats):
        if seat in players:
            found.setdefault(players[seat], []).append(seat)
    return found


def derive(
    info: GameInfo,
    rules: GameRules[Any, Any, Any],
    events: Sequence[StoredEvent],
    states: Mapping[int, Any],
    *,
    following: StoredEvent | None = None,
) -> list[Derived]:
    """The entries of the versions of ``events`` (consecutive, oldest first) of the game of
    ``info`` (read at or after the last of them; ``rules``: its kind's). ``states``: the
    state after each of those versions and after the one before the first (absent: before
    the game's start position; that one ends an append); ``following``: the event after the
    last of ``events``, if there is one.

    Whose turn it is is read where an append ends (the events of one command share its
    ``command_id``): a seat awaited there and not where the append before ended gets a
    ``your_turn``; the states within one command's events (a conflict resolved, cards
    drawn, a turn begun) await nobody and tell nothing."""
    players = info.players
    if not events:
        return []
    by_version = {event.version: event for event in events}
    last = events[-1].version
    current = info.version

    def after(version: int) -> StoredEvent | None:
        return by_version.get(version + 1, following if version == last else None)

    def waiting(version: int) -> bool:  # a seat is still to be claimed after ``version``
        if version < current:
            nxt = after(version)
            return nxt is not None and isinstance(nxt.event, SeatClaimed)
        return bool(info.open_seats)

    def ends_append(event: StoredEvent) -> bool:
        nxt = after(event.version)
        if nxt is None:
            return True
        command = event.metadata.get("command_id")
        return command is None or command != nxt.metadata.get("command_id")

    found: list[Derived] = []

    def add(kind: str, version: int, at: str, seat: int | None, **fields: Any) -> None:
        owners = _by_player(players, [seat] if seat is not None else list(players))
        for player_id, seats in owners.items():
            entry: dict[str, Any] = {
                "type": kind,
                "game_id": info.game_id,
                "kind": info.kind,
                "version": version,
                "at": at,
            }
            entry |= {"seat": seat} if seat is not None else {"seats": seats}
            entry |= fields
            found.append(Derived(player_id, entry_key(info.game_id, version, kind, seat), entry))

    first_before = states.get(events[0].version - 1)
    awaited_before = frozenset() if first_before is None else rules.awaited(first_before)
    for event in events:
        version = event.version
        state = states.get(version)
        if state is None:  # before the start position
            continue
        ends = ends_append(event)
        reserved = event.event
        if isinstance(reserved, SeatReserved):  # an open seat kept for one invited player
            held = info.reserved.get(reserved.seat)
            actor = held.by if held is not None else str(event.metadata.get("actor", ""))
            invited_by = actor.removeprefix(PLAYER_BY) if actor.startswith(PLAYER_BY) else None
            entry = {
                "type": INVITATION_RECEIVED,
                "game_id": info.game_id,
                "kind": info.kind,
                "version": version,
                "at": str(event.metadata.get("recorded_at", "")),
                "seat": reserved.seat,
                "invited_by": invited_by,
            }
            key = entry_key(info.game_id, version, INVITATION_RECEIVED, reserved.seat)
            found.append(Derived(reserved.player, key, entry))
        if version < info.start_version or waiting(version):
            if ends:
                awaited_before = rules.awaited(state)
            continue
        at = str(event.metadata.get("recorded_at", ""))
        before = states.get(version - 1)
        started = version == info.start_version or isinstance(event.event, SeatClaimed)
        if started:
            add(GAME_STARTED, version, at, None)
        if ends:
            awaited = rules.awaited(state)
            for seat in sorted(awaited - (frozenset() if started else awaited_before)):
                add(YOUR_TURN, version, at, seat)
            awaited_before = awaited
        request = event.event
        if isinstance(request, UndoRequested):
            nxt = after(version)
            applied_at_once = (
                nxt is not None
                and isinstance(nxt.event, GameReverted)
                and not nxt.event.approved_by
            )
            if not applied_at_once:
                for seat in sorted(players):
                    if f"seat:{seat}" != request.requested_by:
                        add(
                            UNDO_REQUESTED,
                            version,
                            at,
                            seat,
                            request_id=request.request_id,
                            to_version=request.to_version,
                            requested_by=request.requested_by,
                        )
        over_before = before is not None and not started and rules.is_over(before)
        if rules.is_over(state) and not over_before:
            add(GAME_OVER, version, at, None, result=rules.result(state))
    return found


class PlayerFeeds:
    """The players' feeds on a ``PlayerFeedStore``: the projection from the games, the
    entries others add (invitations) and the reads. ``listeners`` are told the players
    whose feeds got new entries (the jobs enqueue the players' webhook deliveries)."""

    def __init__(
        self,
        store: PlayerFeedStore,
        repository: GameRepository,
        queries: GameQueries,
        *,
        keep: int = DEFAULT_FEED_LENGTH,
    ) -> None:
        self.store = store
        self.keep = keep
        self._repository = repository
        self._queries = queries
        self.listeners: list[Callable[[str], object]] = []

    def project(self, game_id: str) -> dict[str, list[int]]:
        """Write the entries of ``game_id``'s versions after its projection cursor to the
        feeds of its players, then move the cursor; returns the entry numbers written, by
        player. Safe to run again or twice at once (an entry is written once). Costs one
        read of the game's info, of its new events and one time-travel load (the state
        before them), then a fold through them."""
        info = self._queries.game_info(game_id)
        done = self.store.projected(game_id)
        written: dict[str, list[int]] = {}
        if not info.players and not info.reserved:
            self.store.project_to(game_id, info.version)
            return written
        rules = self._repository.rules(info.kind)
        state: Any = None
        while done < info.version:
            limit = min(PROJECTION_BATCH, info.version - done) + 1  # and the one after
            read = self._queries.events(game_id, done, limit)
            events = [e for e in read if e.version <= info.version][:PROJECTION_BATCH]
            if not events:
                break
            last = events[-1].version
            following = read[len(events)] if len(read) > len(events) else None
            if state is None and done >= 1:
                state = self._repository.get_at(game_id, done).state
            states: dict[int, Any] = {done: state} if state is not None else {}
            for event in events:
                state = self._repository.fold_onto(game_id, rules, state, [event])
                states[event.version] = state
            derived = derive(info, rules, events, states, following=following)
            for player_id, seqs in self._write(derived):
                written.setdefault(player_id, []).extend(seqs)
            self.store.project_to(game_id, last)
            done = last
        return written

    def _write(self, derived: Sequence[Derived]) -> list[tuple[str, list[int]]]:
        by_player: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for item in derived:
            by_player.setdefault(item.player_id, []).append((item.key, item.entry))
        out = []
        for player_id, entries in by_player.items():
            seqs = self.store.append(player_id, entries, self.keep)
            if seqs:
                out.append((player_id, seqs))
                self._tell(player_id)
        return out

    def _tell(self, player_id: str) -> None:
        for listener in self.listeners:
            listener(player_id)

    def invitation_received(
        self,
        player_id: str,
        *,
        game_id: str,
        kind: str,
        version: int,
        seat: int,
        invited_by: str | None,
        at: str,
        invitation: Mapping[str, Any] | None = None,
    ) -> int | None:
        """An ``invitation_received`` entry in ``player_id``'s feed: a seat (``seat``) of
        ``game_id`` (a ``kind`` game at ``version``) is reserved for the player, by
        ``invited_by`` (a player id, or None: the admin); ``invitation``: what the invitee
        needs to redeem it (a code or link: the feed is the invitee's own). Written once
        per game, version and seat, however often this is called; returns its number
        (None: written before)."""
        entry: dict[str, Any] = {
            "type": INVITATION_RECEIVED,
            "game_id": game_id,
            "kind": kind,
            "version": version,
            "at": at,
            "seat": seat,
            "invited_by": invited_by,
        }
        if invitation is not None:
            entry["invitation"] = dict(invitation)
        key = entry_key(game_id, version, INVITATION_RECEIVED, seat)
        seqs = self.store.append(player_id, [(key, entry)], self.keep)
        if seqs:
            self._tell(player_id)
        return seqs[0] if seqs else None

    def page(self, player_id: str, after: int, limit: int) -> tuple[list[FeedEntry], int, int]:
        """The entries after ``after`` (at most ``limit``), the oldest kept and the last
        number given."""
        oldest, last = self.store.bounds(player_id)
        return self.store.read(player_id, after, limit), oldest, last


def entry_json(entry: FeedEntry) -> dict[str, Any]:
    return {"id": entry.seq, **entry.data}
