"""Redis Streams adapter of the event store port, and the Redis snapshot cache.

Keys (``P`` is the key prefix, ``tigris`` by default). Every key of one game
carries the hash tag ``{game_id}``, so in a Redis Cluster they share one slot
and the append script may touch them together:

- ``P:{g}:events``   the stream, one entry per event; entry id ``<version>-0``
                      (so a version range is an O(log n) XRANGE, and XREAD
                      after version v starts at id ``v-0``)
- ``P:{g}:info``      hash: kind, seat names, options, status, timestamps
- ``P:{g}:idem:<h>``  hash: command hash and versions of one idempotent append
                      (``<h>`` hashes the client's key), expires after the TTL
- ``P:{g}:snap``      sorted set of snapshots, score = version
- ``P:{g}:hooks``     set of the game's webhook subscription ids (``redis_webhooks``);
                      the append script returns its size, so that a command learns whether
                      deliveries may be due without a second round trip

Keys that are not per game, each touched by single-key commands only (so each may sit
on a slot of its own in a cluster):

- ``P:games``, ``P:games:kind:<k>``, ``P:games:status:<s>``,
  ``P:games:kind:<k>:status:<s>``: the listing indexes (sorted sets, see
  ``RedisKeys.filtered_index``), written *before* the game's first append; derived
  data that ``rebuild_index`` recreates from the info hashes
- ``P:create-idem:<h>``: the record of one idempotent game creation (expires)

On a Redis Cluster the same layout is used through redis-py's cluster client
(``service.store.redis_cluster`` adds what differs).

An entry holds the envelope in four fields: ``type``, ``schema`` (schema
version), ``data`` and ``meta`` (JSON). The recorded time is in ``meta``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import redis
import redis.exceptions as redis_errors
from redis.cluster import RedisCluster

from service.errors import ConcurrencyError, GameArchived, IdempotencyConflict, StoreUnavailable
from service.store.port import (
    ARCHIVED_FIELDS,
    ARCHIVED_VERSION,
    ARCHIVED_WEBHOOKS,
    AppendResult,
    EventStore,
    EventWatch,
    GameRecord,
    Idempotency,
    NewEvent,
    RecordedEvent,
    Snapshot,
    SnapshotStore,
    check_append,
    check_game_id,
    index_filters,
    index_member,
    parse_member,
)

# Everything is checked before the first write, so the script either writes
# every event, the info fields and the idempotency record, or nothing. Scripts
# run atomically and reach the AOF as one MULTI/EXEC block, which Redis drops
# whole if a crash cuts it short.
_APPEND_LUA = """
local stream, info, tokens, hooks, idem = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local expected = tonumber(ARGV[1])
local n_info = tonumber(ARGV[2])
local n_tokens = tonumber(ARGV[3])
local last_arg = #ARGV
local command_hash, ttl_ms
if idem then
  command_hash, ttl_ms = ARGV[last_arg - 1], ARGV[last_arg]
  last_arg = last_arg - 2
  local record = redis.call('HMGET', idem, 'hash', 'first', 'last')
  if record[1] then
    if record[1] == command_hash then
      return 'replay ' .. record[2] .. ' ' .. record[3] .. ' ' .. redis.call('SCARD', hooks)
    end
    return 'conflict'
  end
end
if redis.call('HEXISTS', info, 'archived') == 1 then
  return 'archived'
end
local current = redis.call('XLEN', stream)
if current ~= expected then
  return 'stale ' .. current
end
local i = 4
if n_info > 0 then
  redis.call('HSET', info, unpack(ARGV, i, i + 2 * n_info - 1))
  i = i + 2 * n_info
end
if n_tokens > 0 then
  redis.call('HSET', tokens, unpack(ARGV, i, i + 2 * n_tokens - 1))
  i = i + 2 * n_tokens
end
local version = current
while i < last_arg do
  version = version + 1
  redis.call('XADD', stream, version .. '-0',
    'type', ARGV[i], 'schema', ARGV[i + 1], 'data', ARGV[i + 2], 'meta', ARGV[i + 3])
  i = i + 4
end
if idem then
  redis.call('HSET', idem, 'hash', command_hash, 'first', current + 1, 'last', version)
  redis.call('PEXPIRE', idem, ttl_ms)
