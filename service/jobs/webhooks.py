"""Webhooks: per-game subscriptions and their signed deliveries, as jobs.

A subscription (``WebhookStore``) is a hash ``<prefix>:{<game>}:hook:<id>`` (in the game's
Cluster slot) with its URL, event filter, the seat whose view it receives (none: a
spectator's), its secret (``whsec_…``, returned once at creation), status, consecutive
failures and ``cursor``: the last game version delivered. The game's subscriptions are the
set ``<prefix>:{<game>}:hooks``; each keeps a delivery log (the last 100 attempts).

A delivery (``deliver_webhook``) sends the events after the cursor (up to 100), redacted
exactly as the subscriber's seat (or a spectator) may see them through the API, filtered by
type, as one POST signed per the Standard Webhooks specification with the
``standardwebhooks`` package (``webhook-id`` stays the same for every attempt at that batch,
so receivers can drop a repeat; ``webhook-timestamp``; ``webhook-signature``). A 2xx moves
the cursor on; anything else (an error status, a timeout, a refused URL) is logged and
counted: the job raises and RQ retries it with backoff (``TIGRIS_JOB_RETRIES``), and after
``TIGRIS_WEBHOOK_MAX_FAILURES`` consecutive failures the subscription is disabled, saying
why. Deliveries of one subscription take a lock, so batches go out in order; delivery is at
least once (a worker dying after the POST and before the cursor moves sends it again).
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
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

_ADVANCE = """
local current = tonumber(redis.call('HGET', KEYS[1], 'cursor') or '-1')
if current == nil or current < 0 then return -1 end
if tonumber(ARGV[1]) > current then
  redis.call('HSET', KEYS[1], 'cursor', ARGV[1], 'failures', '0')
  return 1
end
return 0
"""

_FAIL = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if failures >= tonumber(ARGV[1]) and redis.call('HGET', KEYS[1], 'status') == 'active' then
  redis.call('HSET', KEYS[1], 'status', 'disabled', 'disabled_reason', ARGV[2])
end
return failures
"""


class DeliveryFailed(RuntimeError):
    """A delivery did not get a 2xx (the reason in the message); RQ retries it."""


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

    def public_json(self) -> dict[str, Any]:
        """What the API shows (never the secret)."""
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
        }


class WebhookStore:
    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self._keys = RedisKeys(prefix)  # the subscription set is the one the append counts
        self._advance = client.register_script(_ADVANCE)
        self._fail = client.register_script(_FAIL)

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
    ) -> Subscription:
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
        }
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(self._key(game_id, sub.sub_id), mapping=fields)
            pipe.sadd(self._keys.hooks(game_id), sub.sub_id)
            pipe.execute()
        return sub

    def get(self, game_id: str, sub_id: str) -> Subscription | None:
        fields: dict[str, str] = self.client.hgetall(self._key(game_id, sub_id))
        if not fields:
            return None
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
        )

    def of_game(self, game_id: str) -> list[Subscription]:
        ids = sorted(self.client.smembers(self._keys.hooks(game_id)))
        found = [self.get(game_id, sub_id) for sub_id in ids]
        return [sub for sub in found if sub is not None]

    def advance(self, sub: Subscription, version: int) -> bool:
        return bool(self._advance(keys=[self._key(sub.game_id, sub.sub_id)], args=[version]) == 1)

    def fail(self, sub: Subscription, reason: str, max_failures: int) -> int:
        disabled = f"disabled after {max_failures} failed deliveries in a row; last: {reason}"
        return int(
            self._fail(keys=[self._key(sub.game_id, sub.sub_id)], args=[max_failures, disabled])
        )

    def log(self, sub: Subscription, entry: dict[str, Any]) -> None:
        key = self._log_key(sub.game_id, sub.sub_id)
        with self.client.pipeline(transaction=True) as pipe:
            pipe.lpush(key, json.dumps(entry))
            pipe.ltrim(key, 0, LOG_LENGTH - 1)
            pipe.execute()

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


def enqueue_deliveries(
    queue: Queue,
    settings: JobSettings,
    hooks: WebhookStore,
    game: LoadedGame,
    *,
    known: int | None = None,
) -> int:
    """Enqueue a delivery for every active subscription of ``game`` that is behind it.
    ``known``: the game's subscription count, when the append that moved it returned it
    (0: nothing to read)."""
    if known == 0:
        return 0
    enqueued = 0
    for sub in hooks.of_game(game.game_id):
        if sub.status == "active" and sub.cursor < game.version:
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


def sign(sub: Subscription, msg_id: str, at: datetime, body: str) -> dict[str, str]:
    """The Standard Webhooks headers of one message."""
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(sub.secret).sign(msg_id, at, body),
        "content-type": "application/json",
    }


def post(url: str, body: str, headers: dict[str, str], settings: JobSettings) -> int:
    """POST ``body`` to ``url``, checked again now and connected to the address checked (no
    redirect followed). Returns the status; raises ``UrlRefused`` or urllib3's errors."""
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
        return int(response.status)


def deliver_webhook(game_id: str, sub_id: str) -> str:
    """The job: send ``sub_id``'s next batch of events (see the module's docstring)."""
    from service.jobs.context import job_context

    context = job_context()
    hooks = context.hooks
    sub = hooks.get(game_id, sub_id)
    if sub is None or sub.status != "active":
        return "no active subscription"
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


def _deliver(context: Any, sub_id: str, game_id: str) -> str:
    from service.api.auth import Caller
    from service.api.presenters import events_json

    hooks: WebhookStore = context.hooks
    settings: JobSettings = context.settings
    sub = hooks.get(game_id, sub_id)  # again, under the lock
    if sub is None or sub.status != "active":
        return "no active subscription"
    game = context.games.load(game_id)
    if sub.cursor >= game.version:
        return "up to date"
    events = context.games.events(game_id, sub.cursor, BATCH, game=game)
    last = events[-1].version
    shown = events_json(events, Caller(seat=sub.seat), game, games=context.games)
    selected = [e for e in shown if not sub.events or e["type"] in sub.events]
    outcome = "skipped"
    if selected:
        at = datetime.now(UTC)
        msg_id = f"msg_{sub.sub_id}_{sub.cursor + 1}_{last}"
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
            "first_version": sub.cursor + 1,
            "last_version": last,
            "events": len(selected),
            "at": at.isoformat(),
        }
        try:
            status = post(sub.url, body, sign(sub, msg_id, at, body), settings)
            error = None if 200 <= status < 300 else f"the receiver answered {status}"
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
            failures = hooks.fail(sub, error, settings.webhook_max_failures)
            if failures >= settings.webhook_max_failures:
                return f"disabled: {error}"
            raise DeliveryFailed(f"delivery {msg_id} to {sub.url} failed: {error}")
        outcome = "delivered"
    hooks.advance(sub, last)
    if last < game.version:  # more than one batch behind: the next one
        enqueue_deliveries(context.queue, settings, hooks, game)
    return f"{outcome} versions {sub.cursor + 1}-{last}"
