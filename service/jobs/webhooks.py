"""Webhooks: per-game subscriptions and their signed deliveries, as jobs.

A subscription (``WebhookStore``) is a hash ``<prefix>:{<game>}:hook:<id>`` (in the game's
Cluster slot) with its URL, event filter, the seat whose view it receives (none: a
spectator's), its owner (the SHA-256 of the seat token that made it, or ``admin``), its
secret (``whsec_…``, returned once at creation), status, consecutive failures, ``cursor``
(the last game version delivered), the batch under way (``batch_first``..``batch_last``)
and when the next attempt is due (``next_attempt_at``). The game's subscriptions are the set
``<prefix>:{<game>}:hooks``; each keeps a delivery log (the last 100 attempts). A game has
at most ``TIGRIS_WEBHOOKS_PER_GAME`` subscriptions, an owner at most
``TIGRIS_WEBHOOKS_PER_TOKEN`` in one game (checked and created in one Lua script).

A delivery (``deliver_webhook``) sends the events after the cursor (up to 100), redacted
exactly as the subscriber's seat (or a spectator) may see them through the API, filtered by
type, as one POST signed per the Standard Webhooks specification with the
``standardwebhooks`` package. The batch's bounds are fixed, and stored, before its first
attempt: every attempt at it (a retry after an error answer, or after a work horse died
mid-POST) sends the same events under the same ``webhook-id``, and events appended meanwhile
go into the next batch, so a receiver that drops repeats by id sees each event once.

A 2xx moves the cursor on. A 410 Gone disables the subscription at once. Anything else (an
error status, a timeout, a refused URL) is logged and counted, and the next attempt is an
RQ job scheduled (``enqueue_at``, no sleeping worker) after the next delay of
``TIGRIS_WEBHOOK_SCHEDULE`` (Standard Webhooks': 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)
with ±10 % jitter, or after the ``Retry-After`` of a 429 or 503 (seconds or an HTTP date,
at most ``TIGRIS_WEBHOOK_RETRY_AFTER_MAX_S``). No attempt is made before that time, whoever
enqueues it (an append's fast path, the sweep). After ``TIGRIS_WEBHOOK_MAX_FAILURES``
consecutive failures the subscription is disabled, saying why; re-enabling it resumes at the
cursor (the same batch, the same id). Deliveries of one subscription take a lock, so batches
go out in order; delivery is at least once (a worker dying after the POST and before the
cursor moves sends the same message again).
"""

from __future__ import annotations

import json
import random
import secrets
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import urllib3
from rq import Queue
from standardwebhooks.webhooks import Webhook

from service.application.repository import LoadedGame
from service.jobs.queues import enqueue_once
from service.jobs.settings import JobSettings
from service.jobs.ssrf import UrlRefused, check_url
from service.store.redis_streams import RedisKeys

BATCH = 100
LOG_LENGTH = 100
LOCK_MARGIN_S = 5
JITTER = 0.1  # each retry's delay: ±10 %
ADMIN_OWNER = "admin"
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


class TooManyWebhooks(Exception):
    """A subscription over a limit: ``scope`` ``game`` or ``token``."""

    def __init__(self, scope: str, limit: int) -> None:
        super().__init__(f"at most {limit} webhooks per {scope}")
        self.scope = scope
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Subscription:
    sub_id: str
    game_id: str
    url: str
    events: tuple[str, ...]  # event types to send; empty: every event
    seat: int | None
    secret: str
    status: str  # "active" | "disabled"
    failures: int
    cursor: int  # the last version delivered (or skipped by the filter)
    created_at: str
    disabled_reason: str | None = None
    owner: str | None = None  # the SHA-256 of the seat token that made it, or "admin"
    batch: tuple[int, int] | None = None  # the batch under way: first and last version
    next_attempt_at: float | None = None  # no attempt before (a Unix time), after a failure

    @property
    def batch_id(self) -> str | None:
        """The ``webhook-id`` of the batch under way."""
        return None if self.batch is None else message_id(self.sub_id, *self.batch)

    def public_json(self) -> dict[str, Any]:
        """What the API shows (never the secret)."""
        due = self.next_attempt_at
        next_at = None if due is None else datetime.fromtimestamp(due, UTC).isoformat()
        return {
            "id": self.sub_id,
            "url": self.url,
            "events": list(self.events),
            "seat": self.seat,
            "status": self.status,
            "disabled_reason": self.disabled_reason,
            "failures": self.failures,
            "delivered_version": self.cursor,
            "created_at": self.created_at,
            "next_attempt_at": next_at,
        }


