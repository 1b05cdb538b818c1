"""Redis adapter of the webhook store port.

Keys (``P`` is the key prefix), each under the game's hash tag so that a Redis Cluster keeps
them on the game's slot:

- ``P:{g}:hooks``            set of the game's subscription ids; the event store's append
                              script counts it (``RedisKeys.hooks``), so an append answers
                              whether there is anything to deliver
- ``P:{g}:hook:<id>``         hash: ``url``, ``events`` (a JSON list), ``seat`` (empty: a
                              spectator's view), ``secret``, ``status``, ``failures``,
                              ``cursor``, ``created_at``, ``owner``, ``disabled_reason``,
                              ``batch_first``/``batch_last`` (the batch under way) and
                              ``next_attempt_at`` (a Unix time)
- ``P:{g}:hook:<id>:log``     list: the delivery log, newest first (JSON entries)
- ``P:{g}:hook:<id>:lock``    string: the delivery lock's holder, with its expiry
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store.port import Subscription, TooManyWebhooks, WebhookStore
from service.store.redis_streams import RedisKeys

CREATE_TRIES = 20  # reads of the game's subscriptions before a creation gives up

# KEYS: the game's set, the new hash, the hashes of the members read before (ARGV[4..]).
# ARGV: the per-game limit, the per-owner limit, the new id, the member ids, then '--' and
# the new hash's field/value pairs. 'retry' when the set changed since it was read.
_CREATE = """
local per_game, per_owner, new_id = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local members, i = {}, 4
while ARGV[i] ~= '--' do members[#members + 1] = ARGV[i]; i = i + 1 end
if redis.call('SCARD', KEYS[1]) ~= #members then return 'retry' end
for _, id in ipairs(members) do
  if redis.call('SISMEMBER', KEYS[1], id) == 0 then return 'retry' end
end
if #members >= per_game then return 'game' end
local fields = {}
for j = i + 1, #ARGV do fields[#fields + 1] = ARGV[j] end
local owner
for j = 1, #fields, 2 do if fields[j] == 'owner' then owner = fields[j + 1] end end
local owned = 0
for k = 3, #KEYS do
  if redis.call('HGET', KEYS[k], 'owner') == owner then owned = owned + 1 end
end
if owned >= per_owner then return 'token' end
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('SADD', KEYS[1], new_id)
return 'ok'
"""

_ADVANCE = """
local current = tonumber(redis.call('HGET', KEYS[1], 'cursor') or '-1')
if current == nil or current < 0 then return -1 end
if tonumber(ARGV[1]) > current then
  redis.call('HSET', KEYS[1], 'cursor', ARGV[1], 'failures', '0')
  redis.call('HDEL', KEYS[1], 'batch_first', 'batch_last', 'next_attempt_at')
  return 1
end
return 0
"""

# ARGV: max failures, the reason should it disable, when the next attempt is due.
_FAIL = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if failures >= tonumber(ARGV[1]) and redis.call('HGET', KEYS[1], 'status') == 'active' then
  redis.call('HSET', KEYS[1], 'status', 'disabled', 'disabled_reason', ARGV[2])
  redis.call('HDEL', KEYS[1], 'next_attempt_at')
else
  redis.call('HSET', KEYS[1], 'next_attempt_at', ARGV[3])
end
return failures
"""

# Field/value pairs set only on a subscription that exists (not one deleted meanwhile).
_SET = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# The log of a subscription that exists (none left behind by a delivery that outlived it).
# Compare and delete: a lock that expired and was taken by another delivery stays.
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_LOG = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
return 1
"""

_ENABLE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'status') == 'active' then return 1 end
redis.call('HSET', KEYS[1], 'status', 'active', 'failures', '0')
redis.call('HDEL', KEYS[1], 'disabled_reason', 'next_attempt_at')
return 1
"""


class RedisWebhookStore(WebhookStore):
    def __init__(self, client: redis.Redis | RedisCluster, *, prefix: str = "tigris") -> None:
        self.client: Any = client
        self.prefix = prefix
        self._keys = RedisKeys(prefix)  # the subscription set is the one the append counts
        self._create = self.client.register_script(_CREATE)
        self._advance = self.client.register_script(_ADVANCE)
        self._fail = self.client.register_script(_FAIL)
        self._set = self.client.register_script(_SET)
        self._enable = self.client.register_script(_ENABLE)
        self._log = self.client.register_script(_LOG)
        self._unlock = self.client.register_script(_UNLOCK)

    def _key(self, game_id: str, sub_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:hook:{sub_id}"

    def _log_key(self, game_id: str, sub_id: str) -> str:
        return f"{self._key(game_id, sub_id)}:log"

    def _lock_key(self, game_id: str, sub_id: str) -> str:
        return f"{self._key(game_id, sub_id)}:lock"

    def create(self, sub: Subscription, *, per_game: int, per_owner: int) -> None:
        game_id = sub.game_id
        fields = {
            "url": sub.url,
            "events": json.dumps(list(sub.events)),
            "seat": "" if sub.seat is None else str(sub.seat),
            "secret": sub.secret,
            "status": "active",
            "failures": "0",
            "cursor": str(sub.cursor),
            "created_at": sub.created_at,
            "owner": sub.owner or "",
        }
        pairs = [item for pair in fields.items() for item in pair]
        for _ in range(CREATE_TRIES):
            members = sorted(_text(m) for m in self.client.smembers(self._keys.hooks(game_id)))
            outcome = self._create(
                keys=[
                    self._keys.hooks(game_id),
                    self._key(game_id, sub.sub_id),
                    *(self._key(game_id, member) for member in members),
                ],
                args=[per_game, per_owner, sub.sub_id, *members, "--", *pairs],
            )
            outcome = _text(outcome)
            if outcome == "ok":
                return
            if outcome == "game":
                raise TooManyWebhooks("game", per_game)
            if outcome == "token":
                raise TooManyWebhooks("token", per_owner)
        raise RuntimeError(f"the webhooks of game {game_id} changed during {CREATE_TRIES} tries")

    def get(self, game_id: str, sub_id: str) -> Subscription | None:
        return _parse(game_id, sub_id, self.client.hgetall(self._key(game_id, sub_id)))

    def of_game(self, game_id: str) -> list[Subscription]:
        ids = sorted(_text(m) for m in self.client.smembers(self._keys.hooks(game_id)))
        pipe = self.client.pipeline(transaction=False)  # one round trip for all of them
        for sub_id in ids:
            pipe.hgetall(self._key(game_id, sub_id))
        found = [
            _parse(game_id, sub_id, raw) for sub_id, raw in zip(ids, pipe.execute(), strict=True)
        ]
        return [sub for sub in found if sub is not None]

    def delete(self, game_id: str, sub_id: str) -> bool:
        with self.client.pipeline(transaction=True) as pipe:
            pipe.srem(self._keys.hooks(game_id), sub_id)
            pipe.delete(self._key(game_id, sub_id), self._log_key(game_id, sub_id))
            removed, _ = pipe.execute()
        return bool(removed)

    def enable(self, sub: Subscription) -> bool:
        return bool(self._enable(keys=[self._key(sub.game_id, sub.sub_id)]) == 1)

    def start_batch(self, sub: Subscription, first: int, last: int) -> bool:
        return bool(
            self._set(
                keys=[self._key(sub.game_id, sub.sub_id)],
                args=["batch_first", first, "batch_last", last],
            )
            == 1
        )

    def advance(self, sub: Subscription, version: int) -> bool:
        return bool(self._advance(keys=[self._key(sub.game_id, sub.sub_id)], args=[version]) == 1)

    def fail(self, sub: Subscription, reason: str, max_failures: int, next_at: float) -> int:
        disabled = f"disabled after {max_failures} failed deliveries in a row; last: {reason}"
        return int(
            self._fail(
                keys=[self._key(sub.game_id, sub.sub_id)],
                args=[max_failures, disabled, repr(next_at)],
            )
        )

    def disable(self, sub: Subscription, reason: str) -> bool:
        return bool(
            self._set(
                keys=[self._key(sub.game_id, sub.sub_id)],
                args=["status", "disabled", "disabled_reason", reason],
            )
            == 1
        )

    def log(self, sub: Subscription, entry: dict[str, Any]) -> None:
        keys = [self._key(sub.game_id, sub.sub_id), self._log_key(sub.game_id, sub.sub_id)]
        self._log(keys=keys, args=[json.dumps(entry), self.LOG_LENGTH])

    def deliveries(self, game_id: str, sub_id: str) -> list[dict[str, Any]]:
        raw = self.client.lrange(self._log_key(game_id, sub_id), 0, self.LOG_LENGTH - 1)
        return [json.loads(item) for item in raw]

    def lock(self, sub: Subscription, token: str, ttl_s: int) -> bool:
        key = self._lock_key(sub.game_id, sub.sub_id)
        return bool(self.client.set(key, token, nx=True, ex=ttl_s))

    def unlock(self, sub: Subscription, token: str) -> None:
        key = self._lock_key(sub.game_id, sub.sub_id)
        self._unlock(keys=[key], args=[token])  # only its own lock, even one that expired


def player_webhook_store(client: redis.Redis | RedisCluster, prefix: str) -> RedisWebhookStore:
    """The players' webhooks (``service.jobs.feed``): the same store under the prefix
    ``P:player-hooks``, a player's id where a game's would be (``P:player-hooks:{<player
    id>}:hooks``, ``…:hook:<id>``, its log and lock)."""
    return RedisWebhookStore(client, prefix=f"{prefix}:player-hooks")


def _parse(game_id: str, sub_id: str, raw: Mapping[Any, Any]) -> Subscription | None:
    """A subscription from its hash (None: deleted, or never complete)."""
    fields = {_text(k): _text(v) for k, v in raw.items()}
    if not fields or "url" not in fields:
        return None
    batch = None
    if fields.get("batch_first") and fields.get("batch_last"):
        batch = (int(fields["batch_first"]), int(fields["batch_last"]))
    due = fields.get("next_attempt_at")
    return Subscription(
        sub_id=sub_id,
        game_id=game_id,
        url=fields["url"],
        events=tuple(json.loads(fields["events"])),
        seat=int(fields["seat"]) if fields.get("seat") else None,
        secret=fields["secret"],
        status=fields["status"],
        failures=int(fields["failures"]),
        cursor=int(fields["cursor"]),
        created_at=fields["created_at"],
        disabled_reason=fields.get("disabled_reason") or None,
        owner=fields.get("owner") or None,
        batch=batch,
        next_attempt_at=float(due) if due else None,
    )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
