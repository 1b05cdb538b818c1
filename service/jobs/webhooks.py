"""Webhook deliveries, as jobs.

A subscription (the ``WebhookStore`` port, ``service.store.port``; Redis layout in
``service.store.redis_webhooks``) has its URL, event filter, the seat whose view it
receives (none: a spectator's), its owner, its secret (``whsec_…``, returned once at
creation), status, consecutive failures, ``cursor`` (the last game version delivered), the
batch under way and when the next attempt is due; each keeps a delivery log (the last 100
attempts). Who may subscribe, the limits and the URL check at subscription are the
application's (``service.application.webhooks``).

A delivery (the job ``service.jobs.tasks.deliver_webhook``) sends the events after the
cursor (up to 100), redacted exactly as the subscriber's seat (or a spectator) may see them
through the API (``service.application.rendering``), filtered by type, as one POST signed
per the Standard Webhooks specification with the ``standardwebhooks`` package. The
batch's bounds are fixed, and stored, before its first attempt: every attempt at it (a
retry after an error answer, or after a work horse died mid-POST) sends the same events
under the same ``webhook-id``, and events appended meanwhile go into the next batch, so a
receiver that drops repeats by id sees each event once.

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
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import urllib3
from standardwebhooks.webhooks import Webhook

from service.application.rendering import events_json
from service.application.ssrf import UrlRefused, check_url
from service.jobs.context import JobContext, job_context
from service.jobs.enqueue import DELIVER_WEBHOOK, due, enqueue_deliveries, schedule_retry
from service.jobs.settings import JobSettings
from service.store.port import Subscription, WebhookStore, message_id

BATCH = 100
LOCK_MARGIN_S = 5
JITTER = 0.1  # each retry's delay: ±10 %


@dataclass(frozen=True, slots=True)
class SubscriberView:
    """The viewer a subscription receives the events as: its seat, or a spectator."""

    seat: int | None = None
    admin: bool = False


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
    """The old dotted name of the job ``service.jobs.tasks.deliver_webhook``: jobs queued
    under it before the job bodies moved there still run."""
    return deliver(job_context(), game_id, sub_id)


def deliver(context: JobContext, game_id: str, sub_id: str) -> str:
    """The delivery job: send ``sub_id``'s next batch of events (see the module's
    docstring)."""
    return locked(
        context.hooks, game_id, sub_id, context, lambda: _deliver(context, sub_id, game_id)
    )


def locked(
    hooks: WebhookStore, owner_id: str, sub_id: str, context: JobContext, work: Callable[[], str]
) -> str:
    """Run ``work`` (one delivery of ``sub_id``, a subscription of ``owner_id`` in
    ``hooks``: a game's, or a player's) under the subscription's delivery lock, if it is
    active and due."""
    sub = hooks.get(owner_id, sub_id)
    if sub is None or sub.status != "active":
        return "no active subscription"
    if not due(sub):
        return "waiting for the scheduled retry"
    token = uuid.uuid4().hex
    ttl = context.settings.webhook_timeout_s + LOCK_MARGIN_S
    deadline = time.monotonic() + ttl
    while not hooks.lock(sub, token, ttl):  # another delivery of it is under way
        if time.monotonic() > deadline:
            raise DeliveryFailed("another delivery of this subscription is still under way")
        time.sleep(0.05)
    try:
        return work()
    finally:
        hooks.unlock(sub, token)


class DeliveryFailed(RuntimeError):
    """A delivery could not even be tried (the lock is held); RQ retries the job."""


def _deliver(context: JobContext, sub_id: str, game_id: str) -> str:
    hooks = context.hooks
    settings: JobSettings = context.settings
    sub = hooks.get(game_id, sub_id)  # again, under the lock
    if sub is None or sub.status != "active":
        return "no active subscription"
    if not due(sub):
        return "waiting for the scheduled retry"
    game = context.games.repository.get(game_id)
    if sub.batch is not None and sub.batch[1] > sub.cursor:
        first, last = sub.batch  # a batch already tried: exactly the same events again
        events = context.games.queries.events(game_id, first - 1, last - first + 1, game=game)
    elif sub.cursor >= game.version:
        return "up to date"
    else:
        events = context.games.queries.events(game_id, sub.cursor, BATCH, game=game)
        first, last = sub.cursor + 1, events[-1].version
    shown = events_json(events, SubscriberView(seat=sub.seat), game, games=context.games)
    selected = [e for e in shown if not sub.events or e["type"] in sub.events]
    outcome = "skipped"
    if selected:
        data = {"game_id": game_id, "version": last, "events": selected}
        failed = send(context, hooks, sub, (first, last), "game.events", data, len(selected))
        if failed is not None:
            return failed
        outcome = "delivered"
    hooks.advance(sub, last)
    if last < game.version:  # more than one batch behind: the next one
        enqueue_deliveries(context.queue, settings, hooks, game)
    return f"{outcome} versions {first}-{last}"


def send(  # noqa: PLR0917 (one message of one batch)
    context: JobContext,
    hooks: WebhookStore,
    sub: Subscription,
    batch: tuple[int, int],
    message_type: str,
    data: dict[str, Any],
    count: int,
    *,
    retry_job: str = DELIVER_WEBHOOK,
) -> str | None:
    """POST one batch (``batch``: its first and last number, fixed before its first
    attempt) of ``sub`` as a signed Standard Webhooks message of ``message_type`` holding
    ``data`` (``count`` items), and log the attempt. None when the receiver took it (the
    caller moves the cursor); else what happened after the failure (disabled, or the next
    attempt scheduled as ``retry_job``)."""
    first, last = batch
    if sub.batch != (first, last) and not hooks.start_batch(sub, first, last):
        return "no active subscription"
    at = datetime.now(UTC)
    msg_id = message_id(sub.sub_id, first, last)
    body = json.dumps(
        {"type": message_type, "timestamp": at.isoformat(), "data": data},
        separators=(",", ":"),
        ensure_ascii=False,
    )
    started = time.monotonic()
    entry: dict[str, Any] = {
        "webhook_id": msg_id,
        "first_version": first,
        "last_version": last,
        "events": count,
        "at": at.isoformat(),
    }
    answer: Answer | None = None
    try:
        answer = post(sub.url, body, sign(sub, msg_id, at, body), context.settings)
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
        return _failed(context, hooks, sub, answer, error, retry_job)
    return None


def _failed(  # noqa: PLR0917
    context: JobContext,
    hooks: WebhookStore,
    sub: Subscription,
    answer: Answer | None,
    error: str,
    retry_job: str,
) -> str:
    """After a failed attempt: disable (410 Gone, or too many failures in a row) or
    schedule the next attempt (the schedule's delay, or the receiver's ``Retry-After``)."""
    settings = context.settings
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
    schedule_retry(context.queue, settings, sub, failures, at, job=retry_job)
    return f"failed ({error}); next attempt in {delay:.1f} s"