def message_id(sub_id: str, first: int, last: int) -> str:
    return f"msg_{sub_id}_{first}_{last}"


class WebhookStore:
    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self._keys = RedisKeys(prefix)  # the subscription set is the one the append counts
        self._create = client.register_script(_CREATE)
        self._advance = client.register_script(_ADVANCE)
        self._fail = client.register_script(_FAIL)
        self._set = client.register_script(_SET)
        self._enable = client.register_script(_ENABLE)
        self._log = client.register_script(_LOG)

    def _game(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}"

    def _key(self, game_id: str, sub_id: str) -> str:
        return f"{self._game(game_id)}:hook:{sub_id}"

    def _log_key(self, game_id: str, sub_id: str) -> str:
        return f"{self._key(game_id, sub_id)}:log"

    def _lock_key(self, game_id: str, sub_id: str) -> str:
        return f"{self._key(game_id, sub_id)}:lock"

    def create(
        self,
        game_id: str,
        url: str,
        events: Sequence[str],
        seat: int | None,
        cursor: int,
        *,
        owner: str = ADMIN_OWNER,
        per_game: int = 20,
        per_owner: int = 5,
    ) -> Subscription:
        """A new subscription, unless ``game_id`` has ``per_game`` already or ``owner``
        ``per_owner`` in it (``TooManyWebhooks``)."""
        sub = Subscription(
            sub_id=uuid.uuid4().hex,
            game_id=game_id,
            url=url,
            events=tuple(events),
            seat=seat,
            secret="whsec_" + secrets.token_urlsafe(32).replace("-", "A").replace("_", "B"),
            status="active",
            failures=0,
            cursor=cursor,
            created_at=datetime.now(UTC).isoformat(),
            owner=owner,
        )
        fields = {
            "url": url,
            "events": json.dumps(list(events)),
            "seat": "" if seat is None else str(seat),
            "secret": sub.secret,
            "status": "active",
            "failures": "0",
            "cursor": str(cursor),
            "created_at": sub.created_at,
            "owner": owner,
        }
        pairs = [item for pair in fields.items() for item in pair]
        for _ in range(CREATE_TRIES):
            members = sorted(self.client.smembers(self._keys.hooks(game_id)))
            outcome = self._create(
                keys=[
                    self._keys.hooks(game_id),
                    self._key(game_id, sub.sub_id),
                    *(self._key(game_id, member) for member in members),
                ],
                args=[per_game, per_owner, sub.sub_id, *members, "--", *pairs],
            )
            outcome = outcome.decode() if isinstance(outcome, bytes) else outcome
            if outcome == "ok":
                return sub
            if outcome == "game":
                raise TooManyWebhooks("game", per_game)
            if outcome == "token":
                raise TooManyWebhooks("token", per_owner)
        raise RuntimeError(f"the webhooks of game {game_id} changed during {CREATE_TRIES} tries")

    def get(self, game_id: str, sub_id: str) -> Subscription | None:
        fields: dict[str, str] = self.client.hgetall(self._key(game_id, sub_id))
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

    def of_game(self, game_id: str) -> list[Subscription]:
        ids = sorted(self.client.smembers(self._keys.hooks(game_id)))
        found = [self.get(game_id, sub_id) for sub_id in ids]
        return [sub for sub in found if sub is not None]

    def delete(self, game_id: str, sub_id: str) -> bool:
        """Removes the subscription and its log (a delivery under way finds it gone)."""
        with self.client.pipeline(transaction=True) as pipe:
            pipe.srem(self._keys.hooks(game_id), sub_id)
            pipe.delete(self._key(game_id, sub_id), self._log_key(game_id, sub_id))
            removed, _ = pipe.execute()
        return bool(removed)

    def enable(self, sub: Subscription) -> bool:
        """Active again, its failures forgotten (deliveries resume at its cursor); an active
        one is left as it is (a retry it awaits stays due when it was)."""
        return bool(self._enable(keys=[self._key(sub.game_id, sub.sub_id)]) == 1)

    def start_batch(self, sub: Subscription, first: int, last: int) -> bool:
        """Fixes the bounds of ``sub``'s next batch (so of its ``webhook-id``) before its
        first attempt; False when the subscription is gone."""
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
        """Counts a failed attempt: the next one is due at ``next_at``, unless it was the
        ``max_failures``-th in a row (the subscription is disabled). Returns the count."""
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
        self._log(keys=keys, args=[json.dumps(entry), LOG_LENGTH])

    def deliveries(self, game_id: str, sub_id: str) -> list[dict[str, Any]]:
        """The delivery log, newest first."""
        raw: list[str] = self.client.lrange(self._log_key(game_id, sub_id), 0, LOG_LENGTH - 1)
        return [json.loads(item) for item in raw]

    def lock(self, sub: Subscription, token: str, ttl_s: int) -> bool:
        key = self._lock_key(sub.game_id, sub.sub_id)
        return bool(self.client.set(key, token, nx=True, ex=ttl_s))

    def unlock(self, sub: Subscription, token: str) -> None:
        key = self._lock_key(sub.game_id, sub.sub_id)
        if self.client.get(key) == token:
            self.client.delete(key)


