"""Redis adapter of the player feed port (``service.application.feed``).

Keys (``P`` is the key prefix); a player's under the player's hash tag, so that a Redis
Cluster keeps them on one slot (the append is one script on them):

- ``P:{player:<id>}:feed``       stream: the feed, entry ids ``<n>-0`` (n = 1, 2, ...: the
                                  entry's number, its SSE id), field ``entry`` (JSON),
                                  trimmed to the newest ``keep`` (``MAXLEN =``)
- ``P:{player:<id>}:feed:keys``  sorted set: the keys of the kept entries (game, version,
                                  type, seat), scored by their number; a key held is not
                                  written again
- ``P:{player:<id>}:feed:last``  string: the last number given
- ``P:{<game_id>}:feed``          string: the game's projection cursor (the last version
                                  whose entries were written)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store.port import FeedEntry, PlayerFeedStore, check_game_id, check_player_id
from service.store.redis_streams import _guard

# KEYS: the feed, its keys, its last number. ARGV: keep, then key/entry pairs.
_APPEND = """
local keep = tonumber(ARGV[1])
local written = {}
for i = 2, #ARGV, 2 do
  if redis.call('ZSCORE', KEYS[2], ARGV[i]) == false then
    local seq = redis.call('INCR', KEYS[3])
    redis.call('XADD', KEYS[1], 'MAXLEN', '=', keep, seq .. '-0', 'entry', ARGV[i + 1])
    redis.call('ZADD', KEYS[2], seq, ARGV[i])
    written[#written + 1] = seq
  end
end
if #written > 0 then
  local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
  if #first > 0 then
    local oldest = tonumber(string.match(first[1][1], '^(%d+)'))
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. oldest)
  end
end
return written
"""

_PROJECT_TO = """
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
"""


class RedisPlayerFeedStore(PlayerFeedStore):
    """``blocking_client``: the client of blocking reads (``wait``), a pool of its own as
    the game streams' (``service.store.connect.blocking_client``)."""

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        *,
        prefix: str = "tigris",
        blocking_client: redis.Redis | RedisCluster | None = None,
        max_wait_s: float = 30.0,
    ) -> None:
        self.client: Any = client
        self.blocking_client: Any = client if blocking_client is None else blocking_client
        self.prefix = prefix
        self.max_wait_s = max_wait_s
        self._append = self.client.register_script(_APPEND)
        self._project_to = self.client.register_script(_PROJECT_TO)

    def feed_key(self, player_id: str) -> str:
        return f"{self.prefix}:{{player:{check_player_id(player_id)}}}:feed"

    def cursor_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{check_game_id(game_id)}}}:feed"

    def append(
        self, player_id: str, entries: Sequence[tuple[str, dict[str, Any]]], keep: int
    ) -> list[int]:
        if not entries:
            return []
        feed = self.feed_key(player_id)
        args: list[Any] = [keep]
        for key, entry in entries:
            args += [key, json.dumps(entry, separators=(",", ":"), ensure_ascii=False)]
        with _guard():
            written = self._append(keys=[feed, f"{feed}:keys", f"{feed}:last"], args=args)
        return [int(seq) for seq in written]

    def read(self, player_id: str, after: int, limit: int) -> list[FeedEntry]:
        with _guard():
            found = self.client.xrange(self.feed_key(player_id), f"({after}-0", "+", count=limit)
        return [_entry(entry_id, fields) for entry_id, fields in found]

    def wait(self, player_id: str, after: int, timeout_s: float) -> bool:
        block = int(min(timeout_s, self.max_wait_s) * 1000)
        with _guard():
            answer = self.blocking_client.xread(
                {self.feed_key(player_id): f"{after}-0"},
                block=block if block > 0 else None,
                count=1,
            )
        return bool(answer)

    def bounds(self, player_id: str) -> tuple[int, int]:
        feed = self.feed_key(player_id)
        with _guard():
            pipe = self.client.pipeline(transaction=False)
            pipe.xrange(feed, "-", "+", count=1)
            pipe.get(f"{feed}:last")
            first, last = pipe.execute()
        oldest = _seq(first[0][0]) if first else 0
        return oldest, int(last or 0)

    def projected(self, game_id: str) -> int:
        with _guard():
            return int(self.client.get(self.cursor_key(game_id)) or 0)

    def project_to(self, game_id: str, version: int) -> None:
        with _guard():
            self._project_to(keys=[self.cursor_key(game_id)], args=[version])


def _seq(entry_id: Any) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
    return int(text.split("-", 1)[0])


def _entry(entry_id: Any, fields: Any) -> FeedEntry:
    raw = fields.get("entry", fields.get(b"entry"))
    return FeedEntry(_seq(entry_id), json.loads(raw))
