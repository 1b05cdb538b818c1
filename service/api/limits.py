"""Rate limits per token and per client address (``flask-limiter``), counted in Redis.

Two limits apply to every request but the health, readiness and metrics endpoints:

- per token (``TIGRIS_RATE_LIMIT_TOKEN``, default ``30000 per minute``): a request that sends
  ``Authorization: Bearer …`` counts against its token, whichever seat or game it is for
  (the token is counted under its SHA-256 hash, never in clear);
- per client address (``TIGRIS_RATE_LIMIT_CLIENT``, default ``120000 per minute``): every
  request counts against the address it came from. Behind a proxy that address is the
  proxy's: raise this limit there (or limit at the proxy).

Counting every request in Redis would add a write per limit to every request, and with
``appendfsync always`` each of those waits for a disk flush. So each server process counts
a key's requests itself and charges Redis once every ``batch`` requests, with that many
(``Batched``): ``batch`` is a twentieth of the smallest limit's count, at most 50, so the
limit's precision stays within 5 % per process, and a limit of 20 or fewer is charged on
every request. A key found over its limit is charged on every request until its window
has passed. A request charged to neither limit skips the limiter's work altogether (its
request filter), as the exempt endpoints do.

A request over a limit is a 429 problem document (``/problems/rate-limited``) with
``Retry-After`` (seconds until the window lets it through) and the limit in ``rate_limit``;
nothing else happens. Each value is anything ``limits`` parses, several separated by ``;``
(``20/second;3000/minute``). The counts use the sliding window counter strategy (two
counters per key, one round trip per charge). The defaults only stop a
flood (500 requests a second per token, 2,000 per address, sustained for a minute): a
client that plays a whole card game as fast as the test client can (about 10,000 requests
in well under a minute) stays under them, and so do the benchmarks. A public deployment
should set tighter values (a person's seat sends a few requests a minute, a fast bot a few
a second), e.g. ``TIGRIS_RATE_LIMIT_TOKEN=20/second;600/minute``.

The counters live on the service's Redis (``REDIS_URL``, or the embedded one; a Redis
Cluster too, each counter a key of its own) under ``<TIGRIS_KEY_PREFIX>:rl``, so every
server process and replica shares them; ``TIGRIS_RATE_LIMIT_STORAGE`` names another store
(any ``limits`` storage URL, such as ``redis://other:6379`` or ``memory://`` for
counts per process). When the store does not answer, requests pass (the limits are a guard,
not a reason to refuse service). ``TIGRIS_RATE_LIMITS=off`` turns the limits off.
"""

from __future__ import annotations

import functools
import hashlib
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from flask import Flask, Response, g, request
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded, RequestLimit
from limits import parse_many
from pydantic import field_validator

from service.api.problems import ApiProblem, problem_response
from service.config import EnvSettings, SettingsError, setting

DEFAULT_TOKEN_LIMIT = "30000 per minute"
DEFAULT_CLIENT_LIMIT = "120000 per minute"
# Endpoints that probes and scrapers call: never limited.
EXEMPT_ENDPOINTS = frozenset({"ops.healthz", "ops.readyz", "metrics.scrape"})
EXTENSION = "tigris.limits"


def _check_rate(name: str, value: str) -> str:
    try:
        parse_many(value)
    except ValueError:
        raise SettingsError(
            f"{name} must be a rate such as '3000 per minute', not {value!r}"
        ) from None
    return value


class RateLimitSettings(EnvSettings):
    """The rate limits, as set (``LimitSettings`` is what the app runs with)."""

    rate_limits: bool = setting(True, "Apply the rate limits (``off``: none).")
    rate_limit_token: str = setting(
        DEFAULT_TOKEN_LIMIT,
        "Requests per bearer token (anything ``limits`` parses, several separated by ``;``).",
    )
    rate_limit_client: str = setting(
        DEFAULT_CLIENT_LIMIT, "Requests per client address (same form)."
    )
    rate_limit_storage: str | None = setting(
        None,
        "Where the counters are kept, a ``limits`` storage URL (unset: the service's Redis, "
        "under ``<TIGRIS_KEY_PREFIX>:rl``).",
    )

    @field_validator("rate_limit_token", "rate_limit_client")
    @classmethod
    def _rate(cls, value: str) -> str:
        try:
            parse_many(value)
        except ValueError:
            raise ValueError(f"must be a rate such as '3000 per minute', not {value!r}") from None
        return value