def retry_delay(schedule: Sequence[int], failures: int, rng: random.Random | None = None) -> float:
    """Seconds before the attempt that follows ``failures`` failed ones in a row: the
    schedule's delay for that attempt (its last one repeating), ±``JITTER``."""
    delay = schedule[min(failures, len(schedule) - 1)]
    return delay * (rng or random).uniform(1 - JITTER, 1 + JITTER)


def retry_after(header: str | None, now: datetime) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (delay-seconds or an HTTP date);
    None when absent or unreadable."""
    if header is None:
        return None
    text = header.strip()
    if text.isdigit():
        return float(int(text))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


def _due(sub: Subscription) -> bool:
    return sub.next_attempt_at is None or sub.next_attempt_at <= time.time()


def enqueue_deliveries(
    queue: Queue,
    settings: JobSettings,
    hooks: WebhookStore,
    game: LoadedGame,
    *,
    known: int | None = None,
) -> int:
    """Enqueue a delivery for every active subscription of ``game`` that is behind it and
    not waiting for a scheduled retry. ``known``: the game's subscription count, when the
    append that moved it returned it (0: nothing to read)."""
    if known == 0:
        return 0
    enqueued = 0
    for sub in hooks.of_game(game.game_id):
        if sub.status == "active" and sub.cursor < game.version and _due(sub):
            job = enqueue_once(
                queue,
                settings,
                deliver_webhook,
                f"hook-{sub.sub_id}-{sub.cursor}-{game.version}",
                game.game_id,
                sub.sub_id,
                timeout_s=settings.webhook_timeout_s * 3 + 30,
            )
            enqueued += job is not None
    return enqueued


def schedule_retry(
    queue: Queue, settings: JobSettings, sub: Subscription, failures: int, at: float
) -> bool:
    """The next attempt at ``sub``'s batch, an RQ job scheduled for ``at``."""
    job = enqueue_once(
        queue,
        settings,
        deliver_webhook,
        f"hook-{sub.sub_id}-{sub.cursor}-retry-{failures}-{int(at * 1000)}",
        sub.game_id,
        sub.sub_id,
        timeout_s=settings.webhook_timeout_s * 3 + 30,
        at=datetime.fromtimestamp(at, UTC),
    )
    return job is not None


def sign(sub: Subscription, msg_id: str, at: datetime, body: str) -> dict[str, str]:
    """The Standard Webhooks headers of one message."""
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(sub.secret).sign(msg_id, at, body),
        "content-type": "application/json",
    }


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    retry_after: str | None = None  # the Retry-After header, if any


def post(url: str, body: str, headers: dict[str, str], settings: JobSettings) -> Answer:
    """POST ``body`` to ``url``, checked again now and connected to the address checked (no
    redirect followed). Returns the answer; raises ``UrlRefused`` or urllib3's errors."""
    checked = check_url(url, allow_private=settings.webhook_allow_private)
    timeout = urllib3.Timeout(total=settings.webhook_timeout_s)
    default_port = 443 if checked.scheme == "https" else 80
    host = checked.host if checked.port == default_port else f"{checked.host}:{checked.port}"
    pool: urllib3.HTTPConnectionPool
    if checked.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(
            checked.address,
            checked.port,
            timeout=timeout,
            retries=False,
            server_hostname=checked.host,
            assert_hostname=checked.host,
        )
    else:
        pool = urllib3.HTTPConnectionPool(
            checked.address, checked.port, timeout=timeout, retries=False
        )
    with pool:
        response = pool.urlopen(
            "POST",
            checked.target,
            body=body.encode(),
            headers={**headers, "Host": host},
            redirect=False,
            retries=False,
        )
        return Answer(int(response.status), response.headers.get("Retry-After"))


