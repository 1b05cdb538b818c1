"""The lobby: claiming the open seats of a game.

A game may be created with open seats (``CommandHandler.create_game``'s ``open_seats``):
its status is "open" and it accepts no command until every seat is claimed. A claim is
one append to the game's stream: a ``service.SeatClaimed`` event (recorded, like every
command's events, with its command ``ClaimSeat`` and its link in the game's hash chain),
with the new seat token's hash and the info fields it changes (seat names, open seats,
status, and, with the last claim, the start version, before which no undo reaches),
checked against the version at which the seat was seen open. Two claims racing for one
seat both name that version; the store's script admits one and refuses the other as
stale, whose retry then finds the seat taken (``SeatNotOpen``). Claims of different seats
that race simply retry at the next version.

With an ``Idempotency-Key`` a claim is safe to retry: the first attempt keeps a salt and
the claim's hash under the key (``EventStore.reserve_creation``, for the idempotency
TTL), the token is derived from that salt, and the append carries the idempotency record;
a retry with the same key and name gets the same seat and the same token back.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain.common.errors import FormatError
from service.application.chain import LEAVE_SEAT
from service.application.commands import command_hash, open_seat_name, status_of
from service.application.mapper import (
    CommandMeta,
    EventMapper,
    GameInfo,
    StoredEvent,
    open_seats_field,
    players_field,
    reserved_field,
)
from service.application.players import Membership, PlayerGames, lists_of
from service.application.record import CLAIM_SEAT
from service.application.repository import GameRepository, LoadedGame
from service.application.tokens import derived_token, hash_token, new_salt, new_tokens
from service.application.writes import Observers, Write
from service.errors import (
    ConcurrencyError,
    GameAlreadyStarted,
    IdempotencyConflict,
    SeatNotFound,
    SeatNotOpen,
    SeatNotTaken,
    SeatReservedForAnother,
    StoreUnavailable,
)
from service.events import SeatClaimed, SeatLeft
from service.store.port import EventStore, Idempotency

# Claims of other seats racing with this one move the game on at most once per seat:
# beyond this many stale attempts something else is wrong.
MAX_ATTEMPTS = 8
_CLAIM_ACTOR = "claim"


@dataclass(frozen=True)
class ClaimedSeat:
    """The game after the claim, the claimed seat's token (shown once) and its event;
    ``replayed``: an earlier attempt with the same idempotency key made this claim."""

    game: LoadedGame
    seat: int
    token: str
    events: list[StoredEvent]
    replayed: bool


class SeatClaims:
    def __init__(
        self,
        store: EventStore,
        repository: GameRepository,
        mapper: EventMapper,
        clock: Callable[[], datetime],
        *,
        idempotency_ttl_s: int,
        writes: Observers | None = None,
        player_games: PlayerGames | None = None,
    ) -> None:
        self._player_games = player_games
        self._store = store
        self._repository = repository
        self._mapper = mapper
        self._clock = clock
        self._idempotency_ttl_s = idempotency_ttl_s
        self._writes = Observers() if writes is None else writes

    def claim(
        self,
        game_id: str,
        seat: int,
        name: str,
        meta: CommandMeta,
        idempotency_key: str | None = None,
        *,
        player: str | None = None,
    ) -> ClaimedSeat:
        """Claim open seat ``seat`` for a player called ``name`` (bound to the player
        ``player``, if given: ``service.application.players``): GameNotFound,
        SeatNotFound (no such seat), SeatNotOpen (named at creation or claimed already),
        IdempotencyConflict (the key was used for another claim)."""
        if not name.strip():
            raise FormatError("a seat's name must not be empty", "name")
        record = self._repository.record(game_id)
        claimed = {"claim": seat, "name": name} | ({} if player is None else {"player": player})
        digest = command_hash(record.fields["kind"], claimed, _CLAIM_ACTOR)
        idempotency = None
        if idempotency_key is None:
            token = new_tokens(1)[0]
        else:
            token = self._reserved_token(game_id, seat, idempotency_key, digest)
            idempotency = Idempotency(idempotency_key, digest, self._idempotency_ttl_s)
            replayed = self._replay(game_id, seat, idempotency_key, digest, token)
            if replayed is not None:
                return replayed
        for _ in range(MAX_ATTEMPTS):
            game = self._repository.get(game_id)
            try:
                return self._append(game, seat, name, token, meta, idempotency, player)
            except (ConcurrencyError, SeatNotOpen):
                # The game moved on: a twin of this request (same key) may be what moved
                # it, and then its outcome is the answer; else look again, or the seat
                # went to someone else.
                if idempotency_key is not None:
                    replayed = self._replay(game_id, seat, idempotency_key, digest, token)
                    if replayed is not None:
                        return replayed
                if not self._open(game_id, seat):
                    raise SeatNotOpen(game_id, seat) from None
        raise ConcurrencyError(-1, self._store.version(game_id), game_id)

    def _open(self, game_id: str, seat: int) -> bool:
        return seat in self._repository.get(game_id).info.open_seats

    def _reserved_token(self, game_id: str, seat: int, key: str, digest: str) -> str:
        """The token of the claim made with ``key``: derived from the salt its first
        attempt kept, so every retry with the key gets the same token."""
        reserved = self._store.reserve_creation(
            f"claim:{game_id}:{key}",
            {"hash": digest, "salt": new_salt()},
            self._idempotency_ttl_s,
        )
        if reserved.get("hash") != digest:
            raise IdempotencyConflict(key)
        return derived_token(reserved["salt"], game_id, seat)

    def _replay(
        self, game_id: str, seat: int, key: str, digest: str, token: str
    ) -> ClaimedSeat | None:
        found = self._store.lookup_idempotency(game_id, key)
        if found is None:
            return None
        recorded_hash, result = found
        if recorded_hash != digest:
            raise IdempotencyConflict(key)
        game = self._repository.get(game_id)
        events = [
            self._mapper.decode(game.kind, r)
            for r in self._store.read_range(game_id, result.first, result.last)
        ]
        return ClaimedSeat(game, seat, token, events, replayed=True)

    def _append(  # noqa: PLR0917 (one attempt of claim)
        self,
        game: LoadedGame,
        seat: int,
        name: str,
        token: str,
        meta: CommandMeta,
        idempotency: Idempotency | None,
        player: str | None = None,
    ) -> ClaimedSeat:
        info = game.info
        if not 0 <= seat < len(info.seat_names):
            raise SeatNotFound(game.game_id, seat)
        if seat not in info.open_seats:
            raise SeatNotOpen(game.game_id, seat)
        reservation = info.reserved.get(seat)
        if reservation is not None and reservation.player != player:
            raise SeatReservedForAnother(game.game_id, seat)  # only the invited player
        rules = game.rules
        event = SeatClaimed(seat=seat, name=name)
        state = rules.rename_seat(game.state, seat, name)
        names = tuple(name if n == seat else old for n, old in enumerate(info.seat_names))
        still_open = tuple(s for s in info.open_seats if s != seat)
        status = "open" if still_open else status_of(rules, state)
        version = game.version + 1
        recorded_at = meta.recorded_at or self._clock().astimezone(UTC).isoformat()
        fields = {
            "seat_names": _names_field(names),
            "open_seats": open_seats_field(still_open),
            "status": status,
            "updated_at": recorded_at,
        }
        players = dict(info.players)
        if player is not None:
            players[seat] = player
            fields["players"] = players_field(players)
        reserved = {s: r for s, r in info.reserved.items() if s != seat}
        if reservation is not None:  # redeemed: the invitation is used up
            fields["reserved"] = reserved_field(reserved)
        membership = Membership(
            game.game_id,
            info.created_ms,
            lists_of(info.players, info.status, rules.awaited(game.state)),
            lists_of(players, status, rules.awaited(state)),
        )
        start_version = info.start_version
        if not still_open:
            start_version = version  # the game starts here: no undo reaches before it
            fields["start_version"] = str(version)
        envelopes = self._mapper.envelopes(game.kind, [event], meta, recorded_at)
        # Recorded and chained like any command's events: the claim is the service's own
        # command (``ClaimSeat``), which the record's verification re-derives the event from.
        prev = self._repository.head_of(game)
        sealed = self._mapper.sealed(envelopes, None, version, prev, claim_command(seat, name))
        created_ms = info.created_ms
        if status != info.status:  # indexed before it is true, unindexed after (as appends)
            self._store.index_game(game.game_id, created_ms, kind=game.kind, status=status)
        if self._player_games is not None and membership.changed:
            self._player_games.entering(membership)
        result = self._store.append(
            game.game_id,
            sealed.events,
            game.version,
            idempotency=idempotency,
            info=fields,
            seat_tokens={hash_token(token): seat},
        )
        if result.replayed and idempotency is not None:  # a twin with the key won the race
            replayed = self._replay(
                game.game_id, seat, idempotency.key, idempotency.command_hash, token
            )
            if replayed is not None:
                return replayed
        if self._player_games is not None and membership.changed:
            with contextlib.suppress(StoreUnavailable):  # stored: listing repairs the rest
                self._player_games.left(membership)
        if status != info.status:
            with contextlib.suppress(StoreUnavailable):  # stored: listing repairs the rest
                self._store.unindex_game(
                    game.game_id, created_ms, [(None, info.status), (game.kind, info.status)]
                )
        after_info = GameInfo(
            **{
                **info.__dict__,
                "seat_names": names,
                "open_seats": still_open,
                "status": status,
                "updated_at": recorded_at,
                "version": result.last,
                "start_version": start_version,
                "players": players,
                "reserved": reserved,
            }
        )
        after = LoadedGame(
            game.game_id,
            game.kind,
            rules,
            state,
            result.last,
            after_info,
            game.snapshot_version,
            sealed.head,
        )
        self._repository.remember(after)
        stored = self._mapper.appended(game.game_id, result, sealed, [event])
        # The last claim starts the game: its bots, clock and webhooks follow.
        self._writes.appended(Write(after, result.first, tuple(stored), result.webhooks))
        return ClaimedSeat(after, seat, token, stored, replayed=False)

    def leave(
        self, game_id: str, seat: int, meta: CommandMeta, revoked: dict[str, int]
    ) -> LeftSeat:
        """The player of ``seat`` leaves ``game_id``, which has not started: one append of a
        ``service.SeatLeft`` (recorded with the command ``LeaveSeat``) that opens the seat
        again under its open name, drops its player's binding and writes its token hashes
        again as ``revoked`` (``Credentials.revoked``: none of them acts any more), checked
        against the version the seat was seen held at. SeatNotFound, GameAlreadyStarted (a
        running game is resigned, not left), SeatNotTaken (the seat is open);
        ConcurrencyError after too many racing writes."""
        for _ in range(MAX_ATTEMPTS):
            game = self._repository.get(game_id)
            try:
                return self._leave(game, seat, meta, revoked)
            except ConcurrencyError:
                continue  # a claim of another seat moved the game on: look again
        raise ConcurrencyError(-1, self._store.version(game_id), game_id)

    def _leave(
        self, game: LoadedGame, seat: int, meta: CommandMeta, revoked: dict[str, int]
    ) -> LeftSeat:
        info = game.info
        if not 0 <= seat < len(info.seat_names):
            raise SeatNotFound(game.game_id, seat)
        if info.status != "open":
            raise GameAlreadyStarted(game.game_id, seat)
        if seat in info.open_seats or seat in info.bots:
            raise SeatNotTaken(game.game_id, seat)
        rules = game.rules
        name = open_seat_name(seat)
        event = SeatLeft(seat=seat, name=name)
        state = rules.rename_seat(game.state, seat, name)
        names = tuple(name if n == seat else old for n, old in enumerate(info.seat_names))
        now_open = tuple(sorted((*info.open_seats, seat)))
        players = {s: p for s, p in info.players.items() if s != seat}
        recorded_at = meta.recorded_at or self._clock().astimezone(UTC).isoformat()
        fields = {
            "seat_names": _names_field(names),
            "open_seats": open_seats_field(now_open),
            "updated_at": recorded_at,
            "players": players_field(players),
        }
        membership = Membership(
            game.game_id,
            info.created_ms,
            lists_of(info.players, info.status, rules.awaited(game.state)),
            lists_of(players, info.status, rules.awaited(state)),
        )
        envelopes = self._mapper.envelopes(game.kind, [event], meta, recorded_at)
        prev = self._repository.head_of(game)
        version = game.version + 1
        sealed = self._mapper.sealed(envelopes, None, version, prev, leave_command(seat))
        result = self._store.append(
            game.game_id,
            sealed.events,
            game.version,
            info=fields,
            seat_tokens=revoked,
        )
        if self._player_games is not None and membership.changed:
            with contextlib.suppress(StoreUnavailable):  # stored: listing repairs the rest
                self._player_games.left(membership)
        after_info = GameInfo(
            **{
                **info.__dict__,
                "seat_names": names,
                "open_seats": now_open,
                "updated_at": recorded_at,
                "version": result.last,
                "players": players,
            }
        )
        after = LoadedGame(
            game.game_id,
            game.kind,
            rules,
            state,
            result.last,
            after_info,
            game.snapshot_version,
            sealed.head,
        )
        self._repository.remember(after)
        stored = self._mapper.appended(game.game_id, result, sealed, [event])
        self._writes.appended(Write(after, result.first, tuple(stored), result.webhooks))
        return LeftSeat(after, seat, stored)


@dataclass(frozen=True)
class LeftSeat:
    """The game after a seat left it, the seat, and the leave's event."""

    game: LoadedGame
    seat: int
    events: list[StoredEvent]


def leave_command(seat: int) -> dict[str, Any]:
    """What a leave's ``service.SeatLeft`` is recorded as coming from."""
    return {"type": LEAVE_SEAT, "seat": seat}


def _names_field(names: tuple[str, ...]) -> str:
    return json.dumps(list(names), ensure_ascii=False)


def claim_command(seat: int, name: str) -> dict[str, Any]:
    """What a claim's ``service.SeatClaimed`` is recorded as coming from."""
    return {"type": CLAIM_SEAT, "seat": seat, "name": name}


def claim_meta(correlation_id: str | None, seat: int) -> CommandMeta:
    """The metadata of a claim's event: the claimer acts as the seat it takes."""
    return CommandMeta.for_actor(f"seat:{seat}", seat, correlation_id=correlation_id)


def leave_meta(correlation_id: str | None, seat: int) -> CommandMeta:
    """The metadata of a leave's event: the seat's holder acts as the seat it leaves."""
    return CommandMeta.for_actor(f"seat:{seat}", seat, correlation_id=correlation_id)
