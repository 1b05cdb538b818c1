"""Settings of the background jobs (RQ), read from the environment when built (nothing at
import time). The table of all settings: ``docs/configuration.md``."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import field_validator, model_validator
from pydantic_settings import NoDecode

from service.config import EnvSettings, is_cluster_url, redact_url, setting

DEFAULT_RETRIES = (2, 10, 30)
# Standard Webhooks' retry schedule: seconds before each attempt (the first: immediately).
DEFAULT_WEBHOOK_SCHEDULE = (0, 5, 300, 1800, 7200, 18000, 36000, 36000)
QUEUE_NAME = r"^[A-Za-z0-9_-]{1,60}$"


class JobSettings(EnvSettings):
    """The queue, the workers and the periodic jobs; webhook deliveries."""

    rq_redis_url: str | None = setting(
        None,
        "The queues' Redis, a single server (RQ has no cluster mode); unset: ``REDIS_URL`` "
        "unless that is a cluster (then there are no background jobs).",
        validation_alias="RQ_REDIS_URL",
    )
    # Read only to default rq_redis_url; documented (and checked) with StoreSettings.
    store_redis_url: str | None = setting(
        None, "See StoreSettings.redis_url.", validation_alias="REDIS_URL", exclude=True
    )
    workers: int = setting(
        2,
        "Worker processes of ``python -m service worker``.",
        ge=1,
        validation_alias="TIGRIS_RQ_WORKERS",
    )
    queue: str = setting(
        "tigris", "The queue's name.", pattern=QUEUE_NAME, validation_alias="TIGRIS_RQ_QUEUE"
    )
    retries: Annotated[tuple[int, ...], NoDecode] = setting(
        DEFAULT_RETRIES,
        "Seconds before each retry of a failed job, comma-separated (exponential backoff; "
        "as many retries as delays, at most 10); ``none``: no retry.",
        max_length=10,
        validation_alias="TIGRIS_JOB_RETRIES",
    )
    sweep_s: int = setting(
        15,
        "Seconds between two sweeps over the active games (bots, clocks).",
        ge=1,
        validation_alias="TIGRIS_JOB_SWEEP_S",
    )
    clock_resign_after: int = setting(
        3,
        "A seat whose turn clock runs out this many times in a row resigns: the clock's "
        "job sends its ``Resign`` instead of a move (domain/RESIGNATION.md); 0: never.",
        ge=0,
        validation_alias="TIGRIS_CLOCK_RESIGN_AFTER",
    )
    abandoned_s: int = setting(
        15,
        "A job whose worker sent no heartbeat for this many seconds is abandoned "
        "(retried, or failed when it has no retry left).",
        ge=1,
        validation_alias="TIGRIS_RQ_ABANDONED_S",
    )
    maintenance_s: int = setting(
        15,
        "Seconds between a worker's registry cleanups.",
        ge=1,
        validation_alias="TIGRIS_RQ_MAINTENANCE_S",
    )
    embedded_worker: bool = setting(
        True,
        "``python -m service`` on the embedded Redis also runs ``python -m service worker``.",
    )
    webhook_allow_private: bool = setting(
        False,
        "Allow webhook URLs on loopback, link-local and private addresses (refused by "
        "default: server-side request forgery).",
    )
    webhook_timeout_s: int = setting(5, "Seconds a webhook delivery may take.", ge=1)
    webhook_max_failures: int = setting(
        8, "Consecutive failed deliveries that disable a webhook subscription.", ge=1
    )
    webhook_schedule: Annotated[tuple[int, ...], NoDecode] = setting(
        DEFAULT_WEBHOOK_SCHEDULE,
        "Seconds before each attempt at a webhook message, comma-separated, 2 to 50: the "
        "Standard Webhooks schedule (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); "
        "each retry's delay gets 10 % jitter either way, and the last delay repeats should "
        "``TIGRIS_WEBHOOK_MAX_FAILURES`` allow more attempts.",
        min_length=2,
        max_length=50,
    )
    webhook_retry_after_max_s: int = setting(
        36000,
        "The longest ``Retry-After`` (of a 429 or 503 answer) a webhook retry waits for.",
        ge=1,
    )
    webhooks_per_game: int = setting(
        20, "Webhook subscriptions a game may have (409 ``too-many-webhooks`` beyond).", ge=1
    )
    webhooks_per_token: int = setting(
        5,
        "Webhook subscriptions one token (a seat's, or the admin's) may make in one game.",
        ge=1,
    )
    audit_s: int = setting(3600, "Seconds between two audits of every active game.", ge=1)

    @model_validator(mode="before")
    @classmethod
    def _queue_redis_defaults_to_the_store(cls, data: Any) -> Any:
        """No ``RQ_REDIS_URL``: the store's ``REDIS_URL``, unless that is a cluster."""
        if not isinstance(data, dict):
            return data
        own = data.get("rq_redis_url") or data.get("RQ_REDIS_URL")
        store = data.get("store_redis_url") or data.get("REDIS_URL")
        if not own and store and not is_cluster_url(str(store)):
            data = {k: v for k, v in data.items() if k not in ("RQ_REDIS_URL", "rq_redis_url")}
            data["rq_redis_url"] = store
        return data

    @field_validator("rq_redis_url")
    @classmethod
    def _single_server(cls, url: str | None) -> str | None:
        if url is not None and is_cluster_url(url):
            raise ValueError(
                f"{redact_url(url)} is a Redis Cluster; RQ needs a single server: "
                "set RQ_REDIS_URL to a plain Redis"
            )
        return url

    @field_validator("retries", "webhook_schedule", mode="before")
    @classmethod
    def _delays(cls, raw: Any) -> Any:
        if not isinstance(raw, str):
            return raw
        if raw.strip() == "none":
            return ()
        try:
            return tuple(int(part) for part in raw.split(","))
        except ValueError:
            raise ValueError("must be comma-separated seconds (or none)") from None

    @field_validator("retries", "webhook_schedule")
    @classmethod
    def _non_negative(cls, delays: tuple[int, ...]) -> tuple[int, ...]:
        if any(delay < 0 for delay in delays):
            raise ValueError("delays must be >= 0")
        return delays

    @property
    def configured(self) -> bool:
        """Whether there is a queue Redis at all (not with only a cluster ``REDIS_URL``)."""
        return self.rq_redis_url is not None
