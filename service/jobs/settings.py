"""Settings of the background jobs (RQ), read from the environment (nothing at import time).

- ``RQ_REDIS_URL`` (default ``REDIS_URL``): the queues' Redis, a single server (RQ has no
  cluster mode; with a cluster ``REDIS_URL`` and no ``RQ_REDIS_URL`` there are no jobs)
- ``TIGRIS_RQ_WORKERS`` (2): worker processes of ``python -m service worker``
- ``TIGRIS_RQ_QUEUE`` (``tigris``): the queue's name
- ``TIGRIS_JOB_RETRIES`` (``2,10,30``): seconds before each retry of a failed job
  (exponential backoff; as many retries as delays; ``none``: no retry)
- ``TIGRIS_JOB_SWEEP_S`` (15): seconds between two sweeps over the active games
- ``TIGRIS_RQ_ABANDONED_S`` (15): a job whose worker sent no heartbeat for this long is
  abandoned (retried, or failed when it has no retry left)
- ``TIGRIS_RQ_MAINTENANCE_S`` (15): seconds between a worker's registry cleanups
- ``TIGRIS_WEBHOOK_ALLOW_PRIVATE`` (0): allow webhook URLs on loopback, link-local and
  private addresses (refused by default: server-side request forgery)
- ``TIGRIS_WEBHOOK_TIMEOUT_S`` (5): how long a delivery may take
- ``TIGRIS_WEBHOOK_MAX_FAILURES`` (8): consecutive failed deliveries that disable a
  subscription
- ``TIGRIS_WEBHOOK_SCHEDULE`` (``0,5,300,1800,7200,18000,36000,36000``): seconds before each
  attempt at a webhook message, the Standard Webhooks schedule (immediately, 5 s, 5 min,
  30 min, 2 h, 5 h, 10 h, 10 h); each retry's delay gets ±10 % jitter, and the last delay
  repeats should ``TIGRIS_WEBHOOK_MAX_FAILURES`` allow more attempts
- ``TIGRIS_WEBHOOK_RETRY_AFTER_MAX_S`` (36000): the longest ``Retry-After`` (of a 429 or
  503 answer) a retry waits for
- ``TIGRIS_WEBHOOKS_PER_GAME`` (20), ``TIGRIS_WEBHOOKS_PER_TOKEN`` (5): subscriptions a game
  may have, and one token (a seat's, or the admin's) may make in one game
- ``TIGRIS_AUDIT_S`` (3600): seconds between two audits of every active game
- ``TIGRIS_EMBEDDED_WORKER`` (1): ``python -m service`` on the embedded Redis also runs
  ``python -m service worker`` (``0``: not)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from service.config import SettingsError, int_setting, is_cluster_url, redact_url

DEFAULT_RETRIES = (2, 10, 30)
# Standard Webhooks' retry schedule: seconds before each attempt (the first: immediately).
DEFAULT_WEBHOOK_SCHEDULE = (0, 5, 300, 1800, 7200, 18000, 36000, 36000)
_QUEUE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


@dataclass(frozen=True, slots=True)
class JobSettings:
    rq_redis_url: str | None = None
    workers: int = 2
    queue: str = "tigris"
    retries: tuple[int, ...] = DEFAULT_RETRIES
    sweep_s: int = 15
    abandoned_s: int = 15
    maintenance_s: int = 15
    embedded_worker: bool = True
    webhook_allow_private: bool = False
    webhook_timeout_s: int = 5
    webhook_max_failures: int = 8
    webhook_schedule: tuple[int, ...] = DEFAULT_WEBHOOK_SCHEDULE
    webhook_retry_after_max_s: int = 36000
    webhooks_per_game: int = 20
    webhooks_per_token: int = 5
    audit_s: int = 3600

    def __post_init__(self) -> None:
        if self.rq_redis_url is not None and is_cluster_url(self.rq_redis_url):
            raise SettingsError(
                f"RQ_REDIS_URL {redact_url(self.rq_redis_url)} is a Redis Cluster; RQ needs a "
                "single server: set RQ_REDIS_URL to a plain Redis"
            )
        if self.workers < 1:
            raise SettingsError(f"TIGRIS_RQ_WORKERS must be >= 1, not {self.workers}")
        if not self.queue or not set(self.queue) <= _QUEUE_CHARS or len(self.queue) > 60:
            raise SettingsError(f"TIGRIS_RQ_QUEUE {self.queue!r} is not a plain name")
        if any(delay < 0 for delay in self.retries) or len(self.retries) > 10:
            raise SettingsError(f"TIGRIS_JOB_RETRIES must be up to 10 delays >= 0: {self.retries}")
        schedule = self.webhook_schedule
        if len(schedule) < 2 or len(schedule) > 50 or any(delay < 0 for delay in schedule):
            raise SettingsError(f"TIGRIS_WEBHOOK_SCHEDULE must be 2 to 50 delays >= 0: {schedule}")
        for name, value in (
            ("TIGRIS_JOB_SWEEP_S", self.sweep_s),
            ("TIGRIS_RQ_ABANDONED_S", self.abandoned_s),
            ("TIGRIS_RQ_MAINTENANCE_S", self.maintenance_s),
            ("TIGRIS_WEBHOOK_TIMEOUT_S", self.webhook_timeout_s),
            ("TIGRIS_WEBHOOK_MAX_FAILURES", self.webhook_max_failures),
            ("TIGRIS_AUDIT_S", self.audit_s),
            ("TIGRIS_WEBHOOK_RETRY_AFTER_MAX_S", self.webhook_retry_after_max_s),
            ("TIGRIS_WEBHOOKS_PER_GAME", self.webhooks_per_game),
            ("TIGRIS_WEBHOOKS_PER_TOKEN", self.webhooks_per_token),
        ):
            if value < 1:
                raise SettingsError(f"{name} must be >= 1, not {value}")

    @property
    def configured(self) -> bool:
        """Whether there is a queue Redis at all (not with only a cluster ``REDIS_URL``)."""
        return self.rq_redis_url is not None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> JobSettings:
        env = os.environ if env is None else env
        url = env.get("RQ_REDIS_URL") or env.get("REDIS_URL") or None
        if url is not None and not env.get("RQ_REDIS_URL") and is_cluster_url(url):
            url = None  # a cluster store and no queue Redis: no background jobs
        return cls(
            rq_redis_url=url,
            workers=int_setting(env, "TIGRIS_RQ_WORKERS", 2),
            queue=env.get("TIGRIS_RQ_QUEUE") or "tigris",
            retries=_delays(env.get("TIGRIS_JOB_RETRIES")),
            sweep_s=int_setting(env, "TIGRIS_JOB_SWEEP_S", 15),
            abandoned_s=int_setting(env, "TIGRIS_RQ_ABANDONED_S", 15),
            maintenance_s=int_setting(env, "TIGRIS_RQ_MAINTENANCE_S", 15),
            embedded_worker=_flag(env, "TIGRIS_EMBEDDED_WORKER", True),
            webhook_allow_private=_flag(env, "TIGRIS_WEBHOOK_ALLOW_PRIVATE", False),
            webhook_timeout_s=int_setting(env, "TIGRIS_WEBHOOK_TIMEOUT_S", 5),
            webhook_max_failures=int_setting(env, "TIGRIS_WEBHOOK_MAX_FAILURES", 8),
            webhook_schedule=_delays(
                env.get("TIGRIS_WEBHOOK_SCHEDULE"),
                "TIGRIS_WEBHOOK_SCHEDULE",
                DEFAULT_WEBHOOK_SCHEDULE,
            ),
            webhook_retry_after_max_s=int_setting(env, "TIGRIS_WEBHOOK_RETRY_AFTER_MAX_S", 36000),
            webhooks_per_game=int_setting(env, "TIGRIS_WEBHOOKS_PER_GAME", 20),
            webhooks_per_token=int_setting(env, "TIGRIS_WEBHOOKS_PER_TOKEN", 5),
            audit_s=int_setting(env, "TIGRIS_AUDIT_S", 3600),
        )


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw == "":
        return default
    if raw in {"1", "true", "yes"}:
        return True
    if raw in {"0", "false", "no"}:
        return False
    raise SettingsError(f"{name} must be 1/0, true/false or yes/no, not {raw!r}")


def _delays(
    raw: str | None,
    name: str = "TIGRIS_JOB_RETRIES",
    default: tuple[int, ...] = DEFAULT_RETRIES,
) -> tuple[int, ...]:
    if raw is None or raw.strip() == "":
        return default
    if raw.strip() == "none" and name == "TIGRIS_JOB_RETRIES":
        return ()
    try:
        return tuple(int(part) for part in raw.split(","))
    except ValueError:
        raise SettingsError(f"{name} must be comma-separated seconds, not {raw!r}") from None
