"""Redis adapter of the player store port.

Keys (``P`` is the key prefix), each under the player's hash tag so that a Redis Cluster
keeps a player's keys on one slot:

- ``P:{player:<id>}``              hash: ``name``, ``key_hash`` (SHA-256 of the player's
                                    key), ``created_at``
- ``P:{player:<id>}:games``         sorted set (all scores 0, ordered by member
                                    ``<15-digit created_ms>:<game_id>``): the player's games
- ``P:{player:<id>}:games:<list>``  the same, of one list: ``open``, ``active``, ``over``,
                                    ``awaiting`` (a seat of the player is awaited)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store.port import (
    PlayerRecord,
    PlayerStore,
    check_game_id,
    check_player_id,
    index_member,
    parse_member,
)
from service.store.redis_streams import _guard


class RedisPlayerStore(PlayerStore):
    def __init__(self, client: redis.Redis | RedisCluster, *, prefix: str = "tigris") -> None:
        self.client: Any = client
        self.prefix = prefix

    def player_key(self, player_id: str) -> str:
        return f"{self.prefix}:{{player:{check_player_id(player_id)}}}"

    def games_key(self, player_id: str, which: str | None) -> str:
        base = f"{self.player_key(player_id)}:games"
        return base if which is None else f"{base}:{which}"

    def create(self, record: PlayerRecord) -> bool:
        key = self.player_key(record.player_id)
        fields = {
            "name": record.name,
            "key_hash": record.key_hash,
            "created_at": record.created_at,
        }
        with _guard():
            # HSETNX claims the id; the other fields follow (a record without them, should
            # the process die in between, is no player: ``get`` skips it).
            if not self.client.hsetnx(key, "key_hash", record.key_hash):
                return False
            self.client.hset(key, mapping=fields)
        return True

    def get(self, player_id: str) -> PlayerRecord | None:
        key = self.player_key(player_id)
        with _guard():
            found = self.client.hgetall(key)
        if not found:
            return None
        fields = {_text(k): _text(v) for k, v in found.items()}
        if "name" not in fields:  # half-created (the process died between the writes)
            return None
        return PlayerRecord(player_id, fields["name"], fields["key_hash"], fields["created_at"])

    def add_game(
        self, player_id: str, game_id: str, created_ms: int, lists: Sequence[str | None]
    ) -> None:
        check_game_id(game_id)
        member = index_member(created_ms, game_id)
        with _guard():
            pipe = self.client.pipeline(transaction=True)
            for which in lists:
                pipe.zadd(self.games_key(player_id, which), {member: 0})
            pipe.execute()

    def remove_game(
        self, player_id: str, game_id: str, created_ms: int, lists: Sequence[str | None]
    ) -> None:
        check_game_id(game_id)
        member = index_member(created_ms, game_id)
        with _guard():
            pipe = self.client.pipeline(transaction=True)
            for which in lists:
                pipe.zrem(self.games_key(player_id, which), member)
            pipe.execute()

    def list_games(
        self, player_id: str, which: str | None, cursor: str | None, limit: int
    ) -> tuple[list[tuple[int, str]], str | None]:
        start = "+" if cursor is None else f"({cursor}"
        key = self.games_key(player_id, which)
        with _guard():
            members = [
                _text(m) for m in self.client.zrevrangebylex(key, start, "-", start=0, num=limit)
            ]
        next_cursor = members[-1] if len(members) == limit else None
        return [parse_member(m) for m in members], next_cursor


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
