"""The HTTP API: a Flask application factory (nothing happens at import time).

``create_app(config)`` wires one blueprint per resource onto the application service
(``service.application.game_service.GameService``) and the seat credentials
(``service.application.tokens.Credentials``). ``config`` may hold:

- any setting, by its environment variable's name (``REDIS_URL``, ``TIGRIS_ADMIN_TOKEN``…;
  ``docs/configuration.md``): overrides the environment's. Without any ``REDIS_URL`` the
  embedded Redis is started (or attached to)
- ``GAME_SERVICE``: a ready ``GameService`` (tests, e.g. with another clock); needs REDIS_URL
  (for the seat tokens and stream tickets)
- ``STORE_CHECKED``: true when the caller has already checked ``REDIS_URL`` (``python -m
  service`` does, before gunicorn forks its workers). Otherwise ``create_app`` refuses a
  ``REDIS_URL`` that does not answer or is of the wrong kind (``StoreConfigError``); with
  it, a worker that gunicorn restarts while Redis is briefly down still boots (a worker
  that cannot boot makes gunicorn stop the whole server).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask
from werkzeug.routing import BaseConverter

from service.api import (
    background,
    compression,
    http,
    language,
    limits,
    logs,
    ops,
    problems,
    streams,
)
from service.api.context import EXTENSION, Services
from service.api.fanout import FanOut
from service.api.settings import ApiSettings
from service.application.game_service import GameService, build_service
from service.application.observer import Observer
from service.application.tokens import Credentials
from service.config import ArchiveSettings, LogSettings, StoreSettings
from service.store.archive_objects import ArchiveObserver, ObserverPair
from service.store.connect import check_store, redis_client, serving
from service.store.port import GAME_ID_PATTERN
from service.store.redis_archive_stats import RedisArchiveStats
from service.store.redis_tokens import RedisTokenStore
from service.web import blueprint as web_client

# Games kept folded in memory per server process (see GameService's cache).
GAME_CACHE_SIZE = 2048
# Blocking-read connections beyond the stream limit (a stream closing while another opens).
STREAM_POOL_SPARE = 32
STORE_CHECKED = "STORE_CHECKED"
SYNC_CACHE_SIZE = 4096  # views and hooks remembered as synchronous (a few dozen exist)


class GameIdConverter(BaseConverter):
    """Game ids as the store accepts them; anything else is simply not a route (404).
    ``import`` is no game id here: ``/games/import`` is its own resource."""

    regex = f"(?!import(?![A-Za-z0-9_-])){GAME_ID_PATTERN}"


class RequestIdConverter(BaseConverter):
    regex = r"[0-9a-f]{32}"


class VersionConverter(BaseConverter):
    """A game version in a path, written canonically: ASCII digits, no leading zero (werkzeug's
    ``int`` takes ``007`` and non-ASCII digits such as ``٣``). Anything else is not a route."""

    regex = r"[1-9][0-9]{0,12}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class TigrisFlask(Flask):
    """Flask, remembering which views and hooks are coroutines: ``ensure_sync`` runs for each
    hook and view of every request, and asking ``inspect`` each time costs as much as a
    small hook."""

    def __init__(self, import_name: str) -> None:
        super().__init__(import_name)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        found = self._sync.get(func)
        if found is None:
            found = super().ensure_sync(func)
            if len(self._sync) < SYNC_CACHE_SIZE:  # one-off callables are not kept
                self._sync[func] = found
        return found


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    config = dict(config or {})
    settings = ApiSettings.load(config)
    app = TigrisFlask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]  # keep fields in schema order
    app.url_map.converters["gid"] = GameIdConverter
    app.url_map.converters["rid"] = RequestIdConverter
    app.url_map.converters["version"] = VersionConverter

    spec_path = settings.openapi_path or ops.default_spec_path()
    spec_text, spec_doc = ops.load_spec(spec_path)
    app.config[ops.SPEC_KEY + "_TEXT"] = spec_text

    # Imported here, not at the top: see service.api.metrics on when prometheus_client
    # may be imported.
    from service.api import metrics

    store_settings = StoreSettings.from_config(config)
    app_metrics = metrics.PrometheusMetrics(metrics.queue_redis_url(config))
    found = _services(config, settings, store_settings, app_metrics, app_metrics)
    if found.archive_stats is not None:
        app_metrics.watch_tiers(found.archive_stats, found.archive_stats.client)
    app.extensions[EXTENSION] = found

    gate = streams.StreamGate(settings, on_change=app_metrics.streams_open)
    app.extensions[streams.GATE_EXTENSION] = gate
    # One follower per watched game and process, shared by its streams (service.api.fanout).
    app.extensions[streams.FANOUT_EXTENSION] = FanOut(
        found.games,
        wait_s=settings.sse_heartbeat_s,
        limit=settings.stream_buffer,
        work=gate.work,
        on_drop=app_metrics.stream_dropped,
    )
    metrics.install(app, app_metrics)
    background.install(app, config, found.games)  # what follows every write: jobs

    logs.install(
        app,
        request_lines=settings.request_log,
        level=LogSettings.from_config(config).log_level,
    )
    problems.install(app)
    streams.install_transport_errors(app)
    # Every blueprint from one list: the contract's (service.api.routes) and the web client.
    from service.api.routes import BLUEPRINTS

    for blueprint in (*BLUEPRINTS, web_client):
        app.register_blueprint(blueprint)
    ops.install_docs(app, spec_doc)
    limits.install(
        app,
        limits.LimitSettings.load(config, store_settings.redis_url, store_settings.key_prefix),
    )
    _install_cors(app, settings)
    http.install(app)
    language.install(app)
    compression.install(app)
    return app


def _install_cors(app: Flask, settings: ApiSettings) -> None:
    """CORS for the configured origins only (none by default: no CORS headers at all).
    Preflights allow the headers commands use; responses expose the ones clients read."""
    if not settings.cors_origins:
        return
    from flask_cors import CORS

    CORS(
        app,
        origins=list(settings.cors_origins),
        methods=["GET", "POST", "OPTIONS"],
        allow_headers=[
            "Authorization",
            "Content-Type",
            "If-Match",
            "Idempotency-Key",
            "Last-Event-ID",
            "Prefer",
            "X-Request-ID",
        ],
        expose_headers=["ETag", "Idempotent-Replayed", "Location", "Retry-After", "X-Request-ID"],
        max_age=600,
        vary_header=True,
    )


def _services(
    config: Mapping[str, Any],
    settings: ApiSettings,
    store_settings: StoreSettings,
    observer: Observer,
    archive_observer: ArchiveObserver,
) -> Services:
    """The application service (``GAME_SERVICE`` if given) and the credentials, on the
    configured Redis; the service reports to ``observer``."""
    check_store(store_settings, require_reachable=not config.get(STORE_CHECKED))
    # Commands and reads share one pool (above redis-py's default of 100); streams block
    # in XREAD on a pool of their own (see build_service).
    pool = settings.redis_max_connections
    given = config.get("GAME_SERVICE")
    stats: RedisArchiveStats | None = None
    if isinstance(given, GameService):
        if not store_settings.redis_url:
            raise ValueError("GAME_SERVICE needs REDIS_URL too (for the seat tokens)")
        client = redis_client(store_settings.redis_url, decode_responses=True, max_connections=pool)
        game_service = given
    else:
        stats = RedisArchiveStats(None, prefix=store_settings.key_prefix)  # client below
        game_service, connection = build_service(
            store_settings,
            cache_size=GAME_CACHE_SIZE,
            max_connections=pool,
            # A stream blocks for at most one heartbeat, on a pool of its own.
            max_wait_s=settings.sse_heartbeat_s,
            max_waiting=settings.max_streams + STREAM_POOL_SPARE,
            observer=observer,
            archive=ArchiveSettings.from_config(config),
            archive_observer=ObserverPair(stats, archive_observer),
        )
        client = connection.client
        stats.client = client
    return Services(
        games=game_service,
        credentials=Credentials(
            RedisTokenStore(client, prefix=store_settings.key_prefix),
            bot_seats=lambda game_id: game_service.queries.game_info(game_id).bots,
            # tokens of an open game are never remembered: a seat may leave, revoking them
            final=lambda game_id: game_service.queries.game_info(game_id).status != "open",
        ),
        settings=settings,
        ready=lambda: serving(client),
        archive_stats=stats,
    )
