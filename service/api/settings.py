"""Settings of the HTTP layer, from the ``create_app`` config mapping, else the environment.

| key / variable          | default  | meaning                                                  |
|-------------------------|----------|----------------------------------------------------------|
| ``TIGRIS_ADMIN_TOKEN``  | unset    | the admin token (unset: no admin access at all)          |
| ``TIGRIS_MAX_BODY``     | ``65536``| largest accepted request body in bytes                   |
| ``TIGRIS_SSE_HEARTBEAT``| ``15``   | seconds between keep-alive comments on an event stream   |
| ``TIGRIS_REDIS_MAX_CONNECTIONS`` | ``1024`` | Redis connections per process (>= server threads) |
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MIN_ADMIN_TOKEN_LENGTH = 16


@dataclass(frozen=True, slots=True)
class ApiSettings:
    admin_token: str | None = None
    max_body_bytes: int = 64 * 1024
    sse_heartbeat_s: float = 15.0
    redis_max_connections: int = 1024

    def __post_init__(self) -> None:
        # A short admin token could be guessed; refuse it rather than run insecurely.
        if self.admin_token is not None and len(self.admin_token) < MIN_ADMIN_TOKEN_LENGTH:
            raise ValueError(
                f"TIGRIS_ADMIN_TOKEN must have at least {MIN_ADMIN_TOKEN_LENGTH} characters"
            )
        if self.max_body_bytes < 1024:
            raise ValueError("TIGRIS_MAX_BODY must be at least 1024 bytes")
        if self.sse_heartbeat_s <= 0:
            raise ValueError("TIGRIS_SSE_HEARTBEAT must be positive")

    @classmethod
    def load(cls, config: Mapping[str, Any], env: Mapping[str, str] | None = None) -> ApiSettings:
        env = os.environ if env is None else env

        def pick(name: str) -> Any:
            return config[name] if name in config else env.get(name) or None

        body = pick("TIGRIS_MAX_BODY")
        heartbeat = pick("TIGRIS_SSE_HEARTBEAT")
        pool = pick("TIGRIS_REDIS_MAX_CONNECTIONS")
        return cls(
            admin_token=pick("TIGRIS_ADMIN_TOKEN"),
            max_body_bytes=64 * 1024 if body is None else int(body),
            sse_heartbeat_s=15.0 if heartbeat is None else float(heartbeat),
            redis_max_connections=1024 if pool is None else int(pool),
        )