@dataclass(frozen=True, slots=True)
class LimitSettings:
    enabled: bool = True
    per_token: str = DEFAULT_TOKEN_LIMIT
    per_client: str = DEFAULT_CLIENT_LIMIT
    storage_uri: str = "memory://"
    key_prefix: str = "tigris:rl"

    def __post_init__(self) -> None:
        _check_rate("TIGRIS_RATE_LIMIT_TOKEN", self.per_token)
        _check_rate("TIGRIS_RATE_LIMIT_CLIENT", self.per_client)

    @classmethod
    def load(
        cls, config: Mapping[str, Any], redis_url: str | None, key_prefix: str
    ) -> LimitSettings:
        """From the app's config, else the environment; the storage defaults to the
        service's Redis (``redis_url``)."""
        given = RateLimitSettings.from_config(config)
        storage = given.rate_limit_storage
        if not storage:
            storage = storage_uri(redis_url) if redis_url else "memory://"
        return cls(
            enabled=given.rate_limits,
            per_token=given.rate_limit_token,
            per_client=given.rate_limit_client,
            storage_uri=storage,
            key_prefix=f"{key_prefix}:rl",
        )


def storage_uri(redis_url: str) -> str:
    """The ``limits`` storage URL of the service's Redis URL (same server, same cluster)."""
    scheme, sep, rest = redis_url.partition("://")
    scheme = scheme.lower()
    if scheme == "unix":
        return f"redis+unix://{rest}"
    if scheme == "rediss+cluster":
        raise SettingsError(
            "TLS Redis Cluster: set TIGRIS_RATE_LIMIT_STORAGE for the rate limit counters"
        )
    return f"{scheme}{sep}{rest}"


MAX_BATCH = 50
# Keys remembered per limit and process before the local counts start afresh.
MAX_KEYS = 100_000


