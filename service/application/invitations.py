"""Invitations: an open seat reserved for one invited player.

A holder of a seat of a game that waits for players (or the admin) invites a player to one
of its open seats (``Invitations.invite``): one append of a ``service.SeatReserved`` (seat,
player; recorded with the command ``Invite``) whose info field ``reserved`` keeps the
reservation: the player, the SHA-256 of the invitation's code and who made it. The code
(``inv.<game_id>.<seat>.<secret>``, 256 bits) is shown once, to the inviter, to pass on as a
link. From then on only that player claims the seat: with its key at the claim endpoint, or
by redeeming the code with its key (``redeem``); any other claim is a 409 ``seat-reserved``,
a redemption with another player's key a 403 ``not-invited``. The claim uses the invitation
up. The inviter (or the admin) revokes it (``revoke``: a ``service.ReservationRevoked``),
opening the seat to anyone again.

**The player's feed.** ``service.SeatReserved`` names the invited player in the game's
stream, the source of truth the per-player live feed derives its entries from: that feed
(issue 25's player-feed work, not on main when this was written) turns it into the entry
"invitation received" for ``player`` (game id and seat; never the code, which only the
inviter holds). Nothing else needs to be told: ``INVITATION_RECEIVED`` names the event.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from domain.common.errors import FormatError
from service.application.chain import INVITE, REVOKE_INVITATION
from service.application.lobby import ClaimedSeat, SeatClaims
from service.application.mapper import (
    CommandMeta,
    EventMapper,
    GameInfo,
    Reservation,
    StoredEvent,
    reserved_field,
)
from service.application.players import Players
from service.application.repository import GameRepository, LoadedGame
from service.application.tokens import TOKEN_BYTES, hash_token
from service.application.writes import Observers, Write
from service.errors import (
    ConcurrencyError,
    GameAlreadyStarted,
    InvitationNotFound,
    NotInvited,
    NotInviter,
    SeatNotFound,
    SeatNotOpen,
    SeatReservedForAnother,
)
from service.events import ReservationRevoked, SeatReserved, ServiceEvent
from service.store.port import EventStore

# The event a player's feed reads as "invitation received" (see the module docstring).
INVITATION_RECEIVED = "service.SeatReserved"
ADMIN = "admin"
MAX_ATTEMPTS = 8
_CODE = re.compile(r"inv\.([A-Za-z0-9_-]{1,64})\.(\d)\.([A-Za-z0-9_-]{43})\Z")


@dataclass(frozen=True)
class Invitation:
    """A new invitation: the game after it, the seat, the invited player and the code (shown
    once)."""

    game: LoadedGame
    seat: int
    player: str
    code: str
    events: list[StoredEvent]


def parse_code(code: str) -> tuple[str, int]:
    """The game and seat an invitation code names; InvitationNotFound if it names none."""
    match = _CODE.match(code)
    if match is None:
        raise InvitationNotFound()
    return match.group(1), int(match.group(2))


class Invitations:
    def __init__(  # noqa: PLR0917 (the parts an invitation writes with)
        self,
        store: EventStore,
        repository: GameRepository,
        mapper: EventMapper,
        lobby: SeatClaims,
        players: Players,
        clock: Callable[[], datetime],
        writes: Observers | None = None,
    ) -> None:
        self._store = store
        self._repository = repository
        self._mapper = mapper
        self._lobby = lobby
        self._players = players
        self._clock = clock
        self._writes = Observers() if writes is None else writes

    def invite(
        self, game_id: str, seat: int, player: str, meta: CommandMeta, by: str
    ) -> Invitation:
        """Reserve open ``seat`` for ``player``, made by ``by`` (``admin``, ``player:<id>``
        or ``seat:<n>``: who may revoke it, besides the admin). SeatNotFound,
        GameAlreadyStarted, SeatNotOpen (taken), SeatReservedForAnother (an invitation is
        there: revoke it first), FormatError (no such player)."""
        if self._players.get(player) is None:
            raise FormatError(f"no player {player!r}", "player")
        for _ in range(MAX_ATTEMPTS):
            game = self._repository.get(game_id)
            info = game.info
            self._check_open_seat(game, seat)
            if seat in info.reserved:
                raise SeatReservedForAnother(game_id, seat)
            code = f"inv.{game_id}.{seat}.{secrets.token_urlsafe(TOKEN_BYTES)}"
            reserved = {**info.reserved, seat: Reservation(player, hash_token(code), by)}
            command = {"type": INVITE, "seat": seat, "player": player}
            try:
                after, stored = self._append(
                    game, SeatReserved(seat, player), command, reserved, meta
                )
            except ConcurrencyError:
                continue  # another write moved the game on: look again
            return Invitation(after, seat, player, code, stored)
        raise ConcurrencyError(-1, self._store.version(game_id), game_id)

    def revoke(self, game_id: str, seat: int, meta: CommandMeta, by: str) -> LoadedGame:
        """Revoke the invitation to ``seat`` (``by`` its inviter or the admin): NotInviter,
        InvitationNotFound (none there)."""
        for _ in range(MAX_ATTEMPTS):
            game = self._repository.get(game_id)
            reservation = game.info.reserved.get(seat)
            if reservation is None:
                raise InvitationNotFound()
            if by not in (reservation.by, ADMIN):
                raise NotInviter()
            reserved = {s: r for s, r in game.info.reserved.items() if s != seat}
            command = {"type": REVOKE_INVITATION, "seat": seat}
            try:
                after, _ = self._append(game, ReservationRevoked(seat), command, reserved, meta)
            except ConcurrencyError:
                continue
            return after
        raise ConcurrencyError(-1, self._store.version(game_id), game_id)

    def redeem(self, code: str, player: str, name: str, meta: CommandMeta) -> ClaimedSeat:
        """Claim the seat invitation ``code`` reserves, as ``player`` (its key's): the seat
        is bound to it. InvitationNotFound (a wrong, revoked or redeemed code), NotInvited
        (another player's invitation)."""
        game_id, seat = parse_code(code)
        game = self._repository.get(game_id)
        reservation = game.info.reserved.get(seat)
        if reservation is None or not hmac.compare_digest(reservation.code_hash, hash_token(code)):
            raise InvitationNotFound()
        if reservation.player != player:
            raise NotInvited()
        return self._lobby.claim(game_id, seat, name, meta, player=player)

    def _check_open_seat(self, game: LoadedGame, seat: int) -> None:
        info = game.info
        if not 0 <= seat < len(info.seat_names):
            raise SeatNotFound(game.game_id, seat)
        if info.status != "open":
            raise GameAlreadyStarted(game.game_id, seat)
        if seat not in info.open_seats:
            raise SeatNotOpen(game.game_id, seat)

    def _append(
        self,
        game: LoadedGame,
        event: ServiceEvent,
        command: dict[str, object],
        reserved: dict[int, Reservation],
        meta: CommandMeta,
    ) -> tuple[LoadedGame, list[StoredEvent]]:
        recorded_at = meta.recorded_at or self._clock().astimezone(UTC).isoformat()
        envelopes = self._mapper.envelopes(game.kind, [event], meta, recorded_at)
        prev = self._repository.head_of(game)
        sealed = self._mapper.sealed(envelopes, None, game.version + 1, prev, command)
        result = self._store.append(
            game.game_id,
            sealed.events,
            game.version,
            info={"reserved": reserved_field(reserved), "updated_at": recorded_at},
        )
        info = GameInfo(
            **{
                **game.info.__dict__,
                "version": result.last,
                "updated_at": recorded_at,
                "reserved": reserved,
            }
        )
        after = LoadedGame(
            game.game_id,
            game.kind,
            game.rules,
            game.state,
            result.last,
            info,
            game.snapshot_version,
            sealed.head,
        )
        self._repository.remember(after)
        stored = self._mapper.appended(game.game_id, result, sealed, [event])
        self._writes.appended(Write(after, result.first, tuple(stored), result.webhooks))
        return after, stored
