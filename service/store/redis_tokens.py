"""Redis adapter of the token store port.

Keys (``P`` is the key prefix), each under the game's hash tag so that a Redis Cluster keeps
them on the game's slot:

- ``P:{g}:tokens``           hash: SHA-256 of a seat token -> seat; written by the event
                              store's script in the append that creates the game and in
                              the append of an open seat's claim (``RedisKeys.tokens``),
                              and again as -1 (``REVOKED``) by the append of a seat's
                              leave; only read here
- ``P:{g}:ticket:<sha256>``   string: the holder of a stream ticket (``admin`` or a seat
                              number), expiring with the ticket
"""

from __future__ import annotations

from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store.port import TokenStore, check_game_id
from service.store.redis_streams import RedisKeys, _guard


class RedisTokenStore(TokenStore):
    def __init__(self, client: redis.Redis | RedisCluster, *, prefix: str = "tigris") -> None:
        # Replies are typed as unions over both decode modes; see ``_text``.
        self.client: Any = client
        self.keys = RedisKeys(prefix)

    def ticket_key(self, game_id: str, ticket_hash: str) -> str:
        return f"{self.keys.prefix}:{{{game_id}}}:ticket:{ticket_hash}"

    def seat_of(self, game_id: str, token_hash: str) -> int | None:
        check_game_id(game_id)
        with _guard():
            seat = self.client.hget(self.keys.tokens(game_id), token_hash)
        return None if seat is None else int(_text(seat))

    def hashes_of(self, game_id: str, seat: int) -> list[str]:
        check_game_id(game_id)
        with _guard():
            held = self.client.hgetall(self.keys.tokens(game_id))
        return sorted(_text(h) for h, s in held.items() if int(_text(s)) == seat)

    def put_ticket(self, game_id: str, ticket_hash: str, holder: str, ttl_s: int) -> None:
        check_game_id(game_id)
        with _guard():
            self.client.set(self.ticket_key(game_id, ticket_hash), holder, ex=ttl_s)

    def ticket_holder(self, game_id: str, ticket_hash: str) -> str | None:
        check_game_id(game_id)
        with _guard():
            holder = self.client.get(self.ticket_key(game_id, ticket_hash))
        return None if holder is None else _text(holder)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
