"""Who is calling: a seat (by its secret token), the admin, or a spectator.

Seat tokens are long random secrets (``secrets.token_urlsafe``) handed out once at game
creation; Redis keeps only their SHA-256 hashes, in a hash under the game's hash tag
(so a cluster keeps them on the game's slot). A token is valid for one game and one seat.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from flask import request

from service.api.problems import forbidden, unauthorized
from service.seats import hash_token
from service.store.port import EventStore


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


class TokenStore:
    """Seat tokens of every game, read through the event store (which writes their hashes
    in the same atomic step that creates the game): ``hash(token) -> seat``.

    A token never changes its seat once issued, so known hashes are remembered in the
    process (bounded); unknown ones are always asked of the store.
    """

    def __init__(self, store: EventStore, remember: int = 4096) -> None:
        self._store = store
        self._known: dict[tuple[str, str], int] = {}
        self._remember = remember

    def seat_of(self, game_id: str, token: str) -> int | None:
        digest = hash_token(token)
        known = self._known.get((game_id, digest))
        if known is not None:
            return known
        seat = self._store.seat_of_token(game_id, digest)
        if seat is None:
            return None
        if len(self._known) >= self._remember:
            self._known.clear()  # crude but bounded; a miss only costs one HGET
        self._known[(game_id, digest)] = seat
        return seat


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


def identify(tokens: TokenStore, admin_token: str | None, game_id: str | None) -> Caller:
    """The caller of this request. Without a token: a spectator. An unknown token: 401."""
    token = bearer_token()
    if token is None:
        return Caller()
    if is_admin(token, admin_token):
        return Caller(admin=True)
    seat = None if game_id is None else tokens.seat_of(game_id, token)
    if seat is None:
        raise unauthorized("unknown token for this game")
    return Caller(seat=seat)
