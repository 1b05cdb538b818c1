"""Who is calling: a seat (by its secret token), the admin, or a spectator.

Seat tokens are long random secrets handed out once at game creation; a token is valid for
one game and one seat, and whom it stands for is the application's to say
(``service.application.tokens.Credentials``). The admin token is this layer's setting.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from flask import request

from service.api.problems import forbidden, unauthorized
from service.application.tokens import Credentials


@dataclass(frozen=True, slots=True)
class Caller:
    seat: int | None = None
    admin: bool = False

    @property
    def actor(self) -> str:
        if self.admin:
            return "admin"
        return "spectator" if self.seat is None else f"seat:{self.seat}"

    @property
    def is_spectator(self) -> bool:
        return self.seat is None and not self.admin

    def require_seat(self, doing: str) -> int:
        """The caller's seat; 401 for a spectator, 403 for the admin (who plays no seat)."""
        if self.admin:
            raise forbidden(f"the admin token plays no seat and cannot {doing}")
        if self.seat is None:
            raise unauthorized(f"a seat token is required to {doing}")
        return self.seat


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


def identify(credentials: Credentials, admin_token: str | None, game_id: str | None) -> Caller:
    """The caller of this request. Without a token: a spectator. An unknown token: 401."""
    token = bearer_token()
    if token is None:
        return Caller()
    if is_admin(token, admin_token):
        return Caller(admin=True)
    seat = None if game_id is None else credentials.seat_of(game_id, token)
    if seat is None:
        raise unauthorized("unknown token for this game")
    return Caller(seat=seat)
