"""Production serving: gunicorn with the service's gevent worker (``service.api.worker``).

Why gevent: with threads, every open event stream and every stalled client held a thread,
so a few hundred of them starved commands and health checks. With gevent each connection
is a greenlet: idle streams and slow clients cost memory, and a command never waits for a
free thread. Slow clients are bounded by timeouts (the request head within
``TIGRIS_HEADER_TIMEOUT``, each socket read or write within ``TIGRIS_CLIENT_TIMEOUT``);
streams by per-process limits (``service.api.streams``); each stream blocks on Redis at
most one heartbeat, on a pool of its own. ``tests/benchmarks/bench_isolation.py`` measures it.

Settings: ``TIGRIS_HOST``/``TIGRIS_PORT``, ``TIGRIS_WORKERS`` (processes, default the CPU
count up to 4), ``TIGRIS_WORKER_CONNECTIONS`` (open connections per process, 10000),
``TIGRIS_HEADER_TIMEOUT`` (5 s: complete request head, and idle keep-alive),
``TIGRIS_CLIENT_TIMEOUT`` (30 s), ``TIGRIS_ACCESS_LOG``, ``TIGRIS_LOG_LEVEL``.

Metrics (``service.api.metrics``) are kept per process in ``PROMETHEUS_MULTIPROC_DIR``:
``prepare_metrics_dir`` sets it up before the workers fork, and gunicorn's ``child_exit``
hook marks each worker that exits as dead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_metrics_dir() -> Callable[[], None]:
    """Make ``PROMETHEUS_MULTIPROC_DIR`` an empty directory before gunicorn forks: the one
    given is emptied of an earlier run's files (their counts would be added in), else a
    new temporary one is made and set in the environment. Returns what to call at exit
    (removes a directory made here; leaves a given one)."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        path = Path(given)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink()
        return lambda: None
    made = tempfile.mkdtemp(prefix="tigris-metrics-")
    os.environ[MULTIPROC_ENV] = made
    return lambda: shutil.rmtree(made, ignore_errors=True)


def _worker_exited(server: Any, worker: Any) -> None:
    """gunicorn's ``child_exit`` hook: the worker's live gauges stop counting."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def gunicorn_options(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Gunicorn settings, overridable by the environment (see the module docstring)."""
    env = os.environ if env is None else env
    host = env.get("TIGRIS_HOST", DEFAULT_HOST)
    port = int(env.get("TIGRIS_PORT", str(DEFAULT_PORT)))
    return {
        "bind": f"{host}:{port}",
        "worker_class": "service.api.worker.TigrisWorker",
        "workers": int(env.get("TIGRIS_WORKERS", str(min(os.cpu_count() or 1, 4)))),
        # Greenlets (connections) per process; streams are limited well below it.
        "worker_connections": int(env.get("TIGRIS_WORKER_CONNECTIONS", "10000")),
        # gunicorn's gevent worker reads each request head under this deadline: a client
        # that has not sent complete headers in time (new or kept-alive) is closed.
        "keepalive": int(env.get("TIGRIS_HEADER_TIMEOUT", "5")),
        "timeout": 30,  # the worker's own heartbeat runs in the gevent hub: streams never trip it
        "graceful_timeout": 10,
        "backlog": 2048,
        "limit_request_line": 8190,
        "accesslog": env.get("TIGRIS_ACCESS_LOG") or None,
        "errorlog": "-",
        "loglevel": env.get("TIGRIS_LOG_LEVEL", "info"),
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