end
return 'ok ' .. (current + 1) .. ' ' .. version .. ' ' .. redis.call('SCARD', hooks)
"""


# The archive tier's swap: the game's info marked archived and its events and snapshots
# dropped in one step, if it still has exactly the archived events and is not archived.
_ARCHIVE_SWAP_LUA = """
local stream, info, snap = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HEXISTS', info, 'archived') == 1 then return 0 end
if redis.call('XLEN', stream) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', info, unpack(ARGV, 2))
redis.call('DEL', stream, snap)
return 1
"""

# Back from the archive: the events stored again (with their own ids) and the marks gone,
# if the game is archived and has no events in Redis; ``info`` fields set (who, when).
_REHYDRATE_LUA = """
local stream, info = KEYS[1], KEYS[2]
if redis.call('HEXISTS', info, 'archived') == 0 then return 0 end
if redis.call('XLEN', stream) ~= 0 then return 0 end
local n_fields = 3
local n_info = tonumber(ARGV[1])
local i = 2 + n_fields
if n_info > 0 then
  redis.call('HSET', info, unpack(ARGV, i, i + 2 * n_info - 1))
  i = i + 2 * n_info
end
while i < #ARGV do
  redis.call('XADD', stream, ARGV[i] .. '-0',
    'type', ARGV[i + 1], 'schema', ARGV[i + 2], 'data', ARGV[i + 3], 'meta', ARGV[i + 4])
  i = i + 5
