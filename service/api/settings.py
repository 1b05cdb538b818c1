"""Settings of the HTTP layer, from the ``create_app`` config mapping, else the environment.

| key / variable          | default  | meaning                                                  |
|-------------------------|----------|----------------------------------------------------------|
| ``TIGRIS_ADMIN_TOKEN``  | unset    | the admin token (unset: no admin access at all)          |
| ``TIGRIS_MAX_BODY``     | ``65536``| largest accepted request body in bytes                   |
| ``TIGRIS_SSE_HEARTBEAT``| ``15``   | seconds between keep-alive comments on an event stream   |
| ``TIGRIS_REDIS_MAX_CONNECTIONS`` | ``1024`` | Redis connections per process for commands |
| ``TIGRIS_STREAMS_MAX``  | ``2000`` | open event streams per server process (then 503)       |
| ``TIGRIS_STREAMS_PER_CLIENT`` | ``64`` | open streams per client address per process (429) |
| ``TIGRIS_STREAMS_PER_GAME`` | ``500`` | open streams per game per process (then 429)        |
| ``TIGRIS_STREAM_TICKET_TTL`` | ``60`` | seconds a stream ticket stays valid                  |
| ``TIGRIS_STREAM_CONCURRENCY`` | ``2`` | streams per process building a batch at one time    |
| ``TIGRIS_CORS_ORIGINS`` | unset    | comma-separated origins allowed by CORS (unset: none)    |

Blocking stream reads use their own Redis pool of ``TIGRIS_STREAMS_MAX`` connections whose
socket timeout is the heartbeat plus a margin (``service.store.connect``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MIN_ADMIN_TOKEN_LENGTH = 16
# A stream's blocking read lasts up to one heartbeat; the Redis client for it is built
# with a socket timeout above this (service.store.connect.blocking_client).
MAX_HEARTBEAT_S = 300.0
_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.\[\]:-]+$")


@dataclass(frozen=True, slots=True)
class ApiSettings:
    admin_token: str | None = None
    max_body_bytes: int = 64 * 1024
    sse_heartbeat_s: float = 15.0
    redis_max_connections: int = 1024
    max_streams: int = 2000
    streams_per_client: int = 64
    streams_per_game: int = 500
    stream_ticket_ttl_s: int = 60
    stream_concurrency: int = 2
    cors_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # A short admin token could be guessed; refuse it rather than run insecurely.
        if self.admin_token is not None and len(self.admin_token) < MIN_ADMIN_TOKEN_LENGTH:
            raise ValueError(
                f"TIGRIS_ADMIN_TOKEN must have at least {MIN_ADMIN_TOKEN_LENGTH} characters"
            )
        if self.max_body_bytes < 1024:
            raise ValueError("TIGRIS_MAX_BODY must be at least 1024 bytes")
        if not 0 < self.sse_heartbeat_s <= MAX_HEARTBEAT_S:
            raise ValueError(f"TIGRIS_SSE_HEARTBEAT must be in (0, {MAX_HEARTBEAT_S:g}] seconds")
        for name, value in (
            ("TIGRIS_STREAMS_MAX", self.max_streams),
            ("TIGRIS_STREAMS_PER_CLIENT", self.streams_per_client),
            ("TIGRIS_STREAMS_PER_GAME", self.streams_per_game),
            ("TIGRIS_STREAM_TICKET_TTL", self.stream_ticket_ttl_s),
            ("TIGRIS_STREAM_CONCURRENCY", self.stream_concurrency),
        ):
            if value < 1:
                raise ValueError(f"{name} must be at least 1")
        for origin in self.cors_origins:
            if not _ORIGIN.match(origin):
                raise ValueError(f"TIGRIS_CORS_ORIGINS: {origin!r} is not a scheme://host[:port]")

    @classmethod
    def load(cls, config: Mapping[str, Any], env: Mapping[str, str] | None = None) -> ApiSettings:
        env = os.environ if env is None else env

        def pick(name: str) -> Any:
            return config[name] if name in config else env.get(name) or None

        body = pick("TIGRIS_MAX_BODY")
        heartbeat = pick("TIGRIS_SSE_HEARTBEAT")
        pool = pick("TIGRIS_REDIS_MAX_CONNECTIONS")

        def number(name: str, default: int) -> int:
            value = pick(name)
            return default if value is None else int(value)

        origins = pick("TIGRIS_CORS_ORIGINS")
        if isinstance(origins, str):
            origins = [o.strip() for o in origins.split(",") if o.strip()]
        return cls(
            admin_token=pick("TIGRIS_ADMIN_TOKEN"),
            max_body_bytes=64 * 1024 if body is None else int(body),
            sse_heartbeat_s=15.0 if heartbeat is None else float(heartbeat),
            redis_max_connections=1024 if pool is None else int(pool),
            max_streams=number("TIGRIS_STREAMS_MAX", 2000),
            streams_per_client=number("TIGRIS_STREAMS_PER_CLIENT", 64),
            streams_per_game=number("TIGRIS_STREAMS_PER_GAME", 500),
            stream_ticket_ttl_s=number("TIGRIS_STREAM_TICKET_TTL", 60),
            stream_concurrency=number("TIGRIS_STREAM_CONCURRENCY", 2),
            cors_origins=tuple(origins or ()),
        )
