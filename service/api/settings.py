"""Settings of the HTTP layer, from the ``create_app`` config mapping, else the environment
(the table of all settings: ``docs/configuration.md``).

Blocking stream reads use their own Redis pool of ``TIGRIS_STREAMS_MAX`` connections whose
socket timeout is the heartbeat plus a margin (``service.store.connect``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import field_validator
from pydantic_settings import NoDecode

from service.config import EnvSettings, setting

MIN_ADMIN_TOKEN_LENGTH = 16
# A stream's blocking read lasts up to one heartbeat; the Redis client for it is built
# with a socket timeout above this (service.store.connect.blocking_client).
MAX_HEARTBEAT_S = 300.0
# The longest wait a request may ask for at all (the contract's bound); the setting below
# cuts it further.
MAX_HOLD_S = 3600
_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.\[\]:-]+$")


class ApiSettings(EnvSettings):
    """The HTTP API: admin access, request sizes, event streams, CORS, logs."""

    admin_token: str | None = setting(
        None,
        "The admin token (unset: no admin access at all); a short one could be guessed.",
        min_length=MIN_ADMIN_TOKEN_LENGTH,
    )
    max_body_bytes: int = setting(
        64 * 1024,
        "Largest accepted request body in bytes.",
        ge=1024,
        validation_alias="TIGRIS_MAX_BODY",
    )
    sse_heartbeat_s: float = setting(
        15.0,
        "Seconds between keep-alive comments on an event stream.",
        gt=0,
        le=MAX_HEARTBEAT_S,
        validation_alias="TIGRIS_SSE_HEARTBEAT",
    )
    redis_max_connections: int = setting(
        1024, "Redis connections per server process for commands and reads.", ge=1
    )
    max_streams: int = setting(
        2000,
        "Open event streams per server process (then 503).",
        ge=1,
        validation_alias="TIGRIS_STREAMS_MAX",
    )
    streams_per_client: int = setting(
        64, "Open event streams per client address per server process (then 429).", ge=1
    )
    streams_per_game: int = setting(
        500, "Open event streams per game per server process (then 429).", ge=1
    )
    stream_ticket_ttl_s: int = setting(
        60,
        "Seconds a stream ticket stays valid.",
        ge=1,
        validation_alias="TIGRIS_STREAM_TICKET_TTL",
    )
    stream_concurrency: int = setting(
        2, "Event streams per server process building a batch at one time.", ge=1
    )
    max_wait_s: int = setting(
        60,
        "Longest hold, in seconds, of an answer that waits for the caller's turn "
        "(``Prefer: wait=N`` on a command, ``?wait=`` on pending and legal-commands); a "
        "longer wait asked for is cut to it.",
        ge=0,
        le=MAX_HOLD_S,
        validation_alias="TIGRIS_MAX_WAIT",
    )
    stream_buffer: int = setting(
        1000,
        "Events an event stream may fall behind its game (its client reading too slowly) "
        "before it is closed; the client reconnects with ``Last-Event-ID``.",
        ge=1,
    )
    cors_origins: Annotated[tuple[str, ...], NoDecode] = setting(
        (), "Comma-separated origins (``scheme://host[:port]``) allowed by CORS (unset: none)."
    )
    openapi_path: Path | None = setting(
        None, "The OpenAPI document to serve (unset: the repository's ``openapi.yaml``)."
    )
    player_signup: Literal["open", "admin"] = setting(
        "open",
        "Who may make players (``POST /players``): ``open``, anyone (limited per client "
        "address like every request), or ``admin``, the admin token only.",
    )
    request_log: bool = setting(
        True, "Log one JSON line per request (``off``: only the other log lines)."
    )

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split(cls, raw: Any) -> Any:
        if isinstance(raw, str):
            return tuple(origin.strip() for origin in raw.split(",") if origin.strip())
        return raw

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, origins: tuple[str, ...]) -> tuple[str, ...]:
        for origin in origins:
            if not _ORIGIN.match(origin):
                raise ValueError(f"{origin!r} is not a scheme://host[:port]")
        return origins

    @classmethod
    def load(cls, config: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Self:
        """From ``create_app``'s config mapping, else ``env`` (default: the environment)."""
        return cls.from_config(config, env)