end
redis.call('HDEL', info, unpack(ARGV, 2, 1 + n_fields))
return 1
"""


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


_decoder = json.JSONDecoder()


def _dumps(value: Any) -> str:
    return _encoder.encode(value)


def _loads(text: str) -> Any:
    return _decoder.decode(text)


# Errors that mean "Redis cannot serve this now", not "this request is wrong". The
# cluster ones: a slot whose master failed and is not yet replaced (CLUSTERDOWN), a slot
# being migrated (TRYAGAIN), no slot map (SlotNotCovered), no node reachable to build one.
_UNAVAILABLE: tuple[type[Exception], ...] = (
    redis.ConnectionError,
    redis.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
    redis_errors.SlotNotCoveredError,
)
# Cluster client errors that are a programming error rather than an unavailable cluster.
_CLUSTER_USAGE_ERRORS = (redis_errors.CrossSlotTransactionError, redis_errors.InvalidPipelineStack)


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (from redis-py) means the store cannot be reached or is not ready.

    redis-py's cluster client raises ``RedisClusterException`` (not a ``RedisError``)
    when it cannot rebuild its slot map, e.g. while no node answers; every such error
    but the two that flag a misuse (a cross-slot transaction, a bad pipeline) counts."""
    if isinstance(exc, _UNAVAILABLE):
        return True
    if isinstance(exc, redis.ResponseError):
        return str(exc).startswith(("LOADING", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN"))
    return isinstance(exc, redis_errors.RedisClusterException) and not isinstance(
        exc, _CLUSTER_USAGE_ERRORS
    )


@contextlib.contextmanager
def _guard() -> Iterator[None]:
    """Connection trouble becomes StoreUnavailable (the outcome of a write in flight
    is then unknown: the caller retries with the same idempotency key)."""
    try:
        yield
    except (redis.RedisError, redis_errors.RedisClusterException) as exc:
        if is_unavailable(exc):
            raise StoreUnavailable(f"Redis unavailable: {exc}") from exc
        raise


@contextlib.contextmanager
def _cache_guard() -> Iterator[None]:
    """Any failure of the snapshot cache (Redis down, or a key gone bad) is StoreUnavailable,
    which the application service takes for a cache miss."""
    try:
        yield
    except (redis.RedisError, redis_errors.RedisClusterException) as exc:
        raise StoreUnavailable(f"snapshot cache unavailable: {exc}") from exc


class RedisKeys:
    """Key names of one deployment (see the module docstring)."""

    def __init__(self, prefix: str = "tigris") -> None:
        self.prefix = prefix

    def events(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:events"

    def info(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:info"

    def snapshots(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:snap"

    def idempotency(self, game_id: str, key: str) -> str:
        # Clients choose keys freely; hash them into a safe, bounded name.
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return f"{self.prefix}:{{{game_id}}}:idem:{digest}"

    def tokens(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:tokens"

    def hooks(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:hooks"

    @property
    def index(self) -> str:
        return f"{self.prefix}:games"

    def activity(self, over: bool) -> str:
        """The due index of the archive tier: game ids by their last event's time (ms)."""
        return f"{self.prefix}:archive:due:{'over' if over else 'live'}"

    @property
    def activity_migrated(self) -> str:
        return f"{self.prefix}:archive:due:migrated"

    def filtered_index(self, kind: str | None, status: str | None) -> str:
        """``P:games`` (every game), ``P:games:kind:<k>``, ``P:games:status:<s>``,
        ``P:games:kind:<k>:status:<s>``."""
        name = self.index
        if kind is not None:
            name += f":kind:{kind}"
        if status is not None:
            name += f":status:{status}"
        return name

    def creation(self, key: str) -> str:
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return f"{self.prefix}:create-idem:{digest}"


def _parse_entry(game_id: str, entry_id: Any, fields: Mapping[Any, Any]) -> RecordedEvent:
    if isinstance(entry_id, bytes):  # a client without decode_responses
        entry_id = entry_id.decode()
        fields = {k.decode(): v.decode() for k, v in fields.items()}
    return RecordedEvent(
        game_id=game_id,
        version=int(entry_id.partition("-")[0]),
        stream_id=entry_id,
        type=fields["type"],
        schema_version=int(fields["schema"]),
        data=_loads(fields["data"]),
        metadata=_loads(fields["meta"]),
    )


log = logging.getLogger(__name__)

# The longest block of a watch whose reads cannot be ended early (CLIENT UNBLOCK refused).
UNINTERRUPTIBLE_BLOCK_S = 1.0
# The longest single XREAD BLOCK ``wait`` performs; longer waits return empty (callers
# loop). ``service.store.connect`` builds the blocking client with a socket timeout above it.
MAX_WAIT_S = 60.0
# Socket timeout of the blocking client beyond the block time: room for a busy server.
BLOCK_MARGIN_S = 10.0


class RedisEventStore(EventStore):
    """One Redis stream per game; appends checked and made atomic by a Lua script."""

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        *,
        prefix: str = "tigris",
        blocking_client: redis.Redis | RedisCluster | None = None,
        max_wait_s: float = MAX_WAIT_S,
    ) -> None:
        # redis-py types replies as unions over both decode modes; _s() normalises
        # them here, so the client is used untyped inside the adapter.
        self.client: Any = client
        # ``wait`` blocks in XREAD BLOCK: on its own client (``connect.blocking_client``), so
        # that its socket timeout exceeds the longest block whatever the client library's
        # default timeout is, and its connections never compete with commands for a pool.
        self.blocking_client: Any = client if blocking_client is None else blocking_client
        self.max_wait_s = max_wait_s
        self.keys = RedisKeys(prefix)
        self._append_sha = hashlib.sha1(_APPEND_LUA.encode()).hexdigest()
        self._pool: Any = client.connection_pool if type(client) is redis.Redis else None

    def append(
        self,
        game_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        *,
        idempotency: Idempotency | None = None,
        info: Mapping[str, str] | None = None,
        seat_tokens: Mapping[str, int] | None = None,
    ) -> AppendResult:
        check_append(game_id, events, expected_version, seat_tokens)
        keys = [
            self.keys.events(game_id),
            self.keys.info(game_id),
            self.keys.tokens(game_id),
            self.keys.hooks(game_id),
        ]
        info_items = sorted((info or {}).items())
        token_items = sorted((seat_tokens or {}).items())
        args: list[str | int] = [expected_version, len(info_items), len(token_items)]
        for name, value in info_items:
            args += [name, value]
        for token_hash, seat in token_items:
            args += [token_hash, seat]
        for event in events:
            args += [event.type, event.schema_version, _dumps(event.data), _dumps(event.metadata)]
        if idempotency is not None:
            keys.append(self.keys.idempotency(game_id, idempotency.key))
            args += [idempotency.command_hash, idempotency.ttl_s * 1000]
        answer = _s(self._evalsha(keys, args))
        status, _, versions = answer.partition(" ")
        if status == "ok":
            first, last, hooks = versions.split()
            return AppendResult(int(first), int(last), webhooks=int(hooks))
        if status == "replay":
            first, last, hooks = versions.split()
            return AppendResult(int(first), int(last), replayed=True, webhooks=int(hooks))
        if status == "conflict":
            assert idempotency is not None
            raise IdempotencyConflict(idempotency.key)
        if status == "archived":
            raise GameArchived(game_id)
        raise ConcurrencyError(expected_version, int(versions), game_id)

    def _evalsha(self, keys: list[str], args: list[str | int]) -> Any:
        # EVALSHA straight away (the script is cached on the server); load it on a miss,
        # e.g. after a restart or a SCRIPT FLUSH.
        # (A plain try instead of _guard(): this is the hot path.)
        try:
            return self._script(keys, args)
        except redis.exceptions.NoScriptError:
            with _guard():
                self._append_sha = _s(self.client.script_load(_APPEND_LUA))
                return self._script(keys, args)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise StoreUnavailable(f"Redis unavailable: {exc}") from exc

    def _script(self, keys: list[str], args: list[str | int]) -> Any:
        """``EVALSHA`` of the append script, on a connection of the client's pool: the
        command and its reply straight through redis-py's connection (which drops itself
        on any error in between), without the client's per-command machinery (command
        options, retry wrapper, reply callbacks), which cost more than the round trip's
        own work on the command path. The reply is decoded as the client's other replies
        are (``decode_responses``)."""
        pool = self._pool
        if pool is None:  # not a single-server client
            return self.client.evalsha(self._append_sha, len(keys), *keys, *args)
        connection = pool.get_connection()
        try:
            connection.send_command("EVALSHA", self._append_sha, len(keys), *keys, *args)
            return connection.read_response()
        finally:
            pool.release(connection)

    def lookup_idempotency(self, game_id: str, key: str) -> tuple[str, AppendResult] | None:
        check_game_id(game_id)
        with _guard():
            command_hash, first, last = self.client.hmget(
                self.keys.idempotency(game_id, key), ["hash", "first", "last"]
            )
        if command_hash is None:
            return None
        return _s(command_hash), AppendResult(int(first), int(last), replayed=True)

    def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        check_game_id(game_id)
        with _guard():
            entries = self.client.xrange(
                self.keys.events(game_id), f"{after_version + 1}-0", "+", count=limit
            )
        return [_parse_entry(game_id, entry_id, fields) for entry_id, fields in entries]

    def read_range(self, game_id: str, first: int, last: int) -> list[RecordedEvent]:
        check_game_id(game_id)
        if last < first:
            return []
        with _guard():
            entries = self.client.xrange(
                self.keys.events(game_id), f"{max(first, 1)}-0", f"{last}-0"
            )
        return [_parse_entry(game_id, entry_id, fields) for entry_id, fields in entries]

    def version(self, game_id: str) -> int:
        check_game_id(game_id)
        with _guard():
            return int(self.client.xlen(self.keys.events(game_id)))

    def wait(
        self, game_id: str, after_version: int, timeout_s: float, *, limit: int | None = None
    ) -> list[RecordedEvent]:
        check_game_id(game_id)
        # Never longer than the blocking client's socket timeout allows (see __init__).
        block = int(min(timeout_s, self.max_wait_s) * 1000)
        with _guard():
            # BLOCK 0 would mean "forever": a zero timeout is a plain non-blocking read.
            answer = self._xread(
                self.keys.events(game_id), f"{after_version}-0", block if block > 0 else None, limit
            )
        if not answer:
            return []
        # RESP2 answers [[key, entries]], RESP3 {key: entries}.
        entries = next(iter(answer.values())) if isinstance(answer, dict) else answer[0][1]
        return [_parse_entry(game_id, entry_id, fields) for entry_id, fields in entries]

    def _xread(self, key: str, after_id: str, block_ms: int | None, count: int | None) -> Any:
        return self.blocking_client.xread({key: after_id}, block=block_ms, count=count)

    def watch(self) -> EventWatch:
        return RedisEventWatch(self)

    def info(self, game_id: str) -> GameRecord | None:
        return self.infos([game_id])[0]

    def infos(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        for game_id in game_ids:
            check_game_id(game_id)
        with _guard():
            pipe = self.client.pipeline(transaction=False)
            for game_id in game_ids:
                pipe.hgetall(self.keys.info(game_id))
                pipe.xlen(self.keys.events(game_id))
            replies = pipe.execute()
        records: list[GameRecord | None] = []
        for n, game_id in enumerate(game_ids):
            fields, version = replies[2 * n], int(replies[2 * n + 1])
            if version == 0 and not fields:
                records.append(None)
                continue
            values = {_s(k): _s(v) for k, v in fields.items()}
            if version == 0:  # archived (its events are in the archive tier), or none
                version = int(values.get(ARCHIVED_VERSION, "0"))
                if version == 0:
                    records.append(None)
                    continue
            records.append(GameRecord(game_id, values, version))
        return records

    def index_game(
        self, game_id: str, created_ms: int, *, kind: str | None = None, status: str | None = None
    ) -> None:
        check_game_id(game_id)
        filters = [(None, None)] if kind is None else index_filters(kind, status)
        member = index_member(created_ms, game_id)
        with _guard():
            # Equal scores make each set ordered by member: creation time, then id.
            pipe = self.client.pipeline(transaction=False)
            for k, s in filters:
                pipe.zadd(self.keys.filtered_index(k, s), {member: 0})
            pipe.execute()

    def unindex_game(
        self, game_id: str, created_ms: int, filters: Sequence[tuple[str | None, str | None]]
    ) -> None:
        check_game_id(game_id)
        member = index_member(created_ms, game_id)
        with _guard():
            pipe = self.client.pipeline(transaction=False)
            for k, s in filters:
                pipe.zrem(self.keys.filtered_index(k, s), member)
            pipe.execute()

    def list_index(
        self,
        cursor: str | None,
        limit: int,
        *,
        kind: str | None = None,
        status: str | None = None,
    ) -> tuple[list[tuple[int, str]], str | None]:
        start = "+" if cursor is None else f"({cursor}"
        key = self.keys.filtered_index(kind, status)
        with _guard():
            members = [
                _s(m) for m in self.client.zrevrangebylex(key, start, "-", start=0, num=limit)
            ]
        next_cursor = members[-1] if len(members) == limit else None
        return [parse_member(m) for m in members], next_cursor

    def reserve_creation(self, key: str, record: Mapping[str, str], ttl_s: int) -> dict[str, str]:
        name = self.keys.creation(key)
        with _guard():
            if self.client.set(name, _dumps(dict(record)), nx=True, px=ttl_s * 1000):
                return dict(record)
            stored = self.client.get(name)
        if stored is None:  # expired between the two calls: take it afresh
            return self.reserve_creation(key, record, ttl_s)
        found: dict[str, str] = _loads(_s(stored))
        return found

    def note_activity(self, game_id: str, at_ms: int, *, over: bool) -> None:
        check_game_id(game_id)
        with _guard():
            pipe = self.client.pipeline(transaction=False)
            pipe.zrem(self.keys.activity(not over), game_id)
            pipe.zadd(self.keys.activity(over), {game_id: at_ms})
            pipe.execute()

    def forget_activity(self, game_id: str) -> None:
        check_game_id(game_id)
        with _guard():
            pipe = self.client.pipeline(transaction=False)
            for over in (True, False):
                pipe.zrem(self.keys.activity(over), game_id)
            pipe.execute()

    def due_by_activity(self, *, over: bool, until_ms: int, limit: int) -> list[str] | None:
        with _guard():
            found = self.client.zrangebyscore(
                self.keys.activity(over), "-inf", until_ms, start=0, num=limit
            )
        return [_s(game_id) for game_id in found]

    def activity_migrated(self, mark: bool = False) -> bool:
        with _guard():
            if mark:
                self.client.set(self.keys.activity_migrated, "1")
                return True
            return bool(self.client.exists(self.keys.activity_migrated))

    def archive_swap(self, game_id: str, version: int, fields: Mapping[str, str]) -> bool:
        check_game_id(game_id)
        keys = [self.keys.events(game_id), self.keys.info(game_id), self.keys.snapshots(game_id)]
        args: list[str | int] = [version]
        for name, value in sorted(fields.items()):
            args += [name, value]
        with _guard():
            done = self.client.eval(_ARCHIVE_SWAP_LUA, len(keys), *keys, *args)
            if not done:
                return False
            # The idempotency records (they expire anyway): a command for an archived
            # game is refused before any lookup.
            pattern = f"{self.keys.prefix}:{{{game_id}}}:idem:*"
            stale = list(self.client.scan_iter(match=pattern, count=500))
            if stale:
                self.client.unlink(*stale)
            # Its webhook subscriptions (``docs/webhooks.md``: an archived game keeps none;
            # nothing is appended to it any more, and a rehydration does not bring them
            # back): their number stays in its info, ``ARCHIVED_WEBHOOKS``.
            subscriptions = self.client.scard(self.keys.hooks(game_id))
            pattern = f"{self.keys.prefix}:{{{game_id}}}:hook*"
            hooks = list(self.client.scan_iter(match=pattern, count=500))
            if hooks:
                self.client.unlink(*hooks)
            if subscriptions:
                self.client.hset(self.keys.info(game_id), ARCHIVED_WEBHOOKS, subscriptions)
        return True

    def rehydrate(
        self, game_id: str, events: Sequence[RecordedEvent], info: Mapping[str, str] | None = None
    ) -> bool:
        check_game_id(game_id)
        keys = [self.keys.events(game_id), self.keys.info(game_id)]
        extra = sorted((info or {}).items())
        args: list[str | int] = [len(extra), *ARCHIVED_FIELDS]
        for name, value in extra:
            args += [name, value]
        for event in events:
            args += [
                event.version,
                event.type,
                event.schema_version,
                _dumps(event.data),
                _dumps(event.metadata),
            ]
        with _guard():
            return bool(self.client.eval(_REHYDRATE_LUA, len(keys), *keys, *args))

    def rebuild_index(self) -> int:
        """Recreate the game indexes from the info hashes (after losing them); returns the
        count. (Stale entries of a lost status change are repaired by listing itself.)"""
        count = 0
        pattern = f"{self.keys.prefix}:{{*}}:info"
        with _guard():
            for key in self.client.scan_iter(match=pattern, count=500):
                name = _s(key)
                game_id = name[len(self.keys.prefix) + 2 : name.rindex("}")]
                created, kind, status = self.client.hmget(name, "created_ms", "kind", "status")
                if created is not None and kind is not None:
                    self.index_game(
                        game_id,
                        int(_s(created)),
                        kind=_s(kind),
                        status=_s(status) if status is not None else "active",
                    )
                    count += 1
        return count


class RedisEventWatch(EventWatch):
    """Many games' streams in one ``XREAD BLOCK``, on a connection of its own taken from
    the blocking client's pool, whose id lets another connection end the block at once
    (``CLIENT UNBLOCK``: a game joined the read)."""

    def __init__(self, store: RedisEventStore) -> None:
        self._store = store
        self._pool = store.blocking_client.connection_pool
        self._connection: Any = None
        self._client_id: int | None = None
        self._lock = threading.Lock()
        self.interruptible = True  # False once Redis refused CLIENT UNBLOCK: short blocks

    def read(
        self, after: Mapping[str, int], timeout_s: float, *, limit: int
    ) -> dict[str, list[RecordedEvent]]:
        if not after:
            raise ValueError("a watch reads at least one game")
        keys = {self._store.keys.events(check_game_id(g)): g for g in after}
        longest = self._store.max_wait_s if self.interruptible else UNINTERRUPTIBLE_BLOCK_S
        block = int(min(timeout_s, longest) * 1000)
        pieces: list[Any] = ["XREAD", "COUNT", limit]
        if block > 0:  # BLOCK 0 would mean "forever": a zero timeout is a plain read
            pieces += ["BLOCK", block]
        pieces += ["STREAMS", *keys, *(f"{v}-0" for v in after.values())]
        with _guard():
            answer = self._command(pieces)
        if not answer:
            return {}
        # RESP2 answers [[key, entries], ...], RESP3 {key: entries}; raw entries are
        # [id, [field, value, ...]].
        pairs = answer.items() if isinstance(answer, dict) else answer
        found: dict[str, list[RecordedEvent]] = {}
        for key, entries in pairs:
            game_id = keys[_s(key)]
            found[game_id] = [
                _parse_entry(game_id, entry_id, dict(zip(fields[::2], fields[1::2], strict=True)))
                for entry_id, fields in entries
            ]
        return found

    def _command(self, pieces: list[Any]) -> Any:
        with self._lock:
            if self._connection is None:
                self._connection = self._pool.get_connection()
            connection = self._connection
        try:
            if self._client_id is None:
                connection.send_command("CLIENT", "ID")
                self._client_id = int(connection.read_response())
            connection.send_command(*pieces)
            return connection.read_response()
        except BaseException:
            # Whatever came of the request, the connection's state is unknown: drop it (a
            # reconnection would also have a new id).
            self._client_id = None
            connection.disconnect()
            raise

    def interrupt(self) -> bool:
        client_id = self._client_id
        if client_id is None or not self.interruptible:
            return False
        try:
            with _guard():
                return bool(self._store.client.client_unblock(client_id))
        except redis_errors.ResponseError as exc:  # e.g. NOPERM: an ACL without @admin
            self.interruptible = False
            log.warning(
                "CLIENT UNBLOCK refused (%s): a game a stream joins waits for the read under "
                "way, up to %.0f s; grant the service's Redis user CLIENT UNBLOCK",
                exc,
                UNINTERRUPTIBLE_BLOCK_S,
            )
            return False

    def close(self) -> None:
        with self._lock:
            connection, self._connection = self._connection, None
            self._client_id = None  # the pool may lend the connection to someone else
        if connection is not None:
            self._pool.release(connection)


class RedisSnapshotStore(SnapshotStore):
    """Snapshots in a sorted set per game (score = version), under the game's hash tag."""

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        *,
        prefix: str = "tigris",
        keep: int | None = None,
    ) -> None:
        self.client: Any = client  # untyped for the same reason as in RedisEventStore
        self.keys = RedisKeys(prefix)
        # Newest snapshots kept per game (None: all). Keeping all puts every version within
        # ``snapshot_every`` events of a snapshot, so time travel and the redaction of
        # taken-back events cost O(snapshot_every) anywhere in a long game.
        self.keep = keep

    def latest(self, game_id: str, at_most: int | None = None) -> Snapshot | None:
        check_game_id(game_id)
        top = "+inf" if at_most is None else at_most
        with _cache_guard():
            found = self.client.zrevrangebyscore(
                self.keys.snapshots(game_id), top, "-inf", start=0, num=1
            )
        return _parse_snapshot(found[0]) if found else None

    def put(self, game_id: str, snapshot: Snapshot) -> None:
        check_game_id(game_id)
        key = self.keys.snapshots(game_id)
        member = _dumps({"version": snapshot.version, "position": snapshot.position})
        with _cache_guard():
            pipe = self.client.pipeline(transaction=True)
            pipe.zremrangebyscore(key, snapshot.version, snapshot.version)
            pipe.zadd(key, {member: snapshot.version})
            if self.keep is not None:
                pipe.zremrangebyrank(key, 0, -self.keep - 1)
            pipe.execute()

    def versions(self, game_id: str) -> list[int]:
        check_game_id(game_id)
        with _cache_guard():
            scored = self.client.zrange(self.keys.snapshots(game_id), 0, -1, withscores=True)
        return [int(score) for _, score in scored]

    def get(self, game_id: str, version: int) -> Snapshot | None:
        check_game_id(game_id)
        with _cache_guard():
            found = self.client.zrangebyscore(self.keys.snapshots(game_id), version, version)
        return _parse_snapshot(found[0]) if found else None

    def delete(self, game_id: str) -> None:
        check_game_id(game_id)
        with _cache_guard():
            self.client.delete(self.keys.snapshots(game_id))


def _parse_snapshot(raw: Any) -> Snapshot:
    payload = json.loads(_s(raw))
    return Snapshot(int(payload["version"]), payload["position"])