def batch_size(limit: str) -> int:
    """Requests counted in the process per charge to Redis: a twentieth of the smallest
    count of ``limit``, between 1 and ``MAX_BATCH``."""
    smallest = min(item.amount for item in parse_many(limit))
    return max(1, min(MAX_BATCH, smallest // 20))


class Batched:
    """One limit's local counts: ``exempt`` lets ``batch - 1`` of every ``batch`` requests
    of a key through without a charge (flask-limiter's ``exempt_when``), ``cost`` charges
    the ``batch``-th with the whole batch (its ``cost``); a key over the limit (``breached``)
    is charged 1 on every request until its window has passed."""

    def __init__(self, scope: str, key_func: Callable[[], str], batch: int) -> None:
        self.scope = scope
        self._key_func = key_func
        self.batch = batch
        self._counts: dict[str, int] = {}
        self._blocked: dict[str, float] = {}
        self._lock = threading.Lock()

    def skip(self) -> bool:
        """Whether this request goes uncharged (counted here only); decided once per
        request by the limiter's request filter, read back by ``exempt``."""
        skipped = self._decide()
        g.setdefault("tigris_skips", {})[self.scope] = skipped
        return skipped

    def exempt(self) -> bool:
        skips: dict[str, bool] = g.get("tigris_skips", {})
        return skips.get(self.scope, False)

    def _decide(self) -> bool:
        if self.batch == 1:
            g.setdefault("tigris_costs", {})[self.scope] = 1
            return False
        key = self._key_func()
        now = time.monotonic()
        with self._lock:
            until = self._blocked.get(key)
            if until is not None:
                if until > now:
                    g.setdefault("tigris_costs", {})[self.scope] = 1
                    return False
                del self._blocked[key]
            if len(self._counts) >= MAX_KEYS:
                self._counts.clear()
            count = self._counts.get(key, 0) + 1
            if count < self.batch:
                self._counts[key] = count
                return True
            self._counts[key] = 0
        g.setdefault("tigris_costs", {})[self.scope] = self.batch
        return False

    def cost(self) -> int:
        costs: dict[str, int] = g.get("tigris_costs", {})
        return costs.get(self.scope, 1)

    def breached(self, key: str, seconds: float) -> None:
        with self._lock:
            if len(self._blocked) >= MAX_KEYS:
                self._blocked.clear()
            self._blocked[key] = time.monotonic() + seconds


def _token_key() -> str:
    header = request.headers.get("Authorization", "")
    if len(header) > TOKEN_HASH_CACHED_LENGTH:  # not a token of ours: not kept in memory
        return _token_hash.__wrapped__(header)
    return _token_hash(header)


TOKEN_HASH_CACHED_LENGTH = 128  # headers longer than this are hashed, not remembered


@functools.lru_cache(maxsize=4096)  # a token sends many requests
def _token_hash(header: str) -> str:
    token = header[7:].strip() if header[:7].lower() == "bearer " else ""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


def _no_token() -> bool:
    return not request.headers.get("Authorization")


def _client_key() -> str:
    return request.remote_addr or "-"


def _exempt() -> bool:
    return request.endpoint in EXEMPT_ENDPOINTS


def _breach_handler(batches: dict[str, Batched]) -> Callable[[RequestLimit], Response]:
    def breached(limit: RequestLimit) -> Response:
        return _breached(limit, batches)

    return breached


def _breached(limit: RequestLimit, batches: dict[str, Batched]) -> Response:
    # Seconds until the window lets a request through again; at most one window.
    retry_after = max(1, min(limit.limit.get_expiry(), math.ceil(limit.reset_at - time.time())))
    scope = limit.request_args[-1] if limit.request_args else ""
    if scope in batches and len(limit.request_args) >= 2:
        batches[scope].breached(limit.request_args[-2], retry_after)
    who = "token" if scope == "token" else "client address"
    return problem_response(
        ApiProblem(
            429,
            "rate-limited",
            "Too many requests",
            f"this {who} is over its rate limit ({limit.limit}); retry after {retry_after} s",
            headers={"Retry-After": str(retry_after)},
            rate_limit=str(limit.limit),
        )
    )


def install(app: Flask, settings: LimitSettings) -> Limiter | None:
    """The limits on every route of ``app`` but the exempt ones; None when turned off."""
    if not settings.enabled:
        return None
    token = Batched("token", _token_key, batch_size(settings.per_token))
    client = Batched("client", _client_key, batch_size(settings.per_client))

    def uncharged() -> bool:
        """True when this request charges nothing to Redis (counted in the process only, or
        an exempt endpoint): then the limiter's check is not run at all."""
        if _exempt():
            return True
        token_skipped = token.skip() if request.headers.get("Authorization") else True
        if not token_skipped:
            client.skip()
            return False
        return client.skip()

    def token_exempt() -> bool:
        return _no_token() or token.exempt()

    limiter = Limiter(
        _client_key,
        app=app,
        application_limits=[
            ApplicationLimit(
                settings.per_token,
                key_function=_token_key,
                scope="token",
                exempt_when=token_exempt,
                cost=token.cost,
            ),
            ApplicationLimit(
                settings.per_client,
                key_function=_client_key,
                scope="client",
                exempt_when=client.exempt,
                cost=client.cost,
            ),
        ],
        storage_uri=settings.storage_uri,
        strategy="sliding-window-counter",
        key_prefix=settings.key_prefix,
        headers_enabled=False,  # Retry-After on the 429 only: no extra reads per request
        swallow_errors=True,  # a store outage lets requests through
        on_breach=_breach_handler({"token": token, "client": client}),
    )
    # flask-limiter's own hooks (its check before the request, its header and conditional
    # deduction step after it, the release of its per-request context at teardown) run only
    # for the requests that are charged, one in ``batch``: the rest skip its work altogether
    # (the after and teardown steps cost as much as a bare request's view when they run).
    _charged_only(app, limiter, uncharged)

    @app.errorhandler(RateLimitExceeded)
    def _limited(exc: RateLimitExceeded) -> Response:
        if isinstance(exc.response, Response):
            return exc.response
        return problem_response(ApiProblem(429, "rate-limited", "Too many requests"))

    app.extensions[EXTENSION] = limiter
    return limiter


_CHARGED = "tigris_limit_charged"


def _charged_only(app: Flask, limiter: Limiter, uncharged: Callable[[], bool]) -> None:
    """Replace the three hooks ``Limiter.init_app`` registered on ``app`` by ones that run
    only when this request is charged. They are flask-limiter internals: should an upgrade
    rename them, the lookups below fail at start (``StopIteration``, ``ValueError``), never
    silently."""
    before = app.before_request_funcs.setdefault(None, [])
    after = app.after_request_funcs.setdefault(None, [])
    teardown = app.teardown_request_funcs.setdefault(None, [])
    check = limiter._check_request_limit
    inject = next(
        hook
        for hook in after
        if getattr(hook, "func", None) is getattr(Limiter, "_Limiter__inject_headers")  # noqa: B009
        and getattr(hook, "args", ()) == (limiter,)
    )
    release = getattr(limiter, "_Limiter__release_context")  # noqa: B009

    def check_when_charged() -> None:
        if not uncharged():
            g.setdefault(_CHARGED, True)
            check()

    def inject_when_charged(response: Response) -> Response:
        if g.get(_CHARGED):
            return cast(Response, inject(response))
        return response

    def release_when_charged(exc: BaseException | None = None) -> None:
        if g.get(_CHARGED):
            release(exc)

    before[before.index(check)] = check_when_charged
    after[after.index(inject)] = inject_when_charged
    teardown[teardown.index(release)] = release_when_charged
