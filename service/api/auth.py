"""Who is calling: a seat (by its secret token), a player (by its key: acting in the seats
bound to it), the admin, or a spectator.

A player key (``service.application.players``) stands for the seats of the game bound to
its player, and for no other. Holding one seat of a game, the key acts as that seat.
Holding several, the request names one: ``seat`` in a command's body, ``?seat=`` on any
other request of the game; a read that names none sees what a spectator sees (never the
union of the seats' views: each seat's view is its own), and a write that names none is a
400. A player with no seat in a game is a spectator there.

Seat tokens are long random secrets handed out once at game creation; a token is valid for
one game and one seat, and whom it stands for is the application's to say
(``service.application.tokens.Credentials``). The admin token is this layer's setting.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Protocol

from flask import request

from domain.games import seat_range
from service.api.problems import bad_request, forbidden, unauthorized
from service.application.players import is_player_key
from service.application.tokens import Credentials
from service.store.port import PlayerRecord


@dataclass(frozen=True, slots=True)
class Caller:
    seat: int | None = None
    admin: bool = False
    player: str | None = None  # the player id of a player key
    seats: tuple[int, ...] = ()  # a player's seats in this game

    @property
    def actor(self) -> str:
        if self.admin:
            return "admin"
        return "spectator" if self.seat is None else f"seat:{self.seat}"

    @property
    def held(self) -> tuple[int, ...]:
        """Every seat the caller holds in this game, ascending: a player key's (all those
        bound to it, whichever it acts as), a seat token's one; none for the admin or a
        spectator."""
        if self.player is not None:
            return tuple(sorted(self.seats))
        return () if self.seat is None else (self.seat,)

    @property
    def is_spectator(self) -> bool:
        return self.seat is None and not self.admin

    def require_seat(self, doing: str) -> int:
        """The caller's seat; 401 for a spectator, 403 for the admin (who plays no seat)."""
        if self.admin:
            raise forbidden(f"the admin token plays no seat and cannot {doing}")
        if self.seat is None:
            if len(self.seats) > 1:
                raise bad_request(
                    f"this player holds seats {', '.join(map(str, self.seats))} of this game: "
                    f"name the one to {doing} with (?seat= or the command's 'seat')",
                    "seat",
                )
            raise unauthorized(f"a seat token or a player key with a seat is required to {doing}")
        return self.seat

    def acting_as(self, seat: int | None) -> Caller:
        """A player's caller acting as ``seat`` (one of its seats: else 403); None keeps it."""
        if seat is None or seat == self.seat:
            return self
        if self.player is None or seat not in self.seats:
            whose = "this player" if self.player is not None else "this token"
            raise forbidden(f"{whose} does not play seat {seat} of this game")
        return Caller(seat=seat, player=self.player, seats=self.seats)


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``; None without the header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise unauthorized("the Authorization header must be 'Bearer <token>'")
    return token


def is_admin(token: str, admin_token: str | None) -> bool:
    return admin_token is not None and hmac.compare_digest(
        token.encode("utf-8"), admin_token.encode("utf-8")
    )


def identify(
    credentials: Credentials,
    admin_token: str | None,
    game_id: str | None,
    players: PlayerSeats | None = None,
) -> Caller:
    """The caller of this request. Without a token: a spectator. An unknown token: 401.
    A request of a game may name a seat (``?seat=``, a player key's choice): a value that
    is no seat number is a 400 whoever asks; other callers than player keys ignore it."""
    if game_id is not None:
        _seat_param()
    token = bearer_token()
    if token is None:
        return Caller()
    if is_admin(token, admin_token):
        return Caller(admin=True)
    if players is not None and is_player_key(token):
        return _player_caller(players, token, game_id)
    seat = None if game_id is None else credentials.seat_of(game_id, token)
    if seat is None:
        raise unauthorized("unknown token for this game")
    return Caller(seat=seat)


class PlayerSeats(Protocol):
    """Whom a player key stands for, and its seats in a game."""

    def player_of(self, key: str) -> PlayerRecord | None: ...

    def seats_in(self, game_id: str, player_id: str) -> tuple[int, ...]: ...


def _player_caller(players: PlayerSeats, key: str, game_id: str | None) -> Caller:
    record = players.player_of(key)
    if record is None:
        raise unauthorized("unknown player key")
    if game_id is None:
        return Caller(player=record.player_id)
    seats = players.seats_in(game_id, record.player_id)
    chosen = _seat_param()
    if chosen is not None and chosen not in seats:
        raise forbidden(f"this player does not play seat {chosen} of this game")
    if chosen is None and len(seats) == 1:
        chosen = seats[0]
    return Caller(seat=chosen, player=record.player_id, seats=seats)


def _seat_param() -> int | None:
    raw = request.args.get("seat")
    if raw is None:
        return None
    seats = seat_range()[1]
    if raw not in {str(seat) for seat in range(seats)}:
        raise bad_request(f"query parameter 'seat' must be a seat number (0-{seats - 1})", "seat")
    return int(raw)
