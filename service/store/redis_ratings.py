"""Redis adapter of the ratings read model (``RatingStore``).

Keys (``P`` is the key prefix), all of a kind under one hash tag, so that a Redis Cluster
keeps them on one slot and one Lua script counts a game for all its players atomically:

- ``P:{ratings:<kind>}:r``            hash: player id -> its rating (JSON: mu, sigma,
                                       ordinal, games)
- ``P:{ratings:<kind>}:ladder``       sorted set: player id scored by its ordinal
- ``P:{ratings:<kind>}:counted``      hash: game id -> its order (the games counted)
- ``P:{ratings:<kind>}:last``         string: the order of the last game counted
- ``P:{ratings:<kind>}:h:<player id>`` list: the player's history entries (JSON), oldest
                                       first
- ``P:{ratings:<kind>}:rebuild``      string: the owner of a rebuild in progress (with a TTL)
- ``P:{ratings:<kind>}:expected``     set: the rated games created and not counted yet (not
                                       part of the read model: a rebuild keeps it)

Floats are written as JSON (Python's shortest repr), so they read back exactly.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store.port import (
    PlayerRating,
    RatedGame,
    RatingHistoryEntry,
    RatingStore,
    check_game_id,
    check_player_id,
)
from service.store.redis_streams import _guard

# KEYS: r, ladder, counted, last, rebuild, then one history list per player, then expected.
# ARGV: game id, order, owner, then per player: id, before (JSON or ""), after (JSON),
# ordinal, history entry (JSON).
_APPLY = """
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 'counted' end
local holder = redis.call('GET', KEYS[5])
if holder and holder ~= ARGV[3] then return 'rebuilding' end
local last = redis.call('GET', KEYS[4])
if last and last >= ARGV[2] then return 'out-of-order' end
local n = (#ARGV - 3) / 5
for i = 0, n - 1 do
  local current = redis.call('HGET', KEYS[1], ARGV[4 + i * 5]) or ''
  if current ~= ARGV[5 + i * 5] then return 'stale' end
end
for i = 0, n - 1 do
  local player = ARGV[4 + i * 5]
  redis.call('HSET', KEYS[1], player, ARGV[6 + i * 5])
  redis.call('ZADD', KEYS[2], ARGV[7 + i * 5], player)
  redis.call('RPUSH', KEYS[6 + i], ARGV[8 + i * 5])
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('SET', KEYS[4], ARGV[2])
redis.call('SREM', KEYS[6 + n], ARGV[1])
return 'applied'
"""

# KEYS: rebuild, r, ladder, counted, last. ARGV: owner, ttl in seconds, history key prefix.
_BEGIN = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then return 0 end
for _, player in ipairs(redis.call('HKEYS', KEYS[2])) do
  redis.call('DEL', ARGV[3] .. player)
end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 1
"""

_END = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""


def rating_json(rating: PlayerRating | None) -> str:
    if rating is None:
        return ""
    return json.dumps(
        {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal, "games": rating.games},
        separators=(",", ":"),
    )


def parse_rating(raw: Any) -> PlayerRating | None:
    if raw is None or raw == "":
        return None
    data = raw if isinstance(raw, dict) else json.loads(raw)
    return PlayerRating(
        float(data["mu"]), float(data["sigma"]), float(data["ordinal"]), int(data["games"])
    )


def entry_json(game: RatedGame, index: int) -> str:
    change = game.changes[index]
    return json.dumps(
        {
            "game_id": game.game_id,
            "version": game.version,
            "ended_at": game.ended_at,
            "seat": change.seat,
            "place": change.place,
            "before": None if change.before is None else json.loads(rating_json(change.before)),
            "after": json.loads(rating_json(change.after)),
        },
        separators=(",", ":"),
    )


def parse_entry(raw: Any) -> RatingHistoryEntry:
    data = json.loads(raw)
    return RatingHistoryEntry(
        data["game_id"],
        int(data["version"]),
        data["ended_at"],
        int(data["seat"]),
        int(data["place"]),
        parse_rating(data["before"]),
        parse_rating(data["after"]) or PlayerRating(0.0, 0.0, 0.0, 0),
    )


class RedisRatingStore(RatingStore):
    def __init__(self, client: redis.Redis | RedisCluster, *, prefix: str = "tigris") -> None:
        self.client: Any = client
        self.prefix = prefix
        self._apply = self.client.register_script(_APPLY)
        self._begin = self.client.register_script(_BEGIN)
        self._end = self.client.register_script(_END)

    def key(self, kind: str, name: str) -> str:
        if not kind.isidentifier():
            raise ValueError(f"not a kind: {kind!r}")
        return f"{self.prefix}:{{ratings:{kind}}}:{name}"

    def history_key(self, kind: str, player_id: str) -> str:
        return self.key(kind, f"h:{check_player_id(player_id)}")

    def ratings(self, kind: str, player_ids: Sequence[str]) -> dict[str, PlayerRating]:
        ids = [check_player_id(p) for p in player_ids]
        if not ids:
            return {}
        with _guard():
            values = self.client.hmget(self.key(kind, "r"), ids)
        found = {p: parse_rating(_text(v)) for p, v in zip(ids, values, strict=True) if v}
        return {p: r for p, r in found.items() if r is not None}

    def apply(self, kind: str, game: RatedGame, owner: str = "") -> str:
        check_game_id(game.game_id)
        keys = [self.key(kind, name) for name in ("r", "ladder", "counted", "last", "rebuild")]
        keys += [self.history_key(kind, change.player_id) for change in game.changes]
        keys.append(self.key(kind, "expected"))
        args: list[Any] = [game.game_id, game.order, owner]
        for index, change in enumerate(game.changes):
            args += [
                change.player_id,
                rating_json(change.before),
                rating_json(change.after),
                repr(change.after.ordinal),
                entry_json(game, index),
            ]
        with _guard():
            return _text(self._apply(keys=keys, args=args))

    def counted(self, kind: str, game_id: str) -> bool:
        with _guard():
            return bool(self.client.hexists(self.key(kind, "counted"), check_game_id(game_id)))

    def leaderboard(
        self, kind: str, offset: int, limit: int
    ) -> tuple[list[tuple[str, PlayerRating]], int]:
        ladder = self.key(kind, "ladder")
        with _guard():
            pipe = self.client.pipeline(transaction=False)
            pipe.zrevrange(ladder, offset, offset + limit - 1)
            pipe.zcard(ladder)
            members, total = pipe.execute()
            ids = [_text(m) for m in members]
            values = self.client.hmget(self.key(kind, "r"), ids) if ids else []
        page = [
            (player, rating)
            for player, raw in zip(ids, values, strict=True)
            if (rating := parse_rating(_text(raw) if raw else None)) is not None
        ]
        return page, int(total)

    def history(
        self, kind: str, player_id: str, offset: int, limit: int
    ) -> tuple[list[RatingHistoryEntry], int]:
        key = self.history_key(kind, player_id)
        with _guard():
            pipe = self.client.pipeline(transaction=False)
            pipe.lrange(key, -(offset + limit), -(offset + 1))
            pipe.llen(key)
            raw, total = pipe.execute()
        entries = [parse_entry(_text(r)) for r in reversed(raw)]
        return entries, int(total)

    def expect(self, kind: str, game_id: str) -> None:
        with _guard():
            self.client.sadd(self.key(kind, "expected"), check_game_id(game_id))

    def expected(self, kind: str, limit: int) -> list[str]:
        with _guard():  # a sample: a sweep after another gets to them all
            found = self.client.srandmember(self.key(kind, "expected"), limit)
        return sorted(_text(g) for g in found)

    def forget(self, kind: str, game_id: str) -> None:
        with _guard():
            self.client.srem(self.key(kind, "expected"), check_game_id(game_id))

    def begin_rebuild(self, kind: str, owner: str, ttl_s: int) -> bool:
        keys = [self.key(kind, name) for name in ("rebuild", "r", "ladder", "counted", "last")]
        with _guard():
            return bool(self._begin(keys=keys, args=[owner, ttl_s, self.key(kind, "h:")]))

    def end_rebuild(self, kind: str, owner: str) -> None:
        with _guard():
            self._end(keys=[self.key(kind, "rebuild")], args=[owner])


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
