"""Credentials: seat tokens and stream tickets, how they are made and whom they stand for.

A seat token is a 256-bit secret handed out once, when its game is created; only its
SHA-256 hash is stored (in the same atomic write that creates the game). A creation sent
with an ``Idempotency-Key`` keeps a random salt in its creation record for the idempotency
TTL, and its tokens are derived from that salt (HMAC-SHA256 over the game id and the seat),
so a client whose acknowledgment was lost gets the very same tokens when it retries with the
same key and body (an open seat's claim with an ``Idempotency-Key`` does the same, with a
salt of its own). The salt never leaves the server; without it the tokens cannot be
derived, and after the TTL it is gone, leaving only the hashes.

A stream ticket lets a browser's ``EventSource`` (which cannot send an ``Authorization``
header) follow a seat's view: a random secret standing for a seat (or the admin) in one game
for a short time, stored as a hash with that lifetime.

``Credentials`` answers for a game whom a token or ticket stands for, through the
``TokenStore`` port; it never sees the admin token, which is the HTTP layer's setting.

A bot seat has no token: only its bot plays it (``service.jobs.bots``, as actor
``bot:<seat>``). Games created before that rule kept a token hash for their bot seats (and
handed the token to the creator); such a hash stands for no one: ``seat_of`` checks a seat
the store names against the game's bot seats (its info record's ``bots``, fixed at
creation), so no stored data is rewritten.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass

from service.store.port import REVOKED, TokenStore

TOKEN_BYTES = 32  # 256 bits of entropy: guessing is not an attack
ADMIN = "admin"
_FEED_TICKET = re.compile(r"ft_([0-9a-f]{32})_[A-Za-z0-9_-]{43}")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_tokens(seat_count: int) -> list[str]:
    return [secrets.token_urlsafe(TOKEN_BYTES) for _ in range(seat_count)]


def new_salt() -> str:
    return secrets.token_hex(32)


def derived_tokens(salt: str, game_id: str, seat_count: int) -> list[str]:
    """The tokens of a creation with an idempotency key: the same for the same salt."""
    return [derived_token(salt, game_id, seat) for seat in range(seat_count)]


def derived_token(salt: str, game_id: str, seat: int) -> str:
    """One seat's token derived from ``salt`` (a creation's or an open seat's claim's)."""
    digest = hmac.new(bytes.fromhex(salt), f"{game_id}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@dataclass(frozen=True, slots=True)
class TicketHolder:
    """Whom a stream ticket stands for: a seat, or the admin (``seat`` None)."""

    seat: int | None

    @property
    def is_admin(self) -> bool:
        return self.seat is None


class Credentials:
    """Whom seat tokens and stream tickets stand for.

    A seat token never changes its seat once issued, and a game's bot seats never change,
    so known hashes are remembered in the process (at most ``remember``); unknown ones (and
    a bot seat's, which stand for no one) are always asked of the store. ``bot_seats``: a
    game's bot seats (from its info record). ``final``: whether a game's tokens can no longer
    be revoked (it has started: no seat leaves it); the tokens of a game that is not final
    are asked of the store every time, so a leave's revocation counts in every process.
    """

    def __init__(
        self,
        store: TokenStore,
        *,
        bot_seats: Callable[[str], Collection[int]],
        final: Callable[[str], bool] = lambda game_id: True,
        remember: int = 4096,
    ) -> None:
        self._store = store
        self._bot_seats = bot_seats
        self._final = final
        self._known: dict[tuple[str, str], int] = {}
        self._remember = remember

    def seat_of(self, game_id: str, token: str) -> int | None:
        """The seat ``token`` plays in this game (None: no seat of this game, or a bot's:
        a token stored for a bot seat by an older version stands for no one)."""
        digest = hash_token(token)
        known = self._known.get((game_id, digest))
        if known is not None:
            return known
        seat = self._store.seat_of(game_id, digest)
        if seat is None or seat == REVOKED or seat in self._bot_seats(game_id):
            return None
        if not self._final(game_id):  # a seat of an open game may be left: ask every time
            return seat
        if len(self._known) >= self._remember:
            self._known.clear()  # crude but bounded; a miss only costs one store read
        self._known[(game_id, digest)] = seat
        return seat

    def revoked(self, game_id: str, seat: int) -> dict[str, int]:
        """The token hashes of ``seat`` written as ``REVOKED``: what the append of a seat's
        leave stores (``SeatClaims.leave``), so that none of its tokens acts any more."""
        return dict.fromkeys(self._store.hashes_of(game_id, seat), REVOKED)

    def issue_ticket(self, game_id: str, seat: int | None, ttl_s: int) -> str:
        """A new stream ticket of this game for ``seat`` (None: the admin), valid ``ttl_s``
        seconds and as often as needed in that time (``EventSource`` reconnects)."""
        ticket = secrets.token_urlsafe(TOKEN_BYTES)
        holder = ADMIN if seat is None else str(seat)
        self._store.put_ticket(game_id, hash_token(ticket), holder, ttl_s)
        return ticket

    def issue_feed_ticket(self, player_id: str, ttl_s: int) -> str:
        """A new stream ticket of ``player_id``'s feed (``ft_<player id>_<secret>``), valid
        ``ttl_s`` seconds, as often as needed in that time; only its hash is stored (in the
        ticket space ``feed-<player id>``, which no game id takes: those are generated)."""
        ticket = f"ft_{player_id}_{secrets.token_urlsafe(TOKEN_BYTES)}"
        self._store.put_ticket(f"feed-{player_id}", hash_token(ticket), player_id, ttl_s)
        return ticket

    def feed_ticket_player(self, ticket: str) -> str | None:
        """The player whose live feed ticket ``ticket`` is; None if unknown or expired."""
        match = _FEED_TICKET.fullmatch(ticket)
        if match is None:
            return None
        player_id = match.group(1)
        holder = self._store.ticket_holder(f"feed-{player_id}", hash_token(ticket))
        return player_id if holder == player_id else None

    def ticket_holder(self, game_id: str, ticket: str) -> TicketHolder | None:
        """Whom a live ticket of this game stands for; None if the ticket is unknown,
        expired or another game's."""
        holder = self._store.ticket_holder(game_id, hash_token(ticket))
        if holder is None:
            return None
        return TicketHolder(None if holder == ADMIN else int(holder))
