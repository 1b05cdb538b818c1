"""Seat tokens: how they are made, derived again for an idempotent retry, and hashed.

A seat token is a 256-bit secret handed out once, when its game is created; only its
SHA-256 hash is stored (in the same atomic write that creates the game). A creation sent
with an ``Idempotency-Key`` keeps a random salt in its creation record for the idempotency
TTL, and its tokens are derived from that salt (HMAC-SHA256 over the game id and the seat),
so a client whose acknowledgment was lost gets the very same tokens when it retries with the
same key and body. The salt never leaves the server; without it the tokens cannot be
derived, and after the TTL it is gone, leaving only the hashes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

TOKEN_BYTES = 32  # 256 bits of entropy: guessing is not an attack


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_tokens(seat_count: int) -> list[str]:
    return [secrets.token_urlsafe(TOKEN_BYTES) for _ in range(seat_count)]


def new_salt() -> str:
    return secrets.token_hex(32)


def derived_tokens(salt: str, game_id: str, seat_count: int) -> list[str]:
    """The tokens of a creation with an idempotency key: the same for the same salt."""
    return [
        base64.urlsafe_b64encode(
            hmac.new(bytes.fromhex(salt), f"{game_id}:{seat}".encode(), hashlib.sha256).digest()
        )
        .rstrip(b"=")
        .decode()
        for seat in range(seat_count)
    ]