def deliver_webhook(game_id: str, sub_id: str) -> str:
    """The job: send ``sub_id``'s next batch of events (see the module's docstring)."""
    from service.jobs.context import job_context

    context = job_context()
    hooks = context.hooks
    sub = hooks.get(game_id, sub_id)
    if sub is None or sub.status != "active":
        return "no active subscription"
    if not _due(sub):
        return "waiting for the scheduled retry"
    token = uuid.uuid4().hex
    ttl = context.settings.webhook_timeout_s + LOCK_MARGIN_S
    deadline = time.monotonic() + ttl
    while not hooks.lock(sub, token, ttl):  # another delivery of it is under way
        if time.monotonic() > deadline:
            raise DeliveryFailed("another delivery of this subscription is still under way")
        time.sleep(0.05)
    try:
        return _deliver(context, sub_id, game_id)
    finally:
        hooks.unlock(sub, token)


class DeliveryFailed(RuntimeError):
    """A delivery could not even be tried (the lock is held); RQ retries the job."""


def _deliver(context: Any, sub_id: str, game_id: str) -> str:
    from service.api.auth import Caller
    from service.api.presenters import events_json

    hooks: WebhookStore = context.hooks
    settings: JobSettings = context.settings
    sub = hooks.get(game_id, sub_id)  # again, under the lock
    if sub is None or sub.status != "active":
        return "no active subscription"
    if not _due(sub):
        return "waiting for the scheduled retry"
    game = context.games.load(game_id)
    if sub.batch is not None and sub.batch[1] > sub.cursor:
        first, last = sub.batch  # a batch already tried: exactly the same events again
        events = context.games.events(game_id, first - 1, last - first + 1, game=game)
    elif sub.cursor >= game.version:
        return "up to date"
    else:
        events = context.games.events(game_id, sub.cursor, BATCH, game=game)
        first, last = sub.cursor + 1, events[-1].version
    shown = events_json(events, Caller(seat=sub.seat), game, games=context.games)
    selected = [e for e in shown if not sub.events or e["type"] in sub.events]
    outcome = "skipped"
    if selected:
        if sub.batch != (first, last) and not hooks.start_batch(sub, first, last):
            return "no active subscription"
        at = datetime.now(UTC)
        msg_id = message_id(sub.sub_id, first, last)
        body = json.dumps(
            {
                "type": "game.events",
                "timestamp": at.isoformat(),
                "data": {"game_id": game_id, "version": last, "events": selected},
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )
        started = time.monotonic()
        entry: dict[str, Any] = {
            "webhook_id": msg_id,
            "first_version": first,
            "last_version": last,
            "events": len(selected),
            "at": at.isoformat(),
        }
        answer: Answer | None = None
        try:
            answer = post(sub.url, body, sign(sub, msg_id, at, body), settings)
            status: int | None = answer.status
            error = None if 200 <= answer.status < 300 else f"the receiver answered {status}"
        except UrlRefused as exc:
            status, error = None, f"URL refused: {exc}"
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            status, error = None, f"{type(exc).__name__}: {exc}"
        entry |= {
            "status": status,
            "ok": error is None,
            "error": error,
            "duration_ms": round((time.monotonic() - started) * 1000, 1),
        }
        hooks.log(sub, entry)
        if error is not None:
            return _failed(context, sub, answer, error)
        outcome = "delivered"
    hooks.advance(sub, last)
    if last < game.version:  # more than one batch behind: the next one
        enqueue_deliveries(context.queue, settings, hooks, game)
    return f"{outcome} versions {first}-{last}"


def _failed(context: Any, sub: Subscription, answer: Answer | None, error: str) -> str:
    """After a failed attempt: disable (410 Gone, or too many failures in a row) or
    schedule the next attempt (the schedule's delay, or the receiver's ``Retry-After``)."""
    hooks: WebhookStore = context.hooks
    settings: JobSettings = context.settings
    if answer is not None and answer.status == 410:
        hooks.disable(sub, "the receiver answered 410 Gone")
        return "disabled: the receiver answered 410 Gone"
    now = datetime.now(UTC)
    delay = retry_delay(settings.webhook_schedule, sub.failures + 1)
    if answer is not None and answer.status in (429, 503):
        asked = retry_after(answer.retry_after, now)
        if asked is not None:
            delay = min(asked, settings.webhook_retry_after_max_s)
    at = now.timestamp() + delay
    failures = hooks.fail(sub, error, settings.webhook_max_failures, at)
    if failures < 0:
        return "no active subscription"
    if failures >= settings.webhook_max_failures:
        return f"disabled: {error}"
    schedule_retry(context.queue, settings, sub, failures, at)
    return f"failed ({error}); next attempt in {delay:.1f} s"
