"""Production serving: gunicorn with the service's gevent worker (``service.api.worker``).

Why gevent: with threads, every open event stream and every stalled client held a thread,
so a few hundred of them starved commands and health checks. With gevent each connection
is a greenlet: idle streams and slow clients cost memory, and a command never waits for a
free thread. Slow clients are bounded by timeouts (the request head within
``TIGRIS_HEADER_TIMEOUT``, each socket read or write within ``TIGRIS_CLIENT_TIMEOUT``);
streams by per-process limits (``service.api.streams``); each stream blocks on Redis at
most one heartbeat, on a pool of its own. ``tests/benchmarks/bench_isolation.py`` measures it.

Settings: ``ServerSettings`` below (listen address, processes, connections, timeouts, logs;
the table of all settings: ``docs/configuration.md``).

Metrics (``service.api.metrics``) are kept per process in ``PROMETHEUS_MULTIPROC_DIR``:
``prepare_metrics_dir`` sets it up before the workers fork, and gunicorn's ``child_exit``
hook marks each worker that exits as dead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

from service.api.metrics import MULTIPROC_ENV, MetricsSettings
from service.config import EnvSettings, LogSettings, setting

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class ServerSettings(EnvSettings):
    """The server processes: gunicorn's listen address, processes, timeouts and logs."""

    host: str = setting(DEFAULT_HOST, "Listen address (``--host``).")
    port: int = setting(DEFAULT_PORT, "Listen port (``--port``).", ge=0, le=65535)
    workers: int | None = setting(
        None, "Server processes (``--workers``; unset: the CPU count, at most 4).", ge=1
    )
    worker_connections: int = setting(
        10000, "Open connections per server process (``--connections``).", ge=1
    )
    header_timeout: int = setting(
        5,
        "Seconds a client has to send a complete request head, and that an idle "
        "keep-alive connection stays open.",
        ge=1,
    )
    client_timeout: float = setting(
        30.0,
        "Seconds a read or write on a client socket may make no progress before the "
        "connection is closed.",
        gt=0,
    )
    access_log: str | None = setting(
        None, "gunicorn's access log: a file, or ``-`` for stdout (unset: none)."
    )


def prepare_metrics_dir() -> Callable[[], None]:
    """Make ``PROMETHEUS_MULTIPROC_DIR`` an empty directory before gunicorn forks: the one
    given is emptied of an earlier run's files (their counts would be added in), else a
    new temporary one is made and set in the environment. Returns what to call at exit
    (removes a directory made here; leaves a given one)."""
    given = MetricsSettings().prometheus_multiproc_dir
    if given is not None:
        path = given
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink()
        return lambda: None
    made = tempfile.mkdtemp(prefix="tigris-metrics-")
    os.environ[MULTIPROC_ENV] = made
    return lambda: shutil.rmtree(made, ignore_errors=True)


def _worker_exited(server: Any, worker: Any) -> None:
    """gunicorn's ``child_exit`` hook: the worker's live gauges stop counting."""
    if MetricsSettings().prometheus_multiproc_dir is not None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def gunicorn_options(env: Mapping[str, Any] | None = None, **values: Any) -> dict[str, Any]:
    """Gunicorn's options from ``ServerSettings`` of ``env`` (default: the environment),
    ``values`` (by field name, e.g. the command line's) taking precedence."""
    settings = ServerSettings.from_env(env, **values)
    return {
        "bind": f"{settings.host}:{settings.port}",
        "worker_class": "service.api.worker.TigrisWorker",
        "workers": settings.workers or min(os.cpu_count() or 1, 4),
        # Greenlets (connections) per process; streams are limited well below it.
        "worker_connections": settings.worker_connections,
        # gunicorn's gevent worker reads each request head under this deadline: a client
        # that has not sent complete headers in time (new or kept-alive) is closed.
        "keepalive": settings.header_timeout,
        "timeout": 30,  # the worker's own heartbeat runs in the gevent hub: streams never trip it
        "graceful_timeout": 10,
        "backlog": 2048,
        "limit_request_line": 8190,
        "accesslog": settings.access_log,
        "errorlog": "-",
        "loglevel": LogSettings.from_env(env).log_level,
        "proc_name": "tigris-rules",
        # gunicorn >= 24's control socket (one shared path under $HOME) is not used here;
        # without this, several instances on one machine would contend for it.
        "control_socket_disable": True,
        "child_exit": _worker_exited,
    }


class GunicornServer(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped
    """Gunicorn in this process; each worker builds its own app (own Redis connections)."""

    def __init__(self, options: Mapping[str, Any], config: Mapping[str, Any] | None = None):
        self._options = dict(options)
        self._app_config = dict(config or {})
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            if value is not None and key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self) -> Flask:
        from service.api import create_app

        return create_app(self._app_config)
